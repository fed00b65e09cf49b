//! The library facade: each thing karc does, from typed options to a
//! result, in one call. The command line, the Python package and any other
//! front end are thin shells over these functions and never call each
//! other; they only turn their own arguments into these options and the
//! results into their own output.
//!
//! ```no_run
//! use karc::api::{self, ConfigSource, Overrides, TableInput};
//! let config = api::load_config(
//!     &ConfigSource::File("fixtures/adult/adult.toml".into()),
//!     &Overrides { k: Some(10), ..Overrides::default() },
//! )?;
//! let name = std::path::Path::new("fixtures/adult/adult.csv");
//! let input = TableInput::open(name)?;
//! let a = api::anonymize(&config, name, &input)?;
//! let packed = api::pack(&config, a, &input, &api::PackOptions {
//!     mode: Default::default(),
//!     seal: karc::archive::seal::Seal::None,
//! })?;
//! let archive = api::open("adult.karc".as_ref(), packed.bytes, api::ClaimCheck::Enforce)?;
//! assert_eq!(archive.restore(None)?, input.csv);
//! # Ok::<(), karc::Error>(())
//! ```

use std::path::{Path, PathBuf};

use age::secrecy::SecretString;
use serde::Serialize;

use crate::anonymize::{self, Algorithm};
use crate::archive::layout::Layout;
use crate::archive::seal::{self, Key, Seal};
use crate::archive::stream_pack::{self, StreamPackReport};
use crate::archive::writer::{self, Anonymization};
use crate::arrow::{
    ArrowLayout, ColumnExtras, TableFormat, read_table_bytes, table_from_arrow, to_arrow,
};
use crate::codec::DiffMode;
use crate::compare::{self, CompareRow};
use crate::config::{Config, SuppressionPolicy};
use crate::dataset::Dataset;
use crate::io::Output;
use crate::privacy::{ClaimReport, Constraint, ModelError, PrivacyModel, check_k, verify_columns};
use crate::report::Report;
use crate::stream::{StreamAlgorithm, StreamParams};
use crate::table::{Column, CsvOptions, Table};
use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use std::sync::Arc;

pub use crate::arrow::TableInput;
use crate::{Error, Result};

pub use crate::archive::reader::{ClaimCheck, Inspection};

/// Where a config comes from.
#[derive(Debug, Clone)]
pub enum ConfigSource {
    /// A TOML file; hierarchy paths are relative to its folder.
    File(PathBuf),
    /// TOML text in memory; `path` names it in messages and locates the
    /// hierarchy files (relative to its folder).
    Text { path: PathBuf, text: String },
    /// A config already parsed.
    Parsed(Config),
}

/// What a front end may override in the config (the command line's
/// `--algorithm`, `--k`, `--seed`, `--suppression-limit`).
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub algorithm: Option<String>,
    /// k over all QIs; replaces any constraint set.
    pub k: Option<usize>,
    pub seed: Option<u64>,
    pub suppression_limit: Option<f64>,
}

/// Loads the config and applies the overrides.
pub fn load_config(source: &ConfigSource, overrides: &Overrides) -> Result<Config> {
    let mut config = match source {
        ConfigSource::File(path) => Config::load(path)?,
        ConfigSource::Text { path, text } => Config::parse(path, text)?,
        ConfigSource::Parsed(config) => config.clone(),
    };
    if let Some(a) = &overrides.algorithm {
        config.algorithm.name = a.clone();
    }
    if let Some(seed) = overrides.seed {
        config.algorithm.seed = seed;
    }
    if let Some(k) = overrides.k {
        if k == 0 {
            return Err(Error::Options(format!(
                "k: expected a whole number from 1 up, found {k}"
            )));
        }
        config.privacy.k = Some(k);
        config.privacy.constraints.clear();
    }
    if let Some(limit) = overrides.suppression_limit {
        if !(0.0..=1.0).contains(&limit) {
            return Err(Error::Options(format!(
                "suppression_limit: expected a number in 0..=1, found {limit}"
            )));
        }
        config.privacy.suppression_limit = Some(limit);
    }
    Ok(config)
}

/// The files a config reads: itself and its hierarchies (a front end
/// refuses to overwrite them).
pub fn config_files(config: &Config) -> Vec<PathBuf> {
    std::iter::once(config.path.clone())
        .chain(
            config
                .columns
                .iter()
                .filter_map(|c| config.hierarchy_path(c)),
        )
        .collect()
}

