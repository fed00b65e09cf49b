//! The layout of the original CSV file: what, beside the column texts, is
//! needed to write its bytes again exactly (`spec/FORMAT.md` §7).
//!
//! Every record is rendered *canonically* from its field texts: fields
//! joined by the delimiter, each field as `lead + text + trail` (the
//! column's padding, non-empty only for files read with `trim`), quoted when
//! the text holds the delimiter, a quote, CR or LF (inner quotes doubled),
//! and the record ended by the file's terminator. Whatever the original has
//! that this rendering does not reproduce is stored verbatim, at the
//! smallest grain that holds it: one field, one record's tail (its
//! terminator plus any blank lines after it), or, when a record cannot be
//! split into the table's fields, the whole record.
//!
//! The raw UCI Adult file puts one space after every comma before the text
//! columns and none before the numbers: that is one padding per column, and
//! no exception at all. Byte-exactness does not depend on the tokenizer
//! agreeing with the CSV parser: a record's raw bytes are always the
//! concatenation of its field spans, delimiters and tail, and a span the
//! canonical rendering misses is stored as it is.

// Long: capture and render are the two directions of one format (FORMAT.md §7) and must stay exact
// inverses; kept side by side so a change to one is seen beside the other

use serde::{Deserialize, Serialize};

use crate::table::Column;

/// The longest padding considered a column's common padding.
const MAX_PADDING: usize = 16;

/// A column's common padding around the text (files read with `trim`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Padding {
    /// Bytes before the text of every field.
    pub lead: Vec<u8>,
    /// Bytes after the text of every field.
    pub trail: Vec<u8>,
}

impl Padding {
    /// The padding of a *quoted column* (`spec/FORMAT.md` §7.2): a quote on
    /// each side, meaning that every field is quoted, whatever its text.
    pub fn quoted() -> Padding {
        Padding {
            lead: b"\"".to_vec(),
            trail: b"\"".to_vec(),
        }
    }

    /// Whether this is [`Padding::quoted`]: such a column renders each text
    /// quoted (inner quotes doubled) instead of between a lead and a trail.
    pub fn is_quoted(&self) -> bool {
        self.lead == b"\"" && self.trail == b"\""
    }
}

/// One field whose raw bytes differ from its canonical rendering.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldException {
    /// Record number, counting the header record as 0 when there is one.
    pub record: u64,
    /// Column of the field.
    pub column: u32,
    /// The field's bytes as in the file.
    pub raw: Vec<u8>,
}

/// Raw bytes of a whole record (fields, delimiters and tail), or of a
/// record's tail only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordBytes {
    /// Record number, counting the header record as 0 when there is one.
    pub record: u64,
    /// The bytes as in the file.
    pub raw: Vec<u8>,
}

/// Everything beside the texts that the original file's bytes hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// The field separator.
    pub delimiter: u8,
    /// The usual record terminator (`\r\n`, `\n` or `\r`).
    pub terminator: Vec<u8>,
    /// Whether the last record is followed by the terminator.
    pub final_terminator: bool,
    /// Whether record 0 is the header (the column names).
    pub header: bool,
    /// Whether the header's fields carry the columns' padding.
    pub header_padded: bool,
    /// Bytes before the first record (blank lines the parser skipped).
    pub prefix: Vec<u8>,
    /// One per column.
    pub padding: Vec<Padding>,
    /// Sorted by (record, column).
    pub fields: Vec<FieldException>,
    /// Records stored whole, sorted by record.
    pub records: Vec<RecordBytes>,
    /// Records whose tail is not the usual terminator, sorted by record.
    pub tails: Vec<RecordBytes>,
}

/// A table's columns and header names, as the layout renders them.
pub trait Texts {
    /// Number of columns.
    fn columns(&self) -> usize;
    /// Number of data rows (the header not counted).
    fn rows(&self) -> usize;
    /// The header's name of a column.
    fn name(&self, column: usize) -> &str;
    /// A column's cells as dictionary codes, with their texts.
    fn column(&self, column: usize) -> &Column;
}

impl Texts for crate::table::Table {
    fn columns(&self) -> usize {
        self.columns.len()
    }
    fn rows(&self) -> usize {
        self.rows
    }
    fn name(&self, column: usize) -> &str {
        &self.columns[column].name
    }
    fn column(&self, column: usize) -> &Column {
        &self.columns[column]
    }
}

/// Each dictionary value of a column rendered canonically once (padding,
/// quotes), each followed by the delimiter, so rendering a row copies one
/// slice per field and never scans texts.
struct Rendered {
    /// Value `c` is `bytes[offsets[c]..offsets[c + 1] - 1]`, and the byte
    /// after it the delimiter; or, when `bare`, `bytes[offsets[c]..offsets[c + 1]]`.
    offsets: Vec<u32>,
    /// Ends with [`COPY`] spare bytes, so that every value can be copied
    /// as one fixed-size block.
    bytes: Vec<u8>,
    /// The delimiter, when the values are stored without it
    /// ([`Rendered::taken`]: a dictionary's own buffer, not copied).
    bare: Option<u8>,
}

/// A column's values rendered for records ([`Layout::render_column`]).
pub struct RenderedColumn(Rendered);

/// Fields up to this many bytes (with their delimiter) are copied as one
/// block of this size and the output cut back: one pair of vector moves per
/// field instead of a call to `memcpy` for a few bytes. (32: most runs of
/// adjacent fields, [`Run`], fit too.)
const COPY: usize = 32;

/// Adjacent columns whose values have at most this many combinations are
/// rendered as one field of the combination ([`Run`]): every combination
/// is rendered up front (a few tens of microseconds), and a record then
/// copies one block per run instead of one per column.
const RUN_COMBINATIONS: u64 = 1024;

/// Columns rendered together: the combination of their codes (mixed radix,
/// the first column most significant) indexes `rendered`, which holds each
/// combination's fields with their delimiters.
struct Run {
    columns: std::ops::Range<usize>,
    /// Each column's dictionary size (the radices), in column order.
    radices: Vec<u32>,
    rendered: Rendered,
}

impl Run {
    /// Splits the columns into runs, left to right, each as long as its
    /// combinations stay within [`RUN_COMBINATIONS`] and below the row
    /// count (which would not repay rendering them all).
    fn plan(rendered: &[Rendered], rows: usize) -> Vec<Run> {
        let limit = RUN_COMBINATIONS.min(rows as u64 / 4);
        let mut runs = Vec::new();
        let mut start = 0;
        while start < rendered.len() {
            let mut end = start + 1;
            let mut combinations = rendered[start].len() as u64;
            while end < rendered.len() {
                let more = combinations.saturating_mul(rendered[end].len() as u64);
                if more > limit {
                    break;
                }
                combinations = more;
                end += 1;
            }
            let radices: Vec<u32> = rendered[start..end]
                .iter()
                .map(|r| r.len() as u32)
                .collect();
            let mut joint = Rendered::empty();
            let mut tuple = vec![0u32; end - start];
            for _ in 0..if end - start > 1 { combinations } else { 0 } {
                joint.push(
                    tuple
                        .iter()
                        .zip(&rendered[start..end])
                        .map(|(&v, r)| r.get_delimited(v)),
                );
                // The next tuple, the last column fastest.
                for (v, &radix) in tuple.iter_mut().zip(&radices).rev() {
                    *v += 1;
                    if *v < radix {
                        break;
                    }
                    *v = 0;
                }
            }
            joint.finish();
            runs.push(Run {
                columns: start..end,
                radices,
                rendered: joint,
            });
            start = end;
        }
        runs
    }

