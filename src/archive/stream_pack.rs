//! Packing a stream (`karc pack --stream`): a streaming anonymizer (FADS or
//! CASTLE) feeds the pack pipeline (`archive::pipeline`, internal) one row group at a
//! time.
//!
//! Memory holds one row group of the input (its bytes and columns), the rows
//! the anonymizer still delays, and per-group summaries; never the table.
//! A group is handed to the pipeline's `GroupWriter` as soon as every row
//! of it is published; `META`, whose metrics need the whole stream, is
//! written when the stream ends.

use std::collections::VecDeque;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rustc_hash::FxHashMap;

use super::checks::ColumnChecksMeta;
use super::layout;
use super::meta::{
    self, AlgorithmMeta, Claim, ConstraintMeta, Dialect, HierarchyRecord, MetricsMeta, PublicMeta,
    SealedMetrics,
};
use super::pipeline::{Group, GroupWriter, Scratch};
use super::seal::Seal;
use super::signature::Signer;
use crate::cell::Cell;
use crate::codec::{DiffMode, QiOriginal, ReleasedColumn};
use crate::config::{Config, SuppressionPolicy, ValueType};
use crate::dataset::QuasiIdentifier;
use crate::derived::{self, ColumnChecks, QiSubject};
use crate::io::Output;
use crate::metrics::{Metrics, Tally};
use crate::pseudonym::Pseudonyms;
use crate::report::{ConstraintSummary, Report};
use crate::stream::{Schema, Stream, StreamAlgorithm, StreamError, StreamParams, Summary};
use crate::table::{CsvError, CsvOptions, LineEnding, Table, detect_delimiter};
use crate::{Error, Result};

/// Rows per row group unless told otherwise: large enough that per-group
/// code tables cost little, small enough that a group's columns stay a few
/// megabytes.
pub const DEFAULT_GROUP_ROWS: usize = 1 << 16;

/// How a stream is packed.
pub struct StreamPackOptions<'a> {
    /// The private part's difference coding.
    pub mode: DiffMode,
    /// Who can open the private part.
    pub seal: &'a Seal,
    /// The streaming anonymizer.
    pub algorithm: StreamAlgorithm,
    /// Its parameters.
    pub params: StreamParams,
    /// The person-id column (rows sharing a pid count once toward k).
    pub pid: Option<&'a str>,
    /// Rows per row group ([`DEFAULT_GROUP_ROWS`] unless tuned).
    pub group_rows: usize,
    /// The publisher's key, to sign the file as it is written.
    pub sign: Option<&'a Signer>,
}

/// What a streamed pack did.
#[derive(Debug, Clone)]
pub struct StreamPackReport {
    /// The anonymizer's own figures (delay, clusters, reuse).
    pub summary: Summary,
    /// The release's report, as a batch pack reports its own (one schema
    /// for `--report-json`); its time is the whole run's.
    pub report: Report,
    /// Row groups written.
    pub groups: usize,
    /// Bytes of the original input.
    pub original_len: u64,
    /// Bytes of the archive written.
    pub file_bytes: u64,
}

/// Whole records of the input, read a row group at a time.
struct Chunks {
    file: Box<dyn Read>,
    buf: Vec<u8>,
    eof: bool,
}

impl Chunks {
    /// The bytes of the next `records` records (fewer at the end of the
    /// file; the first chunk also holds any bytes before its first record,
    /// every chunk the blank lines after its last), `None` at the end.
    fn next(&mut self, records: usize, delimiter: u8) -> std::io::Result<Option<Vec<u8>>> {
        loop {
            let (end, n) = layout::records_end(&self.buf, records, delimiter, self.eof);
            if n == records || self.eof {
                if n == 0 {
                    return Ok(None);
                }
                return Ok(Some(self.buf.drain(..end).collect()));
            }
            self.read_more(4 << 20)?;
        }
    }

