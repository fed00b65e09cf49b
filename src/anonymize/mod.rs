//! The anonymizers, one module each, behind one entry point: [`run`].
//!
//! Every release is checked by the independent verifier before it is
//! returned: an algorithm bug surfaces as [`Error::ReleaseCheck`], never as a
//! release that breaks its claim.

mod basic_mondrian;
mod classfly;
mod classfly_plus;
mod datafly;
mod incognito;
mod ma_datafly;
mod mondrian;
mod partitioning;
mod topdown;

use serde::Serialize;

use crate::config::{AlgorithmConfig, ConfigError};
use crate::dataset::Dataset;
use crate::privacy::{ClaimReport, PrivacyModel, verify_labelled, verify_release, verify_weighted};
use crate::release::Release;
use crate::table::Column;
use crate::{Error, Result};

pub use basic_mondrian::basic_mondrian;
pub use classfly::classfly;
pub use classfly_plus::{ClassflyPlus, classfly_plus};
pub use datafly::datafly;
pub use incognito::{MAX_SEARCH_SPACE, incognito};
pub use ma_datafly::ma_datafly;
pub use mondrian::mondrian;
pub use topdown::topdown;

/// What stops an anonymizer on a valid input.
#[derive(Debug, thiserror::Error)]
pub enum AnonymizeError {
    #[error(
        "{algorithm}: the generalization lattices of the {qis} constrained quasi-identifiers have {nodes} nodes, more than the {limit} it searches: use fewer quasi-identifiers or shallower hierarchies, or datafly"
    )]
    /// Incognito's lattice is larger than the number of nodes it will search.
    SearchSpaceTooLarge {
        /// The anonymizer.
        algorithm: String,
        /// How many quasi-identifiers carry a constraint.
        qis: usize,
        /// The lattice size, as text (it may overflow `u64`).
        nodes: String,
        /// The most nodes it searches.
        limit: u64,
    },
}

impl crate::error::AreaError for AnonymizeError {}

/// What an anonymizer returns.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The generalized table.
    pub release: Release,
    /// Global recoding: the level of each QI, in QI order.
    pub levels: Option<Vec<usize>>,
    /// Incognito: every minimal k-anonymous level vector.
    pub minimal_levels: Option<Vec<Vec<usize>>>,
}

/// The anonymization methods karc implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// Datafly (Sweeney): full-domain generalization, one QI level at a time.
    Datafly,
    /// MA-Datafly (paper 001): Datafly with ties broken by approximation degree.
    MaDatafly,
    /// Incognito (LeFevre et al. 2005): every minimal full-domain generalization.
    Incognito,
    /// Mondrian (LeFevre et al. 2006): multidimensional median cuts.
    Mondrian,
    /// Mondrian whose categorical QIs are cut along their hierarchy.
    BasicMondrian,
    /// Top-down greedy local recoding guided by NCP (Xu et al. 2006).
    #[serde(rename = "topdown")]
    TopDown,
    /// Classfly (Liu, Yang, Yu 2005): local recoding with a working set.
    Classfly,
    /// Classfly+ (paper 000), rows leaving by the union constraint.
    ClassflyPlusNaive,
    /// Classfly+ (paper 000), complete IndepCSet filter.
    ClassflyPlusComplete,
    /// Classfly+ (paper 000), partial IndepCSet filter.
    ClassflyPlusPartial,
}