    /// The combination index of each row of `rows`, into `out`.
    fn index_rows(&self, codes: &[&[u32]], rows: std::ops::Range<usize>, out: &mut [u32]) {
        let columns = &codes[self.columns.clone()];
        out.copy_from_slice(&columns[0][rows.clone()]);
        for (column, &radix) in columns.iter().zip(&self.radices).skip(1) {
            for (i, &code) in out.iter_mut().zip(&column[rows.clone()]) {
                *i = *i * radix + code;
            }
        }
    }
}

impl Rendered {
    fn build(column: &Column, pad: &Padding, delimiter: u8, alone: bool) -> Rendered {
        let mut offsets = Vec::with_capacity(column.dict.len() + 1);
        let mut bytes = Vec::new();
        offsets.push(0);
        for value in column.dict.values() {
            render_field(&mut bytes, value, Some(pad), delimiter, alone);
            bytes.push(delimiter);
            offsets.push(bytes.len() as u32);
        }
        bytes.extend_from_slice(&[0; COPY]);
        Rendered {
            offsets,
            bytes,
            bare: None,
        }
    }

    /// The values of a column of many values as its dictionary holds them,
    /// without a copy, when every one renders as its bare text (no padding,
    /// no quotes, not a lone column): a restore of a million distinct
    /// numbers copied their texts a second time only to put the delimiter
    /// after each. The column given back otherwise (boxed: the result
    /// stays small).
    fn taken(
        column: Column,
        pad: &Padding,
        delimiter: u8,
        alone: bool,
    ) -> Result<Rendered, Box<Column>> {
        let joined = column.dict.joined().as_bytes();
        let large = column.dict.len() as u64 > RUN_COMBINATIONS;
        let fits = joined.len() + COPY <= u32::MAX as usize;
        if !large || !fits || alone || !pad.lead.is_empty() || !pad.trail.is_empty() {
            return Err(Box::new(column));
        }
        // One pass over every text (no value of it needs quotes), in
        // chunks whose test has no early exit, so that it is vectorized.
        let quoted = joined.chunks(4096).any(|chunk| {
            chunk.iter().fold(false, |q, &b| {
                q | (b == delimiter) | (b == b'"') | (b == b'\r') | (b == b'\n')
            })
        });
        if quoted {
            return Err(Box::new(column));
        }
        let (texts, ends) = column.dict.into_parts();
        let mut offsets = Vec::with_capacity(ends.len() + 1);
        offsets.push(0);
        offsets.extend(ends.iter().map(|&e| e as u32));
        let mut bytes = texts.into_bytes();
        bytes.extend_from_slice(&[0; COPY]);
        Ok(Rendered {
            offsets,
            bytes,
            bare: Some(delimiter),
        })
    }

    fn empty() -> Rendered {
        Rendered {
            offsets: vec![0],
            bytes: Vec::new(),
            bare: None,
        }
    }

    /// Adds a value made of `parts` (each with its delimiter).
    fn push<'b>(&mut self, parts: impl Iterator<Item = &'b [u8]>) {
        for part in parts {
            self.bytes.extend_from_slice(part);
        }
        self.offsets.push(self.bytes.len() as u32);
    }

    /// Adds the spare bytes after the last value.
    fn finish(&mut self) {
        self.bytes.extend_from_slice(&[0; COPY]);
    }

    /// Number of values.
    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Value `code` with its delimiter (not of a [`Rendered::taken`] column).
    fn get_delimited(&self, code: u32) -> &[u8] {
        debug_assert!(self.bare.is_none(), "a taken column is never in a run");
        let c = code as usize;
        &self.bytes[self.offsets[c] as usize..self.offsets[c + 1] as usize]
    }

    #[inline]
    fn get(&self, code: u32) -> &[u8] {
        let c = code as usize;
        let end = self.offsets[c + 1] as usize - usize::from(self.bare.is_none());
        &self.bytes[self.offsets[c] as usize..end]
    }

    /// Appends value `code`, followed by the delimiter when `delimited`.
    #[inline(always)]
    fn append(&self, code: u32, delimited: bool, out: &mut Sink) {
        let c = code as usize;
        let start = self.offsets[c] as usize;
        let stored = self.offsets[c + 1] as usize - start;
        if let Some(delimiter) = self.bare {
            if stored <= COPY {
                let block: &[u8; COPY] = self.bytes[start..start + COPY]
                    .try_into()
                    .expect("a block of COPY bytes");
                out.put_block(block, stored);
            } else {
                out.put(&self.bytes[start..start + stored]);
            }
            if delimited {
                out.push(delimiter);
            }
            return;
        }
        let len = stored - usize::from(!delimited);
        if len <= COPY {
            let block: &[u8; COPY] = self.bytes[start..start + COPY]
                .try_into()
                .expect("a block of COPY bytes");
            out.put_block(block, len);
        } else {
            out.put(&self.bytes[start..start + len]);
        }
    }
}

/// The bytes being rendered. A field of up to [`COPY`] bytes is appended
/// as one whole block and the output cut back to its length: a fixed-size
/// copy, no `memcpy` call for a few bytes. A `Vec` with its capacity
/// reserved, not a zero-filled buffer written by index: filling Adult's
/// 2.5 MB with zeros (and again when the helper's share outgrew its half)
/// took a third of the time rendering them did.
struct Sink {
    buf: Vec<u8>,
    /// The CRC-32 of the bytes up to the given length, when checksummed:
    /// [`Renderer::records`] adds each block's bytes while they are in the
    /// cache (a pass over a finished half took twice as long).
    checksum: Option<(crc32fast::Hasher, usize)>,
}

impl Sink {
    fn with_capacity(bytes: usize, checksummed: bool) -> Sink {
        Sink {
            buf: Vec::with_capacity(bytes + COPY),
            checksum: checksummed.then(|| (crc32fast::Hasher::new(), 0)),
        }
    }

    /// Adds the bytes written since the last call to the checksum.
    fn checksum_written(&mut self) {
        if let Some((h, done)) = &mut self.checksum {
            h.update(&self.buf[*done..]);
            *done = self.buf.len();
        }
    }

