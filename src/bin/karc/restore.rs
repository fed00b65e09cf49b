//! `karc restore`: the original CSV, byte for byte, its digest checked.

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
        "{}: restored {} bytes, {} verified",
        args.output.display(),
        bytes.len(),
        archive.digest_kind().name()
    );
    Ok(ExitCode::SUCCESS)
}
