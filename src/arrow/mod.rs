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

// Long: each Arrow type's text rendering and its way back sit side by side so the exact round trip
// can be read per type; tests and file I/O live apart already

mod files;
mod guard;
pub mod text;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{
    Array, ArrayRef, ArrowPrimitiveType, BinaryArray, BinaryViewArray, BooleanArray,
    DictionaryArray, FixedSizeBinaryArray, LargeBinaryArray, LargeStringArray, NullArray,
    PrimitiveArray, RecordBatch, RecordBatchOptions, StringArray, StringViewArray,
};
use arrow_buffer::{ArrowNativeType, BooleanBuffer, NullBuffer, i256};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};

use crate::dictionary::Dictionary;
use crate::table::{Column, LineEnding, Table};
use crate::{Error, Result};

pub use files::{
    TableFormat, read_table, read_table_bytes, write_batch, write_batches, write_table,
};

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

/// Writes the text of an array's value `i` (which is not null) into a buffer.
type Writer<'a> = Box<dyn Fn(usize, &mut String) + 'a>;

// Long: one match over the Arrow data types returning each type's text writer; split by type it
// would hide which types are handled
fn writer(array: &dyn Array) -> Writer<'_> {
    use DataType::*;
    macro_rules! each {
        ($t:ty, |$b:ident, $v:ident| $body:expr) => {{
            let a = array.as_primitive::<$t>();
            Box::new(move |i, $b: &mut String| {
                let $v = a.value(i);
                $body
            })
        }};
    }
    match array.data_type() {
        Null => Box::new(|_, _| {}),
        Boolean => {
            let a = array.as_boolean();
            Box::new(move |i, b| text::write_bool(b, a.value(i)))
        }
        Int8 => each!(Int8Type, |b, v| text::write_int(b, v)),
        Int16 => each!(Int16Type, |b, v| text::write_int(b, v)),
        Int32 => each!(Int32Type, |b, v| text::write_int(b, v)),
        Int64 => each!(Int64Type, |b, v| text::write_int(b, v)),
        UInt8 => each!(UInt8Type, |b, v| text::write_int(b, v)),
        UInt16 => each!(UInt16Type, |b, v| text::write_int(b, v)),
        UInt32 => each!(UInt32Type, |b, v| text::write_int(b, v)),
        UInt64 => each!(UInt64Type, |b, v| text::write_int(b, v)),
        Float16 => each!(Float16Type, |b, v| text::write_f32(b, v.to_f32())),
        Float32 => each!(Float32Type, |b, v| text::write_f32(b, v)),
        Float64 => each!(Float64Type, |b, v| text::write_f64(b, v)),
        &Decimal32(_, s) => each!(Decimal32Type, |b, v| {
            text::write_decimal(b, itoa::Buffer::new().format(v), s)
        }),
        &Decimal64(_, s) => each!(Decimal64Type, |b, v| {
            text::write_decimal(b, itoa::Buffer::new().format(v), s)
        }),
        &Decimal128(_, s) => each!(Decimal128Type, |b, v| {
            text::write_decimal(b, itoa::Buffer::new().format(v), s)
        }),
        // i256 has no itoa: its text is formatted once per cell (a rare type).
        &Decimal256(_, s) => each!(Decimal256Type, |b, v| {
            text::write_decimal(b, &v.to_string(), s)
        }),
        Timestamp(unit, tz) => {
            let (unit, utc) = (*unit, tz.is_some());
            let v = timestamp_values(array);
            Box::new(move |i, b| text::write_timestamp(b, v[i], unit, utc))
        }
        Date32 => each!(Date32Type, |b, v| text::write_date(b, v.into())),
        Date64 => each!(Date64Type, |b, v| {
            if v % 86_400_000 == 0 {
                text::write_date(b, v / 86_400_000)
            } else {
                text::write_timestamp(b, v, TimeUnit::Millisecond, false)
            }
        }),
        Time32(TimeUnit::Second) => each!(Time32SecondType, |b, v| {
            text::write_time(b, v.into(), TimeUnit::Second)
        }),
        Time32(_) => each!(Time32MillisecondType, |b, v| {
            text::write_time(b, v.into(), TimeUnit::Millisecond)
        }),
        Time64(TimeUnit::Microsecond) => each!(Time64MicrosecondType, |b, v| {
            text::write_time(b, v, TimeUnit::Microsecond)
        }),
        Time64(_) => each!(Time64NanosecondType, |b, v| {
            text::write_time(b, v, TimeUnit::Nanosecond)
        }),
        Duration(_) => {
            let v = duration_values(array);
            Box::new(move |i, b| text::write_int(b, v[i]))
        }
        Utf8 => {
            let a = array.as_string::<i32>();
            Box::new(move |i, b| b.push_str(a.value(i)))
        }
        LargeUtf8 => {
            let a = array.as_string::<i64>();
            Box::new(move |i, b| b.push_str(a.value(i)))
        }
        Utf8View => {
            let a = array.as_string_view();
            Box::new(move |i, b| b.push_str(a.value(i)))
        }
        Binary => {
            let a = array.as_binary::<i32>();
            Box::new(move |i, b| text::write_hex(b, a.value(i)))
        }
        LargeBinary => {
            let a = array.as_binary::<i64>();
            Box::new(move |i, b| text::write_hex(b, a.value(i)))
        }
        BinaryView => {
            let a = array.as_binary_view();
            Box::new(move |i, b| text::write_hex(b, a.value(i)))
        }
        FixedSizeBinary(_) => {
            let a = array.as_fixed_size_binary();
            Box::new(move |i, b| text::write_hex(b, a.value(i)))
        }
        // Kind::of refused every other type before a writer is asked for.
        other => unreachable!("no writer for {other}"),
    }
}

