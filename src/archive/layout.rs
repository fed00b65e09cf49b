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

use serde::{Deserialize, Serialize};

/// The longest padding considered a column's common padding.
const MAX_PADDING: usize = 16;

/// A column's common padding around the text (files read with `trim`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Padding {
    pub lead: Vec<u8>,
    pub trail: Vec<u8>,
}

/// One field whose raw bytes differ from its canonical rendering.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldException {
    /// Record number, counting the header record as 0 when there is one.
    pub record: u64,
    pub column: u32,
    pub raw: Vec<u8>,
}

/// Raw bytes of a whole record (fields, delimiters and tail), or of a
/// record's tail only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordBytes {
    pub record: u64,
    pub raw: Vec<u8>,
}

/// Everything beside the texts that the original file's bytes hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
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

/// A table's texts, record by record: the header names (when the layout has
/// a header) then each row.
pub trait Texts {
    fn columns(&self) -> usize;
    fn rows(&self) -> usize;
    fn name(&self, column: usize) -> &str;
    fn text(&self, row: usize, column: usize) -> &str;
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
    fn text(&self, row: usize, column: usize) -> &str {
        self.columns[column].text(row)
    }
}

/// Columns given as references (the restore path).
pub struct ColumnTexts<'a>(pub Vec<&'a crate::table::Column>);

impl Texts for ColumnTexts<'_> {
    fn columns(&self) -> usize {
        self.0.len()
    }
    fn rows(&self) -> usize {
        self.0.first().map_or(0, |c| c.codes.len())
    }
    fn name(&self, column: usize) -> &str {
        &self.0[column].name
    }
    fn text(&self, row: usize, column: usize) -> &str {
        self.0[column].text(row)
    }
}

/// Why a layout could not be captured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaptureError {
    /// The CSV parser failed on bytes the table was read from.
    Parse(String),
    /// The parser found another number of records than the table has.
    RecordCount { expected: usize, found: usize },
    /// The re-rendering differs from the original (an internal error).
    Mismatch { offset: usize },
}

impl std::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CaptureError::Parse(m) => write!(f, "CSV parse: {m}"),
            CaptureError::RecordCount { expected, found } => {
                write!(f, "expected {expected} records, the parser found {found}")
            }
            CaptureError::Mismatch { offset } => write!(
                f,
                "the re-rendered file differs from the original at byte {offset}"
            ),
        }
    }
}

/// Whether the canonical rendering quotes `text`.
fn needs_quotes(text: &[u8], delimiter: u8) -> bool {
    text.iter()
        .any(|&b| b == delimiter || b == b'"' || b == b'\r' || b == b'\n')
}

