//! The native half of `karc.spark`: a worker codes its fragment as a part,
//! the driver merges the parts (`karc::api::distributed`).

use std::path::PathBuf;

use karc::api::distributed::{self, Domain, PartFile, Totals, Whole};
use karc::api::global::{self, Recoding};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::{config, detached, diff_mode, json, overrides, seal_options, tables};
use arrow_pyarrow::{PyArrowType, Table as PyTable};

/// A one-off key for the parts of one pack: `(identity, recipient)`.
#[pyfunction]
fn part_key() -> (String, String) {
    distributed::part_key()
}

/// Anonymizes a fragment (a pyarrow Table) and codes it as a part sealed
/// for `recipient`: `(part bytes, report JSON)`.
#[pyfunction]
#[pyo3(signature = (table, recipient, first, domains=Vec::new(), sensitive=Vec::new(), config_path=None, config_json=None, algorithm=None, k=None, seed=None, suppression_limit=None, mode=None))]
#[allow(clippy::too_many_arguments)]
fn encode_part(
    py: Python<'_>,
    table: PyArrowType<PyTable>,
    recipient: String,
    first: bool,
    domains: Vec<(String, f64, f64)>,
    sensitive: Vec<(String, PyArrowType<PyTable>)>,
    config_path: Option<PathBuf>,
    config_json: Option<String>,
    algorithm: Option<String>,
    k: Option<usize>,
    seed: Option<u64>,
    suppression_limit: Option<f64>,
    mode: Option<String>,
) -> PyResult<(Py<PyBytes>, String)> {
    let (bytes, report) = detached(py, || {
        let config = config(
            config_path,
            config_json,
            &overrides(algorithm, k, seed, suppression_limit),
        )?;
        let (batches, schema) = table.0.into_inner();
        let whole = whole_of(domains, sensitive)?;
        let mode = diff_mode(mode.as_deref())?;
        let (bytes, report) =
            distributed::encode_part(&config, &schema, &batches, first, &whole, mode, &recipient)?;
        Ok((bytes, json(&report)?))
    })?;
    Ok((PyBytes::new(py, &bytes).unbind(), report))
}

/// What a fragment is told of the whole table: the numeric QIs' ranges and
/// each sensitive column's distribution (a pyarrow Table of its values and
/// their rows).
fn whole_of(
    domains: Vec<(String, f64, f64)>,
    sensitive: Vec<(String, PyArrowType<PyTable>)>,
) -> karc::api::Result<Whole> {
    let sensitive = (sensitive.into_iter())
        .map(|(name, table)| {
            let (batches, schema) = table.0.into_inner();
            Ok((name, distributed::reference(&schema, &batches)?))
        })
        .collect::<karc::api::Result<_>>()?;
    Ok(Whole {
        domains: domains_of(domains),
        sensitive,
    })
}

fn domains_of(domains: Vec<(String, f64, f64)>) -> Vec<Domain> {
    domains
        .into_iter()
        .map(|(qi, min, max)| Domain { qi, min, max })
        .collect()
}

/// Generalizes a fragment's quasi-identifiers (a pyarrow Table; only the
/// QI and sensitive columns are read) with the whole table's numeric
/// `domains`: `(the QI columns as labels, report JSON)`, rows in order.
#[pyfunction]
#[pyo3(signature = (table, domains=Vec::new(), sensitive=Vec::new(), config_path=None, config_json=None, algorithm=None, k=None, seed=None, suppression_limit=None))]
#[allow(clippy::too_many_arguments)]
fn generalize_fragment(
    py: Python<'_>,
    table: PyArrowType<PyTable>,
    domains: Vec<(String, f64, f64)>,
    sensitive: Vec<(String, PyArrowType<PyTable>)>,
    config_path: Option<PathBuf>,
    config_json: Option<String>,
    algorithm: Option<String>,
    k: Option<usize>,
    seed: Option<u64>,
    suppression_limit: Option<f64>,
) -> PyResult<(PyArrowType<PyTable>, String)> {
    detached(py, || {
        let config = config(
            config_path,
            config_json,
            &overrides(algorithm, k, seed, suppression_limit),
        )?;
        let (batches, schema) = table.0.into_inner();
        let whole = whole_of(domains, sensitive)?;
        let (qis, report) = distributed::generalize_fragment(&config, &schema, &batches, &whole)?;
        Ok((tables::to_py(qis)?, json(&report)?))
    })
}

