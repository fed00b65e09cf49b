//! Signed archives: `karc keygen --signing`, `karc sign`, and the
//! `--sign KEY` and `--signer PUB` flags of the other commands. Secret keys
//! and passphrases are read, never shown.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use karc::api::{self, Error, PublicKey, SignOptions, Signer};
use karc::api::{Access, Output, input_name};
use karc::api::{SignResult, SigningKeygenResult};

use crate::cli::{KeygenArgs, SignArgs, SignKeyArgs, SignerArgs};
use crate::files::{open_archive, refuse_overwriting};
use crate::json::Json;
use crate::keys::{ask, ask_new_passphrase};

/// The signer `--sign KEY` names (its passphrase asked only when the key
/// is protected and no file gives it), or `None`.
pub fn signer(args: &SignKeyArgs) -> Result<Option<Signer>> {
    let Some(key) = &args.key else {
        return Ok(None);
    };
    let options = SignOptions {
        key: key.clone(),
        passphrase_file: args.passphrase_file.clone(),
        ..SignOptions::default()
    };
    Ok(Some(
        options.signer(&mut || ask("Signing key passphrase: "))?,
    ))
}

/// The keys `--signer` names (none: no signature check asked for).
pub fn trusted(args: &SignerArgs) -> Result<Vec<PublicKey>> {
    Ok(args
        .signers
        .iter()
        .map(|s| api::public_key(s))
        .collect::<karc::api::Result<_>>()?)
}

/// The key files `--sign` reads (an output must not replace them).
pub fn sign_files(args: &SignKeyArgs) -> Vec<PathBuf> {
    args.key
        .iter()
        .chain(&args.passphrase_file)
        .cloned()
        .collect()
}

/// `karc keygen --signing -o FILE`: the secret key to FILE (owner only),
/// the public key to FILE.pub and its line to standard output.
pub fn keygen(args: KeygenArgs, json: Json) -> Result<ExitCode> {
    let secret = args.output.as_deref().expect("--signing requires -o");
    if karc::api::is_std(secret) {
        return Err(Error::Options(
            "--signing: give -o FILE: the secret key goes to FILE and the public key to FILE.pub"
                .to_owned(),
        )
        .into());
    }
    let mut public = secret.as_os_str().to_owned();
    public.push(".pub");
    let public = PathBuf::from(public);
    for path in [secret, public.as_path()] {
        if !args.force && std::fs::symlink_metadata(path).is_ok() {
            return Err(Error::Options(format!(
                "{}: the file exists: a key is never overwritten without --force (signatures \
                 made with it could no longer be told from another key's)",
                path.display()
            ))
            .into());
        }
    }
    let passphrase = match (&args.passphrase_file, args.passphrase) {
        (Some(f), _) => Some(karc::api::read_passphrase(f)?),
        (None, true) => Some(ask_new_passphrase()?.into()),
        (None, false) => None,
    };
    let key = api::signing_keygen(passphrase.as_ref())?;
    let secret_out = Output::new(secret, Access::Private)?;
    let public_out = Output::new(&public, Access::Public)?;
    secret_out.write_bytes(karc::api::expose(&key.secret_text).as_bytes())?;
    public_out.write_bytes(key.public_text().as_bytes())?;
    if json.on() {
        json.print(&SigningKeygenResult {
            secret_key_file: secret.display().to_string(),
            public_key_file: public.display().to_string(),
            key_id: key.key_id(),
            public_key: key.public_line(),
            protected: passphrase.is_some(),
        })?;
    } else {
        println!("{}", key.public_line());
        eprintln!(
            "karc keygen: signing key {} written: secret key {} (keep it private{}), public key {}",
            key.key_id(),
            secret.display(),
            if passphrase.is_some() {
                ", protected by the passphrase"
            } else {
                "; no passphrase"
            },
            public.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `karc sign FILE --key KEY`: the file signed in place (or to -o), or
/// with `--detached` FILE.minisig written.
pub fn run(args: SignArgs, json: Json) -> Result<ExitCode> {
    let output_path = match (&args.output, args.detached) {
        (Some(o), _) => o.clone(),
        (None, true) => {
            let mut p = args.input.as_os_str().to_owned();
            p.push(".minisig");
            PathBuf::from(p)
        }
        (None, false) => args.input.clone(),
    };
    let in_place = output_path == args.input;
    if in_place && karc::api::is_std(&args.input) {
        return Err(Error::Options(
            "karc sign -: give -o for the signed file (standard input cannot be replaced)"
                .to_owned(),
        )
        .into());
    }
    // The archive keeps its access: it holds the private part.
    let access = if args.detached {
        Access::Public
    } else {
        Access::Private
    };
    let output = Output::new(&output_path, access)?;
    let options = SignOptions {
        key: args.key.clone(),
        passphrase_file: args.passphrase_file.clone(),
        ..SignOptions::default()
    };
    if !in_place {
        let mut inputs = options.files();
        inputs.push(args.input.clone());
        refuse_overwriting(&inputs, &[Some(&output)])?;
    }
    let signer = options.signer(&mut || ask("Signing key passphrase: "))?;
    let archive = open_archive(&args.input, api::ClaimCheck::Enforce)?;
    let bytes = match args.detached {
        true => archive.detached_signature(&signer)?.into_bytes(),
        false => archive.signed(&signer)?,
    };
    output.write_bytes(&bytes)?;
    let status = match args.detached {
        true => None,
        false => api::open(&output.name(), bytes, api::ClaimCheck::Skip)?.signature(),
    };
    let result = SignResult {
        input: input_name(&args.input).display().to_string(),
        output: output.name().display().to_string(),
        kind: if args.detached {
            "detached"
        } else {
            "embedded"
        },
        key_id: signer.key.public().id(),
        trusted_comment: status
            .map_or_else(|| archive.trusted_comment(&signer), |s| s.trusted_comment),
    };
    if json.on() {
        json.print(&result)?;
    } else {
        eprintln!(
            "{}: signed by key {} ({}): {}",
            result.output, result.key_id, result.kind, result.trusted_comment
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `--signer` given: the file's signature checked before anything is
/// written (a failed check ends the command with exit 1).
pub fn check_before_writing(name: &Path, bytes: &[u8], args: &SignerArgs) -> Result<()> {
    if args.signers.is_empty() {
        return Ok(());
    }
    let keys = trusted(args)?;
    let verified = api::check_signature(name, bytes, &keys)?;
    if verified.private_absent {
        eprintln!(
            "karc: {}: signed by key {} (private part absent: a published copy)",
            name.display(),
            verified.key_id
        );
    }
    Ok(())
}