/// The raw `i64`s of a timestamp array of any unit.
fn timestamp_values(array: &dyn Array) -> &[i64] {
    match array.data_type() {
        DataType::Timestamp(TimeUnit::Second, _) => {
            array.as_primitive::<TimestampSecondType>().values()
        }
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            array.as_primitive::<TimestampMillisecondType>().values()
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            array.as_primitive::<TimestampMicrosecondType>().values()
        }
        _ => array.as_primitive::<TimestampNanosecondType>().values(),
    }
}

/// The raw `i64`s of a duration array of any unit.
fn duration_values(array: &dyn Array) -> &[i64] {
    match array.data_type() {
        DataType::Duration(TimeUnit::Second) => array.as_primitive::<DurationSecondType>().values(),
        DataType::Duration(TimeUnit::Millisecond) => {
            array.as_primitive::<DurationMillisecondType>().values()
        }
        DataType::Duration(TimeUnit::Microsecond) => {
            array.as_primitive::<DurationMicrosecondType>().values()
        }
        _ => array.as_primitive::<DurationNanosecondType>().values(),
    }
}

/// The bits of value `i` of a float array when it is a NaN other than the
/// canonical one (which its text `NaN` parses back to).
fn odd_nan(array: &dyn Array, i: usize) -> Option<u64> {
    match array.data_type() {
        DataType::Float16 => {
            let v = array.as_primitive::<Float16Type>().value(i);
            (v.is_nan() && v.to_bits() != half::f16::NAN.to_bits()).then(|| v.to_bits().into())
        }
        DataType::Float32 => {
            let v = array.as_primitive::<Float32Type>().value(i);
            (v.is_nan() && v.to_bits() != f32::NAN.to_bits()).then(|| v.to_bits().into())
        }
        DataType::Float64 => {
            let v = array.as_primitive::<Float64Type>().value(i);
            (v.is_nan() && v.to_bits() != f64::NAN.to_bits()).then(|| v.to_bits())
        }
        _ => None,
    }
}

