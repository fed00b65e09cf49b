//! Full-domain generalization (Datafly, Incognito) of a table too large for
//! one machine (`karc.spark_global`): the search runs on the table's
//! frequency set, which a cluster aggregates, and the chosen recoding is
//! applied to the rows where they are.
//!
//! Incognito's own idea (LeFevre et al. 2005): every count a full-domain
//! search needs is read off the frequency set of the QIs (their distinct
//! tuples with the rows that carry each), never off the rows. The driver
//! holds that set, one entry per distinct tuple; [`search_frequencies`]
//! runs karc's Datafly or Incognito on it ([`anonymize::run_weighted`]) and
//! returns the levels, each tuple's labels at them and which tuples are
//! suppressed. Each worker then releases its rows by those labels
//! ([`encode_recoded_part`] for a pack): the same release, row for row, as
//! the algorithm run on the whole table in one process.

use arrow_array::RecordBatch;
use arrow_schema::Schema;

use super::arrow_table;
use crate::Result;
use crate::anonymize::{self, Outcome};
use crate::archive::parts::{self, Domain};
use crate::arrow::{ArrowTableError, to_arrow};
use crate::codec::DiffMode;
use crate::config::{Config, HierarchySource, Role};
use crate::dataset::Dataset;
use crate::privacy::PrivacyModel;
use crate::release::Release;
use crate::report::Report;

/// What the search on a frequency set chose.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FrequencySearch {
    /// The algorithm, as configs name it.
    pub algorithm: String,
    /// The quasi-identifiers, in config order.
    pub qis: Vec<String>,
    /// The chosen level of each QI.
    pub levels: Vec<usize>,
    /// Incognito: every minimal level vector, the chosen one first.
    pub minimal_levels: Option<Vec<Vec<usize>>>,
    /// Rows of the table (the sum of the counts).
    pub rows: u64,
    /// Distinct QI tuples searched (the frequency set's entries).
    pub tuples: u64,
    /// Rows suppressed (in tuples whose class is too small).
    pub suppressed_rows: u64,
    /// Rows the algorithm may suppress on the whole table.
    pub suppression_budget: u64,
    /// The hierarchies the config builds from the data, built on every
    /// value of the table: (QI, ARX hierarchy text), for the workers of a pack.
    pub built_hierarchies: Vec<(String, String)>,
}

/// The frequency set bound to the config: one row per distinct tuple.
struct Frequencies {
    config: Config,
    data: Dataset,
    model: PrivacyModel,
    rows: usize,
}

/// Binds the QI columns of a frequency set (`counts[row]` rows each) to
/// the QIs of `config`. Refuses a claim beyond k (l-diversity and the
/// models beyond k need the sensitive values the set does not hold).
fn bind(
    config: &Config,
    schema: &Schema,
    batches: &[RecordBatch],
    counts: &[u32],
    rows: Option<u64>,
) -> Result<Frequencies> {
    super::check_algorithm(config)?;
    if config.privacy.models().any() || !config.privacy.sensitive.is_empty() {
        return Err(crate::Error::Options(format!(
            "{}: [privacy] claims l-diversity or another model on a sensitive column; {} by frequency sets enforces k and constraint sets only: use mondrian, basic-mondrian or topdown by fragments, or anonymize on one machine",
            config.path.display(),
            config.algorithm.name
        )));
    }
    let mut reduced = config.clone();
    reduced.columns.retain(|c| c.role == Some(Role::Quasi));
    let (table, config, _) = arrow_table(&reduced, schema, batches)?;
    let data = Dataset::bind(&config, table)?;
    if counts.len() != data.rows() {
        return Err(crate::Error::Options(format!(
            "frequency set: expected one count per tuple ({}), found {}",
            data.rows(),
            counts.len()
        )));
    }
    let rows = rows.map_or_else(|| counts.iter().map(|&c| c as usize).sum(), |r| r as usize);
    let model = PrivacyModel::from_config_rows(&config, &data, rows)?;
    Ok(Frequencies {
        config: config.into_owned(),
        data,
        model,
        rows,
    })
}