/// Everything an anonymization produced.
pub struct Anonymized {
    pub data: Dataset,
    pub outcome: anonymize::Outcome,
    pub report: Report,
}

impl Anonymized {
    /// The release as CSV, as `karc anonymize` writes it.
    pub fn write_csv(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.outcome.release.write_csv(&self.data, out)
    }

    /// The release as an Arrow record batch: the identifiers left out, the
    /// quasi-identifiers as strings (generalized labels), the other
    /// columns as an Arrow input (`arrow`) had them, types and nulls, since
    /// they are released as they are; a CSV input's columns as strings.
    pub fn release_batch(&self, arrow: Option<&ArrowLayout>) -> Result<RecordBatch> {
        let columns = self.outcome.release.columns(&self.data);
        let Some(input) = arrow else {
            return to_arrow(&columns, None);
        };
        let qis: Vec<&str> = self.data.qis.iter().map(|q| q.name.as_str()).collect();
        let typed = input.release(&qis);
        let index = |c: &Column| typed.schema.index_of(&c.name).ok();
        let fields: Vec<_> = columns
            .iter()
            .filter_map(|c| index(c).map(|i| typed.schema.field(i).clone()))
            .collect();
        let extras = input.extras.as_ref().map(|extras| {
            columns
                .iter()
                .filter_map(index)
                .map(
                    |i| match qis.contains(&typed.schema.field(i).name().as_str()) {
                        true => ColumnExtras::default(),
                        false => extras[i].clone(),
                    },
                )
                .collect()
        });
        let layout = ArrowLayout {
            schema: Arc::new(Schema::new_with_metadata(
                fields,
                typed.schema.metadata().clone(),
            )),
            extras,
        };
        to_arrow(&columns, Some(&layout))
    }
}

/// Refuses an unknown algorithm (before any table is read).
pub fn check_algorithm(config: &Config) -> Result<()> {
    Algorithm::from_name(&config.algorithm.name).map(drop)
}

/// An Arrow table in memory (a pyarrow or pandas table) as a table input:
/// the canonical CSV of its texts, which the archive seals, and the layout
/// that rebuilds it (as [`TableInput::open`] reads a Parquet or IPC file).
pub fn arrow_input(schema: &Schema, batches: &[RecordBatch]) -> Result<TableInput> {
    let (table, layout) = table_from_arrow(schema, batches)?;
    let mut csv = Vec::new();
    Layout::canonical(table.columns.len()).render(&table, &mut csv);
    Ok(TableInput {
        csv,
        arrow: Some(layout),
    })
}

/// Anonymizes a table input (`name` names it in messages): a CSV file's
/// bytes, read as the config says, or an Arrow table's canonical CSV.
pub fn anonymize(config: &Config, name: &Path, input: &TableInput) -> Result<Anonymized> {
    check_algorithm(config)?;
    let config = input.config(config);
    let table = Table::from_bytes(name, &input.csv, &config.csv_options()?)?;
    anonymize_table(&config, table)
}

/// Anonymizes an Arrow table in memory as [`anonymize`] does its
/// [`arrow_input`], without the canonical CSV only an archive needs (the
/// table is the one its texts make); returns the layout too, which types
/// [`Anonymized::release_batch`].
pub fn anonymize_arrow(
    config: &Config,
    schema: &Schema,
    batches: &[RecordBatch],
) -> Result<(Anonymized, ArrowLayout)> {
    check_algorithm(config)?;
    let (table, layout) = table_from_arrow(schema, batches)?;
    // The config reads the table as it reads an Arrow input's CSV.
    let input = TableInput {
        csv: Vec::new(),
        arrow: Some(layout),
    };
    let a = anonymize_table(&input.config(config), table)?;
    Ok((a, input.arrow.expect("set above")))
}

/// Anonymizes a table already in memory.
pub fn anonymize_table(config: &Config, table: Table) -> Result<Anonymized> {
    check_algorithm(config)?;
    let data = Dataset::bind(config, table)?;
    let model = privacy_model(config, &data)?;
    let (outcome, report) = Report::anonymize(&data, &model, &config.algorithm)?;
    Ok(Anonymized {
        data,
        outcome,
        report,
    })
}