    /// The checksum of every byte written.
    fn checksum(&mut self) -> Option<crc32fast::Hasher> {
        self.checksum_written();
        self.checksum.as_ref().map(|(h, _)| h.clone())
    }

    /// Appends the first `len` bytes of `block` (`len <= COPY`).
    #[inline(always)]
    fn put_block(&mut self, block: &[u8; COPY], len: usize) {
        self.buf.extend_from_slice(block);
        self.buf.truncate(self.buf.len() - (COPY - len));
    }

    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    #[inline]
    fn push(&mut self, byte: u8) {
        self.buf.push(byte);
    }

    fn written(&self) -> &[u8] {
        &self.buf
    }

    fn into_vec(self) -> Vec<u8> {
        self.buf
    }
}

/// The position after `expected` when `bytes` holds it at `pos`.
#[inline]
fn starts_with_at(bytes: &[u8], pos: usize, expected: &[u8]) -> Option<usize> {
    let end = pos + expected.len();
    (bytes.get(pos..end)? == expected).then_some(end)
}

/// Why a layout could not be captured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaptureError {
    /// The parser found another number of records than the table has.
    RecordCount {
        /// Records of the table.
        expected: usize,
        /// Records the parser found.
        found: usize,
    },
}

impl std::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CaptureError::RecordCount { expected, found } => {
                write!(f, "expected {expected} records, the parser found {found}")
            }
        }
    }
}

/// Whether the canonical rendering quotes `text`.
fn needs_quotes(text: &[u8], delimiter: u8) -> bool {
    text.iter()
        .any(|&b| b == delimiter || b == b'"' || b == b'\r' || b == b'\n')
}