/// Builds a karc table from Arrow record batches, one batch at a time (a
/// file is read batch by batch, never whole in Arrow form).
pub struct TableBuilder {
    origin: String,
    schema: SchemaRef,
    kinds: Vec<Kind>,
    columns: Vec<Column>,
    extras: Vec<ColumnExtras>,
    /// Whether a column holds an empty value (not a null).
    empty_values: Vec<bool>,
    rows: usize,
    buf: String,
}

impl TableBuilder {
    /// A builder for tables of `schema`; `origin` names the table in
    /// messages. Refuses nested types and duplicate names, naming the column.
    pub fn new(schema: SchemaRef, origin: &str) -> Result<TableBuilder> {
        let fields = schema.fields();
        if fields.is_empty() {
            return Err(ArrowTableError::NoColumns {
                origin: origin.to_owned(),
            }
            .into());
        }
        let mut kinds = Vec::with_capacity(fields.len());
        for (i, f) in fields.iter().enumerate() {
            let kind = Kind::of(f.data_type()).ok_or_else(|| ArrowTableError::Unsupported {
                origin: origin.to_owned(),
                column: f.name().clone(),
                data_type: f.data_type().to_string(),
            })?;
            if let Some(j) = fields[..i].iter().position(|g| g.name() == f.name()) {
                return Err(ArrowTableError::DuplicateColumn {
                    origin: origin.to_owned(),
                    name: f.name().clone(),
                    first: j + 1,
                    second: i + 1,
                }
                .into());
            }
            kinds.push(kind);
        }
        Ok(TableBuilder {
            origin: origin.to_owned(),
            columns: fields
                .iter()
                .map(|f| Column::new(f.name().as_str()))
                .collect(),
            extras: vec![ColumnExtras::default(); fields.len()],
            empty_values: vec![false; fields.len()],
            kinds,
            schema,
            rows: 0,
            buf: String::new(),
        })
    }

    /// Appends a batch's rows (its schema must be the builder's).
    pub fn push(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.schema().fields() != self.schema.fields() {
            return Err(ArrowTableError::Layout {
                detail: format!(
                    "{}: a record batch's schema differs from the table's",
                    self.origin
                ),
            }
            .into());
        }
        let start = self.rows;
        let end = start + batch.num_rows();
        if end > u32::MAX as usize {
            return Err(ArrowTableError::TooManyRows {
                origin: self.origin.clone(),
                rows: end,
            }
            .into());
        }
        for (j, array) in batch.columns().iter().enumerate() {
            let column = &mut self.columns[j];
            let extras = &mut self.extras[j];
            let kind = self.kinds[j];
            column.codes.reserve(array.len());
            let empty = append(
                column,
                extras,
                kind,
                array.as_ref(),
                start as u32,
                &mut self.buf,
            );
            self.empty_values[j] |= empty;
        }
        self.rows = end;
        Ok(())
    }

    /// The table built so far and the layout that rebuilds its Arrow form.
    pub fn finish(mut self) -> (Table, ArrowLayout) {
        let columns = self
            .extras
            .iter_mut()
            .zip(&self.kinds)
            .zip(&self.empty_values);
        for ((extras, kind), empty) in columns {
            if kind.lists_nulls() && !empty {
                extras.empty_is_null = true;
                extras.null_rows = Vec::new();
            }
        }
        let table = Table {
            source: self.origin.into(),
            columns: self.columns,
            rows: self.rows,
            delimiter: b',',
            header: true,
            line_ending: LineEnding::Lf,
        };
        let layout = ArrowLayout {
            schema: self.schema,
            extras: Some(self.extras),
        };
        (table, layout)
    }
}

