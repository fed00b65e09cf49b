//! `karc pack`: CSV + config -> `.karc` (release + sealed original).

use std::process::ExitCode;

use anyhow::{Result, anyhow};
use karc::api::{self, PackOptions};
use karc::arrow::TableInput;
use karc::codec::DiffMode;
use karc::io::{Access, Output, input_name};

use crate::anonymize::{load_config, report_output};
use crate::cli::PackArgs;
use crate::files::refuse_overwriting;
use crate::keys::seal_options;

pub fn run(args: PackArgs) -> Result<ExitCode> {
    let seal_options = seal_options(&args.seal)?;
    let seal = seal_options.seal()?;
    let mode = match &args.mode {
        Some(m) => m.parse::<DiffMode>().map_err(|e| anyhow!("--mode: {e}"))?,
        None => DiffMode::default(),
    };
    let config = load_config(&args.anonymizer)?;
    // The archive holds the original: readable by its owner only.
    let output = Output::new(&args.output, Access::Private)?;
    let report_json = report_output(args.report_json.as_deref())?;
    let mut inputs = api::config_files(&config);
    inputs.extend(seal_options.files());
    inputs.push(args.input.clone());
    refuse_overwriting(&inputs, &[Some(&output), report_json.as_ref()])?;
    let options = PackOptions { mode, seal };
    if args.stream {
        return pack_stream(&args, &config, &options, &output, report_json.as_ref());
    }
    api::check_algorithm(&config)?;
    let spinner = crate::progress::spinner("anonymizing");
    // Read once: the table and the sealed original are the same bytes (an
    // Arrow table's canonical CSV).
    let original = TableInput::open(&args.input)?;
    let a = api::anonymize(&config, &input_name(&args.input), &original)?;
    spinner.set_message("encoding and sealing");
    let packed = api::pack(&config, a, &original, &options)?;
    output.write_bytes(&packed.bytes)?;
    spinner.finish_and_clear();
    crate::anonymize::tell_report(&packed.report, report_json.as_ref())?;
    tell_written(
        &args,
        &output,
        packed.bytes.len() as u64,
        mode,
        original.csv.len() as u64,
    );
    Ok(ExitCode::SUCCESS)
}

/// What every pack says at the end: the file's size against the CSV's, and
/// the warning an unencrypted private part deserves.
fn tell_written(args: &PackArgs, output: &Output, file_bytes: u64, mode: DiffMode, csv_bytes: u64) {
    let name = output.name();
    eprintln!(
        "{}: {file_bytes} bytes ({mode} mode) from {csv_bytes} bytes of CSV",
        name.display(),
    );
    if args.seal.no_encryption {
        eprintln!(
            "karc: warning: --no-encryption: the private part is NOT encrypted; anyone with {} can restore the original data",
            name.display()
        );
    }
}

/// `karc pack --stream`: FADS or CASTLE feeding the archive writer.
fn pack_stream(
    args: &PackArgs,
    config: &karc::config::Config,
    options: &PackOptions,
    output: &Output,
    report_json: Option<&Output>,
) -> Result<ExitCode> {
    let p = &args.stream_params;
    let spinner = crate::progress::spinner("anonymizing and packing the stream");
    let packed = api::pack_stream(
        config,
        &args.input,
        output,
        options,
        &api::StreamPackOptions {
            params: crate::stream::overrides(args.anonymizer.k, args.anonymizer.seed, p),
            pid: p.pid.clone(),
            group_rows: args.group_rows,
        },
    )?;
    spinner.finish_and_clear();
    let report = &packed.report;
    // The report as a batch pack tells it, then what only a stream has.
    crate::anonymize::tell_report(&report.report, report_json)?;
    let s = &report.summary;
    eprintln!(
        "karc pack --stream: {} row group(s), {} clusters, {} rows by reuse, longest delay {} arrivals",
        report.groups, s.clusters, s.reused, s.max_delay
    );
    tell_written(
        args,
        output,
        report.file_bytes,
        options.mode,
        report.original_len,
    );
    Ok(ExitCode::SUCCESS)
}