/// Appends the canonical rendering of one field.
fn render_field(out: &mut Vec<u8>, text: &str, pad: Option<&Padding>, delimiter: u8, alone: bool) {
    let text = text.as_bytes();
    if let Some(p) = pad {
        out.extend_from_slice(&p.lead);
    }
    if needs_quotes(text, delimiter) {
        out.push(b'"');
        for &b in text {
            if b == b'"' {
                out.push(b'"');
            }
            out.push(b);
        }
        out.push(b'"');
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

impl Layout {
    /// Captures the layout of `bytes`, the file `texts` was read from with
    /// this `delimiter`, `header` and `trim`; checks that rendering gives
    /// `bytes` back.
    pub fn capture<T: Texts>(
        bytes: &[u8],
        texts: &T,
        delimiter: u8,
        header: bool,
        trim: bool,
    ) -> Result<Layout, CaptureError> {
        let columns = texts.columns();
        let records = texts.rows() + usize::from(header);
        let starts = record_starts(bytes, delimiter)?;
        if starts.len() != records {
            return Err(CaptureError::RecordCount {
                expected: records,
                found: starts.len(),
            });
        }
        let span_of = |r: usize| -> &[u8] {
            let end = starts.get(r + 1).copied().unwrap_or(bytes.len());
            &bytes[starts[r]..end]
        };

        // Pass 1: split every record; pick each column's padding.
        let mut all_spans: Vec<(u32, u32)> = Vec::with_capacity(records * columns);
        let mut tails: Vec<u32> = Vec::with_capacity(records);
        let mut split_ok: Vec<bool> = Vec::with_capacity(records);
        let mut spans = Vec::with_capacity(columns);
        let mut pad_counts: Vec<rustc_hash::FxHashMap<(&[u8], &[u8]), usize>> =
            vec![Default::default(); columns];
        for r in 0..records {
            let raw = span_of(r);
            let tail = split_record(raw, delimiter, &mut spans);
            let ok = spans.len() == columns;
            split_ok.push(ok);
            tails.push(tail as u32);
            if ok {
                all_spans.extend(spans.iter().map(|&(a, b)| (a as u32, b as u32)));
                if trim && !(header && r == 0) {
                    for (c, &(a, b)) in spans.iter().enumerate() {
                        let field = &raw[a..b];
                        let (lead, trail) = padding_of(field);
                        if lead.len() <= MAX_PADDING
                            && trail.len() <= MAX_PADDING
                            && field.get(lead.len()) != Some(&b'"')
                        {
                            *pad_counts[c].entry((lead, trail)).or_default() += 1;
                        }
                    }
                }
            } else {
                all_spans.extend(std::iter::repeat_n((0, 0), columns));
            }
        }
        let padding: Vec<Padding> = pad_counts
            .iter()
            .map(|counts| {
                counts
                    .iter()
                    .max_by_key(|&(&(lead, trail), &n)| (n, std::cmp::Reverse((lead, trail))))
                    .map(|(&(lead, trail), _)| Padding {
                        lead: lead.to_vec(),
                        trail: trail.to_vec(),
                    })
                    .unwrap_or_default()
            })
            .collect();
        let terminator = match records {
            0 => b"\n".to_vec(),
            _ => {
                let tail = &span_of(0)[tails[0] as usize..];
                [&b"\r\n"[..], b"\n", b"\r"]
                    .into_iter()
                    .find(|t| tail.starts_with(t))
                    .unwrap_or(b"\n")
                    .to_vec()
            }
        };
        let final_terminator = records == 0 || {
            let last = span_of(records - 1);
            last.len() > tails[records - 1] as usize
        };

        let mut layout = Layout {
            delimiter,
            terminator,
            final_terminator,
            header,
            header_padded: false,
            prefix: bytes[..starts.first().copied().unwrap_or(bytes.len())].to_vec(),
            padding,
            fields: Vec::new(),
            records: Vec::new(),
            tails: Vec::new(),
        };
        if header && records > 0 && split_ok[0] {
            // Pad the header when that matches more of its fields.
            let raw = span_of(0);
            let mut scratch = Vec::new();
            let mut matches = [0usize; 2];
            for (padded, m) in matches.iter_mut().enumerate() {
                for c in 0..columns {
                    let (a, b) = all_spans[c];
                    scratch.clear();
                    let pad = (padded == 1).then(|| &layout.padding[c]);
                    render_field(&mut scratch, texts.name(c), pad, delimiter, columns == 1);
                    *m += usize::from(scratch == raw[a as usize..b as usize]);
                }
            }
            layout.header_padded = matches[1] > matches[0];
        }

        // Pass 2: every span the canonical rendering misses.
        let mut scratch = Vec::new();
        for r in 0..records {
            let raw = span_of(r);
            if !split_ok[r] {
                layout.records.push(RecordBytes {
                    record: r as u64,
                    raw: raw.to_vec(),
                });
                continue;
            }
            for c in 0..columns {
                let (a, b) = all_spans[r * columns + c];
                scratch.clear();
                layout.render_one(&mut scratch, texts, r, c);
                let field = &raw[a as usize..b as usize];
                if scratch != field {
                    layout.fields.push(FieldException {
                        record: r as u64,
                        column: c as u32,
                        raw: field.to_vec(),
                    });
                }
            }
            let tail = &raw[tails[r] as usize..];
            if tail != layout.default_tail(r, records) {
                layout.tails.push(RecordBytes {
                    record: r as u64,
                    raw: tail.to_vec(),
                });
            }
        }

        let mut rendered = Vec::with_capacity(bytes.len());
        layout.render(texts, &mut rendered);
        if rendered != bytes {
            let offset = rendered
                .iter()
                .zip(bytes)
                .position(|(a, b)| a != b)
                .unwrap_or(rendered.len().min(bytes.len()));
            return Err(CaptureError::Mismatch { offset });
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

    /// Renders field `c` of record `r` canonically.
    fn render_one<T: Texts>(&self, out: &mut Vec<u8>, texts: &T, r: usize, c: usize) {
        let alone = texts.columns() == 1;
        if self.header && r == 0 {
            let pad = self.header_padded.then(|| &self.padding[c]);
            render_field(out, texts.name(c), pad, self.delimiter, alone);
        } else {
            let row = r - usize::from(self.header);
            render_field(
                out,
                texts.text(row, c),
                Some(&self.padding[c]),
                self.delimiter,
                alone,
            );
        }
    }

    /// Writes the original file's bytes from the texts.
    pub fn render<T: Texts>(&self, texts: &T, out: &mut Vec<u8>) {
        let columns = texts.columns();
        let records = texts.rows() + usize::from(self.header);
        out.extend_from_slice(&self.prefix);
        let (mut fi, mut ri, mut ti) = (0, 0, 0);
        for r in 0..records {
            let rec = r as u64;
            if self.records.get(ri).is_some_and(|e| e.record == rec) {
                out.extend_from_slice(&self.records[ri].raw);
                ri += 1;
                continue;
            }
            for c in 0..columns {
                if c > 0 {
                    out.push(self.delimiter);
                }
                match self.fields.get(fi) {
                    Some(e) if e.record == rec && e.column == c as u32 => {
                        out.extend_from_slice(&e.raw);
                        fi += 1;
                    }
                    _ => self.render_one(out, texts, r, c),
                }
            }
            if self.tails.get(ti).is_some_and(|e| e.record == rec) {
                out.extend_from_slice(&self.tails[ti].raw);
                ti += 1;
            } else {
                out.extend_from_slice(self.default_tail(r, records));
            }
        }
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

/// The byte offset where each record starts, as the csv crate parses the
/// file (blank lines skipped, quotes, any of CR, LF, CRLF ending a record).
fn record_starts(bytes: &[u8], delimiter: u8) -> Result<Vec<usize>, CaptureError> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut record = csv::ByteRecord::new();
    let mut starts = Vec::new();
    loop {
        match reader.read_byte_record(&mut record) {
            Ok(true) => {
                // The reported position is where the reader resumed, before
                // the line ending's LF and any blank lines it skipped.
                let mut at = record.position().map_or(0, |p| p.byte() as usize);
                while at < bytes.len() && (bytes[at] == b'\n' || bytes[at] == b'\r') {
                    at += 1;
                }
                starts.push(at);
            }
            Ok(false) => break,
            Err(e) => return Err(CaptureError::Parse(e.to_string())),
        }
    }
    Ok(starts)
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
        layout.validate(t.columns.len(), t.rows).unwrap();
        layout
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
    fn odd_bytes_are_kept() {
        // Needless quotes, blank lines, a lone CR, a BOM, trailing blank lines.
        round_trip(b"\xef\xbb\xbfa,b\n\"1\",2\n\n\n3,4\r5,6\n\n", false);
        round_trip(b"\na,b\n1,2", false);
        round_trip(b"a\n\"\"\nx\n", false);
        round_trip(b"a,b\n\"x\"y,2\n", false);
        round_trip(b"a, b\n \"q\" , \"r\" \n1,  2\n", true);
    }
}
