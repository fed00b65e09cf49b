//! `karc publish`: the same archive without its private part.

use std::process::ExitCode;

use anyhow::Result;
use karc::api::{Access, Output, input_name};
use karc::api::{ClaimCheck, PublishResult};

use crate::cli::PublishArgs;
use crate::files::{open_archive_sized, refuse_overwriting};
use crate::json::Json;

pub fn run(args: PublishArgs, json: Json) -> Result<ExitCode> {
    let output = Output::new(&args.output, Access::Public)?;
    refuse_overwriting(std::slice::from_ref(&args.input), &[Some(&output)])?;
    crate::files::refuse_existing(&args.output, args.force)?;
    let (archive, input_bytes) = open_archive_sized(&args.input, ClaimCheck::Enforce)?;
    // The copy must open and verify as it is before it leaves.
    let bytes = archive.published(&output.name())?;
    output.write_bytes(&bytes)?;
    let result = PublishResult {
        input: input_name(&args.input).display().to_string(),
        output: output.name().display().to_string(),
        file_bytes: bytes.len() as u64,
        input_bytes,
    };
    if json.on() {
        json.print(&result)?;
    } else {
        eprintln!(
            "{}: {} bytes, release only (no private part)",
            result.output, result.file_bytes
        );
    }
    Ok(ExitCode::SUCCESS)
}