/// Appends `text` between quotes, its inner quotes doubled.
fn put_quoted(out: &mut Vec<u8>, text: &[u8]) {
    out.push(b'"');
    for &b in text {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// Appends the canonical rendering of one field.
fn render_field(out: &mut Vec<u8>, text: &str, pad: Option<&Padding>, delimiter: u8, alone: bool) {
    let text = text.as_bytes();
    if pad.is_some_and(Padding::is_quoted) {
        put_quoted(out, text);
        return;
    }
    if let Some(p) = pad {
        out.extend_from_slice(&p.lead);
    }
    if needs_quotes(text, delimiter) {
        put_quoted(out, text);
    } else if alone
        && text.is_empty()
        && pad.is_none_or(|p| p.lead.is_empty() && p.trail.is_empty())
    {
        // A record of one empty field would be a blank line, which parsers skip.
        out.extend_from_slice(b"\"\"");
    } else {
        out.extend_from_slice(text);
    }
    if let Some(p) = pad {
        out.extend_from_slice(&p.trail);
    }
}

/// Splits one record's raw bytes into field spans (delimiters at the top
/// level, RFC 4180 quotes at a field's start) and the tail after the last
/// field (terminator and following blank lines).
fn split_record(raw: &[u8], delimiter: u8, spans: &mut Vec<(usize, usize)>) -> usize {
    spans.clear();
    let mut i = 0;
    loop {
        let start = i;
        if raw.get(i) == Some(&b'"') {
            i += 1;
            while i < raw.len() {
                if raw[i] == b'"' {
                    if raw.get(i + 1) == Some(&b'"') {
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                i += 1;
            }
        }
        while i < raw.len() && raw[i] != delimiter && raw[i] != b'\n' && raw[i] != b'\r' {
            i += 1;
        }
        spans.push((start, i));
        if i < raw.len() && raw[i] == delimiter {
            i += 1;
        } else {
            return i;
        }
    }
}

/// The leading and trailing spaces and tabs of an unquoted field.
fn padding_of(raw: &[u8]) -> (&[u8], &[u8]) {
    let lead = raw.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    let rest = &raw[lead..];
    let trail = rest
        .iter()
        .rev()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    (&raw[..lead], &rest[rest.len() - trail..])
}

/// One record as the scanner found it: where it starts, its fields, where
/// its tail starts and where the next record starts.
struct Scanned {
    start: usize,
    tail: usize,
    next: usize,
}

/// The csv crate's view of record boundaries (blank lines skipped; CR, LF
/// or CRLF end a record outside quotes; quotes only at a field's start):
/// scans the record at `i` (after any blank lines) into `fields` (offsets
/// relative to the record's start).
fn scan_record(
    bytes: &[u8],
    mut i: usize,
    delimiter: u8,
    fields: &mut Vec<(usize, usize)>,
) -> Option<Scanned> {
    while i < bytes.len() && (bytes[i] == b'\n' || bytes[i] == b'\r') {
        i += 1;
    }
    if i >= bytes.len() {
        return None;
    }
    let tail = i + split_record(&bytes[i..], delimiter, fields);
    let mut next = tail;
    while next < bytes.len() && (bytes[next] == b'\n' || bytes[next] == b'\r') {
        next += 1;
    }
    Some(Scanned {
        start: i,
        tail,
        next,
    })
}

/// From this many expected bytes on, [`Layout::render_hashed`] renders on
/// two threads.
const PARALLEL_BYTES: usize = 1 << 20;

/// The records the calling thread renders on two threads, as a fraction:
/// half. It also copies the helper's records into the output (60 us on
/// Adult) and prepares the renderer while the helper starts; on Adult the
/// render took 0.97-1.01 ms at 50 %, 1.03-1.08 ms at 46 % and
/// 1.09-1.12 ms at 60 % (medians of 300 restores, development format 7), and 47 % is
/// no better since the helper's start overlaps the preparation.
const CALLER_SHARE: (usize, usize) = (50, 100);

/// The bytes of a piece of a restore's output ([`Pieces`]): large enough
/// that handing a piece on costs nothing beside rendering it, small enough
/// to stay in the second-level cache until it is written.
const PIECE_BYTES: usize = 1 << 20;

/// Records rendered per block of [`Renderer::records`]: its indices (4
/// bytes per run and row) stay in the first-level cache.
const BLOCK: usize = 256;

/// The runs' combination indices of a block of rows: run `k`'s for row
/// `first_row + i` at `indices[k * BLOCK + i]`.
struct Block {
    first_row: usize,
    indices: Vec<u32>,
}

/// Where rendering stands in the layout's exception lists.
struct Cursor {
    field: usize,
    record: usize,
    tail: usize,
}

/// What rendering records needs, prepared once: each column's values
/// rendered canonically, the runs of columns rendered together, and the
/// codes.
struct Renderer<'a, T: Texts> {
    layout: &'a Layout,
    texts: &'a T,
    rendered: Vec<Rendered>,
    runs: Vec<Run>,
    codes: Vec<&'a [u32]>,
    records: usize,
    /// The layout's terminator in a copy block.
    terminator: [u8; COPY],
}

impl<'a, T: Texts> Renderer<'a, T> {
    fn new(layout: &'a Layout, texts: &'a T) -> Self {
        let rendered: Vec<Rendered> = (0..texts.columns())
            .map(|c| layout.render_column(c, texts.columns(), texts.column(c)).0)
            .collect();
        Renderer::with(layout, texts, rendered)
    }

    /// The renderer of `texts` whose columns' values are `rendered`
    /// already (the texts' dictionaries are not read).
    fn with(layout: &'a Layout, texts: &'a T, rendered: Vec<Rendered>) -> Self {
        let runs = Run::plan(&rendered, texts.rows());
        let codes = (0..texts.columns())
            .map(|c| &texts.column(c).codes[..])
            .collect();
        let mut terminator = [0; COPY];
        let end = layout.terminator.len().min(COPY);
        terminator[..end].copy_from_slice(&layout.terminator[..end]);
        Renderer {
            layout,
            texts,
            rendered,
            runs,
            codes,
            records: texts.rows() + usize::from(layout.header),
            terminator,
        }
    }

    /// Where the exception lists stand when record `r` is next.
    fn cursor_at(&self, r: usize) -> Cursor {
        let l = self.layout;
        let r = r as u64;
        Cursor {
            field: l.fields.partition_point(|e| e.record < r),
            record: l.records.partition_point(|e| e.record < r),
            tail: l.tails.partition_point(|e| e.record < r),
        }
    }

    /// Appends records `from..to`. The exception cursor is found for
    /// `from`, so the records before it may be rendered elsewhere. Records
    /// go [`BLOCK`] at a time: first each run's combination indices for
    /// the block, column by column (loops the compiler vectorizes), then
    /// the records from them, one table lookup and block copy per run.
    fn records(&self, from: usize, to: usize, out: &mut Sink) {
        let mut at = self.cursor_at(from);
        let header = usize::from(self.layout.header);
        let tables: Vec<&Rendered> = self
            .runs
            .iter()
            .map(|run| match run.columns.len() {
                1 => &self.rendered[run.columns.start],
                _ => &run.rendered,
            })
            .collect();
        let mut block = Block {
            first_row: 0,
            indices: vec![0; BLOCK * self.runs.len()],
        };
        let mut r = from;
        while r < to {
            let end = (r + BLOCK).min(to);
            let rows = r.max(header) - header..end.max(header) - header;
            block.first_row = rows.start;
            for (run, indices) in self.runs.iter().zip(block.indices.chunks_exact_mut(BLOCK)) {
                run.index_rows(&self.codes, rows.clone(), &mut indices[..rows.len()]);
            }
            for rec in r..end {
                self.record(rec, &mut at, &tables, &block, out);
            }
            out.checksum_written();
            r = end;
        }
    }

    /// Appends record `r` (the records before it rendered with `at`; its
    /// runs' indices in `block`, drawn from `tables`).
    #[inline]
    fn record(
        &self,
        r: usize,
        at: &mut Cursor,
        tables: &[&Rendered],
        block: &Block,
        out: &mut Sink,
    ) {
        let l = self.layout;
        let rec = r as u64;
        if l.records.get(at.record).is_some_and(|e| e.record == rec) {
            out.put(&l.records[at.record].raw);
            at.record += 1;
            return;
        }
        let is_header = l.header && r == 0;
        let row = r.wrapping_sub(usize::from(l.header));
        if !is_header && l.fields.get(at.field).is_none_or(|e| e.record != rec) {
            // The common case: every field canonical, a block per run.
            let i = row - block.first_row;
            let last = tables.len().saturating_sub(1);
            for (k, table) in tables.iter().enumerate() {
                table.append(block.indices[k * BLOCK + i], k != last, out);
            }
        } else {
            for c in 0..self.codes.len() {
                if c > 0 {
                    out.push(l.delimiter);
                }
                match l.fields.get(at.field) {
                    Some(e) if e.record == rec && e.column == c as u32 => {
                        out.put(&e.raw);
                        at.field += 1;
                    }
                    _ if is_header => {
                        let mut field = Vec::new();
                        l.render_header_field(&mut field, self.texts, c);
                        out.put(&field);
                    }
                    _ => self.rendered[c].append(self.codes[c][row], false, out),
                }
            }
        }
        if l.tails.get(at.tail).is_some_and(|e| e.record == rec) {
            out.put(&l.tails[at.tail].raw);
            at.tail += 1;
        } else {
            // The terminator (or nothing after the last record) as a
            // block copy, not a `memcpy` call for a byte or two.
            let tail = l.default_tail(r, self.records);
            out.put_block(&self.terminator, tail.len());
        }
    }
}

/// A render split at a record into two halves, each rendered on its own
/// thread ([`Layout::halves`]).
pub struct Halves<'a, T: Texts> {
    renderer: Renderer<'a, T>,
    /// The first record of the tail.
    split: usize,
    expected_len: usize,
}

/// One half of a render, with the CRC-32 of its bytes.
pub struct Half {
    sink: Sink,
    checksum: crc32fast::Hasher,
}

impl<T: Texts> Halves<'_, T> {
    /// The first records, into a buffer for the whole output: to be
    /// rendered on the thread that then joins the halves.
    pub fn head(&self) -> Half {
        let mut sink = Sink::with_capacity(self.expected_len, true);
        sink.put(&self.renderer.layout.prefix);
        self.renderer.records(0, self.split, &mut sink);
        Half {
            checksum: sink.checksum().expect("checksummed"),
            sink,
        }
    }

    /// The other records, into a buffer this thread allocates (from its
    /// own glibc arena: allocated on the joining thread beside the output,
    /// it came as fresh pages to every restore of a loop, about 1,650 page
    /// faults per restore of Adult), with room for records longer than the
    /// average.
    pub fn tail(&self) -> Half {
        let (share, of) = CALLER_SHARE;
        let len = self.expected_len;
        let mut sink = Sink::with_capacity(len - len / of * share + len / 16, true);
        self.renderer
            .records(self.split, self.renderer.records, &mut sink);
        Half {
            checksum: sink.checksum().expect("checksummed"),
            sink,
        }
    }

    /// The whole output and its CRC-32: the tail's bytes after the head's,
    /// their CRC-32s combined.
    pub fn join(&self, head: Half, tail: Half) -> (Vec<u8>, u32) {
        let mut checksum = head.checksum;
        checksum.combine(&tail.checksum);
        let mut out = head.sink;
        // The checksum is whole: the tail's bytes join unchecksummed.
        out.checksum = None;
        out.put(tail.sink.written());
        (out.into_vec(), checksum.finalize())
    }
}

/// A render cut at records into pieces of about `PIECE_BYTES` (1 MiB), each
/// rendered on its own into a buffer that is then reused
/// ([`Layout::pieces_of`]): a restore hands each piece on while the next
/// ones are rendered, instead of rendering the whole output into fresh
/// memory first (84 MB of page faults on a 1M-row table) and writing it
/// after, one thread idle.
pub struct Pieces<'a, T: Texts> {
    renderer: Renderer<'a, T>,
    /// Records per piece (the last may have fewer).
    per_piece: usize,
    /// The bytes a piece is expected to take.
    piece_len: usize,
}

