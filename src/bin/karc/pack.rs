//! `karc pack`: CSV + config -> `.karc` (release + sealed original).

use std::process::ExitCode;

use anyhow::{Result, anyhow, bail};
use karc::anonymize::Algorithm;
use karc::archive::writer::{self, Anonymization, PackOptions};
use karc::arrow::{TableFormat, TableInput};
use karc::codec::DiffMode;
use karc::io::{Access, Output};
use karc::privacy::PrivacyModel;

use crate::anonymize::{anonymize_input, load_config, report_output};
use crate::cli::PackArgs;
use crate::files::{config_files, refuse_overwriting, seal_files};
use crate::keys::seal_from;

pub fn run(args: PackArgs) -> Result<ExitCode> {
    let seal = seal_from(&args.seal)?;
    let mode = match &args.mode {
        Some(m) => m.parse::<DiffMode>().map_err(|e| anyhow!("--mode: {e}"))?,
        None => DiffMode::default(),
    };
    let config = load_config(&args.anonymizer)?;
    // The archive holds the original: readable by its owner only.
    let output = Output::new(&args.output, Access::Private)?;
    let report_json = report_output(args.report_json.as_deref())?;
    let mut inputs = config_files(&config);
    inputs.extend(seal_files(&args.seal));
    inputs.push(args.input.clone());
    refuse_overwriting(&inputs, &[Some(&output), report_json.as_ref()])?;
    if args.stream {
        if TableFormat::from_path(&args.input) != TableFormat::Csv {
            bail!(
                "{}: --stream reads CSV files: pack a Parquet or Arrow IPC table without --stream",
                args.input.display()
            );
        }
        return pack_stream(&args, &config, mode, &seal, &output);
    }
    // An unknown algorithm is refused before the table is read.
    Algorithm::from_name(&config.algorithm.name)?;
    let spinner = crate::progress::spinner("anonymizing");
    // Read once: the table and the sealed original are the same bytes (an
    // Arrow table's canonical CSV).
    let original = TableInput::open(&args.input)?;
    let config = original.config(&config);
    let mut a = anonymize_input(&config, &args.input, &original.csv)?;
    spinner.set_message("encoding and sealing");
    let model = PrivacyModel::from_config(&config, &a.data)?;
    // The released columns replace the outcome's cells, which would
    // otherwise stay beside the pack's own memory (at ten million rows
    // and ten QIs, 1.2 GB of its peak).
    let released = writer::released_columns(&a.data, &a.outcome);
    a.outcome.release.cells = Vec::new();
    let bytes = writer::pack_with_arrow(
        &Anonymization {
            config: &config,
            data: &a.data,
            model: &model,
            released: &released,
            report: &a.report,
        },
        &original.csv,
        original.arrow.as_ref(),
        &PackOptions { mode, seal: &seal },
    )?;
    output.write_bytes(&bytes)?;
    spinner.finish_and_clear();
    crate::anonymize::tell_report(&a.report, report_json.as_ref())?;
    tell_written(
        &args,
        &output,
        bytes.len() as u64,
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
    mode: DiffMode,
    seal: &karc::archive::seal::Seal,
    output: &Output,
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
        output,
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
    tell_written(args, output, report.file_bytes, mode, report.original_len);
    Ok(ExitCode::SUCCESS)
}