    /// Appends up to `bytes` more bytes of the file to the buffer.
    fn read_more(&mut self, bytes: usize) -> std::io::Result<()> {
        let at = self.buf.len();
        self.buf.resize(at + bytes, 0);
        let got = self.file.read(&mut self.buf[at..])?;
        self.buf.truncate(at + got);
        self.eof = got == 0;
        Ok(())
    }

    /// The first bytes, to detect the delimiter.
    fn peek(&mut self) -> std::io::Result<&[u8]> {
        while self.buf.len() < 1 << 16 && !self.eof {
            self.read_more(1 << 16)?;
        }
        Ok(&self.buf)
    }
}

/// The input, read a row group at a time, and what its CSV errors name.
struct Source {
    chunks: Chunks,
    input: PathBuf,
    delimiter: u8,
    /// How row groups after the first are read (no header).
    csv: CsvOptions,
    /// Whether the file's first record is its header.
    header: bool,
    group_rows: usize,
    /// Lines before the next chunk: its CSV errors count lines from there.
    lines_read: u64,
}

impl Source {
    /// Opens `input` (`-`: standard input) and reads its first row group
    /// (with the header, when the file has one).
    fn open(config: &Config, input: &Path, group_rows: usize) -> Result<(Source, Vec<u8>, Table)> {
        let file: Box<dyn Read> = if crate::io::is_std(input) {
            Box::new(std::io::stdin().lock())
        } else {
            Box::new(std::fs::File::open(input).map_err(|e| Error::io(input, e))?)
        };
        let input = crate::io::input_name(input);
        let io = |e: std::io::Error| Error::io(&input, e);
        let mut chunks = Chunks {
            file,
            buf: Vec::new(),
            eof: false,
        };
        let delimiter = match config.delimiter()? {
            Some(d) => d,
            None => detect_delimiter(chunks.peek().map_err(io)?),
        };
        let header = config.input.header;
        let csv = CsvOptions {
            delimiter: Some(delimiter),
            header,
            trim: config.input.trim,
        };
        let group_rows = group_rows.max(1);
        let Some(first) = chunks
            .next(group_rows + usize::from(header), delimiter)
            .map_err(io)?
        else {
            return Err(CsvError::Empty { path: input }.into());
        };
        let table = Table::from_bytes(&input, &first, &csv)?;
        let lines_read = newlines(&first);
        let csv = CsvOptions {
            header: false,
            ..csv
        };
        let source = Source {
            chunks,
            input,
            delimiter,
            csv,
            header,
            group_rows,
            lines_read,
        };
        Ok((source, first, table))
    }

    /// The next row group's bytes and table (no header), `None` at the end.
    fn next_group(&mut self) -> Result<Option<(Vec<u8>, Table)>> {
        let Some(bytes) = self
            .chunks
            .next(self.group_rows, self.delimiter)
            .map_err(|e| Error::io(&self.input, e))?
        else {
            return Ok(None);
        };
        let table = Table::from_bytes(&self.input, &bytes, &self.csv).map_err(|e| match e
            .into_area::<CsvError>()
        {
            Ok(e) => e.after_lines(self.lines_read).into(),
            Err(e) => e,
        })?;
        self.lines_read += newlines(&bytes);
        Ok(Some((bytes, table)))
    }
}

/// Line feeds in `bytes` (how the CSV reader counts lines).
fn newlines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

