//! The privacy model (k-anonymity under a constraint set, a suppression
//! policy and budget, optional distinct l-diversity) and its verifier; the
//! models beyond k (one module each) measured and checked by [`models`].
//!
//! The verifier works on released columns as the public sees them (labels),
//! so it checks a release made here, a `.karc` file and a third party's CSV
//! the same way.

// Long: the privacy model and its verifier share the class statistics and error type; the models
// beyond k live one per module already

use serde::Serialize;

pub(crate) mod alpha_k;
pub mod attribute_risk;
pub(crate) mod beta_likeness;
pub(crate) mod constraint;
pub use constraint::classes_hold;
pub mod definitions;
pub(crate) mod delta_disclosure;
pub(crate) mod distribution;
pub(crate) mod k;
pub(crate) mod l_diversity;
pub mod models;
pub mod risk;
pub mod sensitive;
pub(crate) mod t_closeness;

pub use definitions::Definitions;
pub use models::{Models, ModelsReport};
pub use sensitive::{Declared, Distance, MISSING_VALUE, Sensitive};

use crate::Result;
use crate::cell::SUPPRESSED;
use crate::classes::Partition;
use crate::config::{Config, Role, SuppressionPolicy};
use crate::dataset::Dataset;
use crate::release::Release;
use crate::table::Column;

/// How many violating classes a report lists.
pub const VIOLATING_EXAMPLES: usize = 5;

/// Why a privacy model cannot be set up on a table.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// k = 0: every table is trivially "0-anonymous", so the claim is meaningless.
    #[error("k must be at least 1, found 0{}", at(.constraint))]
    KZero {
        /// The 1-based constraint concerned, if any.
        constraint: Option<usize>,
    },
    /// k exceeds the rows: no release of the table can satisfy it.
    #[error("k = {k}{} is larger than the table ({rows} rows): no release can satisfy it", at(.constraint))]
    KTooLarge {
        /// The k asked for.
        k: usize,
        /// Rows of the table.
        rows: usize,
        /// The 1-based constraint concerned, if any.
        constraint: Option<usize>,
    },
    /// l exceeds what the table's sensitive values (or the suppression budget) allow.
    #[error(
        "l = {l} on {sensitive:?} cannot be met: the table holds {distinct} distinct value(s) of it, so no class can hold {l}{}",
        if *.strict { "" } else { ", and suppressing every row exceeds the suppression budget" }
    )]
    LTooLarge {
        /// The l asked for.
        l: usize,
        /// The sensitive column.
        sensitive: String,
        /// Distinct values of it in the table.
        distinct: usize,
        /// Whether suppression cannot help (strict policy or no budget).
        strict: bool,
    },
    /// Neither k nor constraints: nothing to anonymize for.
    #[error("no privacy model: give [privacy] k or [[privacy.constraints]] (or --k)")]
    NoK,
    /// A constraint names a column that is not a QI.
    #[error(
        "constraint {constraint}: column {name:?} is not a quasi-identifier of the table (QIs: {qis})"
    )]
    NotQuasi {
        /// The 1-based constraint concerned, if any.
        constraint: usize,
        /// The column named.
        name: String,
        /// The table's QIs, for the message.
        qis: String,
    },
    /// A constraint over no column.
    #[error("constraint {constraint}: empty QI set")]
    EmptyConstraint {
        /// The 1-based constraint concerned, if any.
        constraint: usize,
    },
    /// l-diversity names a column whose role is not sensitive.
    #[error("l-diversity: column {name:?} is not a sensitive column")]
    NotSensitive {
        /// The column named.
        name: String,
    },
    /// A model beyond k without a sensitive column, or the reverse.
    #[error(
        "[privacy]: give `sensitive` with a model (l >= 1, entropy_l, recursive_cl, t, alpha, delta, beta), or neither"
    )]
    IncompleteL,
    /// A model parameter out of its range (the message names the flag).
    #[error("[privacy]: {0}")]
    Models(String),
    /// A sensitive value the column's declaration cannot read: no number
    /// of a numeric column, no leaf of its hierarchy.
    #[error("sensitive column {column:?}: {value:?} is not {expected}")]
    SensitiveValue {
        /// The sensitive column.
        column: String,
        /// The value.
        value: String,
        /// What the declaration expects.
        expected: String,
    },
    /// A model beyond k that even one class of every row fails.
    #[error(
        "{model} on {sensitive:?} cannot be met: even one class of every row has {value}, so no release can satisfy it"
    )]
    ModelUnreachable {
        /// The model's pyCANON name.
        model: &'static str,
        /// The sensitive column.
        sensitive: String,
        /// The model's value on the whole table.
        value: String,
    },
}

