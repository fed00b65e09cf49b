//! `karc._karc`: the native half of the Python package, a thin shell over
//! `karc::api`. It turns Python arguments into the facade's options and its
//! results into bytes, JSON text and Arrow tables for `karc/__init__.py`,
//! which holds the documented, typed API. Every call that works releases
//! the GIL; every error becomes a `karc.KarcError` (never a panic).

use std::path::{Path, PathBuf};

use karc::api::ArchiveError;
use karc::api::DiffMode;
use karc::api::table_from_arrow;
use karc::api::{
    self, ClaimCheck, ConfigSource, KeyOptions, Overrides, PackOptions, SealOptions, TableInput,
    VerifyOptions,
};
use karc::api::{Access, Input, Output, input_name, refuse_same_files};
use karc::api::{Config, SuppressionPolicy};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

mod signing;
mod spark;
mod tables;
mod terms;
use arrow_pyarrow::{PyArrowType, Table as PyTable};

create_exception!(
    karc,
    KarcError,
    PyException,
    "Any error karc reports; `exit_code` is the command line's for it."
);
create_exception!(
    karc,
    BadInputError,
    KarcError,
    "Bad input or bad options (exit code 2): a config, a table, an argument."
);
create_exception!(
    karc,
    CheckFailedError,
    KarcError,
    "A check failed (exit code 1): integrity, a privacy claim, a digest."
);
create_exception!(
    karc,
    WrongKeyError,
    BadInputError,
    "The key given cannot open the private part, or none was given for it."
);

/// Whether the error is about the key offered.
fn is_key_error(err: &karc::api::Error) -> bool {
    match err {
        karc::api::Error::Located { source, .. } => is_key_error(source),
        _ => matches!(
            err.area(),
            Some(
                ArchiveError::WrongIdentity { .. }
                    | ArchiveError::WrongPassphrase { .. }
                    | ArchiveError::NeedsPassphrase { .. }
                    | ArchiveError::NeedsIdentity { .. }
                    | ArchiveError::Key { .. }
            )
        ),
    }
}

/// The library's error as the Python exception of its kind, with its
/// message in Python's terms (arguments, not flags) and the command line's
/// exit code.
fn to_py(err: karc::api::Error) -> PyErr {
    let message = terms::python_terms(&karc::api::message(&err));
    let code = err.exit_code();
    let py_err = if is_key_error(&err) {
        WrongKeyError::new_err(message)
    } else if code == 1 {
        CheckFailedError::new_err(message)
    } else {
        BadInputError::new_err(message)
    };
    Python::attach(|py| {
        // The attribute is informative; failing to set it loses nothing.
        let _ = py_err.value(py).setattr("exit_code", code);
    });
    py_err
}

/// Runs `work` without the GIL, its error as a Python exception.
fn detached<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> karc::api::Result<T> + Send,
) -> PyResult<T> {
    py.detach(work).map_err(to_py)
}

/// The config from a path or from JSON (a Python dict, or TOML text as
/// one JSON string: what `karc.init()` returns), with the overrides.
fn config(
    path: Option<PathBuf>,
    json: Option<String>,
    overrides: &Overrides,
) -> karc::api::Result<Config> {
    let source = match (path, json) {
        (Some(path), None) => ConfigSource::File(path),
        (None, Some(json)) => config_text(&json)?,
        _ => {
            return Err(options(
                "give config: a TOML file's path, TOML text or a dict",
            ));
        }
    };
    api::load_config(&source, overrides)
}

/// A config given as JSON: a string is TOML text (its errors located in
/// it, as for a file), an object a dict (written as TOML for the parser).
fn config_text(json: &str) -> karc::api::Result<ConfigSource> {
    if let Ok(text) = serde_json::from_str::<String>(json) {
        return Ok(ConfigSource::Text {
            path: PathBuf::from("<config text>"),
            text,
        });
    }
    let table: toml::Table = serde_json::from_str(json)
        .map_err(|e| options(&format!("<config dict>: not a TOML table: {e}")))?;
    Ok(ConfigSource::Text {
        path: PathBuf::from("<config dict>"),
        text: toml::to_string(&table).map_err(|e| options(&format!("<config dict>: {e}")))?,
    })
}