/// The config's privacy model for `data`, its error naming where the
/// problem comes from: the table for a k it cannot reach, the config's
/// `[privacy]` section for the rest.
fn privacy_model(config: &Config, data: &Dataset) -> Result<PrivacyModel> {
    PrivacyModel::from_config(config, data).map_err(|e| {
        let place = match &e {
            Error::Model(ModelError::KTooLarge { .. }) => data.table.source.display().to_string(),
            _ => format!("{}: [privacy]", config.path.display()),
        };
        Error::Located {
            place,
            source: Box::new(e),
        }
    })
}

/// How a new archive is sealed (exactly one way).
#[derive(Debug, Clone, Default)]
pub struct SealOptions {
    /// X25519 recipients (`age1...`).
    pub recipients: Vec<String>,
    /// Files of recipients, one `age1...` a line.
    pub recipients_files: Vec<PathBuf>,
    /// A passphrase given as text.
    pub passphrase: Option<String>,
    /// A passphrase on a file's first line.
    pub passphrase_file: Option<PathBuf>,
    /// scrypt's log2(N) for a passphrase (default: about one second).
    pub work_factor: Option<u8>,
    /// The private part in clear.
    pub no_encryption: bool,
}

impl SealOptions {
    /// The one way of sealing asked for.
    pub fn seal(&self) -> Result<Seal> {
        let recipients = !self.recipients.is_empty() || !self.recipients_files.is_empty();
        let ways = usize::from(recipients)
            + usize::from(self.passphrase.is_some())
            + usize::from(self.passphrase_file.is_some())
            + usize::from(self.no_encryption);
        if ways != 1 {
            return Err(Error::Options(
                "say how to seal the private part: --recipient / --recipients-file, --passphrase-file, \
                 or --no-encryption (exactly one of these)"
                    .to_owned(),
            ));
        }
        if recipients {
            let mut all = Vec::new();
            for (i, r) in self.recipients.iter().enumerate() {
                all.push(seal::parse_recipient(r, &format!("--recipient {}", i + 1))?);
            }
            for f in &self.recipients_files {
                all.extend(seal::read_recipients_file(f)?);
            }
            return Ok(Seal::Recipients(all));
        }
        let passphrase = match (&self.passphrase, &self.passphrase_file) {
            (Some(p), _) => Some(SecretString::from(p.clone())),
            (None, Some(f)) => Some(seal::read_passphrase_file(f)?),
            (None, None) => None,
        };
        Ok(match passphrase {
            Some(passphrase) => Seal::Passphrase {
                passphrase,
                work_factor: self.work_factor,
            },
            None => Seal::None,
        })
    }

    /// The key files these options read.
    pub fn files(&self) -> Vec<PathBuf> {
        self.recipients_files
            .iter()
            .chain(&self.passphrase_file)
            .cloned()
            .collect()
    }
}

/// How a sealed private part is opened (nothing: it is not sealed, or
/// only the public part is read).
#[derive(Debug, Clone, Default)]
pub struct KeyOptions {
    /// age identity files (`AGE-SECRET-KEY-1...` lines).
    pub identities: Vec<PathBuf>,
    pub passphrase: Option<String>,
    pub passphrase_file: Option<PathBuf>,
}

impl KeyOptions {
    /// The key offered, if any.
    pub fn key(&self) -> Result<Option<Key>> {
        if let Some(p) = &self.passphrase {
            return Ok(Some(Key::Passphrase(SecretString::from(p.clone()))));
        }
        if let Some(f) = &self.passphrase_file {
            return Ok(Some(Key::Passphrase(seal::read_passphrase_file(f)?)));
        }
        let mut identities = Vec::new();
        for f in &self.identities {
            if let Key::Identities(ids) = seal::read_identity_file(f)? {
                identities.extend(ids);
            }
        }
        Ok((!identities.is_empty()).then_some(Key::Identities(identities)))
    }

    /// The key files these options read.
    pub fn files(&self) -> Vec<PathBuf> {
        self.identities
            .iter()
            .chain(&self.passphrase_file)
            .cloned()
            .collect()
    }
}

/// How an anonymization is packed.
pub struct PackOptions {
    /// The private part's difference coding (`spec/CODING.md`).
    pub mode: DiffMode,
    pub seal: Seal,
}

/// A packed archive.
pub struct Packed {
    /// The whole `.karc` file.
    pub bytes: Vec<u8>,
    pub report: Report,
}

