//! karc to Arrow: the texts parsed back into arrays of the types the
//! [`ArrowLayout`] names, nulls and NaN bits restored from its extras, so
//! that a table read by `builder` comes back exactly.

use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::{
    Array, ArrayRef, ArrowPrimitiveType, BinaryArray, BinaryViewArray, BooleanArray,
    DictionaryArray, FixedSizeBinaryArray, LargeBinaryArray, LargeStringArray, NullArray,
    PrimitiveArray, RecordBatch, RecordBatchOptions, StringArray, StringViewArray,
};
use arrow_buffer::{ArrowNativeType, BooleanBuffer, NullBuffer, i256};
use arrow_schema::{DataType, Field, Schema, TimeUnit};

use crate::dictionary::Dictionary;
use crate::table::Column;
use crate::{Error, Result};

use super::{ArrowLayout, ArrowTableError, ColumnExtras, Kind, text};

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
