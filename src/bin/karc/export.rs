//! `karc export`: the release as CSV, byte-equal to `karc anonymize`, or
//! as Parquet or Arrow IPC (by the output's extension).

use std::process::ExitCode;

use anyhow::Result;
use karc::api::{Access, Output, input_name};
use karc::api::{ExportResult, format_name};
use karc::api::{TableFormat, write_batches};

use crate::cli::ExportArgs;
use crate::files::{open_archive_to_export, refuse_overwriting};
use crate::json::Json;
use crate::keys::claim_check;

pub fn run(args: ExportArgs, json: Json) -> Result<ExitCode> {
    let output = Output::new(&args.output, Access::Public)?;
    refuse_overwriting(std::slice::from_ref(&args.input), &[Some(&output)])?;
    crate::files::refuse_existing(&args.output, args.force)?;
    let archive = open_archive_to_export(&args.input, claim_check(args.no_privacy_check))?;
    if !args.signer.signers.is_empty() {
        archive.verify_signature(&crate::sign::trusted(&args.signer)?)?;
    }
    let format = TableFormat::from_path(&args.output);
    let bytes = match format {
        TableFormat::Csv => {
            // Written as it is made, a row group at a time.
            let bytes = output.write(|inner| {
                let mut counted = Counted { inner, bytes: 0 };
                archive.export_csv(&mut counted)?;
                Ok(counted.bytes)
            })?;
            Some(bytes)
        }
        format => {
            let mut batches = archive.release_batches();
            output.write(|w| write_batches(w, &output.name(), format, &mut batches))?;
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

/// A writer that counts the bytes it passes on.
struct Counted<'a> {
    inner: &'a mut dyn std::io::Write,
    bytes: u64,
}

impl std::io::Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
