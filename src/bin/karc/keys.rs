//! Turning the key flags into the library's sealing and opening keys.

use anyhow::{Result, bail};
use karc::archive::seal::{self, Key, Seal};

use crate::cli::{KeyArgs, SealArgs};

/// The one way of sealing the flags ask for.
pub fn seal_from(args: &SealArgs) -> Result<Seal> {
    let recipients = !args.recipients.is_empty() || !args.recipients_files.is_empty();
    let ways = usize::from(recipients)
        + usize::from(args.passphrase_file.is_some())
        + usize::from(args.no_encryption);
    if ways != 1 {
        bail!(
            "say how to seal the private part: --recipient / --recipients-file, --passphrase-file, \
             or --no-encryption (exactly one of these)"
        );
    }
    if recipients {
        let mut all = Vec::new();
        for (i, r) in args.recipients.iter().enumerate() {
            let which = format!("--recipient {}", i + 1);
            all.push(seal::parse_recipient(r, &which).map_err(karc::Error::from)?);
        }
        for f in &args.recipients_files {
            all.extend(seal::read_recipients_file(f).map_err(karc::Error::from)?);
        }
        return Ok(Seal::Recipients(all));
    }
    if let Some(f) = &args.passphrase_file {
        return Ok(Seal::Passphrase {
            passphrase: seal::read_passphrase_file(f).map_err(karc::Error::from)?,
            work_factor: args.work_factor,
        });
    }
    Ok(Seal::None)
}

/// The key the flags offer, if any.
pub fn key_from(args: &KeyArgs) -> Result<Option<Key>> {
    if let Some(f) = &args.passphrase_file {
        return Ok(Some(Key::Passphrase(
            seal::read_passphrase_file(f).map_err(karc::Error::from)?,
        )));
    }
    let mut identities = Vec::new();
    for f in &args.identities {
        match seal::read_identity_file(f).map_err(karc::Error::from)? {
            Key::Identities(ids) => identities.extend(ids),
            Key::Passphrase(_) => unreachable!("an identity file holds identities"),
        }
    }
    Ok((!identities.is_empty()).then_some(Key::Identities(identities)))
}

/// The check mode of `--no-privacy-check`, with its warning.
pub fn claim_check(skip: bool) -> karc::archive::reader::ClaimCheck {
    if skip {
        eprintln!(
            "karc: warning: --no-privacy-check: the privacy claim is NOT checked; \
             use this for forensics on a refused file only, never to publish"
        );
        karc::archive::reader::ClaimCheck::Skip
    } else {
        karc::archive::reader::ClaimCheck::Enforce
    }
}
