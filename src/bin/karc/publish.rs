//! `karc publish`: the same archive without its private part.

use std::process::ExitCode;

use anyhow::Result;
use karc::api::ClaimCheck;
use karc::io::{Access, Output};

use crate::cli::PublishArgs;
use crate::files::{open_archive, refuse_overwriting};

pub fn run(args: PublishArgs) -> Result<ExitCode> {
    let output = Output::new(&args.output, Access::Public)?;
    refuse_overwriting(std::slice::from_ref(&args.input), &[Some(&output)])?;
    let archive = open_archive(&args.input, ClaimCheck::Enforce)?;
    // The copy must open and verify as it is before it leaves.
    let bytes = archive.published(&output.name())?;
    output.write_bytes(&bytes)?;
    eprintln!(
        "{}: {} bytes, release only (no private part)",
        output.name().display(),
        bytes.len()
    );
    Ok(ExitCode::SUCCESS)
}