impl crate::error::AreaError for ModelError {
    /// 1 for a model no release of the table can meet (a failed check).
    fn exit_code(&self) -> u8 {
        if self.unreachable() { 1 } else { 2 }
    }
}

impl ModelError {
    /// Whether the model is well formed but no release of the table can
    /// meet it (a failed check, not bad input).
    pub fn unreachable(&self) -> bool {
        matches!(
            self,
            ModelError::KTooLarge { .. }
                | ModelError::LTooLarge { .. }
                | ModelError::ModelUnreachable { .. }
        )
    }
}

fn at(constraint: &Option<usize>) -> String {
    constraint.map_or(String::new(), |c| format!(" (constraint {c})"))
}

/// One constraint: the rows must form classes of at least `k` on `qis`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Constraint {
    /// Positions among the dataset's QIs (or the verified columns).
    pub qis: Vec<usize>,
    /// The smallest class size allowed.
    pub k: usize,
}

/// What a release must satisfy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrivacyModel {
    /// k on each QI subset (one constraint over every QI for plain k).
    pub constraints: Vec<Constraint>,
    /// How suppressed rows count.
    pub policy: SuppressionPolicy,
    /// Fraction of rows that may be suppressed, when configured.
    pub suppression_limit: Option<f64>,
    /// Distinct l-diversity: (table column of the sensitive attribute, l).
    pub l_diversity: Option<(usize, usize)>,
    /// The sensitive columns (table columns) the models beyond k hold on.
    pub sensitive: Vec<usize>,
    /// The models beyond k (distinct l included, on every sensitive column).
    pub models: Models,
}

impl PrivacyModel {
    /// The largest k of the constraint set.
    pub fn max_k(&self) -> usize {
        self.constraints.iter().map(|c| c.k).max().unwrap_or(1)
    }

    /// Whether the model is a single k over every QI.
    pub fn is_single_k(&self, qis: usize) -> bool {
        self.constraints.len() == 1 && self.constraints[0].qis.len() == qis
    }

    /// How many rows a method may suppress (see `ALGORITHMS.md`): the
    /// configured fraction when set; otherwise up to max k for Datafly-style
    /// methods and none for the others.
    pub fn suppression_budget(&self, rows: usize, datafly_style: bool) -> usize {
        match self.suppression_limit {
            Some(f) => (f * rows as f64 + 1e-9).floor() as usize,
            None if datafly_style => self.max_k(),
            None => 0,
        }
    }

    /// QIs the anonymizers may generalize, in QI order: those of some
    /// constraint, or every QI under l-diversity (whose classes are counted
    /// on every QI, so a QI left raw could split them below l).
    pub fn constrained_qis(&self, qis: usize) -> Vec<usize> {
        (0..qis)
            .filter(|q| {
                self.l_diversity.is_some()
                    || self.models.any()
                    || self.constraints.iter().any(|c| c.qis.contains(q))
            })
            .collect()
    }

    /// Each constraint as (positions of its QIs in `constrained`, k), where
    /// `constrained` is [`PrivacyModel::constrained_qis`]: the form the
    /// frequency-set methods check.
    pub fn constraints_within(&self, constrained: &[usize]) -> Vec<(Vec<usize>, usize)> {
        self.constraints
            .iter()
            .map(|c| {
                let attrs = c
                    .qis
                    .iter()
                    .map(|q| constrained.binary_search(q).expect("constrained QI"))
                    .collect();
                (attrs, c.k)
            })
            .collect()
    }

    /// Builds and checks the model for `data`: k >= 1, k <= rows, constraint
    /// columns are QIs.
    pub fn from_config(config: &Config, data: &Dataset) -> Result<PrivacyModel> {
        Self::from_config_rows(config, data, data.rows())
    }

