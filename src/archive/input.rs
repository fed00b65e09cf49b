//! A table input of the commands (`pack`, `anonymize`, `verify`,
//! `compare`): a CSV file as read, or a Parquet or Arrow IPC table as the
//! canonical CSV of its texts, which every command then reads as it reads
//! any CSV file. The archive seals that CSV (so a restore to `.csv` is
//! byte-exact to it) beside the layout that rebuilds the Arrow table.

use std::borrow::Cow;
use std::path::Path;

use super::layout::Layout;
use crate::Result;
use crate::arrow::{ArrowLayout, TableFormat, read_table_bytes};
use crate::config::Config;
use crate::io::{Input, is_std};
use crate::table::{CsvFile, CsvOptions, Table};

/// CSV files from this size are read where they lie ([`Csv::File`]), not
/// held whole: below it, the bytes cost less than reading twice.
pub const STREAM_BYTES: usize = 32 << 20;

/// An input table: its CSV and, for an Arrow or Parquet file, the layout
/// that rebuilds it.
pub struct TableInput {
    /// The CSV: the file's own, or an Arrow table's canonical CSV.
    pub csv: Csv,
    /// What rebuilds an Arrow input; `None` for a CSV file.
    pub arrow: Option<ArrowLayout>,
}

/// An input's CSV: its bytes in memory, or a regular file read where it
/// lies, once for the table and again, a row group at a time, for a pack's
/// private part (its size and modification time checked at each read).
pub enum Csv {
    /// Held whole (standard input, an Arrow table's canonical CSV, a small
    /// file).
    Bytes(Vec<u8>),
    /// A regular file.
    File(CsvFile),
}

impl Csv {
    /// The size in bytes.
    pub fn len(&self) -> usize {
        self.original().len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The table it holds, read with `options`; `name` names it in errors.
    pub fn table(&self, name: &Path, options: &CsvOptions) -> Result<Table> {
        match self {
            Csv::Bytes(bytes) => Table::from_bytes(name, bytes, options),
            Csv::File(file) => Table::from_file(name, file, options),
        }
    }

    /// Every byte (a file's read again, whole).
    pub fn bytes(&self) -> Result<Cow<'_, [u8]>> {
        self.original().bytes()
    }

    /// What a pack seals: these bytes, or this file's.
    pub fn original(&self) -> Original<'_> {
        match self {
            Csv::Bytes(bytes) => Original::Bytes(bytes),
            Csv::File(file) => Original::File(file),
        }
    }
}

/// The original a pack seals, borrowed: bytes in memory or a file read
/// again where it lies.
#[derive(Debug, Clone, Copy)]
pub enum Original<'a> {
    /// Bytes in memory.
    Bytes(&'a [u8]),
    /// A file the table was read from ([`Table::from_file`]).
    File(&'a CsvFile),
}

impl<'a> Original<'a> {
    /// The size in bytes.
    pub fn len(&self) -> usize {
        match self {
            Original::Bytes(bytes) => bytes.len(),
            Original::File(file) => file.len(),
        }
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes `range` (a file's read again).
    pub fn range(self, range: std::ops::Range<usize>) -> Result<Cow<'a, [u8]>> {
        match self {
            Original::Bytes(bytes) => Ok(Cow::Borrowed(&bytes[range])),
            Original::File(file) => file.read_range(range).map(Cow::Owned),
        }
    }

    /// Every byte (a file's read again, whole).
    pub fn bytes(self) -> Result<Cow<'a, [u8]>> {
        match self {
            Original::Bytes(bytes) => Ok(Cow::Borrowed(bytes)),
            Original::File(file) => file.read_all().map(Cow::Owned),
        }
    }

    /// Refuses a file changed since it was opened (bytes never change).
    pub fn check_unchanged(&self) -> Result<()> {
        match self {
            Original::Bytes(_) => Ok(()),
            Original::File(file) => file.check_unchanged(),
        }
    }
}

impl TableInput {
    /// Reads a command-line input (`-` is standard input), its format from
    /// its extension (from its first bytes for standard input); a CSV file
    /// of 32 MiB or more (`STREAM_BYTES`) is read where it lies.
    pub fn open(path: &Path) -> Result<TableInput> {
        TableInput::open_with(path, STREAM_BYTES)
    }

    /// [`TableInput::open`], reading CSV files of `stream_bytes` or more
    /// where they lie.
    pub fn open_with(path: &Path, stream_bytes: usize) -> Result<TableInput> {
        let file = match !is_std(path) && TableFormat::from_path(path) == TableFormat::Csv {
            true => CsvFile::open(path)?,
            false => None,
        };
        if let Some(file) = file.filter(|f| f.len() >= stream_bytes) {
            return Ok(TableInput {
                csv: Csv::File(file),
                arrow: None,
            });
        }
        let bytes = Input::open_arg(path)?.into_vec();
        match TableFormat::of_input(path, &bytes) {
            TableFormat::Csv => Ok(TableInput {
                csv: Csv::Bytes(bytes),
                arrow: None,
            }),
            format => TableInput::arrow(path, bytes, format),
        }
    }

    /// A Parquet or IPC table held in memory; `path` names it.
    pub fn arrow(path: &Path, bytes: Vec<u8>, format: TableFormat) -> Result<TableInput> {
        let (table, layout) = read_table_bytes(path, bytes, format)?;
        Ok(TableInput::from_arrow(&table, layout))
    }

    /// An Arrow table already converted ([`crate::arrow::table_from_arrow`]: a
    /// pandas or pyarrow table in memory).
    pub fn from_arrow(table: &Table, layout: ArrowLayout) -> TableInput {
        let mut csv = Vec::new();
        Layout::canonical(table.columns.len()).render(table, &mut csv);
        TableInput {
            csv: Csv::Bytes(csv),
            arrow: Some(layout),
        }
    }

    /// The config that reads `csv`: for an Arrow input, the canonical
    /// dialect (`,`, a header row, nothing trimmed) whatever `[input]` says
    /// of CSV files.
    pub fn config<'a>(&self, config: &'a Config) -> Cow<'a, Config> {
        if self.arrow.is_none() {
            return Cow::Borrowed(config);
        }
        let mut c = config.clone();
        c.input.delimiter = Some(",".to_owned());
        c.input.header = true;
        c.input.trim = false;
        Cow::Owned(c)
    }
}
