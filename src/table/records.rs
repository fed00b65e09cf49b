//! A CSV file's records read into dictionary-coded columns, on two threads
//! when the file is large: the second reads the second half from the start
//! of a line while the first reads up to it. Its rows are kept only when
//! the first thread's records end exactly there; a line start inside a
//! quoted field is not a record's start, and then (or when the second
//! thread meets anything it would refuse) the first reads on alone, so the
//! table, and any error with its line, are what one thread reads.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::file::CsvFile;
use super::{Column, CsvError, CsvOptions, SAMPLE_ROWS, delimiter_hint, reserve_rows, trim_blanks};
use crate::{Error, Result};

/// The CSV reader's buffer (it buffers a file itself).
const READ_BUFFER: usize = 256 << 10;

/// Files from this size are read on two threads (when there are two).
pub(super) const PARALLEL_BYTES: usize = 32 << 20;

/// The records read: the columns, the data rows, and where the last record
/// starts (its byte offset and line), since only it can end in a quote.
pub(super) struct Records {
    pub columns: Vec<Column>,
    /// `None`: the file holds no record.
    pub width: Option<usize>,
    pub rows: usize,
    pub last_start: usize,
    pub last_line: u64,
}

/// Where records are read from: bytes in memory, or a file read in pieces
/// ([`CsvFile`]).
pub(super) trait Source: Sync {
    /// A reader from a byte on.
    type Reader: Read;
    /// The size in bytes.
    fn size(&self) -> usize;
    /// The first line start at or after `from` (after a `\n`), when one is
    /// before the end.
    fn line_start(&self, from: usize) -> Result<Option<usize>>;
    /// A reader from byte `at` to the end.
    fn reader(&self, at: usize) -> Result<Self::Reader>;
}

impl<'a> Source for &'a [u8] {
    type Reader = &'a [u8];
    fn size(&self) -> usize {
        self.len()
    }
    fn line_start(&self, from: usize) -> Result<Option<usize>> {
        let bytes: &[u8] = self;
        let Some(newline) = bytes[from..].iter().position(|&b| b == b'\n') else {
            return Ok(None);
        };
        let start = from + newline + 1;
        Ok((start < bytes.len()).then_some(start))
    }
    fn reader(&self, at: usize) -> Result<&'a [u8]> {
        let bytes: &'a [u8] = self;
        Ok(&bytes[at..])
    }
}

impl Source for CsvFile {
    type Reader = File;
    fn size(&self) -> usize {
        self.len()
    }
    fn line_start(&self, from: usize) -> Result<Option<usize>> {
        CsvFile::line_start(self, from)
    }
    fn reader(&self, at: usize) -> Result<File> {
        self.file_at(at)
    }
}

/// Reads every record of `source`, on two threads from `parallel_bytes` on.
pub(super) fn read<S: Source>(
    path: &Path,
    source: &S,
    options: &CsvOptions,
    delimiter: u8,
    parallel_bytes: usize,
) -> Result<Records> {
    let size = source.size();
    let mut first = Reading::new(path, options, delimiter, options.header, size);
    let mut reader = csv_reader(source.reader(0)?, delimiter);
    let two = size >= parallel_bytes && crate::jobs::cores() >= 2;
    let split = match two {
        true => source.line_start(size / 2)?,
        false => None,
    };
    let Some(split) = split else {
        first.read(&mut reader, usize::MAX)?;
        return Ok(first.records);
    };
    let (reached, second) = std::thread::scope(|scope| {
        let second = scope.spawn(|| {
            let tail = source.reader(split)?;
            let mut second = Reading::new(path, options, delimiter, false, size - split);
            second.read(&mut csv_reader(tail, delimiter), usize::MAX)?;
            Ok::<_, Error>(second.records)
        });
        let reached = first.read(&mut reader, split);
        (reached, second.join())
    });
    let reached = reached?;
    match (reached, second) {
        (Some((at, line)), Ok(Ok(second)))
            if at == split && second.width.is_none_or(|w| Some(w) == first.records.width) =>
        {
            first.records.join(second, split, line);
            Ok(first.records)
        }
        // The split was not a record's start, or the second half holds an
        // error: read on from where the first thread stopped.
        _ => {
            first.read(&mut reader, usize::MAX)?;
            Ok(first.records)
        }
    }
}

/// A reader of `from` as the table reads them.
fn csv_reader<R: Read>(from: R, delimiter: u8) -> csv::Reader<R> {
    csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .buffer_capacity(READ_BUFFER)
        .has_headers(false)
        .flexible(true)
        .from_reader(from)
}

