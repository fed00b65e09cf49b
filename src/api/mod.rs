//! The library facade: each thing karc does, from typed options to a
//! result, in one call. The command line, the Python package and any other
//! front end are thin shells over these functions and never call each
//! other; they only turn their own arguments into these options and the
//! results into their own output. They name nothing of the library but this
//! module, which re-exports the types they need (`tools/tests/house.rs`).
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
//!     seal: api::Seal::None,
//!     group_rows: None,
//! })?;
//! let archive = api::open("adult.karc".as_ref(), packed.bytes, api::ClaimCheck::Enforce)?;
//! assert_eq!(archive.restore(None)?, &*input.csv.bytes()?);
//! # Ok::<(), api::Error>(())
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::Schema;

use crate::anonymize::{self, Algorithm};
use crate::arrow::{ArrowLayout, ColumnExtras, to_arrow};
use crate::dataset::Dataset;
use crate::privacy::{ModelError, PrivacyModel};
use crate::pseudonym::Pseudonyms;
use crate::table::{Column, Table};

pub use crate::archive::TableInput;
pub use crate::archive::reader::{ClaimCheck, Inspection};

// What the front ends (the command line, the Python package) need beside
// the calls below: they reach the library through this module only, which
// `tools/src/bin/structure.rs` checks.
pub use crate::Result;
pub use crate::archive::ArchiveError;
pub use crate::archive::format::{MAGIC, hex_head};
pub use crate::archive::seal::{Seal, WORK_FACTORS};
pub use crate::arrow::{TableFormat, table_from_arrow, write_batch, write_batches};
pub use crate::codec::DiffMode;
pub use crate::compare::chart::ChartFormat;
pub use crate::compare::models::ModelRow;
pub use crate::compare::{CompareRow, size_chart};
pub use crate::config::{Config, PrivacyConfig, SuppressionPolicy};
pub use crate::error::{Error, message};
pub use crate::io::{Access, Input, Output, input_name, is_std, refuse_same_files};
pub use crate::privacy::{ClaimReport, Definitions, Distance, Models, ModelsReport};
pub use crate::report::Report;
pub use crate::table::{CsvError, QuoteChecked, QuoteState, detect_delimiter, is_delimiter};

/// The chunked (streaming) anonymizers, for a front end that feeds them
/// rows as they come.
pub mod stream {
    pub use crate::stream::{STDIN, Schema, Stream, StreamAlgorithm, header_names};
}

mod archive;
mod compare;
pub mod distributed;
pub mod global;
mod init;
mod keys;
mod pack;
mod report;
mod results;
mod signing;
mod verify;

pub use archive::{
    Archive, ArchiveCheck, open, open_and_restore, open_and_restore_batch, open_and_restore_bytes,
    open_to_export,
};
pub use compare::{CompareOptions, compare, compare_models, compare_rows, model_rows, model_sets};
pub use init::{
    ColumnChoice, InitOptions, InitOutput, Meaning, SAMPLE_ROWS, init, init_input, toml_string,
};
pub use keys::{KeyOptions, NewIdentity, SealOptions, keygen, pseudonym_keygen, recipients_of};
pub use pack::{
    PackOptions, Packed, StreamOverrides, StreamPackOptions, StreamPacked, pack, pack_input,
    pack_stream, stream_params,
};
pub use report::{ReleaseReport, ReportOptions, report_archive, report_table};
pub use results::{
    AnonymizeResult, ArchiveFigures, CompareResult, Document, ErrorResult, ExportResult,
    GeneratedResult, InitResult, InspectResult, KeygenResult, PackResult, PseudonymKeygenResult,
    PublishResult, RESTORE_CHECKS, RestoreResult, SignResult, SigningKeygenResult,
    StreamPackFigures, StreamResult, VerifyResult, Versioned, format_name, seal_name,
};
pub use signing::{
    NewSigningKey, PublicKey, Secret, SignOptions, SignatureStatus, Signer, Verified,
    check_signature, expose, public_key, read_passphrase, sign_packed, signing_keygen,
};
pub use verify::{
    ConstraintSpec, SensitiveType, VerifyOptions, default_missing, parse_sensitive, read_release,
    verify_archive_models, verify_table,
};

/// Where a config comes from.
#[derive(Debug, Clone)]
pub enum ConfigSource {
    /// A TOML file; hierarchy paths are relative to its folder.
    File(PathBuf),
    /// TOML text in memory, written from another form (the Python
    /// package's dict): `path` names it in messages and locates the
    /// hierarchy files (relative to its folder); a semantic error names
    /// its key, not a line of a text the user never saw.
    Text {
        /// Where the text would live: names it, locates its hierarchies.
        path: PathBuf,
        /// The TOML text.
        text: String,
    },
    /// A config already parsed (boxed: far larger than a path).
    Parsed(Box<Config>),
}

/// What a front end may override in the config (the command line's
/// `--algorithm`, `--k`, `--seed`, `--suppression-limit`).
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// The algorithm's name, replacing `[algorithm] name`.
    pub algorithm: Option<String>,
    /// k over all QIs; replaces any constraint set.
    pub k: Option<usize>,
    /// The seed of randomized steps, replacing `[algorithm] seed`.
    pub seed: Option<u64>,
    /// The fraction of rows that may be suppressed, replacing `[privacy] suppression_limit`.
    pub suppression_limit: Option<f64>,
}

