//! `karc stream`: anonymize standard input as a stream, writing each row to
//! standard output as soon as it is published.

use std::io::{BufRead, BufReader};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use karc::api::Config;
use karc::api::detect_delimiter;
use karc::api::is_std;
use karc::api::stream::{Schema, Stream, StreamAlgorithm, header_names};
use karc::api::{StreamOverrides, StreamResult};

use crate::cli::{StreamArgs, StreamParamArgs};
use crate::json::Json;

/// The stream flags as the facade takes them.
pub fn overrides(k: Option<usize>, seed: Option<u64>, p: &StreamParamArgs) -> StreamOverrides {
    StreamOverrides {
        k,
        seed,
        delay: p.delay,
        tau: p.tau,
        c0: p.c0,
        beta: p.castle_beta,
        mu: p.mu,
    }
}

/// Standard input as CSV records, quotes tracked so that an unclosed one
/// is reported at its line.
type Records = csv::Reader<karc::api::QuoteChecked<BufReader<std::io::StdinLock<'static>>>>;

/// Standard output as CSV.
type Rows = csv::Writer<std::io::BufWriter<std::io::StdoutLock<'static>>>;

/// Standard input's reader and its delimiter (the config's, else detected
/// on the first bytes).
fn records(config: &Config) -> Result<(Records, u8)> {
    let mut input = BufReader::with_capacity(1 << 16, std::io::stdin().lock());
    let delimiter = match config.delimiter()? {
        Some(d) => d,
        None => detect_delimiter(input.fill_buf().context("reading standard input")?),
    };
    let reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(karc::api::QuoteChecked::new(input, delimiter));
    Ok((reader, delimiter))
}

/// The next record into `record`; false at the end. A malformed record is
/// an error naming its line.
fn read(reader: &mut Records, record: &mut csv::StringRecord) -> Result<bool> {
    reader.read_record(record).map_err(|e| {
        let line = e.position().map_or(0, |p| p.line());
        anyhow::Error::from(karc::api::Error::from(karc::api::CsvError::Malformed {
            path: karc::api::stream::STDIN.into(),
            line,
            message: e.to_string(),
        }))
    })
}

/// The released columns, and standard output's CSV writer with their
/// header (and the row-number column's) written when the input has one.
fn writer(
    stream: &Stream,
    args: &StreamArgs,
    config: &Config,
    delimiter: u8,
) -> Result<(Vec<usize>, Rows)> {
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

    Ok((columns, writer))
}

/// The summary: into the report file when asked, then as the `--json`
/// document or one line on standard error.
fn tell(
    result: &StreamResult,
    report_json: Option<&karc::api::Output>,
    json: Json,
) -> Result<ExitCode> {
    if let Some(out) = report_json {
        // The summary as the schema has it, without the schema's name.
        crate::anonymize::write_json(out, result)?;
    }
    if json.on() {
        return json.print(result).map(|()| ExitCode::SUCCESS);
    }
    let summary = &result.summary;
    eprintln!(
        "karc stream: {}: {} rows, {} suppressed, average information loss {:.4}, {} clusters, {} rows by reuse, longest delay {} arrivals, {:.0} ms",
        result.algorithm,
        summary.rows,
        summary.suppressed,
        summary.avg_infoloss,
        summary.clusters,
        summary.reused,
        summary.max_delay,
        result.elapsed_ms
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes the rows the stream has published since the last call, each as
/// its released cells and its row number, and flushes them: a row leaves
/// as soon as it is published.
fn emit(
    stream: &mut Stream,
    writer: &mut Rows,
    columns: &[usize],
    fields: &mut Vec<String>,
) -> Result<()> {
    let published = stream.take_published();
    if published.is_empty() {
        return Ok(());
    }
    for p in &published {
        fields.clear();
        for &c in columns {
            fields.push(stream.schema().released_text(p, c).into_owned());
        }
        fields.push(p.row.to_string());
        writer
            .write_record(&*fields)
            .context("writing standard output")?;
    }
    writer.flush().context("writing standard output")?;
    Ok(())
}

/// `karc stream`: the config, the header bound to it, then each record
/// pushed and every row published written at once; the summary at the end.
pub fn run(args: StreamArgs, json: Json) -> Result<ExitCode> {
    let config = Config::load(&args.config)?;
    let algorithm = StreamAlgorithm::from_name(
        args.algorithm
            .as_deref()
            .unwrap_or(config.algorithm.name.as_str()),
    )?;
    let params = karc::api::stream_params(&config, &overrides(args.k, args.seed, &args.params))?;
    if args.report_json.as_deref().is_some_and(is_std) {
        anyhow::bail!("--report-json -: standard output carries the rows; name a file");
    }
    let report_json = crate::anonymize::report_output(args.report_json.as_deref())?;
    let mut inputs = karc::api::config_files(&config);
    inputs.push(std::path::PathBuf::from("-"));
    crate::files::refuse_overwriting(&inputs, &[report_json.as_ref()])?;

    let (mut reader, delimiter) = records(&config)?;
    let mut record = csv::StringRecord::new();
    if !read(&mut reader, &mut record)? {
        return Err(karc::api::Error::from(karc::api::CsvError::Empty {
            path: karc::api::stream::STDIN.into(),
        })
        .into());
    }
    let schema = Schema::bind(
        &config,
        &header_names(&config, &record),
        delimiter,
        args.params.pid.as_deref(),
    )?;
    let mut stream = Stream::new(schema, algorithm, params)?;
    let mut pending = None;
    if !config.input.header {
        // The first record was data.
        pending = Some(record.clone());
    }

    let (columns, mut writer) = writer(&stream, &args, &config, delimiter)?;

    let start = Instant::now();
    let mut fields: Vec<String> = Vec::with_capacity(columns.len() + 1);
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
        emit(&mut stream, &mut writer, &columns, &mut fields)?;
    }
    if let Some(line) = reader.get_ref().state.unclosed() {
        let path = std::path::Path::new(karc::api::stream::STDIN);
        return Err(karc::api::Error::from(karc::api::QuoteState::error(path, line)).into());
    }
    stream.finish();
    emit(&mut stream, &mut writer, &columns, &mut fields)?;
    let elapsed_ms = start.elapsed().as_secs_f64() * 1e3;
    let summary = stream.summary();
    let result = StreamResult {
        algorithm: algorithm.name(),
        params: stream.params().clone(),
        summary,
        elapsed_ms,
    };
    tell(&result, report_json.as_ref(), json)
}