impl Records {
    /// Appends the rows of `second`, read from byte `split` (line `line`)
    /// on, its texts re-coded in these columns' dictionaries.
    fn join(&mut self, second: Records, split: usize, line: u64) {
        if second.width.is_none() {
            return;
        }
        for (mine, theirs) in self.columns.iter_mut().zip(&second.columns) {
            mine.append(theirs);
        }
        self.rows += second.rows;
        self.last_start = split + second.last_start;
        self.last_line = line + second.last_line - 1;
    }
}

/// One thread's pass over records.
struct Reading<'a> {
    path: &'a Path,
    options: &'a CsvOptions,
    delimiter: u8,
    /// Whether the next record is the header.
    header: bool,
    /// The bytes this pass may read, for reserving the columns' rows.
    total: usize,
    records: Records,
}

impl<'a> Reading<'a> {
    fn new(
        path: &'a Path,
        options: &'a CsvOptions,
        delimiter: u8,
        header: bool,
        total: usize,
    ) -> Self {
        Reading {
            path,
            options,
            delimiter,
            header,
            total,
            records: Records {
                columns: Vec::new(),
                width: None,
                rows: 0,
                last_start: 0,
                last_line: 1,
            },
        }
    }

    /// Reads the records of `reader` until its end, or until it has read up to byte `stop` or past it:
    /// then returns that byte and its line.
    fn read<R: Read>(
        &mut self,
        reader: &mut csv::Reader<R>,
        stop: usize,
    ) -> Result<Option<(usize, u64)>> {
        let mut record = csv::ByteRecord::new();
        loop {
            let more = reader.read_byte_record(&mut record).map_err(|e| {
                if let csv::ErrorKind::Io(io) = e.kind() {
                    // The file could not be read: no line of it is at fault.
                    return Error::io(self.path, std::io::Error::new(io.kind(), io.to_string()));
                }
                let line = e.position().map_or(0, |p| p.line());
                Error::from(CsvError::Malformed {
                    path: self.path.to_owned(),
                    line,
                    message: e.to_string(),
                })
            })?;
            if !more {
                return Ok(None);
            }
            let line = record.position().map_or(0, |p| p.line());
            let start = record.position().map_or(0, |p| p.byte() as usize);
            self.records.last_start = start;
            self.records.last_line = line;
            self.record(&record, line)?;
            if self.records.rows == SAMPLE_ROWS {
                let read = reader.position().byte();
                reserve_rows(&mut self.records.columns, SAMPLE_ROWS, read, self.total);
            }
            let at = reader.position().byte() as usize;
            if at >= stop {
                return Ok(Some((at, reader.position().line())));
            }
        }
    }

    /// One record: its width checked against the first's, its fields
    /// pushed to the columns (or, the header, named).
    fn record(&mut self, record: &csv::ByteRecord, line: u64) -> Result<()> {
        let records = &mut self.records;
        match records.width {
            None => {
                records.width = Some(record.len());
                records.columns = (0..record.len())
                    .map(|i| Column::new((i + 1).to_string()))
                    .collect();
            }
            Some(w) if w != record.len() => return Err(self.ragged(record, line, w)),
            Some(_) => {}
        }
        let header_row = std::mem::take(&mut self.header);
        let records = &mut self.records;
        for (i, field) in record.iter().enumerate() {
            let text = std::str::from_utf8(field).map_err(|e| CsvError::InvalidUtf8 {
                path: self.path.to_owned(),
                line,
                column: i + 1,
                // The header's own field has no name to show yet.
                name: if header_row {
                    "its name in the header".to_owned()
                } else {
                    records.columns[i].name.clone()
                },
                valid_up_to: e.valid_up_to(),
            })?;
            let text = if self.options.trim {
                trim_blanks(text)
            } else {
                text
            };
            if header_row {
                records.columns[i].name = text.to_owned();
            } else {
                records.columns[i].push(text);
            }
        }
        if !header_row {
            records.rows += 1;
        }
        Ok(())
    }