/// Packs the CSV at `input` (`-`: standard input) into `output`.
pub fn pack_stream(
    config: &Config,
    input: &Path,
    output: &Output,
    options: &StreamPackOptions<'_>,
) -> Result<StreamPackReport> {
    let start = Instant::now();
    let (mut source, first, first_table) = Source::open(config, input, options.group_rows)?;
    let names: Vec<String> = first_table.columns.iter().map(|c| c.name.clone()).collect();
    let mut schema = Schema::bind(config, &names, source.delimiter, options.pid)?;
    schema.source = source.input.clone();
    let dialect = Dialect {
        delimiter: source.delimiter,
        header: config.input.header,
        crlf: LineEnding::detect(&first) == LineEnding::CrLf,
    };
    let mut stream = Stream::new(schema, options.algorithm, options.params.clone())?;
    let (roles, trim) = (&stream.schema().roles, stream.schema().trim);
    let scratch = Scratch::Beside(output);
    let mut writer = GroupWriter::new(options.mode, options.seal, roles, trim, scratch, false)?;
    writer.pseudonyms(Pseudonyms::of_config(config, &names, false)?);
    let mut run = Run::new(stream.schema().qis.len());
    let mut next = Some((first, first_table));
    while let Some((bytes, table)) = next.take() {
        run.feed(&mut stream, bytes, table, &source)?;
        run.write_complete(config, stream.schema(), &mut writer)?;
        next = source.next_group()?;
    }
    stream.finish();
    run.take_published(&mut stream);
    run.write_complete(config, stream.schema(), &mut writer)?;
    assert!(
        run.pending.is_empty(),
        "the {} anonymizer publishes every row by the end of the stream",
        options.algorithm.name()
    );
    let summary = stream.summary();
    check_leftover(config, &summary, options.params.k)?;
    let (public, hierarchies, metrics) =
        stream_meta(config, &stream, &run.release, options, dialect);
    if let Some(checks) = &run.checks {
        let names: Vec<String> = public.columns.iter().map(|c| c.name.clone()).collect();
        writer.column_checks(&ColumnChecksMeta::new(checks, &names));
    }
    let mut packed = writer.finish(&public, &hierarchies, SealedMetrics::from(&metrics))?;
    if let Some(signer) = options.sign {
        packed.sign(signer)?;
    }
    let (groups, original_len) = (packed.groups, packed.original_len);
    let file_bytes = packed.file_len();
    output.write(|w| packed.write_to(w))?;
    let elapsed_ms = start.elapsed().as_secs_f64() * 1e3;
    let mut report = stream_report(&stream, &run.release, metrics, elapsed_ms);
    report.column_checks = run.checks.take();
    Ok(StreamPackReport {
        report,
        summary,
        groups,
        original_len,
        file_bytes,
    })
}

/// Under the strict policy, fewer than k rows left suppressed at the end
/// would form a class below k: refused.
fn check_leftover(config: &Config, summary: &Summary, k: usize) -> Result<()> {
    if config.privacy.suppressed == SuppressionPolicy::Strict
        && summary.suppressed > 0
        && (summary.suppressed as usize) < k
    {
        return Err(StreamError::StrictLeftover {
            suppressed: summary.suppressed,
            k,
        }
        .into());
    }
    Ok(())
}

/// A row group read but not yet written: its bytes, its table, and the
/// released cells of the rows published so far.
struct Pending {
    bytes: Vec<u8>,
    table: Table,
    cells: Vec<Option<Vec<Cell>>>,
    published: usize,
}

/// The release as the anonymizer publishes it: what `META`'s metrics and
/// the report are measured on.
struct Release {
    tally: Tally,
    /// Rows per released class (suppressed rows left out).
    classes: FxHashMap<Vec<Cell>, u64>,
}

/// The groups on their way from the anonymizer to the writer.
struct Run {
    pending: VecDeque<Pending>,
    /// The data row number of `pending[0]`'s first row.
    first_row: u64,
    release: Release,
    record: csv::StringRecord,
    /// The derived-column check of the groups written so far.
    checks: Option<ColumnChecks>,
}

impl Run {
    fn new(qis: usize) -> Run {
        Run {
            pending: VecDeque::new(),
            first_row: 1,
            checks: None,
            release: Release {
                tally: Tally::new(qis),
                classes: FxHashMap::default(),
            },
            record: csv::StringRecord::new(),
        }
    }