/// Packs an anonymization of `input` (whose table it anonymized) into a
/// `.karc` file: the release and the sealed original (an Arrow input's
/// canonical CSV and the layout that rebuilds it).
pub fn pack(
    config: &Config,
    mut a: Anonymized,
    input: &TableInput,
    options: &PackOptions,
) -> Result<Packed> {
    let config = &*input.config(config);
    let model = PrivacyModel::from_config(config, &a.data)?;
    // The released columns replace the outcome's cells, which would
    // otherwise stay beside the pack's own memory (at ten million rows
    // and ten QIs, 1.2 GB of its peak).
    let released = writer::released_columns(&a.data, &a.outcome);
    a.outcome.release.cells = Vec::new();
    let bytes = writer::pack_with_arrow(
        &Anonymization {
            config,
            data: &a.data,
            model: &model,
            released: &released,
            report: &a.report,
        },
        &input.csv,
        input.arrow.as_ref(),
        &writer::PackOptions {
            mode: options.mode,
            seal: &options.seal,
        },
    )?;
    Ok(Packed {
        bytes,
        report: a.report,
    })
}

/// Anonymizes a table input and packs it: [`anonymize`] then [`pack`].
pub fn pack_input(
    config: &Config,
    name: &Path,
    input: &TableInput,
    options: &PackOptions,
) -> Result<Packed> {
    let a = anonymize(config, name, input)?;
    pack(config, a, input, options)
}

/// How a stream is packed, beside [`PackOptions`].
#[derive(Debug, Clone, Default)]
pub struct StreamPackOptions {
    /// `[algorithm]` name of the config must be fads or castle.
    pub params: StreamOverrides,
    /// The person-id column (rows sharing a pid count once toward k).
    pub pid: Option<String>,
    /// Rows per row group (default [`stream_pack::DEFAULT_GROUP_ROWS`]).
    pub group_rows: Option<usize>,
}

/// What a streamed pack did.
pub struct StreamPacked {
    pub algorithm: StreamAlgorithm,
    pub report: StreamPackReport,
}

/// Anonymizes the CSV at `input` (`-`: standard input) as a stream (FADS
/// or CASTLE) and packs it into `output` row group by row group, in memory
/// bounded by the group size and the delay, not by the input.
pub fn pack_stream(
    config: &Config,
    input: &Path,
    output: &Output,
    options: &PackOptions,
    stream: &StreamPackOptions,
) -> Result<StreamPacked> {
    if TableFormat::from_path(input) != TableFormat::Csv {
        return Err(Error::Options(format!(
            "{}: --stream reads CSV files: pack a Parquet or Arrow IPC table without --stream",
            input.display()
        )));
    }
    let algorithm = StreamAlgorithm::from_name(&config.algorithm.name)?;
    let params = stream_params(config, &stream.params)?;
    let report = stream_pack::pack_stream(
        config,
        input,
        output,
        &stream_pack::StreamPackOptions {
            mode: options.mode,
            seal: &options.seal,
            algorithm,
            params,
            pid: stream.pid.as_deref(),
            group_rows: stream.group_rows.unwrap_or(stream_pack::DEFAULT_GROUP_ROWS),
        },
    )?;
    Ok(StreamPacked { algorithm, report })
}

/// The streaming anonymizers' parameters a front end may give; the rest
/// come from the config's `[algorithm]` keys, then the defaults.
#[derive(Debug, Clone, Default)]
pub struct StreamOverrides {
    pub k: Option<usize>,
    pub seed: Option<u64>,
    pub delay: Option<usize>,
    pub tau: Option<f64>,
    pub c0: Option<f64>,
    pub beta: Option<usize>,
    pub mu: Option<usize>,
}

/// Reads a numeric `[algorithm]` parameter of the config.
fn param(config: &Config, name: &str) -> Result<Option<f64>> {
    match config.algorithm.params.get(name) {
        None => Ok(None),
        Some(v) => v
            .as_float()
            .or_else(|| v.as_integer().map(|i| i as f64))
            .map(Some)
            .ok_or_else(|| {
                Error::Options(format!(
                    "{}: [algorithm] {name}: expected a number, found {v:?}",
                    config.path.display()
                ))
            }),
    }
}

/// Reads a count (a whole number from 1 up) of the config's `[algorithm]`.
fn count(config: &Config, name: &str) -> Result<Option<usize>> {
    match config.algorithm.params.get(name) {
        None => Ok(None),
        Some(v) => v
            .as_integer()
            .and_then(|i| usize::try_from(i).ok())
            .filter(|&i| i >= 1)
            .map(Some)
            .ok_or_else(|| {
                let found = v
                    .as_integer()
                    .map_or_else(|| format!("{v:?}"), |i| i.to_string());
                Error::Options(format!(
                    "{}: [algorithm] {name}: expected a whole number from 1 up, found {found}",
                    config.path.display()
                ))
            }),
    }
}

