//! Capture, the first direction of `spec/FORMAT.md` §7: a CSV file's bytes
//! and the table read from them give the [`Layout`], everything the
//! canonical rendering of the texts does not reproduce, stored at the
//! smallest grain that holds it.
//!
//! The exact inverse of `render`: for every file it
//! accepts, rendering the captured layout with the same texts gives the
//! file's bytes again (`tests::round_trip`). A change to one direction is
//! made with the other.

use super::render::Rendered;
use super::{FieldException, Layout, Padding, RecordBytes, Texts, needs_quotes, render_field};

/// The longest padding considered a column's common padding.
const MAX_PADDING: usize = 16;

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
}
