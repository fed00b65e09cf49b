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
use crate::io::Input;
use crate::table::Table;

/// An input table: its CSV bytes and, for an Arrow or
/// Parquet file, the layout that rebuilds it.
pub struct TableInput {
    /// The CSV bytes: the file's own, or an Arrow table's canonical CSV.
    pub csv: Vec<u8>,
    /// What rebuilds an Arrow input; `None` for a CSV file.
    pub arrow: Option<ArrowLayout>,
}

impl TableInput {
    /// Reads a command-line input (`-` is standard input), its format from
    /// its extension (from its first bytes for standard input).
    pub fn open(path: &Path) -> Result<TableInput> {
        let bytes = Input::open_arg(path)?.into_vec();
        match TableFormat::of_input(path, &bytes) {
            TableFormat::Csv => Ok(TableInput {
                csv: bytes,
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
            csv,
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
