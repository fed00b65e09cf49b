//! Arrow tables (Parquet and Arrow IPC files, pandas and pyarrow tables) as
//! karc tables, and back.
//!
//! karc's columns hold texts; an Arrow column holds typed values. Each value
//! becomes the text [`text`] renders for its type (shortest round-trip
//! floats, ISO 8601 dates, scaled decimals), and an [`ArrowLayout`] keeps
//! what the texts cannot say, so [`to_arrow`] rebuilds the table exactly:
//!
//! - the schema (names, types with units, time zones, precisions, key
//!   types of dictionaries, nullability, metadata);
//! - nulls: a null is the empty text, which no rendering of a number, date,
//!   boolean or decimal produces, so only string and binary columns that
//!   have both nulls and empty values keep the list of their null rows;
//! - the bits of NaNs other than the canonical one (`NaN` parses back as
//!   the canonical NaN).
//!
//! The schema is public (a release shows its columns); the null rows and
//! NaN bits are the original's, as secret as its cells.

mod builder;
mod files;
mod guard;
mod rebuild;
pub mod text;
mod thrift;

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, SchemaRef};

use crate::Result;

pub use files::{
    TableFormat, read_table, read_table_bytes, write_batch, write_batches, write_table,
};

pub use builder::{TableBuilder, table_from_arrow};
pub use rebuild::to_arrow;

/// What rebuilds an Arrow table from karc's texts (see the module's doc).
#[derive(Debug, Clone, PartialEq)]
pub struct ArrowLayout {
    /// The Arrow schema: field names, types and metadata.
    pub schema: SchemaRef,
    /// One per field, for an exact rebuild (a restore); `None` in a layout
    /// that only types a release's columns (the public schema).
    pub extras: Option<Vec<ColumnExtras>>,
}

/// The secret part of a column's layout.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnExtras {
    /// A string or binary column without empty values: its empty texts are
    /// its nulls, and `null_rows` is empty.
    pub empty_is_null: bool,
    /// Rows (ascending) that are null in a string or binary column that
    /// has empty values too.
    pub null_rows: Vec<u32>,
    /// Rows (ascending) holding a NaN other than the canonical one, with
    /// its bits (of the column's float width).
    pub nan_bits: Vec<(u32, u64)>,
}

/// An Arrow or Parquet table karc cannot take or rebuild.
#[derive(Debug, thiserror::Error)]
pub enum ArrowTableError {
    /// A column of a nested or otherwise unsupported type.
    #[error(
        "{origin}: column {column}: type {data_type} is not supported: expected a flat column \
         (numbers, decimals, booleans, strings, binary, dates, times, timestamps, durations, \
         or dictionaries of these)"
    )]
    Unsupported {
        /// The table's name in messages (a file or a front end's table).
        origin: String,
        /// The column.
        column: String,
        /// Its Arrow type.
        data_type: String,
    },
    #[error("{origin}: duplicate column name {name:?} (columns {first} and {second})")]
    /// Two columns with the same name.
    DuplicateColumn {
        /// The table's name in messages (a file or a front end's table).
        origin: String,
        /// The name.
        name: String,
        /// The first column with it.
        first: usize,
        /// The second column with it.
        second: usize,
    },
    #[error("{origin}: the table has no columns")]
    /// A table without columns.
    NoColumns {
        /// The table's name in messages (a file or a front end's table).
        origin: String,
    },
    #[error("{origin}: {rows} rows: expected at most {} rows", u32::MAX)]
    /// More rows than a `u32` row index holds.
    TooManyRows {
        /// The table's name in messages (a file or a front end's table).
        origin: String,
        /// The row count.
        rows: usize,
    },
    #[error("column {column}, row {row}: expected a {data_type} value, found {found:?}")]
    /// A text that does not parse as its column's Arrow type.
    Cell {
        /// The column.
        column: String,
        /// The row.
        row: usize,
        /// The Arrow type expected.
        data_type: String,
        /// The text found.
        found: String,
    },
    #[error("the Arrow layout does not fit the columns: {detail}")]
    /// A stored layout that does not match the table's columns.
    Layout {
        /// What does not match.
        detail: String,
    },
    #[error("{path}: {message}")]
    /// A table file Arrow or Parquet could not read or write.
    File {
        /// The file.
        path: String,
        /// The reader's or writer's message.
        message: String,
    },
}

impl crate::error::AreaError for ArrowTableError {}

/// How a column's values become texts and back.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Null,
    Bool,
    Int,
    Float,
    Decimal,
    Timestamp,
    Date,
    Time,
    Duration,
    Text,
    Binary,
}

