//! The columnar table: every CSV column as dictionary codes.
//!
//! Reading goes through the `csv` crate over the file read whole (RFC 4180
//! quoting, embedded delimiters and newlines, CRLF or LF, a missing final
//! newline) and checks UTF-8 and row lengths, naming line and column.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::Result;
use crate::dictionary::Dictionary;
use crate::io::Input;

mod file;
mod records;

pub use file::CsvFile;

/// How a column's values are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueType {
    /// Whole numbers.
    Integer,
    /// Numbers that may have a fraction.
    Decimal,
    /// Any text, not read as a number (the default).
    #[default]
    Categorical,
}

impl ValueType {
    /// Whether the values are read as numbers.
    pub fn is_numeric(self) -> bool {
        !matches!(self, ValueType::Categorical)
    }
}

/// One column: its header name and each row's code into its dictionary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The header name.
    pub name: String,
    /// The column's distinct texts.
    pub dict: Dictionary,
    /// Each row's code into `dict`.
    pub codes: Vec<u32>,
}

impl Column {
    /// An empty column named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Column {
            name: name.into(),
            dict: Dictionary::new(),
            codes: Vec::new(),
        }
    }

    /// The text of row `row`.
    pub fn text(&self, row: usize) -> &str {
        self.dict.value(self.codes[row])
    }

    /// Appends the rows of `other` (its texts re-coded in this dictionary).
    pub fn append(&mut self, other: &Column) {
        let map: Vec<u32> = other.dict.values().map(|v| self.dict.intern(v)).collect();
        self.codes
            .extend(other.codes.iter().map(|&c| map[c as usize]));
    }

    /// Appends one row holding `value`.
    pub fn push(&mut self, value: &str) {
        let code = self.dict.intern(value);
        self.codes.push(code);
    }
}

/// `text` without the spaces and tabs around it: a byte scan (a `char`
/// pattern decodes UTF-8 on every field, a tenth of a pack's time on a
/// trimmed table).
pub fn trim_blanks(text: &str) -> &str {
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let bytes = text.as_bytes();
    let start = bytes.iter().position(|b| !blank(b)).unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !blank(b))
        .map_or(start, |e| e + 1);
    // Both ends are next to ASCII bytes (or the string's ends): char
    // boundaries.
    &text[start..end]
}

/// After this many rows, the columns reserve room for the rows the rest of
/// the file holds at the same bytes a row.
const SAMPLE_ROWS: usize = 4096;

/// Reserves each column's codes for the rows a file of `total` bytes holds
/// when `rows` took `read` bytes (a tenth more, for rows longer than the
/// first): growing by doubling would hold up to twice the codes at the
/// end, a quarter of the peak memory of a pack at ten million rows.
fn reserve_rows(columns: &mut [Column], rows: usize, read: u64, total: usize) {
    let per_row = (read as f64 / rows as f64).max(1.0);
    let expected = (total as f64 / per_row * 1.1) as usize;
    for c in columns {
        c.codes.reserve(expected.saturating_sub(c.codes.len()));
    }
}

/// Line terminator of a CSV file, taken from its first line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LineEnding {
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
}

impl LineEnding {
    /// The ending of the first line of `bytes`; `Lf` when there is none.
    pub fn detect(bytes: &[u8]) -> LineEnding {
        match memchr_newline(bytes) {
            Some(i) if i > 0 && bytes[i - 1] == b'\r' => LineEnding::CrLf,
            _ => LineEnding::Lf,
        }
    }

    /// The `csv` crate's terminator that writes this ending.
    pub fn terminator(self) -> csv::Terminator {
        match self {
            LineEnding::Lf => csv::Terminator::Any(b'\n'),
            LineEnding::CrLf => csv::Terminator::CRLF,
        }
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

/// How to read a CSV file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvOptions {
    /// Field delimiter; detected from the first line when `None`.
    pub delimiter: Option<u8>,
    /// Whether the first record holds the column names.
    pub header: bool,
    /// Strip spaces and tabs around every field (the raw UCI Adult file puts
    /// a space after each comma).
    pub trim: bool,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            delimiter: None,
            header: true,
            trim: false,
        }
    }
}