    /// [`PrivacyModel::from_config`] for a table of `rows` rows that `data`
    /// stands for (a frequency set: one row per distinct QI tuple).
    pub fn from_config_rows(config: &Config, data: &Dataset, rows: usize) -> Result<PrivacyModel> {
        let p = &config.privacy;
        let qi_names = || {
            data.qis
                .iter()
                .map(|q| q.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let constraints = if p.constraints.is_empty() {
            let k = p.k.ok_or(ModelError::NoK)?;
            vec![Constraint {
                qis: (0..data.qis.len()).collect(),
                k,
            }]
        } else {
            p.constraints
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    if c.qi.is_empty() {
                        return Err(ModelError::EmptyConstraint { constraint: i + 1 });
                    }
                    let mut qis =
                        c.qi.iter()
                            .map(|name| {
                                data.qi_index(name).ok_or_else(|| ModelError::NotQuasi {
                                    constraint: i + 1,
                                    name: name.clone(),
                                    qis: qi_names(),
                                })
                            })
                            .collect::<std::result::Result<Vec<_>, _>>()?;
                    qis.sort_unstable();
                    qis.dedup();
                    Ok(Constraint { qis, k: c.k })
                })
                .collect::<std::result::Result<Vec<_>, _>>()?
        };
        let numbered = constraints.len() > 1 || !p.constraints.is_empty();
        for (i, c) in constraints.iter().enumerate() {
            check_k(c.k, rows, numbered.then_some(i + 1))?;
        }
        let sensitive = p
            .sensitive
            .iter()
            .map(|name| {
                data.table
                    .column_index(name)
                    .filter(|&i| data.roles[i] == Role::Sensitive)
                    .ok_or_else(|| ModelError::NotSensitive { name: name.clone() })
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let models = p.models();
        models.check().map_err(ModelError::Models)?;
        if models.any() == sensitive.is_empty() || p.l == Some(0) {
            return Err(ModelError::IncompleteL.into());
        }
        let l_diversity = sensitive.first().copied().zip(p.l);
        Ok(PrivacyModel {
            constraints,
            policy: p.suppressed,
            suppression_limit: p.suppression_limit,
            l_diversity,
            sensitive,
            models,
        })
    }
}

/// Whether the all-`*` rows (`star`, each weighing `weight(e)` rows) stand
/// as an ordinary class: they meet every constraint's k (`max_k`) and, when
/// l-diversity is claimed, hold at least l distinct sensitive values or
/// none (`sensitive`: every row's code, [`MISSING_VALUE`] for a missing
/// cell). Then no row counts as suppressed; else they all do
/// (`spec/FORMAT.md` §5, policy).
pub fn stars_form_a_class(
    star: &[bool],
    weight: impl Fn(usize) -> usize,
    max_k: usize,
    sensitive: Option<(&[u32], usize)>,
) -> bool {
    let rows: usize = (0..star.len()).filter(|&e| star[e]).map(weight).sum();
    if rows == 0 || rows < max_k {
        return false;
    }
    let Some((codes, l)) = sensitive else {
        return true;
    };
    let mut values: Vec<u32> = (0..star.len())
        .filter(|&r| star[r] && codes[r] != MISSING_VALUE)
        .map(|r| codes[r])
        .collect();
    values.sort_unstable();
    values.dedup();
    values.is_empty() || values.len() >= l
}

/// The rows that count as suppressed, given the all-`*` rows `star` of a
/// release (one entry per row): `star` itself, or none when those rows form
/// an ordinary class ([`stars_form_a_class`]).
pub fn suppressed_rows(
    mut star: Vec<bool>,
    max_k: usize,
    sensitive: Option<(&[u32], usize)>,
) -> Vec<bool> {
    if stars_form_a_class(&star, |_| 1, max_k, sensitive) {
        star.iter_mut().for_each(|s| *s = false);
    }
    star
}

impl PrivacyModel {
    /// Distinct l's sensitive codes (one per row, [`MISSING_VALUE`] where
    /// the cell holds no value) and l, when l-diversity is claimed.
    pub fn l_codes(&self, data: &Dataset) -> Option<(Vec<u32>, usize)> {
        let (col, l) = self.l_diversity?;
        Some((sensitive::of_dataset(data, col).known_codes(), l))
    }

    /// Refuses a model that no release of `data` meets when at most
    /// `budget` rows may be suppressed. k <= rows holds (checked by
    /// [`PrivacyModel::from_config`]), so the release with every QI at `*`
    /// (one class of every row) meets k; it meets l exactly when the table
    /// holds l distinct sensitive values, and otherwise is valid only as
    /// every row suppressed (policy `mask`, budget >= rows). When it is not
    /// valid no release is: a class of fewer values than the table cannot
    /// hold l either.
    pub fn check_reachable(&self, data: &Dataset, budget: usize) -> Result<()> {
        let Some((col, l)) = self.l_diversity else {
            return self.check_models_reachable(data);
        };
        let column = &data.table.columns[col];
        let attribute = sensitive::of_dataset(data, col);
        let mut seen = vec![false; column.dict.len()];
        for &c in &column.codes {
            seen[c as usize] = attribute.known(c);
        }
        let distinct = seen.iter().filter(|&&s| s).count();
        let strict = self.policy == SuppressionPolicy::Strict;
        // No known value: one class of every row discloses none (vacuous).
        if distinct == 0 || distinct >= l || (!strict && budget >= data.rows()) {
            return self.check_models_reachable(data);
        }
        Err(ModelError::LTooLarge {
            l,
            sensitive: column.name.clone(),
            distinct,
            strict,
        }
        .into())
    }
}

impl PrivacyModel {
    /// Refuses models beyond k that the release of one class of every row
    /// fails: generalizing further cannot merge rows beyond it, and its t,
    /// δ and β are 0, so when it fails (α, ℓ in any form) none meets them.
    fn check_models_reachable(&self, data: &Dataset) -> Result<()> {
        if !self.models.any() {
            return Ok(());
        }
        let columns: Vec<Sensitive> = self
            .sensitive
            .iter()
            .map(|&c| sensitive::of_dataset(data, c))
            .collect();
        let all = Partition {
            class_of: vec![0; data.rows()],
            sizes: vec![data.rows() as u32],
        };
        let report = models::measure(&all, &columns, &self.models);
        match report.checks.iter().find(|c| !c.holds) {
            None => Ok(()),
            Some(c) => Err(ModelError::ModelUnreachable {
                model: c.model,
                sensitive: c.sensitive.clone(),
                value: c
                    .value
                    .map_or("an unbounded value".to_owned(), |v| format!("{v}")),
            }
            .into()),
        }
    }
}

/// Checks 1 <= k <= rows.
pub fn check_k(k: usize, rows: usize, constraint: Option<usize>) -> Result<()> {
    if k == 0 {
        return Err(ModelError::KZero { constraint }.into());
    }
    if k > rows {
        return Err(ModelError::KTooLarge {
            k,
            rows,
            constraint,
        }
        .into());
    }
    Ok(())
}

/// A class that is too small, as the public sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ViolatingClass {
    /// The class's released QI labels.
    pub values: Vec<String>,
    /// Rows in the class.
    pub size: usize,
}

/// The check of one constraint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConstraintReport {
    /// The QI columns of the constraint.
    pub qi: Vec<String>,
    /// The k claimed.
    pub k: usize,
    /// Equivalence classes on those columns (suppressed rows aside when exempt).
    pub classes: usize,
    /// `None` when every row is suppressed and exempt.
    pub min_class: Option<usize>,
    /// (class size, number of classes of that size), ascending.
    pub histogram: Vec<(u32, u32)>,
    /// Classes below k.
    pub violating_classes: usize,
    /// Rows in classes below k.
    pub violating_rows: usize,
    /// The first few violating classes, smallest first.
    pub examples: Vec<ViolatingClass>,
    /// Whether every class reaches k.
    pub holds: bool,
}

