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
//!
//! The two directions live side by side and are exact inverses: `capture`
//! (file bytes and texts to a [`Layout`]) and `render` (a [`Layout`] and
//! texts to the file bytes). The canonical rendering of a field, which both
//! compare against or write, is here (`render_field`).

use serde::{Deserialize, Serialize};

use crate::table::Column;

mod capture;
mod render;
#[cfg(test)]
mod tests;

pub use capture::{CaptureError, records_end};
pub use render::{Half, Halves, Pieces, RenderedColumn};

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

impl Layout {
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