/// A table read from a CSV file.
#[derive(Debug, Clone)]
pub struct Table {
    /// The file it was read from, named in messages.
    pub source: PathBuf,
    /// The columns, in file order.
    pub columns: Vec<Column>,
    /// The number of data rows (the header is not one).
    pub rows: usize,
    /// The field delimiter read (or detected).
    pub delimiter: u8,
    /// Whether the file had a header row.
    pub header: bool,
    /// The file's line terminator, kept so a restore writes it back.
    pub line_ending: LineEnding,
}

/// A CSV file that cannot be read as a table.
#[derive(Debug, thiserror::Error)]
pub enum CsvError {
    /// A file without a single record, not even a header.
    #[error("{}: the file is empty: expected a header row", path.display())]
    Empty {
        /// The CSV file.
        path: PathBuf,
    },
    #[error("{}:{line}: malformed CSV: {message}", path.display())]
    /// A record the CSV parser rejects.
    Malformed {
        /// The CSV file.
        path: PathBuf,
        /// The line, from 1.
        line: u64,
        /// The parser's message.
        message: String,
    },
    #[error("{}:{line}: ragged row: expected {expected} fields (as the {reference}), found {found}", path.display())]
    /// A row with a different number of fields.
    Ragged {
        /// The CSV file.
        path: PathBuf,
        /// The line, from 1.
        line: u64,
        /// Fields (or columns) expected.
        expected: usize,
        /// Fields found on this line.
        found: usize,
        /// What set the expected count (the header or the first row).
        reference: &'static str,
    },
    #[error("{}:{line}: expected {expected} columns as in the {reference}, found {found}: is the delimiter {suggested:?}? (read with {used:?}; set [input] delimiter = {suggested:?} in the config)", path.display())]
    /// A ragged row that another delimiter would read evenly.
    WrongDelimiter {
        /// The CSV file.
        path: PathBuf,
        /// The line, from 1.
        line: u64,
        /// Fields (or columns) expected.
        expected: usize,
        /// Fields found on this line.
        found: usize,
        /// What set the expected count (the header or the first row).
        reference: &'static str,
        /// The delimiter used.
        used: char,
        /// The delimiter that fits.
        suggested: char,
    },
    #[error("{}:{line}: column {column} ({name}): invalid UTF-8 after {valid_up_to} valid bytes", path.display())]
    /// A field that is not UTF-8.
    InvalidUtf8 {
        /// The CSV file.
        path: PathBuf,
        /// The line, from 1.
        line: u64,
        /// The column's position.
        column: usize,
        /// The column's name.
        name: String,
        /// The field's valid bytes before the first invalid one.
        valid_up_to: usize,
    },
    #[error("{}:1: duplicate column name {name:?} (columns {first} and {second})", path.display())]
    /// Two header columns with the same name.
    DuplicateColumn {
        /// The CSV file.
        path: PathBuf,
        /// The name.
        name: String,
        /// The first column with it.
        first: usize,
        /// The second column with it.
        second: usize,
    },
}

impl crate::error::AreaError for CsvError {}

impl CsvError {
    /// The same error for bytes that start after `lines` lines of their
    /// file (a chunk of a file read piece by piece): its line counts from
    /// the file's start.
    pub fn after_lines(mut self, lines: u64) -> CsvError {
        match &mut self {
            CsvError::Malformed { line, .. }
            | CsvError::Ragged { line, .. }
            | CsvError::WrongDelimiter { line, .. }
            | CsvError::InvalidUtf8 { line, .. } => *line += lines,
            _ => {}
        }
        self
    }
}