    /// The error of a record of another width than the first's `w`.
    fn ragged(&self, record: &csv::ByteRecord, line: u64, w: usize) -> Error {
        let reference = if self.options.header {
            "header"
        } else {
            "first row"
        };
        // One field on either side is how a wrong delimiter shows.
        let hint = (w == 1 || record.len() == 1)
            .then(|| delimiter_hint(record, self.delimiter))
            .flatten();
        if let Some(suggested) = hint {
            return CsvError::WrongDelimiter {
                path: self.path.to_owned(),
                line,
                expected: w,
                found: record.len(),
                reference,
                used: char::from(self.delimiter),
                suggested: char::from(suggested),
            }
            .into();
        }
        CsvError::Ragged {
            path: self.path.to_owned(),
            line,
            expected: w,
            found: record.len(),
            reference,
        }
        .into()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::{CsvOptions, Table};

    /// The table (or the error) read on two threads, whatever the split
    /// falls on, and on one; and the same read from a file in pieces
    /// ([`Table::from_file`]), which must match both.
    fn both(bytes: &[u8], options: &CsvOptions) -> (String, String) {
        let path = std::path::Path::new("t.csv");
        let show = |t: crate::Result<Table>| match t {
            Ok(t) => format!("{t:?}"),
            Err(e) => e.to_string(),
        };
        let two = show(Table::parse(path, bytes, options, 0));
        let one = show(Table::parse(path, bytes, options, usize::MAX));
        let dir = tempfile::tempdir().unwrap();
        let on_disk = dir.path().join("t.csv");
        std::fs::write(&on_disk, bytes).unwrap();
        let file = super::CsvFile::open(&on_disk).unwrap().unwrap();
        for parallel in [0, usize::MAX] {
            let read = show(Table::parse_file(path, &file, options, parallel));
            assert_eq!(read, one, "from the file, parallel from {parallel}");
        }
        (two, one)
    }

    /// A field: plain, empty, quoted with the delimiter, a quote or a line
    /// break inside, or padded with blanks.
    fn field() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z0-9]{0,6}",
            Just(String::new()),
            "[a-z]{0,3}".prop_map(|s| format!("\"{s},\r\n\"\"x\"")),
            "[a-z]{1,3}".prop_map(|s| format!("\"{s}\n{s}\"")),
            "[a-z]{1,3}".prop_map(|s| format!("  {s} ")),
        ]
    }

    proptest! {
        /// Rows of awkward fields, LF or CRLF, a header or not, trimmed or
        /// not, now and then a ragged row, a bad byte or an open quote.
        #[test]
        fn two_threads_read_what_one_reads(
            rows in prop::collection::vec(prop::collection::vec(field(), 3), 1..40),
            crlf in any::<bool>(),
            header in any::<bool>(),
            trim in any::<bool>(),
            damage in prop::option::of((0usize..40, 0u8..3)),
        ) {
            let ending = if crlf { "\r\n" } else { "\n" };
            let mut lines: Vec<String> = rows.iter().map(|r| r.join(",")).collect();
            let mut bytes = Vec::new();
            if let Some((at, kind)) = damage {
                let at = at % lines.len();
                match kind {
                    0 => lines[at].push_str(",extra"),
                    1 => lines[at].push_str("\"open"),
                    _ => {}
                }
            }
            for line in &lines {
                bytes.extend_from_slice(line.as_bytes());
                bytes.extend_from_slice(ending.as_bytes());
            }
            if let Some((at, 2)) = damage {
                let at = at * bytes.len() / 40;
                bytes.insert(at, 0xff);
            }
            // The delimiter told from the first line now and then.
            let delimiter = (!trim || !header).then_some(b',');
            let options = CsvOptions { delimiter, header, trim };
            let (two, one) = both(&bytes, &options);
            prop_assert_eq!(two, one);
        }
    }

    /// A quoted field holding line breaks across the middle of the file:
    /// the second thread's start is inside it, and its rows are not used.
    #[test]
    fn a_split_inside_a_quoted_field_is_read_on_by_one_thread() {
        let mut text = String::from("id,note\n1,a\n2,\"");
        text.push_str(&"line\n".repeat(50));
        text.push_str("end\"\n3,b\n4,\"c\nd\"\n");
        let (two, one) = both(text.as_bytes(), &CsvOptions::default());
        assert_eq!(two, one);
        assert!(two.contains("\"end\"") || two.contains("end"), "{two}");
        // Ragged and malformed second halves name the same line.
        let ragged = format!("a,b\n{}1,2,3\n", "1,2\n".repeat(30));
        let (two, one) = both(ragged.as_bytes(), &CsvOptions::default());
        assert_eq!(two, one);
        assert!(two.contains("t.csv:32: ragged row"), "{two}");
    }
}