/// Appends an array's cells to a karc column: each value's text, and the
/// empty text for a null (listed when the kind has empty values). Returns
/// whether a value (not a null) was empty.
fn append(
    column: &mut Column,
    extras: &mut ColumnExtras,
    kind: Kind,
    array: &dyn Array,
    start: u32,
    buf: &mut String,
) -> bool {
    let mut empty = false;
    let nulls = array.logical_nulls();
    let is_null = |i: usize| nulls.as_ref().is_some_and(|n| n.is_null(i));
    let mut null_code = None;
    let mut push_null = |column: &mut Column, extras: &mut ColumnExtras, row: u32| {
        let code = *null_code.get_or_insert_with(|| column.dict.intern(""));
        column.codes.push(code);
        if kind.lists_nulls() {
            extras.null_rows.push(row);
        }
    };
    if let Some(dictionary) = array.as_any_dictionary_opt() {
        // A dictionary's values are rendered once each, when first used.
        let values = dictionary.values().as_ref();
        let write = writer(values);
        let mut codes = vec![u32::MAX; values.len()];
        let keys = dictionary.normalized_keys();
        for (i, &k) in keys.iter().enumerate() {
            let row = start + i as u32;
            if is_null(i) {
                push_null(column, extras, row);
                continue;
            }
            if codes[k] == u32::MAX {
                buf.clear();
                write(k, buf);
                empty |= buf.is_empty();
                codes[k] = column.dict.intern(buf);
            }
            column.codes.push(codes[k]);
            if kind == Kind::Float
                && let Some(bits) = odd_nan(values, k)
            {
                extras.nan_bits.push((row, bits));
            }
        }
        return empty;
    }
    let write = writer(array);
    for i in 0..array.len() {
        let row = start + i as u32;
        if is_null(i) {
            push_null(column, extras, row);
            continue;
        }
        buf.clear();
        write(i, buf);
        empty |= buf.is_empty();
        column.push(buf);
        if kind == Kind::Float
            && let Some(bits) = odd_nan(array, i)
        {
            extras.nan_bits.push((row, bits));
        }
    }
    empty
}