/// Whether CSV bytes end inside a quoted field. The `csv` crate ends such a
/// field at the end of the input without a word, so a stray quote would
/// swallow every line after it into one cell (issue 32: `pack` read 4 rows
/// of 6 lines). Fed the bytes as `csv` reads them (RFC 4180: a quote opens
/// a quoted field only at a field's start, `""` inside one is a quote).
#[derive(Debug, Clone)]
pub struct QuoteState {
    delimiter: u8,
    in_quotes: bool,
    /// A quote seen inside a quoted field: it closes it unless the next
    /// byte is a quote too.
    pending: bool,
    field_start: bool,
    line: u64,
    opened_on: u64,
}

impl QuoteState {
    /// The state at the start of a record on line `line` (1-based).
    pub fn new(delimiter: u8, line: u64) -> QuoteState {
        QuoteState {
            delimiter,
            in_quotes: false,
            pending: false,
            field_start: true,
            line,
            opened_on: line,
        }
    }

    /// Reads on through `bytes`.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.in_quotes {
                if self.pending {
                    self.pending = false;
                    if b == b'"' {
                        continue;
                    }
                    self.in_quotes = false;
                } else {
                    if b == b'"' {
                        self.pending = true;
                    } else if b == b'\n' {
                        self.line += 1;
                    }
                    continue;
                }
            }
            if b == self.delimiter || b == b'\r' {
                self.field_start = true;
            } else if b == b'\n' {
                self.field_start = true;
                self.line += 1;
            } else {
                if b == b'"' && self.field_start {
                    self.in_quotes = true;
                    self.opened_on = self.line;
                }
                self.field_start = false;
            }
        }
    }

    /// At the end of the input: the line whose quote was never closed.
    pub fn unclosed(&self) -> Option<u64> {
        (self.in_quotes && !self.pending).then_some(self.opened_on)
    }

    /// The error for [`unclosed`](Self::unclosed)'s line.
    pub fn error(path: &Path, line: u64) -> CsvError {
        CsvError::Malformed {
            path: path.to_owned(),
            line,
            message: "a quoted field opened on this line is never closed: expected a closing \
                      quote (`\"`) before the end of the input"
                .to_owned(),
        }
    }
}

/// A reader that runs a [`QuoteState`] over the bytes it passes on, for
/// inputs read as a stream (standard input).
pub struct QuoteChecked<R> {
    inner: R,
    /// The state over every byte read so far.
    pub state: QuoteState,
}

impl<R> QuoteChecked<R> {
    /// `inner`'s bytes, checked from its first line.
    pub fn new(inner: R, delimiter: u8) -> QuoteChecked<R> {
        QuoteChecked {
            inner,
            state: QuoteState::new(delimiter, 1),
        }
    }
}

impl<R: std::io::Read> std::io::Read for QuoteChecked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.state.feed(&buf[..n]);
        Ok(n)
    }
}

/// Whether `b` may separate fields, for every reader and writer of karc:
/// one ASCII byte that is not the quote, a line ending or NUL, so that a
/// field holding it can always be quoted and read back (a delimiter the
/// packer refuses must not come back from a file's `META`).
pub fn is_delimiter(b: u8) -> bool {
    b.is_ascii() && !matches!(b, b'"' | b'\n' | b'\r' | 0)
}

/// Guesses the delimiter from the first line: the most frequent of `,` `;`
/// tab and `|` outside quotes (`,` when none occurs).
pub fn detect_delimiter(bytes: &[u8]) -> u8 {
    const CANDIDATES: [u8; 4] = [b',', b';', b'\t', b'|'];
    let mut counts = [0usize; 4];
    let mut quoted = false;
    for &b in bytes {
        match b {
            b'"' => quoted = !quoted,
            b'\n' if !quoted => break,
            _ if !quoted => {
                if let Some(i) = CANDIDATES.iter().position(|&c| c == b) {
                    counts[i] += 1;
                }
            }
            _ => {}
        }
    }
    let best = (0..4)
        .max_by_key(|&i| (counts[i], std::cmp::Reverse(i)))
        .unwrap();
    if counts[best] == 0 {
        b','
    } else {
        CANDIDATES[best]
    }
}