impl Kind {
    /// The kind of a column of `data_type`; `None` for nested types.
    fn of(data_type: &DataType) -> Option<Kind> {
        use DataType::*;
        Some(match data_type {
            Null => Kind::Null,
            Boolean => Kind::Bool,
            Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 => Kind::Int,
            Float16 | Float32 | Float64 => Kind::Float,
            Decimal32(..) | Decimal64(..) | Decimal128(..) | Decimal256(..) => Kind::Decimal,
            Timestamp(..) => Kind::Timestamp,
            Date32 | Date64 => Kind::Date,
            Time32(_) | Time64(_) => Kind::Time,
            Duration(_) => Kind::Duration,
            Utf8 | LargeUtf8 | Utf8View => Kind::Text,
            Binary | LargeBinary | BinaryView | FixedSizeBinary(_) => Kind::Binary,
            Dictionary(key, value) if key.is_dictionary_key_type() => match Kind::of(value)? {
                Kind::Null => return None,
                k => k,
            },
            _ => return None,
        })
    }

    /// Whether the empty text is a value of this kind, so nulls are listed.
    fn lists_nulls(self) -> bool {
        matches!(self, Kind::Text | Kind::Binary)
    }
}

/// The one schema key a public part keeps: the Python package's mark of a
/// table packed from a pandas DataFrame (value `pandas`), so that a release
/// read from a published copy comes back as the kind of table packed. It
/// tells which API the steward used, nothing of the data (FORMAT §7.6).
pub const PUBLIC_SCHEMA_KEY: &str = "karc.python.kind";

impl ArrowLayout {
    /// The public layout of a release: this schema with `text_columns` (the
    /// quasi-identifiers, whose cells are generalized labels) as strings,
    /// without the original's null rows and NaN bits.
    pub fn release(&self, text_columns: &[&str]) -> ArrowLayout {
        let fields: Vec<Field> = self
            .schema
            .fields()
            .iter()
            .map(|f| {
                if text_columns.contains(&f.name().as_str()) {
                    Field::new(f.name(), DataType::Utf8, true).with_metadata(f.metadata().clone())
                } else {
                    f.as_ref().clone()
                }
            })
            .collect();
        // pandas' metadata names the original's dtypes, which a release's
        // string columns no longer have.
        let mut metadata = self.schema.metadata().clone();
        metadata.remove("pandas");
        ArrowLayout {
            schema: Arc::new(Schema::new_with_metadata(fields, metadata)),
            extras: None,
        }
    }

    /// The schema as Arrow IPC flatbuffer bytes (the `Schema` table of
    /// `Schema.fbs`, as an Arrow IPC file's footer holds it).
    pub fn schema_bytes(&self) -> Vec<u8> {
        let mut tracker = arrow_ipc::writer::DictionaryTracker::new(false);
        arrow_ipc::convert::IpcSchemaEncoder::new()
            .with_dictionary_tracker(&mut tracker)
            .schema_to_fb(&self.schema)
            .finished_data()
            .to_vec()
    }

    /// The layout's schema without custom metadata (the schema's and
    /// every field's key-value pairs), as a public part shows it; only
    /// [`PUBLIC_SCHEMA_KEY`] stays, when its value is `pandas`.
    pub fn without_metadata(&self) -> ArrowLayout {
        let fields: Vec<Field> = (self.schema.fields().iter())
            .map(|f| {
                f.as_ref()
                    .clone()
                    .with_metadata(std::collections::HashMap::new())
            })
            .collect();
        let kept: std::collections::HashMap<String, String> = (self.schema.metadata())
            .get(PUBLIC_SCHEMA_KEY)
            .filter(|v| v.as_str() == "pandas")
            .map(|v| (PUBLIC_SCHEMA_KEY.to_owned(), v.clone()))
            .into_iter()
            .collect();
        ArrowLayout {
            schema: Arc::new(Schema::new_with_metadata(fields, kept)),
            extras: None,
        }
    }

    /// The schema of [`ArrowLayout::schema_bytes`].
    pub fn schema_from_bytes(bytes: &[u8]) -> Result<Schema> {
        let bad = |detail: String| ArrowTableError::Layout { detail };
        let fb = arrow_ipc::root_as_schema(bytes).map_err(|e| bad(format!("schema: {e}")))?;
        Ok(arrow_ipc::convert::try_fb_to_schema(fb).map_err(|e| bad(format!("schema: {e}")))?)
    }
}

#[cfg(test)]
mod tests;