fn options(message: &str) -> karc::api::Error {
    karc::api::Error::Options(message.to_owned())
}

fn overrides(
    algorithm: Option<String>,
    k: Option<usize>,
    seed: Option<u64>,
    suppression_limit: Option<f64>,
) -> Overrides {
    Overrides {
        algorithm,
        k,
        seed,
        suppression_limit,
    }
}

fn json(value: &impl serde::Serialize) -> karc::api::Result<String> {
    serde_json::to_string(value).map_err(|e| options(&format!("report as JSON: {e}")))
}

/// What a call reads: a file's path (CSV, Parquet or Arrow IPC) or a
/// pyarrow Table (a DataFrame arrives as one).
#[derive(FromPyObject)]
enum Source {
    Path(PathBuf),
    Table(PyArrowType<PyTable>),
}

impl Source {
    /// The name in messages and the table input.
    fn input(self) -> karc::api::Result<(PathBuf, TableInput)> {
        match self {
            Source::Path(path) => {
                let input = TableInput::open(&path)?;
                Ok((input_name(&path), input))
            }
            Source::Table(table) => {
                let (batches, schema) = table.0.into_inner();
                Ok((
                    PathBuf::from(ARROW_TABLE),
                    api::arrow_input(&schema, &batches)?,
                ))
            }
        }
    }
}

/// How a table given in memory is named in messages (as `karc::arrow`
/// names it).
const ARROW_TABLE: &str = "Arrow table";

/// Anonymizes a table: the release as a pyarrow Table (the identifiers
/// left out, the quasi-identifiers as text, the other columns with an
/// Arrow input's types and nulls; a CSV file's as strings) and the report
/// as JSON.
#[pyfunction]
#[pyo3(signature = (source, config_path=None, config_json=None, algorithm=None, k=None, seed=None, suppression_limit=None))]
#[allow(clippy::too_many_arguments)]
fn anonymize(
    py: Python<'_>,
    source: Source,
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
        api::check_algorithm(&config)?;
        let (a, layout) = match source {
            Source::Table(table) => {
                let (batches, schema) = table.0.into_inner();
                let (a, layout) = api::anonymize_arrow(&config, &schema, &batches)?;
                (a, Some(layout))
            }
            path => {
                let (name, input) = path.input()?;
                (api::anonymize(&config, &name, &input)?, input.arrow)
            }
        };
        let release = tables::to_py(a.release_batch(layout.as_ref())?)?;
        Ok((release, json(&a.report)?))
    })
}

/// The seal the arguments ask for.
fn seal_options(
    recipients: Vec<String>,
    recipients_files: Vec<PathBuf>,
    passphrase: Option<String>,
    work_factor: Option<u8>,
    no_encryption: bool,
) -> SealOptions {
    SealOptions {
        recipients,
        recipients_files,
        passphrase,
        passphrase_file: None,
        work_factor,
        no_encryption,
    }
}

fn diff_mode(mode: Option<&str>) -> karc::api::Result<DiffMode> {
    mode.map_or(Ok(DiffMode::default()), |m| {
        m.parse().map_err(|e| options(&format!("mode: {e}")))
    })
}

