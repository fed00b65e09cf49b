//! Turning the key flags into the facade's sealing and opening options, and
//! `karc keygen`. Secrets (passphrases, secret keys) are read, never shown.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use karc::api::Error;
use karc::api::{Access, Output};
use karc::api::{KeyOptions, KeygenResult, SealOptions};

use crate::cli::{KeyArgs, KeygenArgs, SealArgs};
use crate::json::Json;

/// The sealing flags as the facade takes them (a passphrase asked for or
/// read from the environment is given as text).
pub fn seal_options(args: &SealArgs) -> karc::api::Result<SealOptions> {
    let passphrase = if args.passphrase {
        Some(ask_new_passphrase()?)
    } else {
        args.passphrase_env.as_deref().map(from_env).transpose()?
    };
    Ok(SealOptions {
        recipients: args.recipients.clone(),
        recipients_files: args.recipients_files.clone(),
        passphrase,
        passphrase_file: args.passphrase_file.clone(),
        work_factor: args.work_factor,
        no_encryption: args.no_encryption,
    })
}

/// The opening flags as the facade takes them.
pub fn key_options(args: &KeyArgs) -> karc::api::Result<KeyOptions> {
    let passphrase = if args.passphrase {
        Some(ask("Passphrase: ")?)
    } else {
        args.passphrase_env.as_deref().map(from_env).transpose()?
    };
    Ok(KeyOptions {
        identities: args.identities.clone(),
        passphrase,
        passphrase_file: args.passphrase_file.clone(),
    })
}

/// The passphrase held by environment variable `var` (its value never
/// appears in a message).
fn from_env(var: &str) -> karc::api::Result<String> {
    match std::env::var(var) {
        Ok(p) if !p.is_empty() => Ok(p),
        Ok(_) => Err(Error::Options(format!(
            "--passphrase-env {var}: the variable is empty: expected the passphrase"
        ))),
        Err(std::env::VarError::NotPresent) => Err(Error::Options(format!(
            "--passphrase-env {var}: no such environment variable"
        ))),
        Err(std::env::VarError::NotUnicode(_)) => Err(Error::Options(format!(
            "--passphrase-env {var}: the value is not UTF-8"
        ))),
    }
}

/// A passphrase typed on the terminal, not echoed.
pub fn ask(prompt: &str) -> karc::api::Result<String> {
    let pass = rpassword::prompt_password(prompt).map_err(|e| {
        Error::Options(format!(
            "--passphrase: no terminal to ask on ({e}): use --passphrase-file or --passphrase-env"
        ))
    })?;
    if pass.is_empty() {
        return Err(Error::Options(
            "--passphrase: the passphrase is empty".to_owned(),
        ));
    }
    Ok(pass)
}

/// A new passphrase, typed twice.
pub fn ask_new_passphrase() -> karc::api::Result<String> {
    let pass = ask("Passphrase: ")?;
    if ask("Passphrase (again): ")? != pass {
        return Err(Error::Options(
            "--passphrase: the two passphrases differ".to_owned(),
        ));
    }
    Ok(pass)
}

/// `karc keygen --pseudonym -o FILE`: a new pseudonym key to FILE (owner
/// only), never over an existing file without --force.
pub fn pseudonym_keygen(args: KeygenArgs, json: Json) -> anyhow::Result<ExitCode> {
    let file = args.output.as_deref().expect("--pseudonym requires -o");
    karc::api::pseudonym_keygen(file, args.force, "--force")?;
    if json.on() {
        json.print(&karc::api::PseudonymKeygenResult {
            key_file: file.display().to_string(),
        })?;
    } else {
        eprintln!(
            "karc keygen: pseudonym key written to {} (keep it private: with it, a pseudonym \
             is tied back to its value)",
            file.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `karc keygen`: a new identity to a file (public key on stdout), or to a
/// standard output that is not a terminal (public key on stderr).
pub fn keygen(args: KeygenArgs, json: Json) -> anyhow::Result<ExitCode> {
    if let Some(file) = &args.recipients_of {
        let recipients = karc::api::recipients_of(file)?;
        if json.on() {
            json.print(&KeygenResult {
                created: false,
                identity_file: file.display().to_string(),
                recipients,
            })?;
        } else {
            for r in recipients {
                println!("{r}");
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let to_stdout = match &args.output {
        None if std::io::stdout().is_terminal() => {
            return Err(Error::Options(
                "the identity would show on the terminal: give -o FILE (or -o - to print it anyway)"
                    .to_owned(),
            )
            .into());
        }
        None => true,
        Some(path) => karc::api::is_std(path),
    };
    let identity = karc::api::keygen();
    let text = identity.text().as_bytes();
    let result = |file: String| KeygenResult {
        created: true,
        identity_file: file,
        recipients: vec![identity.recipient.to_string()],
    };
    if to_stdout {
        let mut out = std::io::stdout().lock();
        out.write_all(text)?;
        out.flush()?;
        if json.on() {
            json.print(&result("-".to_owned()))?;
        } else {
            eprintln!("Public key: {}", identity.recipient);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let path = args.output.as_deref().expect("a file");
    if !args.force && std::fs::symlink_metadata(path).is_ok() {
        return Err(Error::Options(format!(
            "{}: the file exists: an identity is never overwritten without --force (what was sealed \
             for its key could not be opened any more)",
            path.display()
        ))
        .into());
    }
    Output::new(path, Access::Private)?.write_bytes(text)?;
    if json.on() {
        json.print(&result(path.display().to_string()))?;
    } else {
        println!("{}", identity.recipient);
    }
    Ok(ExitCode::SUCCESS)
}

/// The check mode of `--no-privacy-check`, with its warning.
pub fn claim_check(skip: bool) -> karc::api::ClaimCheck {
    if skip {
        eprintln!(
            "karc: warning: --no-privacy-check: the privacy claim is NOT checked; \
             use this for forensics on a refused file only, never to publish"
        );
        karc::api::ClaimCheck::Skip
    } else {
        karc::api::ClaimCheck::Enforce
    }
}