impl Algorithm {
    /// Every method, in the order help texts and comparisons list them.
    pub const ALL: &'static [Algorithm] = &[
        Algorithm::Datafly,
        Algorithm::MaDatafly,
        Algorithm::Incognito,
        Algorithm::Mondrian,
        Algorithm::BasicMondrian,
        Algorithm::TopDown,
        Algorithm::Classfly,
        Algorithm::ClassflyPlusNaive,
        Algorithm::ClassflyPlusComplete,
        Algorithm::ClassflyPlusPartial,
    ];

    /// The method's name in configs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Datafly => "datafly",
            Algorithm::MaDatafly => "ma-datafly",
            Algorithm::Incognito => "incognito",
            Algorithm::Mondrian => "mondrian",
            Algorithm::BasicMondrian => "basic-mondrian",
            Algorithm::TopDown => "topdown",
            Algorithm::Classfly => "classfly",
            Algorithm::ClassflyPlusNaive => "classfly-plus-naive",
            Algorithm::ClassflyPlusComplete => "classfly-plus-complete",
            Algorithm::ClassflyPlusPartial => "classfly-plus-partial",
        }
    }

    /// The method called `name`; an unknown name lists the known ones.
    pub fn from_name(name: &str) -> Result<Algorithm> {
        Algorithm::ALL
            .iter()
            .copied()
            .find(|a| a.name() == name)
            .ok_or_else(|| {
                ConfigError::UnknownAlgorithm {
                    name: name.to_owned(),
                    known: Algorithm::ALL
                        .iter()
                        .map(|a| a.name())
                        .collect::<Vec<_>>()
                        .join(", "),
                }
                .into()
            })
    }

    /// Datafly-style methods may suppress up to k rows when the config sets
    /// no suppression limit (`ALGORITHMS.md`).
    pub fn datafly_style(self) -> bool {
        matches!(self, Algorithm::Datafly | Algorithm::MaDatafly)
    }

    /// Classfly-style methods suppress their leftover rows by their own rule.
    pub fn suppresses_leftovers(self) -> bool {
        matches!(
            self,
            Algorithm::Classfly
                | Algorithm::ClassflyPlusNaive
                | Algorithm::ClassflyPlusComplete
                | Algorithm::ClassflyPlusPartial
        )
    }

    /// How many rows the method may suppress on `rows` rows under `model`
    /// (`ALGORITHMS.md`): the configured `suppression_limit` when set;
    /// otherwise up to max k for Datafly-style methods, every leftover row
    /// for Classfly-style ones (fewer than max K per independent constraint
    /// subset and round), none for the others.
    pub fn suppression_budget(self, model: &PrivacyModel, rows: usize) -> usize {
        if model.suppression_limit.is_none() && self.suppresses_leftovers() {
            rows
        } else {
            model.suppression_budget(rows, self.datafly_style())
        }
    }
}

/// Anonymizes `data` under `model` with the configured algorithm, and checks
/// the release (claim and suppression budget) before returning it.
pub fn run(data: &Dataset, model: &PrivacyModel, config: &AlgorithmConfig) -> Result<Outcome> {
    run_labelled(data, model, config).map(|(outcome, _)| outcome)
}

/// [`run`], and the release's QI columns as the public sees them
/// ([`Release::qi_columns`]), which its check made: the report and the
/// derived-column check use them too.
pub fn run_labelled(
    data: &Dataset,
    model: &PrivacyModel,
    config: &AlgorithmConfig,
) -> Result<(Outcome, Vec<Column>)> {
    let algorithm = Algorithm::from_name(&config.name)?;
    let beyond_l = crate::privacy::Models {
        l: None,
        ..model.models.clone()
    };
    if algorithm.suppresses_leftovers() && (beyond_l.any() || model.sensitive.len() > 1) {
        // Classfly's blocks are built and refined for k and distinct l only
        // (paper 002): t, alpha, delta, beta, entropy or recursive l were
        // never searched, and the release failed its final check.
        return Err(Error::Options(format!(
            "{}: builds its classes for k and distinct l on one sensitive column only, not for \
             the models beyond (t, alpha, delta, beta, entropy or recursive l) or several \
             sensitive columns: use datafly, incognito, mondrian, basic-mondrian or topdown",
            algorithm.name()
        )));
    }
    let budget = algorithm.suppression_budget(model, data.rows());
    model.check_reachable(data, budget)?;
    let outcome = match algorithm {
        Algorithm::Datafly => datafly(data, model, budget)?,
        Algorithm::MaDatafly => ma_datafly(data, model, budget)?,
        Algorithm::Incognito => incognito(data, model, budget)?,
        Algorithm::Mondrian => mondrian(data, model)?,
        Algorithm::BasicMondrian => basic_mondrian(data, model)?,
        Algorithm::TopDown => topdown(data, model, config.seed)?,
        Algorithm::Classfly => classfly(data, model, budget)?,
        Algorithm::ClassflyPlusNaive => classfly_plus(data, model, budget, ClassflyPlus::Naive)?,
        Algorithm::ClassflyPlusComplete => {
            classfly_plus(data, model, budget, ClassflyPlus::Complete)?
        }
        Algorithm::ClassflyPlusPartial => {
            classfly_plus(data, model, budget, ClassflyPlus::Partial)?
        }
    };
    let labels = check(algorithm, data, model, &outcome, budget)?;
    Ok((outcome, labels))
}

