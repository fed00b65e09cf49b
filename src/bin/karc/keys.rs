//! Turning the key flags into the facade's sealing and opening options.

use karc::api::{KeyOptions, SealOptions};

use crate::cli::{KeyArgs, SealArgs};

/// The sealing flags as the facade takes them.
pub fn seal_options(args: &SealArgs) -> SealOptions {
    SealOptions {
        recipients: args.recipients.clone(),
        recipients_files: args.recipients_files.clone(),
        passphrase: None,
        passphrase_file: args.passphrase_file.clone(),
        work_factor: args.work_factor,
        no_encryption: args.no_encryption,
    }
}

/// The opening flags as the facade takes them.
pub fn key_options(args: &KeyArgs) -> KeyOptions {
    KeyOptions {
        identities: args.identities.clone(),
        passphrase: None,
        passphrase_file: args.passphrase_file.clone(),
    }
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
