//! Arrow to karc: each Arrow value becomes the text its type renders
//! ([`text`](super::text)), column by column, batch by batch, and the
//! [`ArrowLayout`] records what the texts cannot say (schema, null rows of
//! string and binary columns, odd NaN bits). The way back is `rebuild`.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Schema, SchemaRef, TimeUnit};

use crate::Result;
use crate::table::{Column, LineEnding, Table};

use super::{ArrowLayout, ArrowTableError, ColumnExtras, Kind, text};

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