/// Anonymizes a table and packs it into `output`; the report as JSON.
#[pyfunction]
#[pyo3(signature = (source, output, config_path=None, config_json=None, algorithm=None, k=None, seed=None, suppression_limit=None, mode=None, recipients=Vec::new(), recipients_files=Vec::new(), passphrase=None, work_factor=None, no_encryption=false, sign=None, sign_passphrase=None))]
#[allow(clippy::too_many_arguments)]
fn pack(
    py: Python<'_>,
    source: Source,
    output: PathBuf,
    config_path: Option<PathBuf>,
    config_json: Option<String>,
    algorithm: Option<String>,
    k: Option<usize>,
    seed: Option<u64>,
    suppression_limit: Option<f64>,
    mode: Option<String>,
    recipients: Vec<String>,
    recipients_files: Vec<PathBuf>,
    passphrase: Option<String>,
    work_factor: Option<u8>,
    no_encryption: bool,
    sign: Option<PathBuf>,
    sign_passphrase: Option<String>,
) -> PyResult<String> {
    detached(py, || {
        let signer = sign
            .map(|key| signing::signer(key, sign_passphrase))
            .transpose()?;
        let seal = seal_options(
            recipients,
            recipients_files,
            passphrase,
            work_factor,
            no_encryption,
        );
        let options = PackOptions {
            mode: diff_mode(mode.as_deref())?,
            seal: seal.seal()?,
            group_rows: None,
        };
        let config = config(
            config_path,
            config_json,
            &overrides(algorithm, k, seed, suppression_limit),
        )?;
        let read = match &source {
            Source::Path(p) => vec![p.clone()],
            Source::Table(_) => Vec::new(),
        };
        let out = private_output(&output, &config, &seal, &read)?;
        api::check_algorithm(&config)?;
        let (name, input) = source.input()?;
        let mut packed = api::pack_input(&config, &name, &input, &options)?;
        if let Some(signer) = &signer {
            packed.bytes = api::sign_packed(&out.name(), &packed.bytes, signer)?;
        }
        out.write_bytes(&packed.bytes)?;
        json(&packed.report)
    })
}

/// The archive's output, refused when it is a file the pack reads.
fn private_output(
    output: &Path,
    config: &Config,
    seal: &SealOptions,
    inputs: &[PathBuf],
) -> karc::api::Result<Output> {
    let out = Output::new(output, Access::Private)?;
    let mut read = api::config_files(config);
    read.extend(seal.files());
    read.extend(inputs.iter().cloned());
    let read: Vec<&Path> = read.iter().map(PathBuf::as_path).collect();
    refuse_same_files(&read, &[&out])?;
    Ok(out)
}

fn key_options(identities: Vec<PathBuf>, passphrase: Option<String>) -> KeyOptions {
    KeyOptions {
        identities,
        passphrase,
        passphrase_file: None,
    }
}

/// An opened, checked `.karc` file.
#[pyclass(frozen, module = "karc._karc")]
struct Archive {
    inner: api::Archive,
    name: PathBuf,
}

#[pymethods]
impl Archive {
    /// Opens and checks `path` (its privacy claim too, unless
    /// `no_privacy_check`).
    #[new]
    #[pyo3(signature = (path, no_privacy_check=false))]
    fn new(py: Python<'_>, path: PathBuf, no_privacy_check: bool) -> PyResult<Archive> {
        let check = if no_privacy_check {
            ClaimCheck::Skip
        } else {
            ClaimCheck::Enforce
        };
        let inner = detached(py, || {
            let bytes = Input::open(&path)?.into_vec();
            api::open(&input_name(&path), bytes, check)
        })?;
        Ok(Archive { inner, name: path })
    }

    /// The file's path.
    #[getter]
    fn path(&self) -> PathBuf {
        self.name.clone()
    }

    /// The release as CSV bytes, as `karc export` writes it.
    fn release_csv(&self, py: Python<'_>) -> PyResult<Py<PyBytes>> {
        let csv = detached(py, || {
            let mut out = Vec::new();
            self.inner.export_csv(&mut out)?;
            Ok(out)
        })?;
        Ok(PyBytes::new(py, &csv).unbind())
    }

    /// The release as a pyarrow Table.
    fn release(&self, py: Python<'_>) -> PyResult<PyArrowType<PyTable>> {
        detached(py, || tables::to_py(self.inner.release_batch()?))
    }

