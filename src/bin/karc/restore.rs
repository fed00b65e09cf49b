//! `karc restore`: the original CSV, byte for byte, SHA-256 checked.

use std::process::ExitCode;

use anyhow::Result;
use karc::archive::reader::Archive;
use karc::io::write_atomically;

use crate::cli::RestoreArgs;
use crate::keys::{claim_check, key_from};

pub fn run(args: RestoreArgs) -> Result<ExitCode> {
    let key = key_from(&args.key)?;
    let archive = Archive::open(&args.input, claim_check(args.no_privacy_check))?;
    let bytes = archive.restore(key.as_ref())?;
    write_atomically(&args.output, |w| w.write_all(&bytes))?;
    eprintln!(
        "{}: restored {} bytes, SHA-256 verified",
        args.output.display(),
        bytes.len()
    );
    Ok(ExitCode::SUCCESS)
}