/// Distinct l-diversity of the sensitive column in each class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LDiversityReport {
    /// The sensitive column.
    pub sensitive: String,
    /// The l claimed.
    pub l: usize,
    /// Fewest distinct sensitive values in a class.
    pub min_distinct: Option<usize>,
    /// Classes with fewer than l distinct values.
    pub violating_classes: usize,
    /// Whether every class holds l distinct values.
    pub holds: bool,
}

/// The verifier's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaimReport {
    /// Rows of the release.
    pub rows: usize,
    /// Rows with every QI suppressed.
    pub suppressed_rows: usize,
    /// How those rows were counted.
    pub policy: SuppressionPolicy,
    /// One report per constraint.
    pub constraints: Vec<ConstraintReport>,
    /// Distinct l-diversity, when claimed; not in the JSON, whose
    /// `models` report holds it (one key per model: `models.l_diversity`
    /// and its check), as every claim of l comes with a models report.
    #[serde(skip)]
    pub l_diversity: Option<LDiversityReport>,
    /// The models beyond k, when sensitive attributes are named (`null`
    /// otherwise).
    pub models: Option<ModelsReport>,
}

impl ClaimReport {
    /// Whether the release meets the whole claim.
    pub fn holds(&self) -> bool {
        self.constraints.iter().all(|c| c.holds)
            && self.l_diversity.as_ref().is_none_or(|l| l.holds)
            && self.models.as_ref().is_none_or(|m| m.holds())
    }

