//! `karc export`: the release as CSV, byte-equal to `karc anonymize`.

use std::process::ExitCode;

use anyhow::Result;
use karc::io::{Access, Output};

use crate::cli::ExportArgs;
use crate::files::{open_archive, refuse_overwriting};
use crate::keys::claim_check;

pub fn run(args: ExportArgs) -> Result<ExitCode> {
    let output = Output::new(&args.output, Access::Public)?;
    refuse_overwriting(std::slice::from_ref(&args.input), &[Some(&output)])?;
    let archive = open_archive(&args.input, claim_check(args.no_privacy_check))?;
    let mut bytes = Vec::new();
    archive.export_csv(&mut bytes)?;
    output.write_bytes(&bytes)?;
    Ok(ExitCode::SUCCESS)
}
