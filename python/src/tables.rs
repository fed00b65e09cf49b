//! Tables across the boundary: a pyarrow Table arrives through the Arrow C
//! stream interface (no copy of its buffers) and becomes a karc table by
//! `karc::arrow`; karc's columns go back as a pyarrow Table the same way.

use std::sync::Arc;

use arrow_pyarrow::{PyArrowType, Table as PyTable};
use arrow_schema::Schema;
use karc::arrow::{ArrowLayout, ColumnExtras, table_from_arrow, to_arrow};
use karc::table::{Column, Table};

/// A pyarrow Table as karc's table and the layout that rebuilds it.
pub fn from_py(table: PyArrowType<PyTable>) -> karc::Result<(Table, ArrowLayout)> {
    let (batches, schema) = table.0.into_inner();
    table_from_arrow(&schema, &batches)
}

/// karc columns as a pyarrow Table, typed by `layout` (strings without).
pub fn to_py(columns: &[Column], layout: Option<&ArrowLayout>) -> karc::Result<PyArrowType<PyTable>> {
    let batch = to_arrow(columns, layout)?;
    let schema = batch.schema();
    PyTable::try_new(vec![batch], schema)
        .map(PyArrowType)
        .map_err(|e| karc::Error::Options(format!("Arrow table: {e}")))
}

/// The layout of a release of `columns` (the identifiers left out, the
/// quasi-identifiers as text) from the input's: the other columns keep
/// their types and their nulls, as they are released as they are.
pub fn release_layout(input: &ArrowLayout, columns: &[Column], qis: &[&str]) -> ArrowLayout {
    let all = input.release(qis);
    let index = |c: &Column| all.schema.index_of(&c.name).ok();
    let fields: Vec<_> = columns
        .iter()
        .filter_map(|c| index(c).map(|i| all.schema.field(i).clone()))
        .collect();
    let extras = input.extras.as_ref().map(|extras| {
        columns
            .iter()
            .filter_map(index)
            .map(|i| match qis.contains(&all.schema.field(i).name().as_str()) {
                true => ColumnExtras::default(),
                false => extras[i].clone(),
            })
            .collect()
    });
    ArrowLayout {
        schema: Arc::new(Schema::new_with_metadata(fields, all.schema.metadata().clone())),
        extras,
    }
}