    /// The original as a pyarrow Table (a CSV input's cells as text).
    #[pyo3(signature = (identities=Vec::new(), passphrase=None))]
    fn restore(
        &self,
        py: Python<'_>,
        identities: Vec<PathBuf>,
        passphrase: Option<String>,
    ) -> PyResult<PyArrowType<PyTable>> {
        detached(py, || {
            let key = key_options(identities, passphrase).key()?;
            tables::to_py(self.inner.restore_batch(key.as_ref())?)
        })
    }

    /// The original file's bytes, checked against their digests.
    #[pyo3(signature = (identities=Vec::new(), passphrase=None))]
    fn restore_bytes(
        &self,
        py: Python<'_>,
        identities: Vec<PathBuf>,
        passphrase: Option<String>,
    ) -> PyResult<Py<PyBytes>> {
        let original = detached(py, || {
            let key = key_options(identities, passphrase).key()?;
            self.inner.restore(key.as_ref())
        })?;
        Ok(PyBytes::new(py, &original).unbind())
    }

    /// Integrity and the claim, recomputed, and the signature checked
    /// against `signers` (public key files or lines) when given: JSON.
    #[pyo3(signature = (signers=Vec::new()))]
    fn verify(&self, py: Python<'_>, signers: Vec<String>) -> PyResult<String> {
        detached(py, || {
            let mut check = self.inner.verify()?;
            if !signers.is_empty() {
                check.signature = Some(signing::verified(&self.inner, &signers)?);
            }
            json(&check)
        })
    }

    /// Sections, sizes, claim, algorithm, metrics: JSON.
    #[pyo3(signature = (identities=Vec::new(), passphrase=None))]
    fn inspect(
        &self,
        py: Python<'_>,
        identities: Vec<PathBuf>,
        passphrase: Option<String>,
    ) -> PyResult<String> {
        detached(py, || {
            let key = key_options(identities, passphrase).key()?;
            json(&self.inner.inspect(key.as_ref())?)
        })
    }
}

/// The claim to check, from the arguments.
fn verify_options(
    qi: Vec<String>,
    k: Option<usize>,
    constraints: Vec<(Vec<String>, usize)>,
    suppressed: &str,
    sensitive: Vec<String>,
    models: Option<String>,
    missing: Option<Vec<String>>,
) -> karc::api::Result<VerifyOptions> {
    let suppressed: SuppressionPolicy = suppressed
        .parse()
        .map_err(|e| options(&format!("suppressed: {e}")))?;
    // The models as the package's wrapper gives them: JSON of privacy::Models.
    let models: karc::api::Models = match models {
        Some(json) => serde_json::from_str(&json).map_err(|e| options(&format!("models: {e}")))?,
        None => Default::default(),
    };
    Ok(VerifyOptions {
        qi,
        k,
        constraints: constraints
            .into_iter()
            .map(|(columns, k)| api::ConstraintSpec { columns, k })
            .collect(),
        suppressed,
        sensitive,
        models,
        missing: missing.unwrap_or_else(api::default_missing),
    })
}

/// A CSV release's `delimiter=`: one ASCII character (detected when absent).
fn release_delimiter(delimiter: Option<char>) -> karc::api::Result<Option<u8>> {
    match delimiter {
        Some(d) if d.is_ascii() => Ok(Some(d as u8)),
        Some(d) => Err(options(&format!(
            "delimiter: expected one ASCII character, found {d:?}"
        ))),
        None => Ok(None),
    }
}

/// Checks the privacy claim of a release (a file's path, or a pyarrow
/// Table): the report as JSON.
#[pyfunction]
#[pyo3(signature = (source, qi=Vec::new(), k=None, constraints=Vec::new(), suppressed="mask", sensitive=Vec::new(), models=None, delimiter=None, missing=None))]
#[allow(clippy::too_many_arguments)]
fn verify(
    py: Python<'_>,
    source: Source,
    qi: Vec<String>,
    k: Option<usize>,
    constraints: Vec<(Vec<String>, usize)>,
    suppressed: &str,
    sensitive: Vec<String>,
    models: Option<String>,
    delimiter: Option<char>,
    missing: Option<Vec<String>>,
) -> PyResult<String> {
    let suppressed = suppressed.to_owned();
    detached(py, || {
        let options = verify_options(qi, k, constraints, &suppressed, sensitive, models, missing)?;
        let delimiter = release_delimiter(delimiter)?;
        let table = match source {
            Source::Path(path) => {
                let bytes = Input::open(&path)?.into_vec();
                api::read_release(&input_name(&path), bytes, delimiter)?
            }
            Source::Table(table) => {
                let (batches, schema) = table.0.into_inner();
                table_from_arrow(&schema, &batches)?.0
            }
        };
        json(&api::verify_table(&table, &options)?)
    })
}

