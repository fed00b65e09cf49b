//! `karc stream`: anonymize standard input as a stream, writing each row to
//! standard output as soon as it is published.

use std::io::{BufRead, BufReader};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use karc::config::Config;
use karc::io::is_std;
use karc::stream::{Schema, Stream, StreamAlgorithm, StreamParams, Summary, header_names};
use karc::table::detect_delimiter;
use serde::Serialize;

use crate::cli::{StreamArgs, StreamParamArgs};

/// The `--report-json` of `karc stream`.
#[derive(Debug, Serialize)]
struct StreamReport<'a> {
    algorithm: &'static str,
    #[serde(flatten)]
    params: &'a StreamParams,
    #[serde(flatten)]
    summary: &'a Summary,
    elapsed_ms: f64,
}

/// Reads a numeric `[algorithm]` parameter of the config.
fn param(config: &Config, name: &str) -> Result<Option<f64>> {
    match config.algorithm.params.get(name) {
        None => Ok(None),
        Some(v) => v
            .as_float()
            .or_else(|| v.as_integer().map(|i| i as f64))
            .map(Some)
            .with_context(|| {
                format!(
                    "{}: [algorithm] {name}: expected a number, found {v:?}",
                    config.path.display()
                )
            }),
    }
}

/// Reads a count (a whole number from 1 up) of the config's `[algorithm]`.
fn count(config: &Config, name: &str) -> Result<Option<usize>> {
    match config.algorithm.params.get(name) {
        None => Ok(None),
        Some(v) => v
            .as_integer()
            .and_then(|i| usize::try_from(i).ok())
            .filter(|&i| i >= 1)
            .map(Some)
            .with_context(|| {
                let found = v
                    .as_integer()
                    .map_or_else(|| format!("{v:?}"), |i| i.to_string());
                format!(
                    "{}: [algorithm] {name}: expected a whole number from 1 up, found {found}",
                    config.path.display()
                )
            }),
    }
}

/// The stream parameters from the flags, then the config's `[algorithm]`
/// keys, then the defaults.
pub fn stream_params(
    config: &Config,
    k: Option<usize>,
    seed: Option<u64>,
    args: &StreamParamArgs,
) -> Result<StreamParams> {
    let k = k
        .or(config.privacy.k)
        .context("no k: give --k or [privacy] k")?;
    let delta = match args.delay {
        Some(d) => d,
        None => count(config, "delay")?.context("no delay: give --delay or [algorithm] delay")?,
    };
    let mut params = StreamParams::new(k, delta);
    params.tau = args.tau.or(param(config, "tau")?).unwrap_or(params.tau);
    params.c0 = args.c0.or(param(config, "c0")?).unwrap_or(params.c0);
    params.beta = args.beta.or(count(config, "beta")?).unwrap_or(params.beta);
    params.mu = args.mu.or(count(config, "mu")?).unwrap_or(params.mu);
    params.seed = seed.unwrap_or(config.algorithm.seed);
    params.validate()?;
    Ok(params)
}

pub fn run(args: StreamArgs) -> Result<ExitCode> {
    let config = Config::load(&args.config)?;
    let algorithm = StreamAlgorithm::from_name(
        args.algorithm
            .as_deref()
            .unwrap_or(config.algorithm.name.as_str()),
    )?;
    let params = stream_params(&config, args.k, args.seed, &args.params)?;
    if args.report_json.as_deref().is_some_and(is_std) {
        anyhow::bail!("--report-json -: standard output carries the rows; name a file");
    }
    let report_json = crate::anonymize::report_output(args.report_json.as_deref())?;
    let mut inputs = crate::files::config_files(&config);
    inputs.push(std::path::PathBuf::from("-"));
    crate::files::refuse_overwriting(&inputs, &[report_json.as_ref()])?;

    let stdin = std::io::stdin().lock();
    let mut input = BufReader::with_capacity(1 << 16, stdin);
    let delimiter = match config.delimiter()? {
        Some(d) => d,
        None => detect_delimiter(input.fill_buf().context("reading standard input")?),
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(input);
    let mut record = csv::StringRecord::new();
    let read = |reader: &mut csv::Reader<_>, record: &mut csv::StringRecord| -> Result<bool> {
        reader.read_record(record).map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            anyhow::Error::from(karc::Error::from(karc::table::CsvError::Malformed {
                path: karc::stream::STDIN.into(),
                line,
                message: e.to_string(),
            }))
        })
    };
    if !read(&mut reader, &mut record)? {
        return Err(karc::Error::from(karc::table::CsvError::Empty {
            path: karc::stream::STDIN.into(),
        })
        .into());
    }
    let schema = Schema::bind(
        &config,
        &header_names(&config, &record),
        args.params.pid.as_deref(),
    )?;
    let mut stream = Stream::new(schema, algorithm, params)?;
    let mut pending = None;
    if !config.input.header {
        // The first record was data.
        pending = Some(record.clone());
    }

    let columns: Vec<usize> = stream.schema().released_columns().collect();
    if columns
        .iter()
        .any(|&c| stream.schema().names[c] == args.row_column)
    {
        anyhow::bail!(
            "the input already has a column {:?}: name the row-number column with --row-column",
            args.row_column
        );
    }
    let stdout = std::io::stdout().lock();
    let mut writer = csv::WriterBuilder::new()
        .delimiter(delimiter)
        .from_writer(std::io::BufWriter::with_capacity(1 << 16, stdout));
    if config.input.header {
        let mut names: Vec<&str> = columns
            .iter()
            .map(|&c| stream.schema().names[c].as_str())
            .collect();
        names.push(&args.row_column);
        writer
            .write_record(&names)
            .context("writing standard output")?;
    }

    let start = Instant::now();
    let mut fields: Vec<String> = Vec::with_capacity(columns.len() + 1);
    let mut emit = |stream: &mut Stream, writer: &mut csv::Writer<_>| -> Result<()> {
        let published = stream.take_published();
        if published.is_empty() {
            return Ok(());
        }
        for p in &published {
            fields.clear();
            for &c in &columns {
                fields.push(stream.schema().released_text(p, c).into_owned());
            }
            fields.push(p.row.to_string());
            writer
                .write_record(&fields)
                .context("writing standard output")?;
        }
        writer.flush().context("writing standard output")?;
        Ok(())
    };
    loop {
        let line;
        if let Some(r) = pending.take() {
            line = r.position().map_or(1, |p| p.line());
            record = r;
        } else {
            if !read(&mut reader, &mut record)? {
                break;
            }
            line = record.position().map_or(0, |p| p.line());
        }
        stream.push(line, &record)?;
        emit(&mut stream, &mut writer)?;
    }
    stream.finish();
    emit(&mut stream, &mut writer)?;
    let elapsed_ms = start.elapsed().as_secs_f64() * 1e3;
    let summary = stream.summary();
    if let Some(out) = &report_json {
        let report = StreamReport {
            algorithm: algorithm.name(),
            params: stream.params(),
            summary: &summary,
            elapsed_ms,
        };
        crate::anonymize::write_json(out, &report)?;
    }
    eprintln!(
        "karc stream: {}: {} rows, {} suppressed, average information loss {:.4}, {} clusters, {} rows by reuse, longest delay {} arrivals, {:.0} ms",
        algorithm.name(),
        summary.rows,
        summary.suppressed,
        summary.avg_infoloss,
        summary.clusters,
        summary.reused,
        summary.max_delay,
        elapsed_ms
    );
    Ok(ExitCode::SUCCESS)
}