impl<T: Texts> Pieces<'_, T> {
    /// The number of pieces (at least one).
    pub fn count(&self) -> usize {
        self.renderer.records.div_ceil(self.per_piece).max(1)
    }

    /// Renders piece `i` into `buf` (emptied first, its capacity reused):
    /// the bytes and their CRC-32, taken as they are rendered.
    pub fn render(&self, i: usize, buf: Vec<u8>) -> (Vec<u8>, crc32fast::Hasher) {
        let mut sink = Sink {
            buf,
            checksum: Some((crc32fast::Hasher::new(), 0)),
        };
        sink.buf.clear();
        sink.buf.reserve(self.piece_len + COPY);
        if i == 0 {
            sink.put(&self.renderer.layout.prefix);
        }
        let records = self.renderer.records;
        let from = (i * self.per_piece).min(records);
        let to = (from + self.per_piece).min(records);
        self.renderer.records(from, to, &mut sink);
        let checksum = sink.checksum().expect("checksummed");
        (sink.into_vec(), checksum)
    }
}

/// The end of the first `records` whole records of `bytes` (with the blank
/// lines after the last), as CSV parsers split them, and how many there
/// are. With `complete == false` (more bytes may follow), a record reaching
/// the end of `bytes` is not counted: its terminator may be still to come.
pub fn records_end(bytes: &[u8], records: usize, delimiter: u8, complete: bool) -> (usize, usize) {
    let mut fields = Vec::new();
    let (mut at, mut n) = (0, 0);
    while n < records {
        match scan_record(bytes, at, delimiter, &mut fields) {
            Some(rec) if complete || rec.next < bytes.len() => {
                at = rec.next;
                n += 1;
            }
            _ => break,
        }
    }
    (at, n)
}

/// How many data records the padding is learnt from.
const PADDING_SAMPLE: usize = 4096;

impl Layout {
    /// Captures the layout of `bytes`, the file `texts` was read from with
    /// this `delimiter`, `header` and `trim`, in one pass: each record is
    /// split and compared with its canonical rendering.
    pub fn capture<T: Texts>(
        bytes: &[u8],
        texts: &T,
        delimiter: u8,
        header: bool,
        trim: bool,
    ) -> Result<Layout, CaptureError> {
        let padding = Layout::learn_padding(bytes, texts.columns(), delimiter, header, trim);
        Layout::capture_with_padding(bytes, texts, delimiter, header, padding)
    }

    /// Each column's padding, learnt from the first data records of `bytes`:
    /// [`Padding::quoted`] for a column with more fields quoted without
    /// need than fields not quoted (an export that quotes every text, each
    /// field of which would otherwise be an exception: 62 KB of 3,376
    /// airports' names); else,
    /// when the file is read with `trim`, the most frequent spaces and tabs
    /// around its unquoted fields; else none.
    pub fn learn_padding(
        bytes: &[u8],
        columns: usize,
        delimiter: u8,
        header: bool,
        trim: bool,
    ) -> Vec<Padding> {
        let mut fields: Vec<(usize, usize)> = Vec::with_capacity(columns);
        let mut padding = vec![Padding::default(); columns];
        // Per column: fields not quoted, and fields quoted from end to end
        // that need no quotes. A field that needs its quotes renders the
        // same either way and counts for neither: a column of free text
        // quoted only where it holds a comma is not a quoted column (its
        // bare fields would all become exceptions).
        let mut quoted = vec![(0usize, 0usize); columns];
        {
            type Count<'b> = ((&'b [u8], &'b [u8]), usize);
            let mut counts: Vec<Vec<Count<'_>>> = vec![Vec::new(); columns];
            let mut at = 0;
            let mut r = 0;
            while let Some(rec) = scan_record(bytes, at, delimiter, &mut fields) {
                at = rec.next;
                r += 1;
                if r == 1 && header || fields.len() != columns {
                    continue;
                }
                if r > PADDING_SAMPLE {
                    break;
                }
                for ((list, q), &(a, b)) in counts.iter_mut().zip(&mut quoted).zip(&fields) {
                    let field = &bytes[rec.start + a..rec.start + b];
                    let quoted = field.len() >= 2 && field[0] == b'"' && field.ends_with(b"\"");
                    if !quoted {
                        q.0 += 1;
                    } else if !needs_quotes(&field[1..field.len() - 1], delimiter) {
                        q.1 += 1;
                    }
                    if !trim {
                        continue;
                    }
                    let (lead, trail) = padding_of(field);
                    if lead.len() > MAX_PADDING
                        || trail.len() > MAX_PADDING
                        || field.get(lead.len()) == Some(&b'"')
                    {
                        continue;
                    }
                    match list.iter().position(|(k, _)| *k == (lead, trail)) {
                        Some(i) => list[i].1 += 1,
                        None if list.len() < 64 => list.push(((lead, trail), 1)),
                        None => {}
                    }
                }
            }
            for ((pad, list), &(bare, q)) in padding.iter_mut().zip(&counts).zip(&quoted) {
                if q > bare {
                    *pad = Padding::quoted();
                } else if let Some(&((lead, trail), _)) =
                    list.iter().max_by_key(|&&(k, n)| (n, std::cmp::Reverse(k)))
                {
                    *pad = Padding {
                        lead: lead.to_vec(),
                        trail: trail.to_vec(),
                    };
                }
            }
        }
        padding
    }