/// A release's report (docs/REPORT.md): the HTML page, or with `json`
/// its JSON document. `source` is a `.karc` file's path, a release table's
/// path, or a pyarrow Table (a release made by anyone, under the claim the
/// arguments give).
#[pyfunction]
#[pyo3(signature = (source, qi=Vec::new(), k=None, constraints=Vec::new(), suppressed="mask", sensitive=Vec::new(), models=None, delimiter=None, missing=None, internal=false, identities=Vec::new(), passphrase=None, signers=Vec::new(), time=0, json=false))]
#[allow(clippy::too_many_arguments)]
fn report(
    py: Python<'_>,
    source: Source,
    qi: Vec<String>,
    k: Option<usize>,
    constraints: Vec<(Vec<String>, usize)>,
    suppressed: &str,
    sensitive: Vec<String>,
    models: Option<String>,
    delimiter: Option<char>,
    missing: Option<Vec<String>>,
    internal: bool,
    identities: Vec<PathBuf>,
    passphrase: Option<String>,
    signers: Vec<String>,
    time: i64,
    json: bool,
) -> PyResult<String> {
    let suppressed = suppressed.to_owned();
    detached(py, || {
        let claim = verify_options(qi, k, constraints, &suppressed, sensitive, models, missing)?;
        let options = api::ReportOptions {
            internal,
            key: key_options(identities, passphrase).key()?,
            signers: (signers.iter())
                .map(|s| api::public_key(s))
                .collect::<karc::api::Result<_>>()?,
            sensitive: claim.sensitive.clone(),
            models: claim.models.clone(),
            time,
        };
        let delimiter = release_delimiter(delimiter)?;
        let report = match source {
            Source::Path(path) => {
                let name = input_name(&path);
                let bytes = Input::open(&path)?.into_vec();
                if bytes.starts_with(&api::MAGIC) {
                    api::report_archive(&name, bytes, &options)?
                } else {
                    let table = api::read_release(&name, bytes.clone(), delimiter)?;
                    api::report_table(&name, &table, Some(&bytes), &claim, &options)?
                }
            }
            Source::Table(table) => {
                let (batches, schema) = table.0.into_inner();
                let table = table_from_arrow(&schema, &batches)?.0;
                api::report_table(Path::new("table"), &table, None, &claim, &options)?
            }
        };
        match json {
            true => self::json(&report),
            false => Ok(report.to_html()),
        }
    })
}

/// Sizes and times against zip per algorithm, k and mode: the rows as
/// JSON; with `models`, each model set's information loss beside k alone
/// instead (one row per algorithm, k and set, as `karc compare --models`).
#[pyfunction]
#[pyo3(signature = (source, config_path=None, config_json=None, seed=None, suppression_limit=None, algorithms=Vec::new(), ks=Vec::new(), modes=Vec::new(), baselines=false, repeats=1, models=Vec::new(), sensitive=Vec::new()))]
#[allow(clippy::too_many_arguments)]
fn compare(
    py: Python<'_>,
    source: Source,
    config_path: Option<PathBuf>,
    config_json: Option<String>,
    seed: Option<u64>,
    suppression_limit: Option<f64>,
    algorithms: Vec<String>,
    ks: Vec<usize>,
    modes: Vec<String>,
    baselines: bool,
    repeats: usize,
    models: Vec<String>,
    sensitive: Vec<String>,
) -> PyResult<String> {
    detached(py, || {
        let config = config(
            config_path,
            config_json,
            &overrides(None, None, seed, suppression_limit),
        )?;
        let options = api::CompareOptions {
            algorithms,
            ks,
            modes,
            baselines,
            repeats,
            models,
            sensitive,
        };
        api::compare_rows(&options)?;
        let (name, input) = source.input()?;
        if !api::model_sets(&options)?.is_empty() {
            return json(&api::compare_models(
                &config,
                &name,
                &input,
                &options,
                &mut |_| {},
            )?);
        }
        json(&api::compare(
            &config,
            &name,
            &input,
            &options,
            &mut |_| {},
        )?)
    })
}