/// Anonymizes a frequency set with a full-domain algorithm (Datafly,
/// Incognito): `data` holds one row per distinct QI tuple, standing for
/// `weights[row]` rows of the table, so the search, its suppression budget
/// and the final check see the table's counts without its rows (a
/// distributed engine aggregates them, `karc.spark`). The levels and the
/// suppressed tuples are those [`run`] picks on the rows. Models beyond k
/// need every row's sensitive value: refused here.
pub fn run_weighted(
    data: &Dataset,
    weights: &[u32],
    model: &PrivacyModel,
    config: &AlgorithmConfig,
) -> Result<Outcome> {
    let algorithm = Algorithm::from_name(&config.name)?;
    if model.l_diversity.is_some() || model.models.any() {
        return Err(Error::Options(format!(
            "{}: a frequency set of the quasi-identifiers carries no sensitive values, so l-diversity and the models beyond k are not searched on one: use mondrian, basic-mondrian or topdown by fragments, or anonymize on one machine",
            algorithm.name()
        )));
    }
    let rows = weights.iter().map(|&w| w as usize).sum();
    let budget = algorithm.suppression_budget(model, rows);
    let outcome = match algorithm {
        Algorithm::Datafly => datafly::datafly_weighted(data, weights, model, budget)?,
        Algorithm::Incognito => incognito::incognito_weighted(data, weights, model, budget)?,
        other => {
            return Err(Error::Options(format!(
                "{}: not searched on a frequency set; the full-domain algorithms are datafly and incognito",
                other.name()
            )));
        }
    };
    let failures = weighted_failures(data, Some(weights), model, &outcome.release, budget);
    if !failures.is_empty() {
        return Err(Error::ReleaseCheck {
            algorithm: algorithm.name().to_owned(),
            detail: failures.join("; "),
        });
    }
    Ok(outcome)
}

fn check(
    algorithm: Algorithm,
    data: &Dataset,
    model: &PrivacyModel,
    outcome: &Outcome,
    budget: usize,
) -> Result<Vec<Column>> {
    let fail = |detail: String| {
        Err(Error::ReleaseCheck {
            algorithm: algorithm.name().to_owned(),
            detail,
        })
    };
    if outcome.release.rows() != data.rows() {
        return fail(format!(
            "{} rows released, {} in the input",
            outcome.release.rows(),
            data.rows()
        ));
    }
    let labels = outcome.release.qi_columns(data);
    let report = verify_labelled(data, &outcome.release, model, &labels);
    let failures = budget_failures(&report, budget);
    if !failures.is_empty() {
        return fail(failures.join("; "));
    }
    Ok(labels)
}

/// What `release` fails of `model` with `budget` rows suppressible, as the
/// verifier sees it (nothing when it is valid). The search of Datafly and
/// Incognito asks this where their own counts do not decide (l-diversity,
/// the `strict` policy).
pub(crate) fn release_failures(
    data: &Dataset,
    model: &PrivacyModel,
    release: &Release,
    budget: usize,
) -> Vec<String> {
    let report = verify_release(data, release, model);
    budget_failures(&report, budget)
}

/// [`release_failures`] of a release of `data` whose rows stand for
/// `weights[row]` rows each (a frequency set, [`run_weighted`]; k and
/// constraint sets only), or of the rows themselves when `weights` is `None`.
pub(crate) fn weighted_failures(
    data: &Dataset,
    weights: Option<&[u32]>,
    model: &PrivacyModel,
    release: &Release,
    budget: usize,
) -> Vec<String> {
    let Some(weights) = weights else {
        return release_failures(data, model, release, budget);
    };
    let columns: Vec<_> = (0..data.qis.len())
        .map(|q| release.qi_column(data, q))
        .collect();
    let refs: Vec<_> = columns.iter().collect();
    let report = verify_weighted(&refs, weights, &model.constraints, model.policy);
    budget_failures(&report, budget)
}

/// A claim report's failures, and the suppression budget's when it is passed.
fn budget_failures(report: &ClaimReport, budget: usize) -> Vec<String> {
    let mut failures = report.failures();
    if report.suppressed_rows > budget {
        failures.push(format!(
            "{} rows suppressed, the budget is {budget}",
            report.suppressed_rows
        ));
    }
    failures
}