    /// One line per failed part, for messages.
    pub fn failures(&self) -> Vec<String> {
        let mut out = Vec::new();
        for c in self.constraints.iter().filter(|c| !c.holds) {
            out.push(format!(
                "k={} on ({}): {} classes with {} rows below k (smallest {})",
                c.k,
                c.qi.join(", "),
                c.violating_classes,
                c.violating_rows,
                c.min_class.unwrap_or(0)
            ));
        }
        // The models' checks cover distinct l on every attribute.
        let models = self.models.as_ref();
        if let Some(l) = self
            .l_diversity
            .as_ref()
            .filter(|l| !l.holds && models.is_none())
        {
            out.push(format!(
                "l={} on {}: {} classes with fewer distinct values (fewest {})",
                l.l,
                l.sensitive,
                l.violating_classes,
                l.min_distinct.unwrap_or(0)
            ));
        }
        out.extend(models.map(|m| m.failures()).unwrap_or_default());
        out
    }
}

/// Verifies released QI columns against constraints (whose `qis` index
/// `qi`). The rows whose every cell of `qi` is `*` are one ordinary class
/// when they meet every constraint's k (and l when claimed); otherwise they
/// are the suppressed rows: exempt under `mask`, one ordinary class (which
/// then fails) under `strict` (`spec/FORMAT.md` §5).
pub fn verify_columns(
    qi: &[&Column],
    constraints: &[Constraint],
    policy: SuppressionPolicy,
    l_diversity: Option<(&Sensitive, usize)>,
) -> ClaimReport {
    verify(qi, None, constraints, policy, l_diversity)
}

/// Verifies a release given as its equivalence classes: `qi` columns with
/// one cell per class, `weights[e]` the rows of class `e` (classes may
/// repeat a tuple: they are merged). The report is the one
/// [`verify_columns`] gives on the rows, at the cost of the classes.
/// (l-diversity needs every row's sensitive value: use the rows.)
pub fn verify_weighted(
    qi: &[&Column],
    weights: &[u32],
    constraints: &[Constraint],
    policy: SuppressionPolicy,
) -> ClaimReport {
    verify(qi, Some(weights), constraints, policy, None)
}