/// Runs the config's full-domain algorithm (datafly or incognito) on a
/// frequency set: `batches` hold the distinct tuples of the QI columns
/// (other columns are ignored), `counts[row]` the table rows of each.
/// Returns the choice, each tuple's QI labels at the chosen levels (as
/// strings, none suppressed: the recoding of its values) and whether each
/// tuple is suppressed.
pub fn search_frequencies(
    config: &Config,
    schema: &Schema,
    batches: &[RecordBatch],
    counts: &[u32],
) -> Result<(FrequencySearch, RecordBatch, Vec<bool>)> {
    let f = bind(config, schema, batches, counts, None)?;
    let outcome = anonymize::run_weighted(&f.data, counts, &f.model, &f.config.algorithm)?;
    let levels = outcome
        .levels
        .clone()
        .expect("a full-domain outcome has levels");
    let suppressed: Vec<bool> = (0..f.data.rows())
        .map(|r| outcome.release.is_star(r))
        .collect();
    let recoded = Release::from_levels(&f.data, &levels, &vec![false; f.data.rows()]);
    let labels = to_arrow(&recoded.columns(&f.data, &Default::default()), None)?;
    let algorithm = anonymize::Algorithm::from_name(&f.config.algorithm.name)?;
    let search = FrequencySearch {
        algorithm: algorithm.name().to_owned(),
        qis: f.data.qis.iter().map(|q| q.name.clone()).collect(),
        levels,
        minimal_levels: outcome.minimal_levels,
        rows: f.rows as u64,
        tuples: f.data.rows() as u64,
        suppressed_rows: (0..f.data.rows())
            .filter(|&r| suppressed[r])
            .map(|r| u64::from(counts[r]))
            .sum(),
        suppression_budget: algorithm.suppression_budget(&f.model, f.rows) as u64,
        built_hierarchies: built_hierarchies(&f)?,
    };
    Ok((search, labels, suppressed))
}

/// The hierarchies `config` builds from the data (`hierarchy = { ... }`),
/// as built on the frequency set (every value of the table), each as ARX
/// hierarchy text (`leaf;level 1;...;root`, leaves in the built order): the
/// workers of a pack load them as files, so that every part carries the
/// whole table's hierarchy, not one built on its own rows.
fn built_hierarchies(f: &Frequencies) -> Result<Vec<(String, String)>> {
    let mut found = Vec::new();
    for qi in &f.data.qis {
        let built = f
            .config
            .columns
            .iter()
            .find(|c| c.name == qi.name)
            .and_then(|c| f.config.hierarchy_source(c))
            .is_some_and(|s| matches!(s, HierarchySource::Build(_)));
        let Some(h) = qi.hierarchy.as_ref().filter(|_| built) else {
            continue;
        };
        let (levels, parents) = h.to_tree();
        let mut out = csv::WriterBuilder::new()
            .delimiter(b';')
            .has_headers(false)
            .from_writer(Vec::new());
        for leaf in 0..levels[0].len() {
            let mut row = vec![levels[0][leaf].as_str()];
            let mut node = leaf;
            for (l, up) in parents.iter().enumerate() {
                node = up[node] as usize;
                row.push(levels[l + 1][node].as_str());
            }
            out.write_record(&row)
                .map_err(|e| crate::Error::Options(format!("hierarchy of {}: {e}", qi.name)))?;
        }
        let bytes = out
            .into_inner()
            .map_err(|e| crate::Error::Options(format!("hierarchy of {}: {e}", qi.name)))?;
        found.push((
            qi.name.clone(),
            String::from_utf8_lossy(&bytes).into_owned(),
        ));
    }
    Ok(found)
}

/// The recoding a worker applies to its rows: the chosen levels, which of
/// its rows are suppressed (their tuple's class is too small in the whole
/// table), and the whole table's row count (the claim's k is checked
/// against it, not against the fragment's).
#[derive(Debug, Clone)]
pub struct Recoding {
    /// One level per QI, in config order.
    pub levels: Vec<usize>,
    /// One flag per row of the fragment.
    pub suppressed: Vec<bool>,
    /// Rows of the whole table.
    pub table_rows: u64,
}

/// Codes one fragment (an Arrow table) as a part sealed for `recipient`,
/// released by `recoding` (see [`super::distributed::encode_part`]); the
/// part's report is measured on the fragment against `domains`.
#[allow(clippy::too_many_arguments)]
pub fn encode_recoded_part(
    config: &Config,
    schema: &Schema,
    batches: &[RecordBatch],
    first: bool,
    domains: &[Domain],
    mode: DiffMode,
    recipient: &str,
    recoding: &Recoding,
) -> Result<(Vec<u8>, Report)> {
    super::check_algorithm(config)?;
    let (table, config, _) = arrow_table(config, schema, batches)?;
    let release = |data: &Dataset| -> Result<Outcome> {
        if recoding.suppressed.len() != data.rows() || recoding.levels.len() != data.qis.len() {
            return Err(ArrowTableError::Layout {
                detail: format!(
                    "a recoding of {} rows and {} levels for a fragment of {} rows and {} QIs",
                    recoding.suppressed.len(),
                    recoding.levels.len(),
                    data.rows(),
                    data.qis.len()
                ),
            }
            .into());
        }
        Ok(Outcome {
            release: Release::from_levels(data, &recoding.levels, &recoding.suppressed),
            levels: Some(recoding.levels.clone()),
            minimal_levels: None,
        })
    };
    parts::encode_released_part(
        &config,
        table,
        first,
        domains,
        mode,
        &parts::part_seal(recipient)?,
        recoding.table_rows as usize,
        release,
    )
}