/// The stream parameters from the overrides, then the config's
/// `[algorithm]` keys, then the defaults.
pub fn stream_params(config: &Config, o: &StreamOverrides) -> Result<StreamParams> {
    let k =
        o.k.or(config.privacy.k)
            .ok_or_else(|| Error::Options("no k: give --k or [privacy] k".to_owned()))?;
    let delta = match o.delay {
        Some(d) => d,
        None => count(config, "delay")?.ok_or_else(|| {
            Error::Options("no delay: give --delay or [algorithm] delay".to_owned())
        })?,
    };
    let mut params = StreamParams::new(k, delta);
    params.tau = o.tau.or(param(config, "tau")?).unwrap_or(params.tau);
    params.c0 = o.c0.or(param(config, "c0")?).unwrap_or(params.c0);
    params.beta = o.beta.or(count(config, "beta")?).unwrap_or(params.beta);
    params.mu = o.mu.or(count(config, "mu")?).unwrap_or(params.mu);
    params.seed = o.seed.unwrap_or(config.algorithm.seed);
    params.validate()?;
    Ok(params)
}

/// A privacy claim to check on a release made by anyone: k over `qi`,
/// constraints on their own columns, distinct l-diversity.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    pub qi: Vec<String>,
    /// k over all the `qi` columns.
    pub k: Option<usize>,
    /// Constraints, each checked on its own columns.
    pub constraints: Vec<ConstraintSpec>,
    /// How all-`*` rows count.
    pub suppressed: SuppressionPolicy,
    /// A sensitive column and the l of its distinct l-diversity.
    pub sensitive: Option<(String, usize)>,
}

/// One k over some columns.
#[derive(Debug, Clone, PartialEq)]
pub struct ConstraintSpec {
    pub columns: Vec<String>,
    pub k: usize,
}

impl std::str::FromStr for ConstraintSpec {
    type Err = Error;

    /// Parses "a,b:5".
    fn from_str(text: &str) -> Result<ConstraintSpec> {
        let bad = |why: String| Error::Options(format!("--constraint {text:?}: {why}"));
        let (cols, k) = text
            .rsplit_once(':')
            .ok_or_else(|| bad("expected \"col,col:K\"".to_owned()))?;
        let k = k
            .trim()
            .parse()
            .map_err(|_| bad(format!("expected a whole number after ':', found {k:?}")))?;
        let columns: Vec<String> = cols.split(',').map(|c| c.trim().to_owned()).collect();
        if columns.iter().any(String::is_empty) {
            return Err(bad("empty column name".to_owned()));
        }
        Ok(ConstraintSpec { columns, k })
    }
}

/// Reads a release for [`verify_table`]: a Parquet or Arrow IPC table
/// (by `name`'s extension or the bytes' magic), else a CSV file with a
/// header line, the delimiter given or detected, cells as they are.
pub fn read_release(name: &Path, bytes: Vec<u8>, delimiter: Option<u8>) -> Result<Table> {
    let format = TableFormat::of_input(name, &bytes);
    if format != TableFormat::Csv {
        return read_table_bytes(name, bytes, format).map(|(table, _)| table);
    }
    Table::from_bytes(
        name,
        &bytes,
        &CsvOptions {
            delimiter,
            header: true,
            trim: false,
        },
    )
}