fn verify(
    qi: &[&Column],
    weights: Option<&[u32]>,
    constraints: &[Constraint],
    policy: SuppressionPolicy,
    l_diversity: Option<(&Sensitive, usize)>,
) -> ClaimReport {
    let entries = qi.first().map_or(0, |c| c.codes.len());
    let weight = |e: usize| weights.map_or(1, |w| w[e] as usize);
    let stars: Vec<Option<u32>> = qi.iter().map(|c| c.dict.code(SUPPRESSED)).collect();
    let star: Vec<bool> = (0..entries)
        .map(|r| {
            !qi.is_empty()
                && qi
                    .iter()
                    .zip(&stars)
                    .all(|(c, s)| s.is_some_and(|s| c.codes[r] == s))
        })
        .collect();
    let rows = (0..entries).map(weight).sum();
    let max_k = constraints.iter().map(|c| c.k).max().unwrap_or(1);
    let known = l_diversity.map(|(s, l)| (s.known_codes(), l));
    let sensitive = known.as_ref().map(|(c, l)| (&c[..], *l));
    let star_class = stars_form_a_class(&star, weight, max_k, sensitive);
    let suppressed_rows = if star_class {
        0
    } else {
        (0..entries).filter(|&e| star[e]).map(weight).sum()
    };
    let exclude = (policy == SuppressionPolicy::Mask && !star_class).then_some(&star[..]);

    let reports = constraints
        .iter()
        .map(|c| {
            let cols: Vec<&[u32]> = c.qis.iter().map(|&q| &qi[q].codes[..]).collect();
            let p = match weights {
                Some(w) => Partition::weighted(&cols, w, exclude),
                None => Partition::new(&cols, entries, exclude),
            };
            constraint_report(qi, c, &p)
        })
        .collect();

    let l_report = l_diversity.map(|(attribute, l)| {
        let all: Vec<&[u32]> = qi.iter().map(|c| &c.codes[..]).collect();
        // Only reached without weights: entries are rows.
        let p = Partition::new(&all, entries, exclude);
        let codes = &known.as_ref().expect("with l").0;
        // A class without a known value meets l vacuously.
        let distinct: Vec<usize> = p
            .distinct_per_class(&codes[..entries])
            .into_iter()
            .filter(|&d| d > 0)
            .collect();
        let violating = distinct.iter().filter(|&&d| d < l).count();
        LDiversityReport {
            sensitive: attribute.name().to_owned(),
            l,
            min_distinct: distinct.iter().copied().min(),
            violating_classes: violating,
            holds: violating == 0,
        }
    });

    ClaimReport {
        rows,
        suppressed_rows,
        policy,
        constraints: reports,
        l_diversity: l_report,
        models: None,
    }
}

fn constraint_report(qi: &[&Column], c: &Constraint, p: &Partition) -> ConstraintReport {
    let reps = p.representatives();
    let mut small: Vec<(u32, usize)> = p
        .sizes
        .iter()
        .enumerate()
        .filter(|&(_, &s)| (s as usize) < c.k)
        .map(|(class, &s)| (s, class))
        .collect();
    small.sort_unstable();
    let examples = small
        .iter()
        .take(VIOLATING_EXAMPLES)
        .map(|&(size, class)| ViolatingClass {
            values: c
                .qis
                .iter()
                .map(|&q| qi[q].text(reps[class]).to_owned())
                .collect(),
            size: size as usize,
        })
        .collect();
    ConstraintReport {
        qi: c.qis.iter().map(|&q| qi[q].name.clone()).collect(),
        k: c.k,
        classes: p.classes(),
        min_class: p.min_class().map(|s| s as usize),
        histogram: p.histogram(),
        violating_classes: small.len(),
        violating_rows: small.iter().map(|&(s, _)| s as usize).sum(),
        examples,
        holds: small.is_empty(),
    }
}

/// The rows of `release` (made from `data`) that count as suppressed under
/// `model` ([`suppressed_rows`]): what reports and metrics count.
pub fn release_suppressed(data: &Dataset, release: &Release, model: &PrivacyModel) -> Vec<bool> {
    let known = model.l_codes(data);
    let sensitive = known.as_ref().map(|(c, l)| (&c[..], *l));
    suppressed_rows(release.star_mask(), model.max_k(), sensitive)
}

/// Verifies a release made from `data` against `model`.
pub fn verify_release(data: &Dataset, release: &Release, model: &PrivacyModel) -> ClaimReport {
    verify_labelled(data, release, model, &release.qi_columns(data))
}