/// Writes a new age X25519 identity to `path` (readable by its owner only;
/// an existing file is replaced only with `force`) and returns its public
/// key. The secret key never crosses into Python.
#[pyfunction]
#[pyo3(signature = (path, force = false))]
fn keygen(path: PathBuf, force: bool) -> PyResult<String> {
    if !force && std::fs::symlink_metadata(&path).is_ok() {
        return Err(to_py(options(&format!(
            "{}: the file exists: an identity is never overwritten without force=True",
            path.display()
        ))));
    }
    let identity = api::keygen();
    Output::new(&path, Access::Private)
        .and_then(|o| o.write_bytes(identity.text().as_bytes()))
        .map_err(to_py)?;
    Ok(identity.recipient)
}

/// A new pseudonym key (32 random bytes, owner only) written to `path`,
/// never over an existing file without `force`.
#[pyfunction]
fn pseudonym_keygen(path: PathBuf, force: bool) -> PyResult<()> {
    api::pseudonym_keygen(&path, force, "force=True").map_err(to_py)
}

/// The config `karc init` drafts for a table (a file's path, or a pyarrow
/// Table: a DataFrame arrives as one) as TOML text with inline hierarchy
/// builders, and its ranking of the columns as JSON text (the `columns`
/// of `karc init --json`).
#[pyfunction]
#[pyo3(signature = (source, qi = Vec::new(), sensitive = None, l = None, k = 5))]
fn init(
    py: Python<'_>,
    source: Source,
    qi: Vec<String>,
    sensitive: Option<String>,
    l: Option<usize>,
    k: usize,
) -> PyResult<(String, String)> {
    let options = api::InitOptions {
        qi,
        sensitive,
        l,
        k,
        hierarchies_dir: None,
    };
    detached(py, move || {
        let (name, input) = source.input()?;
        let output = api::init_input(&name, &input, &options)?;
        Ok((output.config, json(&output.columns)?))
    })
}

#[pymodule]
fn _karc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // Every karc error has an exit code, the command line's for its kind,
    // also one raised by the package's Python half (an instance's own,
    // set by `to_py`, overrides it).
    py.get_type::<KarcError>().setattr("exit_code", 2)?;
    py.get_type::<BadInputError>().setattr("exit_code", 2)?;
    py.get_type::<CheckFailedError>().setattr("exit_code", 1)?;
    m.add("KarcError", py.get_type::<KarcError>())?;
    m.add("BadInputError", py.get_type::<BadInputError>())?;
    m.add("CheckFailedError", py.get_type::<CheckFailedError>())?;
    m.add("WrongKeyError", py.get_type::<WrongKeyError>())?;
    m.add_class::<Archive>()?;
    m.add_function(wrap_pyfunction!(anonymize, m)?)?;
    m.add_function(wrap_pyfunction!(pack, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(report, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(keygen, m)?)?;
    m.add_function(wrap_pyfunction!(pseudonym_keygen, m)?)?;
    m.add_function(wrap_pyfunction!(signing::signing_keygen, m)?)?;
    m.add_function(wrap_pyfunction!(signing::sign_file, m)?)?;
    m.add_function(wrap_pyfunction!(init, m)?)?;
    spark::register(m)?;
    Ok(())
}
