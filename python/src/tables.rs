//! Tables across the boundary: a pyarrow Table arrives through the Arrow C
//! stream interface (no copy of its buffers); results go back as pyarrow
//! Tables the same way.

use arrow_array::RecordBatch;
use arrow_pyarrow::{PyArrowType, Table as PyTable};

/// One record batch as a pyarrow Table.
pub fn to_py(batch: RecordBatch) -> karc::api::Result<PyArrowType<PyTable>> {
    let schema = batch.schema();
    PyTable::try_new(vec![batch], schema)
        .map(PyArrowType)
        .map_err(|e| karc::api::Error::Options(format!("Arrow table: {e}")))
}