/// Checks a release's privacy claim, whoever made it.
pub fn verify_table(table: &Table, o: &VerifyOptions) -> Result<ClaimReport> {
    let mut names: Vec<String> = o.qi.clone();
    let mut specs: Vec<(Vec<String>, usize)> = Vec::new();
    for c in &o.constraints {
        for col in &c.columns {
            if !names.contains(col) {
                names.push(col.clone());
            }
        }
        specs.push((c.columns.clone(), c.k));
    }
    if let Some(k) = o.k {
        if o.qi.is_empty() {
            return Err(Error::Options(
                "--k needs --qi: name the quasi-identifier columns".to_owned(),
            ));
        }
        specs.insert(0, (o.qi.clone(), k));
    }
    if specs.is_empty() {
        return Err(Error::Options(
            "no claim to check: give --qi with --k, or --constraint \"col,col:K\"".to_owned(),
        ));
    }
    let find = |name: &str| -> Result<&Column> {
        table.column(name).ok_or_else(|| {
            let available: Vec<&str> = table.columns.iter().map(|c| c.name.as_str()).collect();
            Error::Options(format!(
                "{}: no column {name:?} (columns: {})",
                table.source.display(),
                available.join(", ")
            ))
        })
    };
    let qi: Vec<&Column> = names.iter().map(|n| find(n)).collect::<Result<_>>()?;
    let mut constraints = Vec::new();
    for (i, (cols, k)) in specs.iter().enumerate() {
        check_k(*k, usize::MAX, (specs.len() > 1).then_some(i + 1))?;
        let qis = cols
            .iter()
            .map(|c| names.iter().position(|n| n == c).expect("collected above"))
            .collect();
        constraints.push(Constraint { qis, k: *k });
    }
    let sensitive = match &o.sensitive {
        Some((_, 0)) => return Err(Error::Options("--l must be at least 1".to_owned())),
        Some((s, l)) => Some((find(s)?, *l)),
        None => None,
    };
    Ok(verify_columns(&qi, &constraints, o.suppressed, sensitive))
}

/// An archive's own check: integrity (every section's CRC, structure),
/// then its claim recomputed from the released QI columns.
#[derive(Debug, Clone, Serialize)]
pub struct ArchiveCheck {
    /// The format version, "major.minor".
    pub format: String,
    pub suppression_budget: u64,
    pub within_budget: bool,
    /// The claim holds and the suppressed rows are within the budget.
    pub holds: bool,
    pub claim: ClaimReport,
}

/// An opened, checked archive.
pub struct Archive(crate::archive::reader::Archive);

/// Opens and checks an archive's bytes (`name` names it in messages).
pub fn open(name: &Path, bytes: Vec<u8>, check: ClaimCheck) -> Result<Archive> {
    crate::archive::reader::Archive::from_bytes(name, bytes, check).map(Archive)
}

/// Opens an archive's bytes and restores its original into `sink` a row
/// group at a time, unsealing while the file is checked; returns the
/// length. On an error, what `sink` received must be thrown away.
pub fn open_and_restore(
    name: &Path,
    bytes: Vec<u8>,
    check: ClaimCheck,
    key: Option<&Key>,
    sink: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<u64> {
    crate::archive::reader::Archive::from_bytes_restoring(name, bytes, check, key, sink)
        .map(|(_, len)| len)
}

/// [`open_and_restore`] as an Arrow record batch: an Arrow input's table
/// exactly (schema, types, nulls, values), a CSV input's columns as
/// strings; checked whole first, as the bytes are.
pub fn open_and_restore_batch(
    name: &Path,
    bytes: Vec<u8>,
    check: ClaimCheck,
    key: Option<&Key>,
) -> Result<RecordBatch> {
    crate::archive::reader::Archive::from_bytes_and_restore_batch(name, bytes, check, key)
        .map(|(_, batch)| batch)
}

/// [`open_and_restore`] into memory: the original's bytes, checked.
pub fn open_and_restore_bytes(
    name: &Path,
    bytes: Vec<u8>,
    check: ClaimCheck,
    key: Option<&Key>,
) -> Result<Vec<u8>> {
    crate::archive::reader::Archive::from_bytes_and_restore(name, bytes, check, key)
        .map(|(_, original)| original)
}

impl Archive {
    /// The library's reader, for what the facade does not cover.
    pub fn reader(&self) -> &crate::archive::reader::Archive {
        &self.0
    }

    /// The release's columns (identifiers left out), in file order.
    pub fn release(&self) -> Result<Vec<Column>> {
        self.0.release_columns()
    }

    /// The release as CSV, byte-equal to `karc anonymize`'s.
    pub fn export_csv(&self, out: &mut dyn std::io::Write) -> Result<()> {
        self.0.export_csv(out)
    }

    /// The original file's bytes, checked against their digests.
    pub fn restore(&self, key: Option<&Key>) -> Result<Vec<u8>> {
        self.0.restore(key)
    }

    /// The release as an Arrow record batch: an Arrow input's columns keep
    /// their types where the released texts still parse (the QIs are
    /// strings); a CSV input's are strings.
    pub fn release_batch(&self) -> Result<RecordBatch> {
        self.0.release_batch()
    }

    /// The original as an Arrow record batch: an Arrow input's table
    /// exactly (schema, types, nulls, values), a CSV input's columns as
    /// strings; checked as [`Archive::restore`] checks the bytes.
    pub fn restore_batch(&self, key: Option<&Key>) -> Result<RecordBatch> {
        self.0.restore_batch(key)
    }

    /// The schema of an Arrow input (`None`: the input was a CSV file).
    pub fn arrow_schema(&self) -> Option<&SchemaRef> {
        self.0.arrow_schema()
    }

    /// The file without its private part, checked to open as it is
    /// (`name` names the copy in messages).
    pub fn published(&self, name: &Path) -> Result<Vec<u8>> {
        let bytes = self.0.published();
        crate::archive::reader::Archive::from_bytes(name, bytes.clone(), ClaimCheck::Enforce)?;
        Ok(bytes)
    }

    /// Sections, sizes per part and column, claim, algorithm, metrics; a
    /// key adds the private part's sizes per column.
    pub fn inspect(&self, key: Option<&Key>) -> Result<Inspection> {
        self.0.inspect(key)
    }

    /// Integrity (checked on open) and the claim, recomputed.
    pub fn verify(&self) -> Result<ArchiveCheck> {
        let claim = self.0.check_claim()?;
        let budget = self.0.meta.claim.suppression_budget;
        let within_budget = claim.suppressed_rows as u64 <= budget;
        let (major, minor) = self.0.version();
        Ok(ArchiveCheck {
            format: format!("{major}.{minor}"),
            suppression_budget: budget,
            within_budget,
            holds: claim.holds() && within_budget,
            claim,
        })
    }
}

/// What `compare` measures; empty lists take the defaults.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// Algorithm names, or "all" (default: paper 004's five).
    pub algorithms: Vec<String>,
    /// k values (default: 5, 10, 50, 100, as in paper 004).
    pub ks: Vec<usize>,
    /// Difference mode names (default: all).
    pub modes: Vec<String>,
    /// Also measure zstd and xz.
    pub baselines: bool,
    /// Timed runs of each step; the fastest counts.
    pub repeats: usize,
}

