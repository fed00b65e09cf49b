//! Packing a stream (`karc pack --stream`): a streaming anonymizer (FADS or
//! CASTLE) feeds the archive writer one row group at a time.
//!
//! Memory holds one row group of the input (its bytes and columns), the rows
//! the anonymizer still delays, and per-group summaries; never the table.
//! Each group's public sections go to a temporary file as soon as every row
//! of the group is published, its private part through the age stream to a
//! second one; the container (whose metadata needs the whole stream's
//! metrics) is assembled at the end by copying both after the header.

use std::fs::File;
use std::io::{BufWriter, Read, Seek, Write};
use std::path::Path;

use rustc_hash::FxHashMap;

use super::ArchiveError;
use super::digest::PublicDigest;
use super::format::{self, SectionKind, SectionSummary};
use super::layout::{self, Layout, Padding};
use super::meta::{
    self, AlgorithmMeta, Claim, ConstraintMeta, Dialect, MetricsMeta, PrivatePart, PrivateTrailer,
    PublicMeta,
};
use super::seal::{self, Seal};
use crate::cell::Cell;
use crate::codec::{self, DiffMode, QiOriginal, ReleasedClasses, ReleasedColumn};
use crate::config::{Config, Role, SuppressionPolicy, ValueType};
use crate::dataset::QuasiIdentifier;
use crate::io::Output;
use crate::metrics::Tally;
use crate::stream::{Schema, Stream, StreamAlgorithm, StreamError, StreamParams, Summary};
use crate::table::{CsvError, CsvOptions, LineEnding, Table, detect_delimiter};
use crate::{Error, Result};

/// Rows per row group unless told otherwise: large enough that per-group
/// code tables cost little, small enough that a group's columns stay a few
/// megabytes.
pub const DEFAULT_GROUP_ROWS: usize = 1 << 16;

/// How a stream is packed.
pub struct StreamPackOptions<'a> {
    pub mode: DiffMode,
    pub seal: &'a Seal,
    pub algorithm: StreamAlgorithm,
    pub params: StreamParams,
    /// The person-id column (rows sharing a pid count once toward k).
    pub pid: Option<&'a str>,
    pub group_rows: usize,
}