/// An Arrow table as a karc table and the layout that rebuilds it.
pub fn table_from_arrow(schema: &Schema, batches: &[RecordBatch]) -> Result<(Table, ArrowLayout)> {
    let mut builder = TableBuilder::new(Arc::new(schema.clone()), "Arrow table")?;
    for b in batches {
        builder.push(b)?;
    }
    Ok(builder.finish())
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

/// karc columns (a restored original, or a release) as one Arrow record
/// batch. With an exact layout (one with extras), the original table comes
/// back: its schema, types, nulls and values. With a public layout, each
/// column keeps its type where all its texts are of that type (the empty
/// text a null) and becomes a string column otherwise; without a layout,
/// every column is a string column.
pub fn to_arrow(columns: &[Column], layout: Option<&ArrowLayout>) -> Result<RecordBatch> {
    let rows = columns.first().map_or(0, |c| c.codes.len());
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = match layout {
        None => columns
            .iter()
            .map(|c| (Field::new(&c.name, DataType::Utf8, false), strings(c)))
            .unzip(),
        Some(ArrowLayout {
            schema,
            extras: Some(extras),
        }) => {
            let fields = schema.fields();
            if fields.len() != columns.len() || extras.len() != columns.len() {
                return Err(ArrowTableError::Layout {
                    detail: format!(
                        "{} fields and {} extras for {} columns",
                        fields.len(),
                        extras.len(),
                        columns.len()
                    ),
                }
                .into());
            }
            let mut arrays = Vec::with_capacity(columns.len());
            for ((c, f), e) in columns.iter().zip(fields.iter()).zip(extras) {
                if c.name != *f.name() {
                    return Err(ArrowTableError::Layout {
                        detail: format!("column {:?} where the schema has {:?}", c.name, f.name()),
                    }
                    .into());
                }
                arrays.push(build(c, f.data_type(), Some(e))?);
            }
            (fields.iter().map(|f| f.as_ref().clone()).collect(), arrays)
        }
        Some(ArrowLayout {
            schema,
            extras: None,
        }) => columns
            .iter()
            .map(|c| {
                let typed = schema
                    .field_with_name(&c.name)
                    .ok()
                    .and_then(|f| Some((f, build(c, f.data_type(), None).ok()?)));
                match typed {
                    Some((f, array)) => {
                        let nullable = f.is_nullable() || array.null_count() > 0;
                        (f.clone().with_nullable(nullable), array)
                    }
                    None => (Field::new(&c.name, DataType::Utf8, false), strings(c)),
                }
            })
            .unzip(),
    };
    let metadata = layout
        .map(|l| l.schema.metadata().clone())
        .unwrap_or_default();
    let schema = Arc::new(Schema::new_with_metadata(fields, metadata));
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(schema, arrays, &options).map_err(|e| {
        ArrowTableError::Layout {
            detail: e.to_string(),
        }
        .into()
    })
}

/// A column's texts as a string array, nulls none.
fn strings(column: &Column) -> ArrayRef {
    let dict = &column.dict;
    let bytes: usize = column.codes.iter().map(|&c| dict.value(c).len()).sum();
    let mut b = arrow_array::builder::StringBuilder::with_capacity(column.codes.len(), bytes);
    for &c in &column.codes {
        b.append_value(dict.value(c));
    }
    Arc::new(b.finish())
}

/// The first row holding `code`, for a message about its text.
fn row_of(codes: &[u32], code: u32) -> usize {
    codes.iter().position(|&c| c == code).unwrap_or(0)
}

/// An array of `data_type` from a karc column; `extras` (an exact rebuild)
/// give the null rows of string and binary columns and the NaN bits.
fn build(column: &Column, data_type: &DataType, extras: Option<&ColumnExtras>) -> Result<ArrayRef> {
    let kind = Kind::of(data_type).ok_or_else(|| ArrowTableError::Layout {
        detail: format!(
            "column {}: type {data_type} is not a flat type",
            column.name
        ),
    })?;
    let empty = ColumnExtras::default();
    let extras = extras.unwrap_or(&empty);
    let valid = validity(column, kind, extras)?;
    let cells = Cells {
        name: &column.name,
        dict: &column.dict,
        codes: &column.codes,
        valid: valid.as_ref(),
        data_type,
    };
    match data_type {
        DataType::Dictionary(key, value) => dictionary(&cells, key, value, &extras.nan_bits),
        _ => cells.array(kind, &extras.nan_bits),
    }
}

/// Which rows are valid (not null): string and binary columns from their
/// null rows, the others where the text is not empty.
fn validity(column: &Column, kind: Kind, extras: &ColumnExtras) -> Result<Option<NullBuffer>> {
    let rows = column.codes.len();
    if kind.lists_nulls() && !extras.empty_is_null {
        if extras.null_rows.is_empty() {
            return Ok(None);
        }
        let mut valid = vec![true; rows];
        for &r in &extras.null_rows {
            *valid
                .get_mut(r as usize)
                .ok_or_else(|| ArrowTableError::Layout {
                    detail: format!("column {}: null row {r} of {rows}", column.name),
                })? = false;
        }
        return Ok(Some(NullBuffer::from(valid)));
    }
    let empty = column.dict.code("");
    Ok(empty.and_then(|e| {
        let valid = NullBuffer::new(column.codes.iter().map(|&c| c != e).collect());
        (valid.null_count() > 0).then_some(valid)
    }))
}

/// A karc column seen as the cells of one Arrow array.
struct Cells<'a> {
    name: &'a str,
    dict: &'a Dictionary,
    codes: &'a [u32],
    valid: Option<&'a NullBuffer>,
    data_type: &'a DataType,
}