/// Whether each whole fragment could stand as one class under the config's
/// models beyond k on sensitive `column` (see
/// `karc::api::distributed::fragments_hold`): `table` is a few rows that
/// bind the config, `reference` the column's whole-table distribution (a
/// pyarrow Table of values and rows), `fragments[f]` fragment f's rows per
/// value of `reference`.
#[pyfunction]
#[pyo3(signature = (table, column, reference, fragments, config_path=None, config_json=None))]
fn fragments_hold(
    py: Python<'_>,
    table: PyArrowType<PyTable>,
    column: String,
    reference: PyArrowType<PyTable>,
    fragments: Vec<Vec<u64>>,
    config_path: Option<PathBuf>,
    config_json: Option<String>,
) -> PyResult<Vec<bool>> {
    detached(py, || {
        let config = config(config_path, config_json, &overrides(None, None, None, None))?;
        let (batches, schema) = table.0.into_inner();
        let (ref_batches, ref_schema) = reference.0.into_inner();
        let reference = distributed::reference(&ref_schema, &ref_batches)?;
        distributed::fragments_hold(&config, &schema, &batches, &column, &reference, &fragments)
    })
}

/// Runs Datafly or Incognito on a frequency set (a pyarrow Table of the
/// distinct QI tuples, `counts` rows each): `(choice JSON, each tuple's QI
/// labels at the chosen levels, whether each tuple is suppressed)`.
#[pyfunction]
#[pyo3(signature = (table, counts, config_path=None, config_json=None, algorithm=None, k=None, seed=None, suppression_limit=None))]
#[allow(clippy::too_many_arguments)]
fn search_frequencies(
    py: Python<'_>,
    table: PyArrowType<PyTable>,
    counts: Vec<u32>,
    config_path: Option<PathBuf>,
    config_json: Option<String>,
    algorithm: Option<String>,
    k: Option<usize>,
    seed: Option<u64>,
    suppression_limit: Option<f64>,
) -> PyResult<(String, PyArrowType<PyTable>, Vec<bool>)> {
    detached(py, || {
        let config = config(
            config_path,
            config_json,
            &overrides(algorithm, k, seed, suppression_limit),
        )?;
        let (batches, schema) = table.0.into_inner();
        let (search, labels, suppressed) =
            global::search_frequencies(&config, &schema, &batches, &counts)?;
        Ok((json(&search)?, tables::to_py(labels)?, suppressed))
    })
}

/// Codes a fragment (a pyarrow Table) released by a global recoding
/// (`levels`, one suppressed flag per row, the whole table's rows) as a
/// part sealed for `recipient`: `(part bytes, report JSON)`.
#[pyfunction]
#[pyo3(signature = (table, recipient, first, levels, suppressed, table_rows, domains=Vec::new(), config_path=None, config_json=None, algorithm=None, k=None, seed=None, suppression_limit=None, mode=None))]
#[allow(clippy::too_many_arguments)]
fn encode_recoded_part(
    py: Python<'_>,
    table: PyArrowType<PyTable>,
    recipient: String,
    first: bool,
    levels: Vec<usize>,
    suppressed: Vec<bool>,
    table_rows: u64,
    domains: Vec<(String, f64, f64)>,
    config_path: Option<PathBuf>,
    config_json: Option<String>,
    algorithm: Option<String>,
    k: Option<usize>,
    seed: Option<u64>,
    suppression_limit: Option<f64>,
    mode: Option<String>,
) -> PyResult<(Py<PyBytes>, String)> {
    let (bytes, report) = detached(py, || {
        let config = config(
            config_path,
            config_json,
            &overrides(algorithm, k, seed, suppression_limit),
        )?;
        let (batches, schema) = table.0.into_inner();
        let recoding = Recoding {
            levels,
            suppressed,
            table_rows,
        };
        let (bytes, report) = global::encode_recoded_part(
            &config,
            &schema,
            &batches,
            first,
            &domains_of(domains),
            diff_mode(mode.as_deref())?,
            &recipient,
            &recoding,
        )?;
        Ok((bytes, json(&report)?))
    })?;
    Ok((PyBytes::new(py, &bytes).unbind(), report))
}

/// A merge fed one part at a time, as bytes (the driver of
/// `karc.spark.pack` streams the parts from the workers through Spark):
/// `PartMerger(output, identity, params, ...)`, then `add(part, suppressed,
/// classes, name)` for each part in order, then `finish(totals)`.
#[pyclass]
struct PartMerger {
    merger: Option<distributed::Merger>,
}

