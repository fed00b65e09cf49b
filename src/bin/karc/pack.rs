//! `karc pack`: CSV + config -> `.karc` (release + sealed original).

use std::process::ExitCode;

use anyhow::{Result, anyhow, bail};
use karc::api::DiffMode;
use karc::api::TableInput;
use karc::api::{self, PackOptions, PackResult, StreamPackFigures, seal_name};
use karc::api::{Access, Output, input_name};

use crate::anonymize::{load_config, report_output};
use crate::cli::PackArgs;
use crate::files::refuse_overwriting;
use crate::json::Json;
use crate::keys::seal_options;

pub fn run(args: PackArgs, json: Json) -> Result<ExitCode> {
    let seal_options = seal_options(&args.seal)?;
    let seal = seal_options.seal()?;
    let mode = match &args.mode {
        Some(m) => m.parse::<DiffMode>().map_err(|e| anyhow!("--mode: {e}"))?,
        None => DiffMode::default(),
    };
    let mut config = load_config(&args.anonymizer)?;
    args.models.apply(&mut config);
    // The archive holds the original: readable by its owner only.
    let output = Output::new(&args.output, Access::Private)?;
    let report_json = report_output(args.report_json.as_deref())?;
    let mut inputs = api::config_files(&config);
    inputs.extend(seal_options.files());
    inputs.extend(crate::sign::sign_files(&args.sign));
    inputs.push(args.input.clone());
    refuse_overwriting(&inputs, &[Some(&output), report_json.as_ref()])?;
    let encryption = seal_name(&seal);
    let options = PackOptions {
        mode,
        seal,
        group_rows: args.group_rows,
    };
    // The key is opened (its passphrase asked) before any work.
    let signer = crate::sign::signer(&args.sign)?;
    if args.stream {
        return pack_stream(
            &args,
            &config,
            &options,
            signer,
            &output,
            report_json.as_ref(),
            json,
        );
    }
    if let Some(flag) = stream_only(&args) {
        bail!("{flag} applies to a streamed pack: add --stream");
    }
    api::check_algorithm(&config)?;
    let spinner = crate::progress::spinner("anonymizing");
    // Read once: the table and the sealed original are the same bytes (an
    // Arrow table's canonical CSV).
    let original = TableInput::open(&args.input)?;
    let a = api::anonymize(&config, &input_name(&args.input), &original)?;
    spinner.set_message("encoding and sealing");
    let mut packed = api::pack(&config, a, &original, &options)?;
    if let Some(signer) = &signer {
        spinner.set_message("signing");
        packed.bytes = api::sign_packed(&output.name(), &packed.bytes, signer)?;
    }
    output.write_bytes(&packed.bytes)?;
    spinner.finish_and_clear();
    crate::anonymize::tell_report(&packed.report, report_json.as_ref(), json)?;
    let result = PackResult {
        input: input_name(&args.input).display().to_string(),
        output: output.name().display().to_string(),
        file_bytes: packed.bytes.len() as u64,
        original_bytes: original.csv.len() as u64,
        mode: mode.name().to_owned(),
        encryption,
        report: packed.report,
        stream: None,
    };
    tell_written(&args, &result, json)?;
    Ok(ExitCode::SUCCESS)
}

/// The first streaming flag given to a batch pack, which it would not use.
fn stream_only(args: &PackArgs) -> Option<&'static str> {
    let p = &args.stream_params;
    [
        (p.delay.is_some(), "--delay"),
        (p.tau.is_some(), "--tau"),
        (p.c0.is_some(), "--c0"),
        (p.castle_beta.is_some(), "--castle-beta"),
        (p.mu.is_some(), "--mu"),
        (p.pid.is_some(), "--pid"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag))
}

/// What every pack says at the end: the file's size against the CSV's (or
/// the `--json` document), and the warning an unencrypted private part
/// deserves.
fn tell_written(args: &PackArgs, result: &PackResult, json: Json) -> Result<()> {
    if json.on() {
        json.print(result)?;
    } else {
        eprintln!(
            "{}: {} bytes ({} mode) from {} bytes of CSV",
            result.output, result.file_bytes, result.mode, result.original_bytes
        );
    }
    if args.seal.no_encryption {
        eprintln!(
            "karc: warning: --no-encryption: the private part is NOT encrypted; anyone with {} can restore the original data",
            result.output
        );
    }
    Ok(())
}

/// `karc pack --stream`: FADS or CASTLE feeding the archive writer.
fn pack_stream(
    args: &PackArgs,
    config: &karc::api::Config,
    options: &PackOptions,
    signer: Option<api::Signer>,
    output: &Output,
    report_json: Option<&Output>,
    json: Json,
) -> Result<ExitCode> {
    let p = &args.stream_params;
    let spinner = crate::progress::spinner("anonymizing and packing the stream");
    let packed = api::pack_stream(
        config,
        &args.input,
        output,
        options,
        &api::StreamPackOptions {
            params: crate::stream::overrides(args.anonymizer.k, args.anonymizer.config.seed, p),
            pid: p.pid.clone(),
            group_rows: args.group_rows,
            sign: signer,
        },
    )?;
    spinner.finish_and_clear();
    let report = packed.report;
    // The report as a batch pack tells it, then what only a stream has.
    crate::anonymize::tell_report(&report.report, report_json, json)?;
    let s = &report.summary;
    if !json.on() {
        eprintln!(
            "karc pack --stream: {} row group(s), {} clusters, {} rows by reuse, longest delay {} arrivals",
            report.groups, s.clusters, s.reused, s.max_delay
        );
    }
    let result = PackResult {
        input: input_name(&args.input).display().to_string(),
        output: output.name().display().to_string(),
        file_bytes: report.file_bytes,
        original_bytes: report.original_len,
        mode: options.mode.name().to_owned(),
        encryption: seal_name(&options.seal),
        stream: Some(StreamPackFigures {
            groups: report.groups,
            clusters: s.clusters,
            reused: s.reused,
            max_delay: s.max_delay,
        }),
        report: report.report,
    };
    tell_written(args, &result, json)?;
    Ok(ExitCode::SUCCESS)
}