    /// Files a row group and pushes its rows into the anonymizer.
    fn feed(
        &mut self,
        stream: &mut Stream,
        bytes: Vec<u8>,
        mut table: Table,
        source: &Source,
    ) -> Result<()> {
        let names = &stream.schema().names;
        let header = u64::from(source.header);
        if table.columns.len() != names.len() {
            return Err(CsvError::Ragged {
                path: source.input.clone(),
                line: stream.arrivals() + 1 + header,
                expected: names.len(),
                found: table.columns.len(),
                reference: if header == 1 { "header" } else { "first row" },
            }
            .into());
        }
        for (c, name) in table.columns.iter_mut().zip(names) {
            c.name.clone_from(name);
        }
        let rows = table.rows;
        // Filed before its rows go in: the anonymizer may publish some of
        // them at once.
        self.pending.push_back(Pending {
            bytes,
            table,
            cells: vec![None; rows],
            published: 0,
        });
        for r in 0..rows {
            self.record.clear();
            let table = &self.pending.back().expect("just filed").table;
            for c in &table.columns {
                self.record.push_field(c.text(r));
            }
            let line = stream.arrivals() + 1 + header;
            stream.push(line, &self.record)?;
            self.take_published(stream);
        }
        Ok(())
    }

    /// Files the rows the anonymizer published with their pending group.
    fn take_published(&mut self, stream: &mut Stream) {
        for p in stream.take_published() {
            let tally = &mut self.release.tally;
            for (counts, cell) in tally.cells.iter_mut().zip(&p.cells) {
                *counts.entry(*cell).or_default() += 1;
            }
            tally.rows += 1;
            if p.is_suppressed() {
                tally.suppressed += 1;
            } else {
                *self.release.classes.entry(p.cells.clone()).or_default() += 1;
            }
            let mut offset = (p.row - self.first_row) as usize;
            for group in self.pending.iter_mut() {
                if offset < group.cells.len() {
                    group.cells[offset] = Some(p.cells);
                    group.published += 1;
                    break;
                }
                offset -= group.cells.len();
            }
        }
    }

    /// Writes every leading group whose rows are all published.
    fn write_complete(
        &mut self,
        config: &Config,
        schema: &Schema,
        writer: &mut GroupWriter,
    ) -> Result<()> {
        while self
            .pending
            .front()
            .is_some_and(|g| g.published == g.cells.len())
        {
            let group = self.pending.pop_front().expect("checked");
            let first_row = self.first_row;
            self.first_row += group.cells.len() as u64;
            write_group(&group, schema, writer, |table, released| {
                let names = schema.qis.iter().map(|sq| sq.qi.name.clone()).collect();
                let qis = schema.qis.iter().zip(released).map(|(sq, r)| {
                    let column = &table.columns[sq.qi.column];
                    (column, sq.qi.value_type, &r.rows, sq.qi.name.as_str())
                });
                let numbers: Vec<_> = qis
                    .clone()
                    .map(|(column, value_type, _, _)| {
                        let format = schema.number_format;
                        value_type.is_numeric().then(|| {
                            derived::column_numbers(column, &config.input.missing, |t| {
                                format.number(t, value_type)
                            })
                        })
                    })
                    .collect();
                let subjects = qis
                    .zip(&numbers)
                    .map(|((column, _, rows, name), n)| QiSubject {
                        name,
                        original: &column.codes,
                        released: std::borrow::Cow::Borrowed(rows.as_slice()),
                        numbers: n.as_ref().and_then(|n| n.as_deref()),
                    });
                let Some(block) =
                    derived::check_table(config, table, &schema.roles, names, subjects)
                else {
                    return Ok(());
                };
                let place = format!(
                    "{}: rows {first_row} to {}: ",
                    schema.source.display(),
                    first_row + table.rows as u64 - 1
                );
                block.enforce(&place)?;
                match &mut self.checks {
                    Some(checks) => checks.absorb(block),
                    None => self.checks = Some(block),
                }
                Ok(())
            })?;
        }
        Ok(())
    }
}