/// Loads the config and applies the overrides.
pub fn load_config(source: &ConfigSource, overrides: &Overrides) -> Result<Config> {
    let mut config = match source {
        ConfigSource::File(path) if crate::io::is_std(path) => {
            return Err(Error::Options(
                "config `-`: a config is read from a named file (standard input is for the \
                 table): give its path, e.g. `-c config.toml`"
                    .to_owned(),
            ));
        }
        ConfigSource::File(path) => Config::load(path)?,
        ConfigSource::Text { path, text } => Config::parse_generated(path, text)?,
        ConfigSource::Parsed(config) => config.as_ref().clone(),
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
    /// The table bound to its config.
    pub data: Dataset,
    /// The release and the algorithm's own figures.
    pub outcome: anonymize::Outcome,
    /// The report on the release.
    pub report: Report,
    /// The identifier columns released as keyed pseudonyms, with their
    /// keys (a config's key file, else one drawn for this release and
    /// kept nowhere).
    pub pseudonyms: Pseudonyms,
}

impl Anonymized {
    /// The release as CSV, as `karc anonymize` writes it.
    pub fn write_csv(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.outcome
            .release
            .write_csv(&self.data, &self.pseudonyms, out)
    }

    /// The release as an Arrow record batch: the identifiers left out, the
    /// quasi-identifiers as strings (generalized labels), the other
    /// columns as an Arrow input (`arrow`) had them, types and nulls, since
    /// they are released as they are; a CSV input's columns as strings.
    pub fn release_batch(&self, arrow: Option<&ArrowLayout>) -> Result<RecordBatch> {
        let columns = self.outcome.release.columns(&self.data, &self.pseudonyms);
        let Some(input) = arrow else {
            return to_arrow(&columns, None);
        };
        let qis: Vec<&str> = self.data.qis.iter().map(|q| q.name.as_str()).collect();
        // The QIs' labels and the pseudonyms are texts whatever the input's
        // types.
        let names = |(c, _): &(usize, _)| self.data.table.columns[*c].name.as_str();
        let texts: Vec<&str> = (qis.iter().copied())
            .chain(self.pseudonyms.keys.iter().map(names))
            .collect();
        let typed = input.release(&texts);
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

/// The names of the batch algorithms (`[algorithm] name`, `--algorithm`),
/// in the order help texts list them: what a shell completes.
pub fn algorithm_names() -> Vec<&'static str> {
    Algorithm::ALL.iter().map(|a| a.name()).collect()
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
    Ok(TableInput::from_arrow(&table, layout))
}

/// An Arrow table in memory as its canonical CSV would be read, without
/// that CSV: the table, the config that reads it so
/// ([`TableInput::config`]) and the layout that types it back.
pub(crate) fn arrow_table<'a>(
    config: &'a Config,
    schema: &Schema,
    batches: &[RecordBatch],
) -> Result<(Table, std::borrow::Cow<'a, Config>, ArrowLayout)> {
    let (table, layout) = table_from_arrow(schema, batches)?;
    let input = TableInput {
        csv: crate::archive::Csv::Bytes(Vec::new()),
        arrow: Some(layout),
    };
    let config = input.config(config);
    Ok((table, config, input.arrow.expect("set above")))
}

/// Anonymizes a table input (`name` names it in messages): a CSV file's
/// bytes, read as the config says, or an Arrow table's canonical CSV.
pub fn anonymize(config: &Config, name: &Path, input: &TableInput) -> Result<Anonymized> {
    check_algorithm(config)?;
    let config = input.config(config);
    let table = input.csv.table(name, &config.csv_options()?)?;
    anonymize_table(&config, table)
}

/// Anonymizes an Arrow table in memory as [`anonymize()`] does its
/// [`arrow_input`], without the canonical CSV only an archive needs (the
/// table is the one its texts make); returns the layout too, which types
/// [`Anonymized::release_batch`].
pub fn anonymize_arrow(
    config: &Config,
    schema: &Schema,
    batches: &[RecordBatch],
) -> Result<(Anonymized, ArrowLayout)> {
    check_algorithm(config)?;
    let (table, config, layout) = arrow_table(config, schema, batches)?;
    Ok((anonymize_table(&config, table)?, layout))
}

/// Anonymizes a table already in memory.
pub fn anonymize_table(config: &Config, table: Table) -> Result<Anonymized> {
    check_algorithm(config)?;
    let data = Dataset::bind(config, table)?;
    let model = privacy_model(config, &data)?;
    let (outcome, report) = Report::anonymize_checked(config, &data, &model)?;
    let pseudonyms = Pseudonyms::of_config(config, &data.table.names(), false)?;
    Ok(Anonymized {
        data,
        outcome,
        report,
        pseudonyms,
    })
}

/// The config's privacy model for `data`, its error naming where the
/// problem comes from: the table for a k it cannot reach, the config's
/// `[privacy]` section for the rest.
fn privacy_model(config: &Config, data: &Dataset) -> Result<PrivacyModel> {
    PrivacyModel::from_config(config, data).map_err(|e| {
        // The section's header, when the text has one (a flag may give
        // the values instead).
        let section = config.at(&[crate::config::TomlKey::Name("privacy")]);
        let place = match e.area() {
            Some(ModelError::KTooLarge { .. }) => data.table.source.display().to_string(),
            // Their messages name the section (`[privacy]: ...`): shown
            // without a location on every other path that reports them.
            Some(ModelError::IncompleteL | ModelError::Models(_)) => {
                format!("{}{}", config.path.display(), section)
            }
            _ => format!("{}{}: [privacy]", config.path.display(), section),
        };
        Error::Located {
            place,
            source: Box::new(e),
        }
    })
}