    // Long: one pass over the records: the canonical common case first, then the in-place field
    // comparison and the exceptions; split, the scan state would be passed around
    /// As [`Layout::capture`], with the columns' padding given: a row
    /// group of a streamed file uses the padding learnt from the first.
    pub fn capture_with_padding<T: Texts>(
        bytes: &[u8],
        texts: &T,
        delimiter: u8,
        header: bool,
        padding: Vec<Padding>,
    ) -> Result<Layout, CaptureError> {
        let columns = texts.columns();
        let records = texts.rows() + usize::from(header);
        let mut fields: Vec<(usize, usize)> = Vec::with_capacity(columns);
        let first = scan_record(bytes, 0, delimiter, &mut fields);
        let terminator = first
            .as_ref()
            .map(|f| &bytes[f.tail..f.next])
            .and_then(|tail| {
                [&b"\r\n"[..], b"\n", b"\r"]
                    .into_iter()
                    .find(|t| tail.starts_with(t))
            })
            .unwrap_or(b"\n")
            .to_vec();
        let mut layout = Layout {
            delimiter,
            terminator,
            final_terminator: true,
            header,
            header_padded: false,
            prefix: bytes[..first.as_ref().map_or(bytes.len(), |f| f.start)].to_vec(),
            padding,
            fields: Vec::new(),
            records: Vec::new(),
            tails: Vec::new(),
        };
        let alone = columns == 1;
        if let (true, Some(f)) = (header, &first)
            && fields.len() == columns
        {
            // Pad the header when that matches more of its fields.
            let mut scratch = Vec::new();
            let mut matches = [0usize; 2];
            for (padded, m) in matches.iter_mut().enumerate() {
                for (c, &(a, b)) in fields.iter().enumerate() {
                    scratch.clear();
                    let pad = (padded == 1).then(|| &layout.padding[c]);
                    render_field(&mut scratch, texts.name(c), pad, delimiter, alone);
                    *m += usize::from(scratch == bytes[f.start + a..f.start + b]);
                }
            }
            layout.header_padded = matches[1] > matches[0];
        }

        let rendered: Vec<Rendered> = (0..columns)
            .map(|c| Rendered::build(texts.column(c), &layout.padding[c], delimiter, alone))
            .collect();
        let codes: Vec<&[u32]> = (0..columns).map(|c| &texts.column(c).codes[..]).collect();
        let mut scratch = Vec::new();
        let mut at = 0;
        let mut r = 0usize;
        loop {
            // The common case first: a data record whose bytes are its
            // canonical rendering and the terminator, with no blank line
            // after it, has no exception, and `render` writes exactly those
            // bytes there: no need to tokenize it.
            if r > 0 && r >= usize::from(header) && r < records && columns > 0 {
                let row = r - usize::from(header);
                // Compared in place, field by field with its delimiter (no
                // copy of the line), up to the first field that differs.
                let last = columns - 1;
                let end = rendered.iter().zip(&codes).enumerate().try_fold(
                    at,
                    |pos, (c, (rendered, codes))| {
                        let field = if c < last {
                            rendered.get_delimited(codes[row])
                        } else {
                            rendered.get(codes[row])
                        };
                        starts_with_at(bytes, pos, field)
                    },
                );
                let end = end.and_then(|pos| starts_with_at(bytes, pos, &layout.terminator));
                if let Some(end) = end.filter(|&e| !matches!(bytes.get(e), Some(b'\n' | b'\r'))) {
                    if end == bytes.len() {
                        layout.final_terminator = true;
                    }
                    at = end;
                    r += 1;
                    continue;
                }
            }
            let Some(rec) = scan_record(bytes, at, delimiter, &mut fields) else {
                break;
            };
            at = rec.next;
            if r >= records {
                r += 1;
                continue; // counted for the error below
            }
            let last = rec.next == bytes.len();
            if fields.len() != columns {
                layout.records.push(RecordBytes {
                    record: r as u64,
                    raw: bytes[rec.start..rec.next].to_vec(),
                });
                if last {
                    // A whole-record copy holds its own tail.
                    layout.final_terminator = rec.tail < rec.next;
                }
                r += 1;
                continue;
            }
            for (c, &(a, b)) in fields.iter().enumerate() {
                let field = &bytes[rec.start + a..rec.start + b];
                let same = if header && r == 0 {
                    scratch.clear();
                    layout.render_header_field(&mut scratch, texts, c);
                    scratch == field
                } else {
                    rendered[c].get(codes[c][r - usize::from(header)]) == field
                };
                if !same {
                    layout.fields.push(FieldException {
                        record: r as u64,
                        column: c as u32,
                        raw: field.to_vec(),
                    });
                }
            }
            let tail = &bytes[rec.tail..rec.next];
            if last {
                layout.final_terminator = !tail.is_empty();
            }
            if !tail.is_empty() && tail != layout.terminator.as_slice() {
                layout.tails.push(RecordBytes {
                    record: r as u64,
                    raw: tail.to_vec(),
                });
            }
            r += 1;
        }
        if r != records {
            return Err(CaptureError::RecordCount {
                expected: records,
                found: r,
            });
        }
        Ok(layout)
    }

    fn default_tail(&self, record: usize, records: usize) -> &[u8] {
        if record + 1 == records && !self.final_terminator {
            &[]
        } else {
            &self.terminator
        }
    }

    fn render_header_field<T: Texts>(&self, out: &mut Vec<u8>, texts: &T, c: usize) {
        let pad = self.header_padded.then(|| &self.padding[c]);
        render_field(
            out,
            texts.name(c),
            pad,
            self.delimiter,
            texts.columns() == 1,
        );
    }

    /// The canonical CSV of a table of `columns` columns: a header row,
    /// `,` between fields, LF after every record, fields quoted only where
    /// needed. An Arrow input (Parquet, IPC) is packed as this rendering of
    /// its texts, which its layout captures without exceptions.
    pub fn canonical(columns: usize) -> Layout {
        Layout {
            delimiter: b',',
            terminator: b"\n".to_vec(),
            final_terminator: true,
            header: true,
            header_padded: false,
            prefix: Vec::new(),
            padding: vec![Padding::default(); columns],
            fields: Vec::new(),
            records: Vec::new(),
            tails: Vec::new(),
        }
    }

    /// Writes the original file's bytes from the texts.
    pub fn render<T: Texts>(&self, texts: &T, out: &mut Vec<u8>) {
        let r = Renderer::new(self, texts);
        let mut sink = Sink {
            buf: std::mem::take(out),
            checksum: None,
        };
        sink.put(&self.prefix);
        r.records(0, r.records, &mut sink);
        *out = sink.into_vec();
    }

    /// Renders as [`Layout::render`] and returns the bytes with their
    /// CRC-32. From `PARALLEL_BYTES` expected bytes on (the length the
    /// caller expects; the output is right whatever it is), a second thread
    /// renders the last `CALLER_SHARE` of the records into its own buffer
    /// while this one renders the first into the output; each takes the
    /// checksum of its own bytes as it renders them, and the two combine.
    pub fn render_hashed<T: Texts + Sync>(&self, texts: &T, expected_len: usize) -> (Vec<u8>, u32) {
        if Layout::renders_on_two_threads(expected_len) {
            return self.render_split(texts, expected_len);
        }
        let mut head = Sink::with_capacity(expected_len, false);
        head.put(&self.prefix);
        let r = Renderer::new(self, texts);
        r.records(0, r.records, &mut head);
        let out = head.into_vec();
        let crc = crc32fast::hash(&out);
        (out, crc)
    }

    /// [`Layout::render_hashed`] on two threads.
    fn render_split<T: Texts + Sync>(&self, texts: &T, expected_len: usize) -> (Vec<u8>, u32) {
        // The helper is started first and waits for the renderer this
        // thread prepares meanwhile (its start and the preparation take
        // about 40 us each on Adult).
        let halves = std::sync::OnceLock::new();
        std::thread::scope(|scope| {
            let (go, ready) = std::sync::mpsc::sync_channel(1);
            let helper = scope.spawn(move || {
                let halves: &Halves<'_, T> = ready.recv().expect("the caller prepares the halves");
                halves.tail()
            });
            let halves = halves.get_or_init(|| self.halves(texts, expected_len));
            go.send(halves).expect("the helper waits for the halves");
            let head = halves.head();
            halves.join(head, helper.join().expect("rendering does not panic"))
        })
    }