/// [`verify_release`] of a release whose QI columns as the public sees
/// them ([`Release::qi_columns`]) are `columns`.
pub fn verify_labelled(
    data: &Dataset,
    release: &Release,
    model: &PrivacyModel,
    columns: &[Column],
) -> ClaimReport {
    let refs: Vec<&Column> = columns.iter().collect();
    let attribute = model
        .l_diversity
        .map(|(col, l)| (sensitive::of_dataset(data, col), l));
    let l = attribute.as_ref().map(|(s, l)| (s, *l));
    let mut report = verify_columns(&refs, &model.constraints, model.policy, l);
    if model.models.any() {
        let exempt = release_suppressed(data, release, model);
        let cols: Vec<&[u32]> = refs.iter().map(|c| &c.codes[..]).collect();
        let any = exempt.iter().any(|&e| e) && model.policy == SuppressionPolicy::Mask;
        let p = Partition::new(&cols, data.rows(), any.then_some(&exempt[..]));
        let columns: Vec<Sensitive> = model
            .sensitive
            .iter()
            .map(|&c| sensitive::of_dataset(data, c))
            .collect();
        report.models = Some(models::measure(&p, &columns, &model.models));
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The claim checked on a release's class table, each class
        /// weighted by its rows (some classes split in two entries, as a
        /// file may code them), is the claim checked on its rows.
        #[test]
        fn weighted_classes_give_the_rows_report(
            rows in proptest::collection::vec((0u8..3, 0u8..3, 0u8..2), 1..60),
            split in proptest::collection::vec(any::<bool>(), 60),
            k in 1usize..5,
            strict in any::<bool>(),
        ) {
            let text = |v: u8| if v == 0 { "*".to_owned() } else { v.to_string() };
            let names = ["a", "b", "c"];
            let mut by_row: Vec<Column> = names.iter().map(|n| Column::new(*n)).collect();
            let mut tuples: Vec<(u8, u8, u8)> = Vec::new();
            let mut sizes: Vec<u32> = Vec::new();
            for &t in &rows {
                for (c, v) in by_row.iter_mut().zip([t.0, t.1, t.2]) {
                    c.push(&text(v));
                }
                match tuples.iter().position(|&u| u == t) {
                    Some(e) => sizes[e] += 1,
                    None => {
                        tuples.push(t);
                        sizes.push(1);
                    }
                }
            }
            // Split classes of two rows or more: the part moved to the end.
            for e in 0..tuples.len() {
                if split[e] && sizes[e] > 1 {
                    sizes[e] -= 1;
                    tuples.push(tuples[e]);
                    sizes.push(1);
                }
            }
            let mut by_class: Vec<Column> = names.iter().map(|n| Column::new(*n)).collect();
            for t in &tuples {
                for (c, v) in by_class.iter_mut().zip([t.0, t.1, t.2]) {
                    c.push(&text(v));
                }
            }
            let constraints = [
                Constraint { qis: vec![0, 1, 2], k },
                Constraint { qis: vec![1], k: k + 1 },
            ];
            let policy = if strict { SuppressionPolicy::Strict } else { SuppressionPolicy::Mask };
            let r: Vec<&Column> = by_row.iter().collect();
            let c: Vec<&Column> = by_class.iter().collect();
            prop_assert_eq!(
                verify_weighted(&c, &sizes, &constraints, policy),
                verify_columns(&r, &constraints, policy, None)
            );
        }
    }

    fn column(name: &str, values: &[&str]) -> Column {
        let mut c = Column::new(name);
        for v in values {
            c.push(v);
        }
        c
    }

    fn categorical(c: &Column) -> Sensitive<'_> {
        Sensitive::new(c, &["?".to_owned()], Declared::Categorical).unwrap()
    }

    /// A missing sensitive cell adds no diversity: the star rows of one
    /// value and a missing one are no class of l = 2, those of missing
    /// cells alone are (they disclose no value), and a class of one value
    /// beside missing cells fails l = 2.
    #[test]
    fn missing_sensitive_cells_add_no_diversity() {
        let a = column("a", &["x", "x", "x", "*", "*"]);
        let all = Constraint { qis: vec![0], k: 2 };
        let s = column("s", &["p", "?", "?", "p", "?"]);
        let r = verify_columns(
            &[&a],
            std::slice::from_ref(&all),
            SuppressionPolicy::Mask,
            Some((&categorical(&s), 2)),
        );
        assert_eq!(r.suppressed_rows, 2);
        assert_eq!(r.l_diversity.as_ref().unwrap().min_distinct, Some(1));
        assert!(!r.holds());
        let s = column("s", &["p", "q", "?", "?", "?"]);
        let r = verify_columns(
            &[&a],
            &[all],
            SuppressionPolicy::Mask,
            Some((&categorical(&s), 2)),
        );
        assert_eq!(r.suppressed_rows, 0);
        assert_eq!(r.l_diversity.as_ref().unwrap().min_distinct, Some(2));
        assert!(r.holds());
    }

    #[test]
    fn mask_exempts_suppressed_rows_and_strict_counts_them() {
        let a = column("a", &["x", "x", "y", "y", "*"]);
        let b = column("b", &["1", "1", "2", "2", "*"]);
        let s = column("s", &["p", "q", "p", "p", "q"]);
        let all = Constraint {
            qis: vec![0, 1],
            k: 2,
        };
        let r = verify_columns(
            &[&a, &b],
            std::slice::from_ref(&all),
            SuppressionPolicy::Mask,
            Some((&categorical(&s), 2)),
        );
        assert_eq!(r.suppressed_rows, 1);
        assert!(r.constraints[0].holds);
        assert_eq!(r.constraints[0].classes, 2);
        assert_eq!(r.constraints[0].min_class, Some(2));
        let l = r.l_diversity.as_ref().unwrap();
        assert_eq!(l.min_distinct, Some(1));
        assert!(!r.holds());
        let strict = verify_columns(&[&a, &b], &[all], SuppressionPolicy::Strict, None);
        assert!(!strict.holds());
        assert_eq!(strict.constraints[0].violating_rows, 1);
        assert_eq!(strict.constraints[0].examples[0].values, vec!["*", "*"]);
    }

    /// Star rows that reach the largest k (and l) are an ordinary class
    /// under either policy; below k, or short of l, they are suppressed.
    #[test]
    fn star_rows_reaching_k_and_l_are_an_ordinary_class() {
        let a = column("a", &["x", "x", "*", "*", "*"]);
        let b = column("b", &["1", "1", "*", "*", "*"]);
        let all = |k| Constraint { qis: vec![0, 1], k };
        let diverse = column("s", &["p", "q", "p", "q", "r"]);
        let flat = column("s", &["p", "q", "p", "p", "p"]);
        for policy in [SuppressionPolicy::Mask, SuppressionPolicy::Strict] {
            // Three star rows meet the largest k, 3: one class, on both
            // constraints (where x, two rows, is below 3).
            let a3 = Constraint { qis: vec![0], k: 3 };
            let r = verify_columns(&[&a, &b], &[all(2), a3], policy, None);
            assert_eq!(r.suppressed_rows, 0, "{policy:?}");
            assert!(r.constraints[0].holds, "{policy:?}");
            assert_eq!(r.constraints[0].classes, 2);
            assert_eq!(r.constraints[1].violating_rows, 2);
            let r = verify_columns(
                &[&a, &b],
                &[all(2)],
                policy,
                Some((&categorical(&diverse), 2)),
            );
            assert_eq!((r.suppressed_rows, r.holds()), (0, true), "{policy:?}");
            // Three star rows with one value: not a class of l = 2.
            let r = verify_columns(&[&a, &b], &[all(2)], policy, Some((&categorical(&flat), 2)));
            assert_eq!(r.suppressed_rows, 3, "{policy:?}");
            assert_eq!(r.holds(), policy == SuppressionPolicy::Mask, "{policy:?}");
        }
        // k = 4: three star rows are suppressed, exempt only under mask.
        let r = verify_columns(&[&a, &b], &[all(4)], SuppressionPolicy::Mask, None);
        assert_eq!(r.suppressed_rows, 3);
        assert_eq!(r.constraints[0].min_class, Some(2));
        let r = verify_columns(&[&a, &b], &[all(2)], SuppressionPolicy::Mask, None);
        assert_eq!(r.constraints[0].min_class, Some(2));
        assert_eq!(
            suppressed_rows(vec![false, true, true], 2, None),
            vec![false; 3]
        );
        assert_eq!(
            suppressed_rows(vec![false, true, true], 3, None),
            vec![false, true, true]
        );
    }

    #[test]
    fn constraints_count_on_their_own_columns() {
        let a = column("a", &["x", "x", "y", "y"]);
        let b = column("b", &["1", "2", "1", "2"]);
        let cs = [
            Constraint { qis: vec![0], k: 2 },
            Constraint { qis: vec![1], k: 2 },
            Constraint {
                qis: vec![0, 1],
                k: 2,
            },
        ];
        let r = verify_columns(&[&a, &b], &cs, SuppressionPolicy::Mask, None);
        assert!(r.constraints[0].holds && r.constraints[1].holds);
        assert!(!r.constraints[2].holds);
        assert_eq!(r.constraints[2].violating_classes, 4);
    }
}
