//! `karc export`: the release as CSV, byte-equal to `karc anonymize`, or
//! as Parquet or Arrow IPC (by the output's extension).

use std::process::ExitCode;

use anyhow::Result;
use karc::api::{Access, Output, input_name};
use karc::api::{ExportResult, format_name};
use karc::api::{TableFormat, write_batch};

use crate::cli::ExportArgs;
use crate::files::{open_archive, refuse_overwriting};
use crate::json::Json;
use crate::keys::claim_check;

pub fn run(args: ExportArgs, json: Json) -> Result<ExitCode> {
    let output = Output::new(&args.output, Access::Public)?;
    refuse_overwriting(std::slice::from_ref(&args.input), &[Some(&output)])?;
    crate::files::refuse_existing(&args.output, args.force)?;
    let archive = open_archive(&args.input, claim_check(args.no_privacy_check))?;
    if !args.signer.signers.is_empty() {
        archive.verify_signature(&crate::sign::trusted(&args.signer)?)?;
    }
    let format = TableFormat::from_path(&args.output);
    let bytes = match format {
        TableFormat::Csv => {
            let mut bytes = Vec::new();
            archive.export_csv(&mut bytes)?;
            output.write_bytes(&bytes)?;
            Some(bytes.len() as u64)
        }
        format => {
            let batch = archive.release_batch()?;
            output.write(|w| write_batch(w, &output.name(), format, &batch))?;
            None
        }
    };
    json.print(&ExportResult {
        input: input_name(&args.input).display().to_string(),
        output: output.name().display().to_string(),
        format: format_name(format),
        rows: archive.reader().rows() as u64,
        bytes,
        claim_checked: !args.no_privacy_check,
    })?;
    Ok(ExitCode::SUCCESS)
}