/// The delimiter a line (its fields, read with `used`) seems to be
/// written with instead: the candidate of `detect_delimiter` other than
/// `used` that occurs most often in it, if any does.
pub fn delimiter_hint<'a>(fields: impl IntoIterator<Item = &'a [u8]>, used: u8) -> Option<u8> {
    const CANDIDATES: [u8; 4] = [b',', b';', b'\t', b'|'];
    let mut counts = [0usize; 4];
    for field in fields {
        for b in field {
            if let Some(i) = CANDIDATES.iter().position(|c| c == b) {
                counts[i] += 1;
            }
        }
    }
    (0..4)
        .filter(|&i| CANDIDATES[i] != used && counts[i] > 0)
        .max_by_key(|&i| (counts[i], std::cmp::Reverse(i)))
        .map(|i| CANDIDATES[i])
}

impl Table {
    /// The columns' names, in order.
    pub fn names(&self) -> Vec<String> {
        self.columns.iter().map(|c| c.name.clone()).collect()
    }

    /// Reads a CSV file into dictionary-coded columns.
    pub fn read(path: &Path, options: &CsvOptions) -> Result<Table> {
        let input = Input::open(path)?;
        Table::from_bytes(path, &input, options)
    }

    /// Parses CSV bytes; `path` is used in error messages only.
    pub fn from_bytes(path: &Path, bytes: &[u8], options: &CsvOptions) -> Result<Table> {
        Table::parse(path, bytes, options, records::PARALLEL_BYTES)
    }

    /// [`Table::from_bytes`], on two threads from `parallel_bytes` on.
    fn parse(
        path: &Path,
        bytes: &[u8],
        options: &CsvOptions,
        parallel_bytes: usize,
    ) -> Result<Table> {
        let delimiter = options.delimiter.unwrap_or_else(|| detect_delimiter(bytes));
        let records = records::read(path, &bytes, options, delimiter, parallel_bytes)?;
        let tail = &bytes[records.last_start.min(bytes.len())..];
        Table::of_records(
            path,
            records,
            options,
            delimiter,
            tail,
            LineEnding::detect(bytes),
        )
    }

    /// Reads the CSV file `file` as [`Table::from_bytes`] reads its bytes,
    /// without holding them: a piece at a time, on two threads from
    /// 32 MiB on. `path` names it in errors.
    pub fn from_file(path: &Path, file: &CsvFile, options: &CsvOptions) -> Result<Table> {
        Table::parse_file(path, file, options, records::PARALLEL_BYTES)
    }

    /// [`Table::from_file`], on two threads from `parallel_bytes` on.
    fn parse_file(
        path: &Path,
        file: &CsvFile,
        options: &CsvOptions,
        parallel_bytes: usize,
    ) -> Result<Table> {
        let head = file.head()?;
        let delimiter = options.delimiter.unwrap_or_else(|| detect_delimiter(&head));
        let records = records::read(path, file, options, delimiter, parallel_bytes)?;
        let tail = file.read_range(records.last_start.min(file.len())..file.len())?;
        let table = Table::of_records(
            path,
            records,
            options,
            delimiter,
            &tail,
            LineEnding::detect(&head),
        );
        file.check_unchanged()?;
        table
    }

