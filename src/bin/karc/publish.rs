//! `karc publish`: the same archive without its private part.

use std::process::ExitCode;

use anyhow::Result;
use karc::archive::reader::{Archive, ClaimCheck};
use karc::io::write_atomically;

use crate::cli::PublishArgs;

pub fn run(args: PublishArgs) -> Result<ExitCode> {
    let archive = Archive::open(&args.input, ClaimCheck::Enforce)?;
    let bytes = archive.published();
    // The copy must open and verify as it is before it leaves.
    Archive::from_bytes(&args.output, bytes.clone(), ClaimCheck::Enforce)?;
    write_atomically(&args.output, |w| w.write_all(&bytes))?;
    eprintln!(
        "{}: {} bytes, release only (no private part)",
        args.output.display(),
        bytes.len()
    );
    Ok(ExitCode::SUCCESS)
}