/// What a streamed pack did.
#[derive(Debug, Clone)]
pub struct StreamPackReport {
    pub summary: Summary,
    pub groups: usize,
    pub original_len: u64,
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

/// A writer that counts and checksums what passes through it (a section
/// written piece by piece).
struct Summed<W: Write> {
    inner: W,
    crc: crc32fast::Hasher,
    len: u64,
}

impl<W: Write> Write for Summed<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn summed<W: Write>(inner: W) -> Summed<W> {
    Summed {
        inner,
        crc: crc32fast::Hasher::new(),
        len: 0,
    }
}

/// A row group read but not yet written: its bytes, its table, and the
/// released cells of the rows published so far.
struct Pending {
    bytes: Vec<u8>,
    table: Table,
    cells: Vec<Option<Vec<Cell>>>,
    published: usize,
}

/// Everything the writer accumulates over the groups.
struct Sink {
    body: BufWriter<File>,
    sections: Vec<SectionSummary>,
    private: PrivateStream,
    group_rows: Vec<u64>,
    padding: Option<Vec<Padding>>,
    /// The BLAKE3 hash of each section in `sections`, for the public
    /// part's digest.
    section_hashes: Vec<[u8; 32]>,
    /// The whole original's CRC-32.
    checksum: crc32fast::Hasher,
    original_len: u64,
    tally: Tally,
    classes: FxHashMap<Vec<Cell>, u64>,
}

/// Packs the CSV at `input` (`-`: standard input) into `output`.
pub fn pack_stream(
    config: &Config,
    input: &Path,
    output: &Output,
    options: &StreamPackOptions<'_>,
) -> Result<StreamPackReport> {
    let file: Box<dyn Read> = if crate::io::is_std(input) {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(File::open(input).map_err(|e| Error::io(input, e))?)
    };
    let input = &crate::io::input_name(input);
    let io = |e: std::io::Error| Error::io(input, e);
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
    let group_rows = options.group_rows.max(1);
    let csv = |header: bool| CsvOptions {
        delimiter: Some(delimiter),
        header,
        trim: config.input.trim,
    };
    let Some(first) = chunks
        .next(group_rows + usize::from(header), delimiter)
        .map_err(io)?
    else {
        return Err(CsvError::Empty {
            path: input.to_owned(),
        }
        .into());
    };
    let first_table = Table::from_bytes(input, &first, &csv(header))?;
    // Lines before the next chunk: its CSV errors count lines from there.
    let mut lines_read = newlines(&first);
    let names: Vec<String> = first_table.columns.iter().map(|c| c.name.clone()).collect();
    let mut schema = Schema::bind(config, &names, options.pid)?;
    schema.source = input.to_owned();
    let names = schema.names.clone();
    if config.privacy.l.is_some() {
        return Err(StreamError::LDiversityUnsupported {
            config: config.path.clone(),
        }
        .into());
    }
    let crlf = LineEnding::detect(&first) == LineEnding::CrLf;
    let mut stream = Stream::new(schema, options.algorithm, options.params.clone())?;

    // Unnamed scratch files (nothing is left if the run is killed).
    let dir = output.scratch_dir();
    let temp = || tempfile::tempfile_in(&dir);
    let output_name = output.name();
    let out_io = |e: std::io::Error| Error::io(&output_name, e);
    let body_file = temp().map_err(out_io)?;
    let private_file = temp().map_err(out_io)?;
    let private_summed = summed(BufWriter::new(private_file.try_clone().map_err(out_io)?));
    let private = match seal::encryptor(options.seal)? {
        Some(e) => PrivateStream::Sealed(
            e.wrap_output(private_summed)
                .map_err(|e| ArchiveError::Seal(e.to_string()))?,
        ),
        None => PrivateStream::Plain(private_summed),
    };
    let q = stream.schema().qis.len();
    let mut sink = Sink {
        body: BufWriter::new(body_file.try_clone().map_err(out_io)?),
        sections: Vec::new(),
        private,
        group_rows: Vec::new(),
        padding: None,
        section_hashes: Vec::new(),
        checksum: crc32fast::Hasher::new(),
        original_len: 0,
        tally: Tally::new(q),
        classes: FxHashMap::default(),
    };

    let mut pending: std::collections::VecDeque<Pending> = Default::default();
    let mut first_row: u64 = 1; // data row number of pending[0]'s first row
    let mut next_chunk = Some((first, first_table));
    let mut record = csv::StringRecord::new();
    while let Some((bytes, mut table)) = next_chunk.take() {
        if table.columns.len() != names.len() {
            return Err(CsvError::Ragged {
                path: input.to_owned(),
                line: stream.arrivals() + 1 + u64::from(header),
                expected: names.len(),
                found: table.columns.len(),
                reference: if header { "header" } else { "first row" },
            }
            .into());
        }
        for (c, name) in table.columns.iter_mut().zip(&names) {
            c.name.clone_from(name);
        }
        let rows = table.rows;
        // Filed before its rows go in: the anonymizer may publish some of
        // them at once.
        pending.push_back(Pending {
            bytes,
            table,
            cells: vec![None; rows],
            published: 0,
        });
        for r in 0..rows {
            record.clear();
            let table = &pending.back().expect("just filed").table;
            for c in &table.columns {
                record.push_field(c.text(r));
            }
            let line = stream.arrivals() + 1 + u64::from(header);
            stream.push(line, &record)?;
            take_published(&mut stream, &mut pending, first_row, &mut sink);
        }
        write_complete(&mut pending, &mut first_row, &stream, options, &mut sink)?;
        if let Some(bytes) = chunks.next(group_rows, delimiter).map_err(io)? {
            let table = Table::from_bytes(input, &bytes, &csv(false)).map_err(|e| match e {
                crate::Error::Csv(e) => crate::Error::Csv(e.after_lines(lines_read)),
                e => e,
            })?;
            lines_read += newlines(&bytes);
            next_chunk = Some((bytes, table));
        }
    }
    stream.finish();
    take_published(&mut stream, &mut pending, first_row, &mut sink);
    write_complete(&mut pending, &mut first_row, &stream, options, &mut sink)?;
    assert!(
        pending.is_empty(),
        "the {} anonymizer publishes every row by the end of the stream",
        options.algorithm.name()
    );

    let summary = stream.summary();
    let schema = stream.schema();
    let k = options.params.k;
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

    // Public metadata, now that the stream's figures are known.
    let (columns, hierarchies) =
        meta::columns_and_hierarchies(names.iter().enumerate().map(|(i, name)| {
            let sq = schema.qis.iter().find(|s| s.qi.column == i);
            let value_type = sq.map_or_else(
                || {
                    config
                        .columns
                        .iter()
                        .find(|c| &c.name == name)
                        .map_or(ValueType::Categorical, |c| c.value_type)
                },
                |s| s.qi.value_type,
            );
            let hierarchy = sq.and_then(|s| s.qi.hierarchy.as_ref());
            (name.clone(), schema.roles[i], value_type, hierarchy)
        }));
    let qis: Vec<&QuasiIdentifier> = schema.qis.iter().map(|s| &s.qi).collect();
    let metrics = sink.tally.metrics(&qis, sink.classes.values().copied(), k);
    let public = PublicMeta {
        writer: meta::WRITER.to_owned(),
        rows: sink.group_rows.iter().sum(),
        columns,
        qis: schema.qis.iter().map(|s| s.qi.column as u32).collect(),
        claim: Claim {
            constraints: vec![ConstraintMeta {
                qis: (0..q as u32).collect(),
                k: k as u64,
            }],
            policy: config.privacy.suppressed,
            suppression_limit: config.privacy.suppression_limit,
            suppression_budget: summary.suppressed,
            l_diversity: None,
        },
        algorithm: AlgorithmMeta {
            name: options.algorithm.name().to_owned(),
            seed: options.params.seed,
            params: serde_json::to_string(&options.params).unwrap_or_default(),
            levels: None,
            minimal_levels: None,
        },
        metrics: MetricsMeta::from(&metrics),
        dialect: Dialect {
            delimiter,
            header,
            crlf,
        },
        missing: config.input.missing.clone(),
    };
    let meta_bytes = meta::to_bytes(&public);
    let hierarchy_bytes = meta::hierarchies_to_bytes(&hierarchies);
    let groups_bytes = meta::to_bytes(&sink.group_rows);
    let head = [
        (SectionKind::Meta, &meta_bytes),
        (SectionKind::Hierarchies, &hierarchy_bytes),
        (SectionKind::RowGroups, &groups_bytes),
    ];
    let mut sections: Vec<SectionSummary> = head
        .iter()
        .map(|(kind, bytes)| SectionSummary {
            kind: *kind,
            crc: format::crc32(bytes),
            length: bytes.len() as u64,
        })
        .collect();
    sections.extend_from_slice(&sink.sections);

    // The private part's trailer (the whole file's checksum), then the
    // public part's digest (§7.5), now that every public section is known.
    let mut public_digest = PublicDigest::new(format::VERSION_MAJOR, format::VERSION_MINOR);
    for (kind, bytes) in &head {
        public_digest.section(kind.code(), 0, bytes);
    }
    for (s, hash) in sink.sections.iter().zip(&sink.section_hashes) {
        public_digest.hashed_section(s.kind.code(), 0, s.length, *hash);
    }
    let trailer = meta::to_bytes(&PrivateTrailer {
        digest: sink.checksum.finalize(),
        original_len: sink.original_len,
    });
    sink.private.write_all(&trailer).map_err(out_io)?;
    sink.private
        .write_all(&public_digest.finish())
        .map_err(out_io)?;
    sections.push(sink.private.finish().map_err(out_io)?);
    sink.body.flush().map_err(out_io)?;
    let mut file_bytes = 0;
    output.write(|w| {
        let table = format::header_and_table(&sections);
        w.write_all(&table).map_err(out_io)?;
        for (_, bytes) in &head {
            w.write_all(bytes).map_err(out_io)?;
        }
        for mut f in [&body_file, &private_file] {
            f.rewind().map_err(out_io)?;
            std::io::copy(&mut f, w).map_err(out_io)?;
        }
        file_bytes = table.len() as u64 + sections.iter().map(|s| s.length).sum::<u64>();
        Ok(())
    })?;
    Ok(StreamPackReport {
        summary,
        groups: sink.group_rows.len(),
        original_len: sink.original_len,
        file_bytes,
    })
}

/// Files the rows the anonymizer published with their pending group.
fn take_published(
    stream: &mut Stream,
    pending: &mut std::collections::VecDeque<Pending>,
    first_row: u64,
    sink: &mut Sink,
) {
    for p in stream.take_published() {
        let suppressed = p.is_suppressed();
        for (counts, cell) in sink.tally.cells.iter_mut().zip(&p.cells) {
            *counts.entry(*cell).or_default() += 1;
        }
        sink.tally.rows += 1;
        if suppressed {
            sink.tally.suppressed += 1;
        } else {
            *sink.classes.entry(p.cells.clone()).or_default() += 1;
        }
        let mut offset = (p.row - first_row) as usize;
        for group in pending.iter_mut() {
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
    pending: &mut std::collections::VecDeque<Pending>,
    first_row: &mut u64,
    stream: &Stream,
    options: &StreamPackOptions<'_>,
    sink: &mut Sink,
) -> Result<()> {
    while pending
        .front()
        .is_some_and(|g| g.published == g.cells.len())
    {
        let group = pending.pop_front().expect("checked");
        *first_row += group.cells.len() as u64;
        write_group(&group, stream.schema(), options, sink)?;
    }
    Ok(())
}

/// Codes one row group: its public sections into the body, its private
/// part as one frame of the private stream.
fn write_group(
    group: &Pending,
    schema: &Schema,
    options: &StreamPackOptions<'_>,
    sink: &mut Sink,
) -> Result<()> {
    let first = sink.group_rows.is_empty();
    let table = &group.table;
    let header = first && table.header;
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
    // The private part codes against these columns, as `writer::pack`: a
    // reader decodes the same ones from the classes (symbols in order of
    // first use by the rows).
    let classes = ReleasedClasses::from_columns(&released);
    debug_assert!(
        classes.to_columns() == released,
        "symbols in first-use order"
    );
    let out_err = |e: std::io::Error| Error::io(&table.source, e);
    let section = |kind: SectionKind, bytes: &[u8], sink: &mut Sink| -> Result<()> {
        sink.body.write_all(bytes).map_err(out_err)?;
        sink.sections.push(SectionSummary {
            kind,
            crc: format::crc32(bytes),
            length: bytes.len() as u64,
        });
        sink.section_hashes.push(blake3::hash(bytes).into());
        Ok(())
    };
    section(
        SectionKind::QiClasses,
        &codec::encode_classes(&classes),
        sink,
    )?;
    for (i, c) in table.columns.iter().enumerate() {
        let role = schema.roles[i];
        if role != Role::Identifier && role != Role::Quasi {
            section(SectionKind::Column, &codec::encode_plain(c), sink)?;
        }
    }

    let padding = sink
        .padding
        .get_or_insert_with(|| {
            if schema.trim {
                Layout::learn_padding(&group.bytes, table.columns.len(), table.delimiter, header)
            } else {
                vec![Padding::default(); table.columns.len()]
            }
        })
        .clone();
    let layout =
        Layout::capture_with_padding(&group.bytes, table, table.delimiter, header, padding)
            .map_err(|e| ArchiveError::Layout {
                path: table.source.clone(),
                detail: e.to_string(),
            })?;
    let qi_originals: Vec<QiOriginal<'_>> = schema
        .qis
        .iter()
        .map(|sq| QiOriginal {
            name: &sq.qi.name,
            value_type: sq.qi.value_type,
            hierarchy: sq.qi.hierarchy.as_ref(),
            column: &table.columns[sq.qi.column],
        })
        .collect();
    let originals = codec::encode_originals(options.mode, &qi_originals, &released);
    let part = PrivatePart {
        digest: format::crc32(&group.bytes),
        original_len: group.bytes.len() as u64,
        layout,
        originals_columns: originals.column_bytes.iter().map(|(_, b)| *b).collect(),
        originals: originals.bytes,
        identifiers: super::writer::identifier_columns(table, &schema.roles),
    };
    let mut frame = Vec::new();
    meta::put_frame(&mut frame, &meta::to_bytes(&part));
    sink.private.write_all(&frame).map_err(out_err)?;
    sink.checksum.update(&group.bytes);
    sink.original_len += group.bytes.len() as u64;
    sink.group_rows.push(table.rows as u64);
    Ok(())
}

/// Line feeds in `bytes` (how the CSV reader counts lines).
fn newlines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

/// The private part on its way to its temporary file: through the age
/// envelope, or in clear (`--no-encryption`).
enum PrivateStream {
    Sealed(age::stream::StreamWriter<Summed<BufWriter<File>>>),
    Plain(Summed<BufWriter<File>>),
}

impl Write for PrivateStream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            PrivateStream::Sealed(w) => w.write(buf),
            PrivateStream::Plain(w) => w.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            PrivateStream::Sealed(w) => w.flush(),
            PrivateStream::Plain(w) => w.flush(),
        }
    }
}

impl PrivateStream {
    /// Ends the stream (the envelope's last chunk) and sums up the section.
    fn finish(self) -> std::io::Result<SectionSummary> {
        let (kind, mut written) = match self {
            PrivateStream::Sealed(w) => (SectionKind::PrivateSealed, w.finish()?),
            PrivateStream::Plain(w) => (SectionKind::PrivatePlain, w),
        };
        written.flush()?;
        Ok(SectionSummary {
            kind,
            crc: written.crc.finalize(),
            length: written.len,
        })
    }
}
