//! `karc restore`: the original CSV, byte for byte, its digest checked; or
//! (a `.parquet`, `.arrow`, `.feather` or `.ipc` output) the original
//! Arrow table rebuilt from it.

use std::process::ExitCode;

use anyhow::Result;
use karc::api::{self, RESTORE_CHECKS, RestoreResult, format_name};
use karc::api::{Access, Input, Output, input_name};
use karc::api::{TableFormat, write_batch};

use crate::cli::RestoreArgs;
use crate::files::refuse_overwriting;
use crate::json::Json;
use crate::keys::{claim_check, key_options};

pub fn run(args: RestoreArgs, json: Json) -> Result<ExitCode> {
    let output = Output::new(&args.output, Access::Private)?;
    let key_options = key_options(&args.key)?;
    let mut inputs = key_options.files();
    inputs.push(args.input.clone());
    refuse_overwriting(&inputs, &[Some(&output)])?;
    crate::files::refuse_existing(&args.output, args.force)?;
    let key = key_options.key()?;
    let spinner = crate::progress::spinner("restoring");
    let name = input_name(&args.input);
    let bytes = Input::open_arg(&args.input)?.into_vec();
    crate::sign::check_before_writing(&name, &bytes, &args.signer)?;
    let check = claim_check(args.no_privacy_check);
    let format = TableFormat::from_path(&args.output);
    if format != TableFormat::Csv {
        // The original is restored and checked whole, then rebuilt as the
        // Arrow table it was (a CSV input: its columns as strings).
        let batch = api::open_and_restore_batch(&name, bytes, check, key.as_ref())?;
        output.write(|w| write_batch(w, &output.name(), format, &batch))?;
        let rows = batch.num_rows() as u64;
        spinner.finish_and_clear();
        return tell(&args, &output, format, None, Some(rows), json);
    }
    let len = if output.is_direct() {
        // Bytes written to a pipe or a terminal cannot be taken back: they
        // leave only once the restore checked them.
        let original = api::open_and_restore_bytes(&name, bytes, check, key.as_ref())?;
        output.write_bytes(&original)?;
        original.len() as u64
    } else {
        // A row group at a time (a streamed file is never whole in memory);
        // the file gets its name only once every check passed.
        output.write(|w| {
            api::open_and_restore(&name, bytes, check, key.as_ref(), &mut |b| {
                w.write_all(b)
                    .map_err(|e| karc::api::Error::io(output.name(), e))
            })
        })?
    };
    spinner.finish_and_clear();
    tell(&args, &output, format, Some(len), None, json)
}

/// What a restore says at the end: on stderr, or as its `--json` document.
fn tell(
    args: &RestoreArgs,
    output: &Output,
    format: TableFormat,
    bytes: Option<u64>,
    rows: Option<u64>,
    json: Json,
) -> Result<ExitCode> {
    let result = RestoreResult {
        input: input_name(&args.input).display().to_string(),
        output: output.name().display().to_string(),
        format: format_name(format),
        bytes,
        rows,
        verified: RESTORE_CHECKS.to_vec(),
    };
    if json.on() {
        json.print(&result)?;
    } else {
        let what = match (bytes, rows) {
            (Some(b), _) => format!("{b} bytes"),
            (None, r) => format!("{} rows", r.unwrap_or(0)),
        };
        // One write: eprintln! writes each piece of its format on its own,
        // each a chance for a loaded machine to run something else first.
        let line = format!(
            "{}: restored {what}, public part (BLAKE3) and CRC-32 verified\n",
            result.output
        );
        let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
    }
    Ok(ExitCode::SUCCESS)
}