impl Cells<'_> {
    fn is_valid(&self, row: usize) -> bool {
        self.valid.is_none_or(|v| v.is_valid(row))
    }

    /// A layout's NaN row past the column's rows.
    fn nan_row_outside(&self, row: u32) -> ArrowTableError {
        ArrowTableError::Layout {
            detail: format!(
                "column {}: NaN row {row} of {}",
                self.name,
                self.codes.len()
            ),
        }
    }

    fn bad(&self, code: u32) -> Error {
        ArrowTableError::Cell {
            column: self.name.to_owned(),
            row: row_of(self.codes, code) + 1,
            data_type: self.data_type.to_string(),
            found: self.dict.value(code).to_owned(),
        }
        .into()
    }

    /// Each dictionary text parsed once (the empty text, a null, as the
    /// default); a text used by a valid row that does not parse is an error.
    fn parsed<T: Default + Clone>(
        &self,
        mut parse: impl FnMut(&str) -> Option<T>,
    ) -> Result<Vec<T>> {
        let mut used = vec![false; self.dict.len()];
        for (row, &c) in self.codes.iter().enumerate() {
            if self.is_valid(row) {
                used[c as usize] = true;
            }
        }
        self.dict
            .values()
            .zip(used)
            .enumerate()
            .map(|(c, (text, used))| match used {
                false => Ok(T::default()),
                true => parse(text).ok_or_else(|| self.bad(c as u32)),
            })
            .collect()
    }

    fn primitive<T: ArrowPrimitiveType>(
        &self,
        parse: impl FnMut(&str) -> Option<T::Native>,
        nan_bits: &[(u32, u64)],
        from_bits: impl Fn(u64) -> T::Native,
    ) -> Result<ArrayRef> {
        let by_code = self.parsed(parse)?;
        let mut values: Vec<T::Native> = self.codes.iter().map(|&c| by_code[c as usize]).collect();
        for &(row, bits) in nan_bits {
            let slot = values
                .get_mut(row as usize)
                .ok_or_else(|| self.nan_row_outside(row))?;
            *slot = from_bits(bits);
        }
        let array = PrimitiveArray::<T>::new(values.into(), self.valid.cloned())
            .with_data_type(self.data_type.clone());
        Ok(Arc::new(array))
    }

    fn int<T: ArrowPrimitiveType>(&self) -> Result<ArrayRef>
    where
        T::Native: std::str::FromStr,
    {
        self.primitive::<T>(|t| t.parse().ok(), &[], |_| T::Native::default())
    }

    fn decimal<T: ArrowPrimitiveType>(
        &self,
        scale: i8,
        parse: impl Fn(&str) -> Option<T::Native>,
    ) -> Result<ArrayRef> {
        let mut digits = String::new();
        self.primitive::<T>(
            |t| parse(text::decimal_digits(t, scale, &mut digits)?),
            &[],
            |_| T::Native::default(),
        )
    }

    fn with<T: ArrowPrimitiveType<Native = i64>>(
        &self,
        parse: impl Fn(&str) -> Option<i64>,
    ) -> Result<ArrayRef> {
        self.primitive::<T>(parse, &[], |_| 0)
    }

    // Long: one match over the Arrow data types, each arm a line or two; split by type it would
    // hide which types are handled
    fn array(&self, kind: Kind, nan_bits: &[(u32, u64)]) -> Result<ArrayRef> {
        use DataType::*;
        let rows = self.codes.len();
        let t32 = |t: &str, unit| text::parse_time(t, unit).and_then(|v| i32::try_from(v).ok());
        Ok(match self.data_type {
            Null => {
                if let Some(&c) = self.codes.iter().find(|&&c| !self.dict.value(c).is_empty()) {
                    return Err(self.bad(c));
                }
                Arc::new(NullArray::new(rows))
            }
            Boolean => {
                let by_code = self.parsed(text::parse_bool)?;
                let values: BooleanBuffer =
                    self.codes.iter().map(|&c| by_code[c as usize]).collect();
                Arc::new(BooleanArray::new(values, self.valid.cloned()))
            }
            Int8 => self.int::<Int8Type>()?,
            Int16 => self.int::<Int16Type>()?,
            Int32 => self.int::<Int32Type>()?,
            Int64 => self.int::<Int64Type>()?,
            UInt8 => self.int::<UInt8Type>()?,
            UInt16 => self.int::<UInt16Type>()?,
            UInt32 => self.int::<UInt32Type>()?,
            UInt64 => self.int::<UInt64Type>()?,
            Float16 => self.primitive::<Float16Type>(
                |t| t.parse::<f32>().ok().map(half::f16::from_f32),
                nan_bits,
                |b| half::f16::from_bits(b as u16),
            )?,
            Float32 => self.primitive::<Float32Type>(
                |t| t.parse().ok(),
                nan_bits,
                |b| f32::from_bits(b as u32),
            )?,
            Float64 => {
                self.primitive::<Float64Type>(|t| t.parse().ok(), nan_bits, f64::from_bits)?
            }
            &Decimal32(_, s) => self.decimal::<Decimal32Type>(s, |d| d.parse().ok())?,
            &Decimal64(_, s) => self.decimal::<Decimal64Type>(s, |d| d.parse().ok())?,
            &Decimal128(_, s) => self.decimal::<Decimal128Type>(s, |d| d.parse().ok())?,
            &Decimal256(_, s) => self.decimal::<Decimal256Type>(s, i256::from_string)?,
            Timestamp(unit, _) => {
                let unit = *unit;
                let parse = move |t: &str| text::parse_timestamp(t, unit);
                match unit {
                    TimeUnit::Second => self.with::<TimestampSecondType>(parse)?,
                    TimeUnit::Millisecond => self.with::<TimestampMillisecondType>(parse)?,
                    TimeUnit::Microsecond => self.with::<TimestampMicrosecondType>(parse)?,
                    TimeUnit::Nanosecond => self.with::<TimestampNanosecondType>(parse)?,
                }
            }
            Date32 => self.primitive::<Date32Type>(
                |t| text::parse_date(t).and_then(|d| i32::try_from(d).ok()),
                &[],
                |_| 0,
            )?,
            Date64 => {
                self.with::<Date64Type>(|t| text::parse_timestamp(t, TimeUnit::Millisecond))?
            }
            Time32(TimeUnit::Second) => {
                self.primitive::<Time32SecondType>(|t| t32(t, TimeUnit::Second), &[], |_| 0)?
            }
            Time32(_) => self.primitive::<Time32MillisecondType>(
                |t| t32(t, TimeUnit::Millisecond),
                &[],
                |_| 0,
            )?,
            Time64(TimeUnit::Microsecond) => {
                self.with::<Time64MicrosecondType>(|t| text::parse_time(t, TimeUnit::Microsecond))?
            }
            Time64(_) => {
                self.with::<Time64NanosecondType>(|t| text::parse_time(t, TimeUnit::Nanosecond))?
            }
            Duration(TimeUnit::Second) => self.int::<DurationSecondType>()?,
            Duration(TimeUnit::Millisecond) => self.int::<DurationMillisecondType>()?,
            Duration(TimeUnit::Microsecond) => self.int::<DurationMicrosecondType>()?,
            Duration(TimeUnit::Nanosecond) => self.int::<DurationNanosecondType>()?,
            Utf8 => Arc::new(StringArray::from_iter(self.texts())),
            LargeUtf8 => Arc::new(LargeStringArray::from_iter(self.texts())),
            Utf8View => Arc::new(StringViewArray::from_iter(self.texts())),
            Binary => Arc::new(BinaryArray::from_iter(
                self.bytes(&self.parsed(text::parse_hex)?),
            )),
            LargeBinary => Arc::new(LargeBinaryArray::from_iter(
                self.bytes(&self.parsed(text::parse_hex)?),
            )),
            BinaryView => Arc::new(BinaryViewArray::from_iter(
                self.bytes(&self.parsed(text::parse_hex)?),
            )),
            &FixedSizeBinary(width) => {
                let by_code =
                    self.parsed(|t| text::parse_hex(t).filter(|v| v.len() == width as usize))?;
                let array = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                    self.bytes(&by_code),
                    width,
                )
                .map_err(|e| ArrowTableError::Layout {
                    detail: format!("column {}: {e}", self.name),
                })?;
                Arc::new(array)
            }
            other => {
                return Err(ArrowTableError::Layout {
                    detail: format!(
                        "column {}: type {other} is not a flat type ({kind:?})",
                        self.name
                    ),
                }
                .into());
            }
        })
    }

    /// Each row's text, `None` for a null.
    fn texts(&self) -> impl Iterator<Item = Option<&str>> {
        self.codes
            .iter()
            .enumerate()
            .map(|(row, &c)| self.is_valid(row).then(|| self.dict.value(c)))
    }

    /// Each row's bytes parsed per code, `None` for a null.
    fn bytes<'b>(&'b self, by_code: &'b [Vec<u8>]) -> impl Iterator<Item = Option<&'b [u8]>> {
        self.codes
            .iter()
            .enumerate()
            .map(|(row, &c)| self.is_valid(row).then(|| by_code[c as usize].as_slice()))
    }
}

