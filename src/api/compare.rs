//! `compare`: karc against zip (and zstd, xz) per algorithm, k and mode.

use std::path::Path;

use super::TableInput;
use crate::anonymize::Algorithm;
use crate::codec::DiffMode;
use crate::compare::models::{ModelRow, ModelSet};
use crate::compare::{self, CompareRow};
use crate::config::Config;
use crate::dataset::Dataset;
use crate::{Error, Result};

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
    /// Model sets beyond k (`"l=2,t=0.2"`), each measured beside k alone
    /// (empty: no model rows).
    pub models: Vec<String>,
    /// Sensitive columns the models hold on (empty: the config's).
    pub sensitive: Vec<String>,
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
        ks: ks(options),
        modes: modes(&options.modes)?,
        baselines: options.baselines,
        repeats: options.repeats.max(1),
    };
    compare::compare_bytes(
        &input.config(config),
        name,
        &input.csv.bytes()?,
        &options,
        progress,
    )
}

/// The k values (default: 5, 10, 50, 100, as in paper 004).
fn ks(options: &CompareOptions) -> Vec<usize> {
    if options.ks.is_empty() {
        vec![5, 10, 50, 100]
    } else {
        options.ks.clone()
    }
}

/// The model sets of `--models`, each checked (one line on bad text).
pub fn model_sets(options: &CompareOptions) -> Result<Vec<ModelSet>> {
    options.models.iter().map(|t| ModelSet::parse(t)).collect()
}

/// The information loss of each model set beside k alone: one row per
/// algorithm, k and set (k alone first); none without `options.models`.
pub fn compare_models(
    config: &Config,
    name: &Path,
    input: &TableInput,
    options: &CompareOptions,
    progress: &mut dyn FnMut(&ModelRow),
) -> Result<Vec<ModelRow>> {
    let sets = model_sets(options)?;
    if sets.is_empty() {
        return Ok(Vec::new());
    }
    let mut config = input.config(config).into_owned();
    if !options.sensitive.is_empty() {
        config.privacy.sensitive = options.sensitive.clone();
    }
    let table = input.csv.table(name, &config.csv_options()?)?;
    let data = Dataset::bind(&config, table)?;
    let algorithms = algorithms(&options.algorithms)?;
    compare::models::compare_models(&config, &data, &algorithms, &ks(options), &sets, progress)
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

/// The number of (algorithm, k, model set) rows, k alone counted (0
/// without `--models`).
pub fn model_rows(options: &CompareOptions) -> Result<usize> {
    let sets = model_sets(options)?.len();
    if sets == 0 {
        return Ok(0);
    }
    Ok(algorithms(&options.algorithms)?.len() * ks(options).len() * (sets + 1))
}
