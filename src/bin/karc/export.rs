//! `karc export`: the release as CSV, byte-equal to `karc anonymize`.

use std::process::ExitCode;

use anyhow::Result;
use karc::archive::reader::Archive;
use karc::io::write_atomically;

use crate::cli::ExportArgs;
use crate::keys::claim_check;

pub fn run(args: ExportArgs) -> Result<ExitCode> {
    let archive = Archive::open(&args.input, claim_check(args.no_privacy_check))?;
    let mut bytes = Vec::new();
    archive.export_csv(&mut bytes)?;
    write_atomically(&args.output, |w| w.write_all(&bytes))?;
    Ok(ExitCode::SUCCESS)
}