/// A dictionary array: the distinct texts of the valid rows, in order of
/// first use, as its values (of `value`'s type), and keys of `key`'s type.
fn dictionary(
    cells: &Cells,
    key: &DataType,
    value: &DataType,
    nan_bits: &[(u32, u64)],
) -> Result<ArrayRef> {
    let mut index = vec![u32::MAX; cells.dict.len()];
    let mut texts = Dictionary::new();
    let mut keys = Vec::with_capacity(cells.codes.len());
    for (row, &c) in cells.codes.iter().enumerate() {
        if !cells.is_valid(row) {
            keys.push(0);
            continue;
        }
        let i = &mut index[c as usize];
        if *i == u32::MAX {
            *i = texts.push_new(cells.dict.value(c));
        }
        keys.push(*i as usize);
    }
    // A row holding an odd NaN gets a value of its own, with its bits.
    let mut value_codes: Vec<u32> = (0..texts.len() as u32).collect();
    let mut value_nans = Vec::with_capacity(nan_bits.len());
    for &(row, bits) in nan_bits {
        let key = keys
            .get_mut(row as usize)
            .ok_or_else(|| cells.nan_row_outside(row))?;
        value_nans.push((value_codes.len() as u32, bits));
        value_codes.push(value_codes[*key]);
        *key = value_codes.len() - 1;
    }
    let kind = Kind::of(value).ok_or_else(|| ArrowTableError::Layout {
        detail: format!("column {}: dictionary of {value}", cells.name),
    })?;
    let values = Cells {
        name: cells.name,
        dict: &texts,
        codes: &value_codes,
        valid: None,
        data_type: value,
    }
    .array(kind, &value_nans)?;
    macro_rules! keyed {
        ($k:ty) => {{
            let too_many = || ArrowTableError::Layout {
                detail: format!(
                    "column {}: {} distinct values do not fit keys of type {key}",
                    cells.name,
                    value_codes.len()
                ),
            };
            let keys: Vec<<$k as ArrowPrimitiveType>::Native> = keys
                .iter()
                .map(|&k| ArrowNativeType::from_usize(k))
                .collect::<Option<_>>()
                .ok_or_else(too_many)?;
            let keys = PrimitiveArray::<$k>::new(keys.into(), cells.valid.cloned());
            let array = DictionaryArray::<$k>::try_new(keys, values).map_err(|e| {
                ArrowTableError::Layout {
                    detail: format!("column {}: {e}", cells.name),
                }
            })?;
            Arc::new(array) as ArrayRef
        }};
    }
    Ok(match key {
        DataType::Int8 => keyed!(Int8Type),
        DataType::Int16 => keyed!(Int16Type),
        DataType::Int32 => keyed!(Int32Type),
        DataType::Int64 => keyed!(Int64Type),
        DataType::UInt8 => keyed!(UInt8Type),
        DataType::UInt16 => keyed!(UInt16Type),
        DataType::UInt32 => keyed!(UInt32Type),
        _ => keyed!(UInt64Type),
    })
}

#[cfg(test)]
mod tests;