    /// [`Layout::render_hashed`]'s work on two threads as steps, for a
    /// caller that keeps its own second thread (a restore first gives it
    /// sections to decode): [`Halves::head`] on the calling thread,
    /// [`Halves::tail`] on the other, then [`Halves::join`]. For expected
    /// lengths from `PARALLEL_BYTES` on ([`Layout::renders_on_two_threads`]).
    pub fn halves<'a, T: Texts>(&'a self, texts: &'a T, expected_len: usize) -> Halves<'a, T> {
        Layout::split(Renderer::new(self, texts), expected_len)
    }

    /// [`Pieces`] of columns whose values each thread rendered with
    /// [`Layout::render_column`] as it decoded them: `rendered[c]` for
    /// `texts.column(c)`, whose dictionary is not read again (it may be
    /// dropped). `expected_len` sizes the pieces (the output is right
    /// whatever its length).
    pub fn pieces_of<'a, T: Texts>(
        &'a self,
        texts: &'a T,
        rendered: Vec<RenderedColumn>,
        expected_len: usize,
    ) -> Pieces<'a, T> {
        let rendered = rendered.into_iter().map(|r| r.0).collect();
        let renderer = Renderer::with(self, texts, rendered);
        let per_record = (expected_len / renderer.records.max(1)).max(1);
        let per_piece = (PIECE_BYTES / per_record).max(BLOCK);
        Pieces {
            renderer,
            per_piece,
            piece_len: per_piece.saturating_mul(per_record).min(PIECE_BYTES * 2),
        }
    }

    /// Column `c` of `columns`' values rendered as records show them
    /// (padding, quotes, the delimiter after), for [`Layout::pieces_of`].
    pub fn render_column(&self, c: usize, columns: usize, column: &Column) -> RenderedColumn {
        RenderedColumn(Rendered::build(
            column,
            &self.padding[c],
            self.delimiter,
            columns == 1,
        ))
    }

    /// [`Layout::render_column`] of a column not read again: its codes
    /// (a column with an empty dictionary) and its values rendered, taking
    /// the dictionary's buffer as it is where that renders the same bytes
    /// (`Rendered::taken`).
    pub fn render_column_owned(
        &self,
        c: usize,
        columns: usize,
        mut column: Column,
    ) -> (Column, RenderedColumn) {
        // Rendering reads the dictionary alone.
        let name = std::mem::take(&mut column.name);
        let codes = std::mem::take(&mut column.codes);
        let rendered = match Rendered::taken(column, &self.padding[c], self.delimiter, columns == 1)
        {
            Ok(rendered) => rendered,
            Err(column) => self.render_column(c, columns, &column).0,
        };
        let codes = Column {
            name,
            dict: crate::dictionary::Dictionary::new(),
            codes,
        };
        (codes, RenderedColumn(rendered))
    }

    fn split<T: Texts>(renderer: Renderer<'_, T>, expected_len: usize) -> Halves<'_, T> {
        let (share, of) = CALLER_SHARE;
        Halves {
            split: renderer.records * share / of,
            renderer,
            expected_len,
        }
    }

    /// Whether [`Layout::render_hashed`] renders `expected_len` bytes on
    /// two threads.
    pub fn renders_on_two_threads(expected_len: usize) -> bool {
        expected_len >= PARALLEL_BYTES
    }

    /// Checks the layout against the table shape it is used with: sorted
    /// exceptions, in range. A message names the first broken rule.
    pub fn validate(&self, columns: usize, rows: usize) -> Result<(), String> {
        let records = (rows + usize::from(self.header)) as u64;
        if self.padding.len() != columns {
            return Err(format!(
                "expected padding for {columns} columns, found {}",
                self.padding.len()
            ));
        }
        if !matches!(&self.terminator[..], b"\r\n" | b"\n" | b"\r") {
            return Err(format!(
                "terminator {:?} is not CRLF, LF or CR",
                self.terminator
            ));
        }
        let mut last = None;
        for e in &self.fields {
            let key = (e.record, e.column);
            if e.record >= records || e.column as usize >= columns || last >= Some(key) {
                return Err(format!(
                    "field exception (record {}, column {}) out of range or order",
                    e.record, e.column
                ));
            }
            last = Some(key);
        }
        for list in [&self.records, &self.tails] {
            let mut last = None;
            for e in list {
                if e.record >= records || last >= Some(e.record) {
                    return Err(format!(
                        "record exception {} out of range or order",
                        e.record
                    ));
                }
                last = Some(e.record);
            }
        }
        Ok(())
    }

    /// How many bytes are stored verbatim (for reports).
    pub fn verbatim_bytes(&self) -> usize {
        self.prefix.len()
            + self.fields.iter().map(|e| e.raw.len()).sum::<usize>()
            + self.records.iter().map(|e| e.raw.len()).sum::<usize>()
            + self.tails.iter().map(|e| e.raw.len()).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{CsvOptions, Table};
    use std::path::Path;

    fn round_trip(bytes: &[u8], trim: bool) -> Layout {
        let opts = CsvOptions {
            delimiter: None,
            header: true,
            trim,
        };
        let t = Table::from_bytes(Path::new("t.csv"), bytes, &opts).unwrap();
        let layout = Layout::capture(bytes, &t, t.delimiter, true, trim).unwrap();
        let mut out = Vec::new();
        layout.render(&t, &mut out);
        assert_eq!(out, bytes);
        // The expected length only chooses one thread or two and sizes the
        // buffers: a wrong one (a corrupt archive's) renders the file and
        // its CRC-32 all the same.
        for expected in [
            bytes.len(),
            0,
            PARALLEL_BYTES,
            2 * bytes.len() + PARALLEL_BYTES,
        ] {
            let (hashed, crc) = layout.render_hashed(&t, expected);
            assert!(
                hashed == bytes,
                "render_hashed (expecting {expected} bytes) differs from the file"
            );
            assert_eq!(
                crc,
                crc32fast::hash(bytes),
                "CRC-32, expecting {expected} bytes"
            );
        }
        // In pieces rendered last first (each on its own, as either thread
        // of a restore takes them), one buffer reused: the same bytes.
        for expected in [bytes.len(), 0, 64 * bytes.len()] {
            let (pieces, crc) = rendered_in_pieces(&layout, &t, expected);
            assert!(
                pieces.concat() == bytes,
                "{} pieces (expecting {expected} bytes) differ from the file",
                pieces.len()
            );
            assert_eq!(crc, crc32fast::hash(bytes), "CRC-32 of the pieces");
        }
        layout.validate(t.columns.len(), t.rows).unwrap();
        layout
    }

    /// `t` rendered as [`Pieces`], last piece first, and their CRC-32s
    /// combined in order.
    fn rendered_in_pieces(layout: &Layout, t: &Table, expected: usize) -> (Vec<Vec<u8>>, u32) {
        let n = t.columns.len();
        let rendered = (0..n)
            .map(|c| layout.render_column(c, n, &t.columns[c]))
            .collect();
        let pieces = layout.pieces_of(t, rendered, expected);
        let mut out = vec![(Vec::new(), crc32fast::Hasher::new()); pieces.count()];
        let mut buf = Vec::new();
        for i in (0..pieces.count()).rev() {
            let (bytes, crc) = pieces.render(i, buf);
            buf = bytes.clone();
            out[i] = (bytes, crc);
        }
        let mut crc = crc32fast::Hasher::new();
        for (_, piece) in &out {
            crc.combine(piece);
        }
        (out.into_iter().map(|(b, _)| b).collect(), crc.finalize())
    }

    /// Above `PARALLEL_BYTES` two threads render: exceptions on both sides
    /// of the split (needless quotes, blank lines, padding, a quote inside a
    /// field, fields longer than one copy block) come out byte for byte.
    #[test]
    fn large_files_render_on_two_threads_byte_for_byte() {
        let mut bytes = b"id, name,city\n".to_vec();
        let mut r = 0u32;
        while bytes.len() < 3 * PARALLEL_BYTES / 2 {
            let line = match r % 97 {
                0 => format!("{r}, \"n{r}\",c\n"),
                1 => format!("{r}, n{r},c\n\n"),
                2 => format!("{r},  n{r},c\n"),
                3 => format!("{r},\"n\"{r},c\n"),
                4 => format!("{r}, a rather long name of row {r},\"x,y\"\n"),
                _ => format!("{r}, n{},c{}\n", r % 13, r % 5),
            };
            bytes.extend_from_slice(line.as_bytes());
            r += 1;
        }
        let layout = round_trip(&bytes, true);
        assert!(!layout.fields.is_empty() && !layout.tails.is_empty());
    }

    /// Adjacent columns with few combinations render as one block each
    /// record: every combination of codes comes out as its fields would,
    /// quoted values and combinations longer than a copy block included.
    #[test]
    fn runs_of_columns_render_as_their_fields() {
        let mut bytes = b"s;a;q;long;n\n".to_vec();
        for r in 0..3000u32 {
            let long = if r % 7 == 0 {
                "a value much longer than one copy block of bytes"
            } else {
                "short"
            };
            let q = ["x", "\"y;z\"", "w"][(r % 3) as usize];
            let line = format!("{};{};{q};{long};{}\n", r % 2, (r / 2) % 4, r % 50);
            bytes.extend_from_slice(line.as_bytes());
        }
        let layout = round_trip(&bytes, false);
        assert_eq!(layout.verbatim_bytes(), 0);
        let opts = CsvOptions {
            delimiter: None,
            header: true,
            trim: false,
        };
        let t = Table::from_bytes(Path::new("t.csv"), &bytes, &opts).unwrap();
        let r = Renderer::new(&layout, &t);
        let spans: Vec<_> = r.runs.iter().map(|run| run.columns.clone()).collect();
        assert_eq!(spans, [0..4, 4..5], "2 x 4 x 3 x 2 combinations, then 50");
    }

    #[test]
    fn canonical_files_need_no_exception() {
        let l = round_trip(b"a;b\r\n1;\"x;y\"\r\n2;\"say \"\"hi\"\"\"\r\n", false);
        assert_eq!(l.terminator, b"\r\n");
        assert!(l.final_terminator);
        assert_eq!(l.verbatim_bytes(), 0);
        let l = round_trip(b"a,b\n1,\"two\nlines\"\n3,", false);
        assert!(!l.final_terminator);
        assert_eq!(l.verbatim_bytes(), 0);
    }

    #[test]
    fn padding_per_column_then_exceptions() {
        let bytes = b"age,workclass,x\n39, State-gov,1\n50, Self-emp,2\n38,  Private,3\n";
        let l = round_trip(bytes, true);
        assert_eq!(l.padding[0], Padding::default());
        assert_eq!(l.padding[1].lead, b" ");
        assert!(!l.header_padded);
        assert_eq!(l.fields.len(), 1);
        assert_eq!(l.fields[0].raw, b"  Private");
        assert_eq!(l.fields[0].record, 3);
    }

    #[test]
    fn quoted_columns_need_no_exception() {
        // An export quoting every text: the quotes are the column's padding,
        // the texts that need them (quotes, delimiters) quoted once, an empty
        // cell as `""`, and an unquoted field of that column an exception.
        let bytes =
            b"id,name,n\n1,\"Smith Field\",5\n2,\"say \"\"hi\"\", a\",6\n3,\"\",7\n4,bare,8\n";
        for trim in [false, true] {
            let l = round_trip(bytes, trim);
            assert!(l.padding[1].is_quoted(), "trim {trim}");
            assert!(!l.padding[0].is_quoted() && !l.padding[2].is_quoted());
            assert!(!l.header_padded);
            assert_eq!(l.fields.len(), 1, "trim {trim}");
            assert_eq!(l.fields[0].raw, b"bare");
        }
        // A quoted header is padded too; a column quoted in half its rows is not.
        let l = round_trip(b"\"a\",\"b\"\n\"1\",\"x\"\n\"2\",y\n", false);
        assert!(l.header_padded && l.padding[0].is_quoted() && !l.padding[1].is_quoted());
        assert_eq!(
            l.verbatim_bytes(),
            6,
            "column b's `\"x\"` and header `\"b\"`"
        );
        // Free text quoted only where it must be, in most rows: not a quoted
        // column, no exception.
        let l = round_trip(
            b"n,t\n1,\"a, b\"\n2,\"c \"\"d\"\"\"\n3,e\n4,\"f,\"\n",
            false,
        );
        assert!(!l.padding[1].is_quoted());
        assert_eq!(l.verbatim_bytes(), 0);
        // A column of one field, quoted: an empty text is `""` either way.
        round_trip(b"\"a\"\n\"\"\n\"x\"\n\"\"\n", false);
    }

    #[test]
    fn odd_bytes_are_kept() {
        // Needless quotes, blank lines, a lone CR, a BOM, trailing blank lines.
        round_trip(b"\xef\xbb\xbfa,b\n\"1\",2\n\n\n3,4\r5,6\n\n", false);
        round_trip(b"\na,b\n1,2", false);
        round_trip(b"a\n\"\"\nx\n", false);
        round_trip(b"a,b\n\"x\"y,2\n", false);
        round_trip(b"a, b\n \"q\" , \"r\" \n1,  2\n", true);
    }
}