    /// The table of the records read; `tail` is the bytes from the last
    /// record's start on (only it can end inside quotes).
    fn of_records(
        path: &Path,
        records: records::Records,
        options: &CsvOptions,
        delimiter: u8,
        tail: &[u8],
        line_ending: LineEnding,
    ) -> Result<Table> {
        let records::Records {
            columns,
            width,
            rows,
            last_start: _,
            last_line,
        } = records;
        if width.is_none() {
            return Err(CsvError::Empty {
                path: path.to_owned(),
            }
            .into());
        }
        let mut quotes = QuoteState::new(delimiter, last_line);
        quotes.feed(tail);
        if let Some(line) = quotes.unclosed() {
            return Err(QuoteState::error(path, line).into());
        }
        for (i, c) in columns.iter().enumerate() {
            if let Some(j) = columns[..i].iter().position(|d| d.name == c.name) {
                return Err(CsvError::DuplicateColumn {
                    path: path.to_owned(),
                    name: c.name.clone(),
                    first: j + 1,
                    second: i + 1,
                }
                .into());
            }
        }
        Ok(Table {
            source: path.to_owned(),
            columns,
            rows,
            delimiter,
            header: options.header,
            line_ending,
        })
    }

    /// The position of the column named `name`.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// The column named `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// Frees the rows of every column but those `keep` names (by
    /// position), keeping names and dictionaries: a pack in row groups
    /// reads each group's table again from the original and needs the
    /// whole table's rows no more.
    pub fn forget_rows(&mut self, keep: impl Fn(usize) -> bool) {
        for (i, column) in self.columns.iter_mut().enumerate() {
            if !keep(i) {
                column.codes = Vec::new();
            }
        }
    }

    /// Whether every column holds its rows ([`Table::forget_rows`]).
    pub fn holds_rows(&self) -> bool {
        self.columns.iter().all(|c| c.codes.len() == self.rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_are_trimmed_at_both_ends_only() {
        for (text, trimmed) in [
            ("", ""),
            ("  ", ""),
            ("\t a b \t", "a b"),
            (" café ", "café"),
            ("\u{a0}x\u{a0}", "\u{a0}x\u{a0}"),
            ("x", "x"),
        ] {
            assert_eq!(trim_blanks(text), trimmed);
            assert_eq!(trim_blanks(text), text.trim_matches([' ', '\t']));
        }
    }

    fn read(text: &str) -> Result<Table> {
        Table::from_bytes(Path::new("t.csv"), text.as_bytes(), &CsvOptions::default())
    }

    #[test]
    fn reads_quoted_fields_crlf_and_missing_final_newline() {
        let t = read("a;b\r\n\"x;1\";\"line\r\nbreak\"\r\n2;\"\"").unwrap();
        assert_eq!(t.delimiter, b';');
        assert_eq!(t.line_ending, LineEnding::CrLf);
        assert_eq!(t.rows, 2);
        assert_eq!(t.columns[0].text(0), "x;1");
        assert_eq!(t.columns[1].text(0), "line\r\nbreak");
        assert_eq!(t.columns[1].text(1), "");
    }

    #[test]
    fn ragged_row_names_line_and_counts() {
        let err = read("a,b\n1,2\n3\n").unwrap_err().to_string();
        assert_eq!(
            err,
            "t.csv:3: ragged row: expected 2 fields (as the header), found 1"
        );
    }

    #[test]
    fn invalid_utf8_names_line_and_column() {
        let bytes = b"a,b\n1,\xff\n";
        let err = Table::from_bytes(Path::new("t.csv"), bytes, &CsvOptions::default())
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "t.csv:2: column 2 (b): invalid UTF-8 after 0 valid bytes"
        );
    }

    #[test]
    fn trims_when_asked() {
        let opts = CsvOptions {
            trim: true,
            ..CsvOptions::default()
        };
        let t = Table::from_bytes(Path::new("t"), b"a, b\n39, State-gov\n", &opts).unwrap();
        assert_eq!(t.columns[1].name, "b");
        assert_eq!(t.columns[1].text(0), "State-gov");
    }

    #[test]
    fn empty_file_and_duplicate_header_are_errors() {
        assert!(matches!(
            read("").unwrap_err().area(),
            Some(CsvError::Empty { .. })
        ));
        assert!(matches!(
            read("a,a\n1,2\n").unwrap_err().area(),
            Some(CsvError::DuplicateColumn { .. })
        ));
    }
}