/// Paper 004's five algorithms, the default set of `compare`.
const PAPER_ALGORITHMS: [&str; 5] = [
    "incognito",
    "datafly",
    "topdown",
    "mondrian",
    "basic-mondrian",
];

fn algorithms(names: &[String]) -> Result<Vec<Algorithm>> {
    if names.is_empty() {
        return PAPER_ALGORITHMS
            .iter()
            .map(|n| Algorithm::from_name(n))
            .collect();
    }
    if names.iter().any(|n| n == "all") {
        return Ok(Algorithm::ALL.to_vec());
    }
    names.iter().map(|n| Algorithm::from_name(n)).collect()
}

fn modes(names: &[String]) -> Result<Vec<DiffMode>> {
    if names.is_empty() {
        return Ok(DiffMode::ALL.to_vec());
    }
    names
        .iter()
        .map(|n| {
            n.parse::<DiffMode>().map_err(|_| {
                let known: Vec<&str> = DiffMode::ALL.iter().map(|m| m.name()).collect();
                Error::Options(format!(
                    "--mode: unknown mode {n:?}: expected one of {}",
                    known.join(", ")
                ))
            })
        })
        .collect()
}

/// Sizes and times of karc against zip (and zstd, xz) on a table input
/// (an Arrow table as its canonical CSV, what karc seals), one row per
/// algorithm, k and mode; `progress` sees each row.
pub fn compare(
    config: &Config,
    name: &Path,
    input: &TableInput,
    options: &CompareOptions,
    progress: &mut dyn FnMut(&CompareRow),
) -> Result<Vec<CompareRow>> {
    let options = compare::CompareOptions {
        algorithms: algorithms(&options.algorithms)?,
        ks: if options.ks.is_empty() {
            vec![5, 10, 50, 100]
        } else {
            options.ks.clone()
        },
        modes: modes(&options.modes)?,
        baselines: options.baselines,
        repeats: options.repeats.max(1),
    };
    compare::compare_bytes(&input.config(config), name, &input.csv, &options, progress)
}

/// The number of (algorithm, k, mode) rows `compare` measures.
pub fn compare_rows(options: &CompareOptions) -> Result<usize> {
    let ks = if options.ks.is_empty() {
        4
    } else {
        options.ks.len()
    };
    Ok(algorithms(&options.algorithms)?.len() * ks * modes(&options.modes)?.len())
}
