//! `karc export`: the release as CSV, byte-equal to `karc anonymize`, or
//! as Parquet or Arrow IPC (by the output's extension).

use std::process::ExitCode;

use anyhow::Result;
use karc::arrow::{TableFormat, write_batch};
use karc::io::{Access, Output};

use crate::cli::ExportArgs;
use crate::files::{open_archive, refuse_overwriting};
use crate::keys::claim_check;

pub fn run(args: ExportArgs) -> Result<ExitCode> {
    let output = Output::new(&args.output, Access::Public)?;
    refuse_overwriting(std::slice::from_ref(&args.input), &[Some(&output)])?;
    let archive = open_archive(&args.input, claim_check(args.no_privacy_check))?;
    match TableFormat::from_path(&args.output) {
        TableFormat::Csv => {
            let mut bytes = Vec::new();
            archive.export_csv(&mut bytes)?;
            output.write_bytes(&bytes)?;
        }
        format => {
            let batch = archive.release_batch()?;
            output.write(|w| write_batch(w, &output.name(), format, &batch))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