/// Hands a group whose rows are all published to the pipeline.
/// `check` runs the derived-column check on the group's table and released
/// QI columns before anything of it is written.
fn write_group(
    group: &Pending,
    schema: &Schema,
    writer: &mut GroupWriter,
    mut check: impl FnMut(&Table, &[ReleasedColumn]) -> Result<()>,
) -> Result<()> {
    let table = &group.table;
    let cells: Vec<&Vec<Cell>> = group
        .cells
        .iter()
        .map(|c| {
            c.as_ref()
                .expect("every row of a written group is published")
        })
        .collect();
    let released: Vec<ReleasedColumn> = schema
        .qis
        .iter()
        .enumerate()
        .map(|(q, sq)| {
            let column: Vec<Cell> = cells.iter().map(|c| c[q]).collect();
            ReleasedColumn::from_cells(&sq.qi, &sq.dict, &column)
        })
        .collect();
    check(table, &released)?;
    let qis: Vec<QiOriginal<'_>> = schema
        .qis
        .iter()
        .map(|sq| QiOriginal {
            name: &sq.qi.name,
            value_type: sq.qi.value_type,
            hierarchy: sq.qi.hierarchy.as_ref(),
            column: &table.columns[sq.qi.column],
        })
        .collect();
    writer.write_group(&Group {
        bytes: &group.bytes,
        table,
        qis: &qis,
        released: &released,
        classes: None,
    })
}

/// `META` of a finished stream, and its QIs' whole hierarchies (the file
/// prunes them to the nodes its groups use).
fn stream_meta(
    config: &Config,
    stream: &Stream,
    release: &Release,
    options: &StreamPackOptions<'_>,
    dialect: Dialect,
) -> (PublicMeta, Vec<HierarchyRecord>, Metrics) {
    let schema = stream.schema();
    let (columns, hierarchies) =
        meta::columns_and_hierarchies(schema.names.iter().enumerate().map(|(i, name)| {
            let sq = schema.qis.iter().find(|s| s.qi.column == i);
            let configured = || {
                config
                    .columns
                    .iter()
                    .find(|c| &c.name == name)
                    .map_or(ValueType::Categorical, |c| c.value_type)
            };
            let value_type = sq.map_or_else(configured, |s| s.qi.value_type);
            let hierarchy = sq.and_then(|s| s.qi.hierarchy.as_ref());
            (name.clone(), schema.roles[i], value_type, hierarchy)
        }));
    let k = options.params.k;
    let qis: Vec<&QuasiIdentifier> = schema.qis.iter().map(|s| &s.qi).collect();
    let metrics = release
        .tally
        .metrics(&qis, release.classes.values().copied(), k);
    let public = PublicMeta {
        writer: meta::WRITER.to_owned(),
        rows: stream.summary().rows,
        columns,
        qis: schema.qis.iter().map(|s| s.qi.column as u32).collect(),
        claim: Claim {
            constraints: vec![ConstraintMeta {
                qis: (0..qis.len() as u32).collect(),
                k: k as u64,
            }],
            policy: config.privacy.suppressed,
            suppression_limit: config.privacy.suppression_limit,
            suppression_budget: stream.summary().suppressed,
            l_diversity: None,
        },
        algorithm: AlgorithmMeta {
            name: options.algorithm.name().to_owned(),
            seed: options.params.seed,
            params: serde_json::to_string(&options.params).unwrap_or_default(),
            levels: None,
        },
        metrics: MetricsMeta::from(&metrics),
        dialect,
        missing: config.input.missing.clone(),
    };
    (public, hierarchies, metrics)
}

/// The report of a finished stream, in the schema of a batch pack's.
fn stream_report(stream: &Stream, release: &Release, metrics: Metrics, elapsed_ms: f64) -> Report {
    let summary = stream.summary();
    let params = stream.params();
    let qis: Vec<String> = stream
        .schema()
        .qis
        .iter()
        .map(|s| s.qi.name.clone())
        .collect();
    Report {
        algorithm: stream.algorithm().name().to_owned(),
        k: params.k,
        constraints: vec![ConstraintSummary {
            qi: qis.clone(),
            k: params.k,
        }],
        seed: params.seed,
        rows: summary.rows as usize,
        suppressed: summary.suppressed as usize,
        suppression_budget: summary.suppressed as usize,
        classes: release.classes.len(),
        min_class: release.classes.values().min().map(|&n| n as usize),
        levels: None,
        minimal_levels: None,
        qis,
        metrics,
        elapsed_ms,
        column_checks: None,
    }
}
