//! `karc pack`: CSV + config -> `.karc` (release + sealed original).

use std::process::ExitCode;

use anyhow::{Result, anyhow};
use karc::archive::writer::{self, Anonymization, PackOptions};
use karc::codec::DiffMode;
use karc::io::{Input, write_atomically};
use karc::privacy::PrivacyModel;

use crate::anonymize::{anonymize_input, load_config};
use crate::cli::PackArgs;
use crate::keys::seal_from;

pub fn run(args: PackArgs) -> Result<ExitCode> {
    let seal = seal_from(&args.seal)?;
    let mode = match &args.mode {
        Some(m) => m.parse::<DiffMode>().map_err(|e| anyhow!("--mode: {e}"))?,
        None => DiffMode::default(),
    };
    let config = load_config(&args.anonymizer)?;
    if args.stream {
        return pack_stream(&args, &config, mode, &seal);
    }
    let spinner = crate::progress::spinner("anonymizing");
    let a = anonymize_input(&config, &args.input)?;
    spinner.set_message("encoding and sealing");
    let model = PrivacyModel::from_config(&config, &a.data)?;
    let original = Input::open(&args.input)?;
    let bytes = writer::pack(
        &Anonymization {
            config: &config,
            data: &a.data,
            model: &model,
            outcome: &a.outcome,
            report: &a.report,
        },
        &original,
        &PackOptions { mode, seal: &seal },
    )?;
    write_atomically(&args.output, |w| w.write_all(&bytes))?;
    spinner.finish_and_clear();
    crate::anonymize::tell_report(&a.report, args.report_json.as_deref())?;
    tell_written(&args, bytes.len() as u64, mode, original.len() as u64);
    Ok(ExitCode::SUCCESS)
}

/// What every pack says at the end: the file's size against the CSV's, and
/// the warning an unencrypted private part deserves.
fn tell_written(args: &PackArgs, file_bytes: u64, mode: DiffMode, csv_bytes: u64) {
    eprintln!(
        "{}: {file_bytes} bytes ({mode} mode) from {csv_bytes} bytes of CSV",
        args.output.display(),
    );
    if args.seal.no_encryption {
        eprintln!(
            "karc: warning: --no-encryption: the private part is NOT encrypted; anyone with {} can restore the original data",
            args.output.display()
        );
    }
}

/// `karc pack --stream`: FADS or CASTLE feeding the archive writer.
fn pack_stream(
    args: &PackArgs,
    config: &karc::config::Config,
    mode: DiffMode,
    seal: &karc::archive::seal::Seal,
) -> Result<ExitCode> {
    use karc::archive::stream_pack::{self, StreamPackOptions};
    let algorithm = karc::stream::StreamAlgorithm::from_name(&config.algorithm.name)?;
    let params = crate::stream::stream_params(
        config,
        args.anonymizer.k,
        args.anonymizer.seed,
        &args.stream_params,
    )?;
    let spinner = crate::progress::spinner("anonymizing and packing the stream");
    let start = std::time::Instant::now();
    let report = stream_pack::pack_stream(
        config,
        &args.input,
        &args.output,
        &StreamPackOptions {
            mode,
            seal,
            algorithm,
            params,
            pid: args.stream_params.pid.as_deref(),
            group_rows: args.group_rows.unwrap_or(stream_pack::DEFAULT_GROUP_ROWS),
        },
    )?;
    spinner.finish_and_clear();
    let s = &report.summary;
    eprintln!(
        "karc pack --stream: {}: {} rows in {} row group(s), {} suppressed, average information loss {:.4}, {:.0} ms",
        algorithm.name(),
        s.rows,
        report.groups,
        s.suppressed,
        s.avg_infoloss,
        start.elapsed().as_secs_f64() * 1e3
    );
    tell_written(args, report.file_bytes, mode, report.original_len);
    Ok(ExitCode::SUCCESS)
}