#[pymethods]
impl PartMerger {
    #[new]
    #[pyo3(signature = (output, identity, params, recipients=Vec::new(), recipients_files=Vec::new(), passphrase=None, work_factor=None, no_encryption=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        output: PathBuf,
        identity: String,
        params: String,
        recipients: Vec<String>,
        recipients_files: Vec<PathBuf>,
        passphrase: Option<String>,
        work_factor: Option<u8>,
        no_encryption: bool,
    ) -> PyResult<PartMerger> {
        let merger = detached(py, || {
            let seal = seal_options(
                recipients,
                recipients_files,
                passphrase,
                work_factor,
                no_encryption,
            )
            .seal()?;
            distributed::merger(&identity, seal, &output, &params)
        })?;
        Ok(PartMerger {
            merger: Some(merger),
        })
    }

    /// Adds the next part (its bytes; `name` says which in messages).
    fn add(
        &mut self,
        py: Python<'_>,
        part: &[u8],
        suppressed: u64,
        classes: u64,
        name: String,
    ) -> PyResult<()> {
        let merger = self.merger.as_mut().ok_or_else(finished)?;
        detached(py, || {
            merger.add(std::path::Path::new(&name), part, suppressed, classes)
        })
    }

    /// Writes the merged file: the merge's report as JSON. `totals`
    /// (suppression budget, classes, Σ|E|², suppressed rows) are a global
    /// recoding's whole-table figures, which replace the parts' sums.
    #[pyo3(signature = (totals=None))]
    fn finish(&mut self, py: Python<'_>, totals: Option<(u64, u64, f64, u64)>) -> PyResult<String> {
        let merger = self.merger.take().ok_or_else(finished)?;
        detached(py, || {
            let totals = totals.map(totals_of);
            json(&merger.finish(totals.as_ref())?)
        })
    }
}

fn finished() -> PyErr {
    pyo3::exceptions::PyValueError::new_err("PartMerger: the merge is already finished")
}

fn totals_of((suppression_budget, classes, squares, suppressed): (u64, u64, f64, u64)) -> Totals {
    Totals {
        suppression_budget,
        suppressed,
        classes,
        squares,
    }
}

/// Merges part files `(path, suppressed rows, classes)`, in order, into
/// `output`, sealed as the arguments say: the merge's report as JSON.
/// `totals` as [`PartMerger::finish`]'s.
#[pyfunction]
#[pyo3(signature = (parts, output, identity, params, recipients=Vec::new(), recipients_files=Vec::new(), passphrase=None, work_factor=None, no_encryption=false, totals=None))]
#[allow(clippy::too_many_arguments)]
fn merge_parts(
    py: Python<'_>,
    parts: Vec<(PathBuf, u64, u64)>,
    output: PathBuf,
    identity: String,
    params: String,
    recipients: Vec<String>,
    recipients_files: Vec<PathBuf>,
    passphrase: Option<String>,
    work_factor: Option<u8>,
    no_encryption: bool,
    totals: Option<(u64, u64, f64, u64)>,
) -> PyResult<String> {
    detached(py, || {
        let seal = seal_options(
            recipients,
            recipients_files,
            passphrase,
            work_factor,
            no_encryption,
        )
        .seal()?;
        let parts: Vec<PartFile> = parts
            .into_iter()
            .map(|(path, suppressed, classes)| PartFile {
                path,
                suppressed,
                classes,
            })
            .collect();
        let merged = match totals.map(totals_of) {
            Some(t) => {
                distributed::merge_recoded_parts(&parts, &identity, seal, &output, &params, &t)?
            }
            None => distributed::merge_parts(&parts, &identity, seal, &output, &params)?,
        };
        json(&merged)
    })
}

/// Adds the functions to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(part_key, m)?)?;
    m.add_function(wrap_pyfunction!(encode_part, m)?)?;
    m.add_function(wrap_pyfunction!(generalize_fragment, m)?)?;
    m.add_function(wrap_pyfunction!(fragments_hold, m)?)?;
    m.add_function(wrap_pyfunction!(merge_parts, m)?)?;
    m.add_class::<PartMerger>()?;
    m.add_function(wrap_pyfunction!(search_frequencies, m)?)?;
    m.add_function(wrap_pyfunction!(encode_recoded_part, m)?)?;
    Ok(())
}
