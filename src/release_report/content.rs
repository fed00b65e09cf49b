//! What a release report holds (`karc report`, docs/REPORT.md): gathered
//! once, then written as HTML ([`super::html`]) or JSON (docs/JSON.md,
//! `karc.report/1`).
//!
//! The default report is non-disclosive: every figure comes from what the
//! release shows (its labels, classes and public part). An internal report
//! adds what only the publisher should see; with the archive's key it also
//! adds the figures of the sealed private part (the original's size and
//! digest, zip and xz of it, the private bytes per column, NCP and GLM).

use serde::Serialize;

use super::generalization::{LabelKind, Labelled, QiGeneralization, describe};
use crate::archive::checks::NamedChecks;
use crate::classes::Partition;
use crate::config::SuppressionPolicy;
use crate::privacy::risk::{Risk, risk_of_sizes};
use crate::privacy::{ClaimReport, ModelsReport};
use crate::table::Column;

/// The JSON schema name of a report.
pub const SCHEMA: &str = "karc.report/1";

/// How many of the smallest classes an internal report lists.
pub const SMALLEST_CLASSES: usize = 10;
/// How many row numbers at the highest risk an internal report lists.
pub const ROWS_LISTED: usize = 50;

/// A release's report: what `karc report` writes as HTML or JSON.
#[derive(Debug, Clone, Serialize)]
pub struct ReleaseReport {
    /// `karc.report/1`.
    pub schema: &'static str,
    /// Whether this report holds what only the publisher should see.
    pub internal: bool,
    /// Who wrote the report, and when.
    pub generated: Generated,
    /// The file reported on.
    pub source: Source,
    /// Data rows of the release.
    pub rows: usize,
    /// Its columns and their roles, in file order.
    pub columns: Vec<ColumnRole>,
    /// The signature's state.
    pub signature: Signature,
    /// The algorithm and its parameters (an archive's; `None` for a table).
    pub algorithm: Option<AlgorithmInfo>,
    /// The claim: every check with its value and margin.
    pub claim: ClaimSummary,
    /// The models beyond k, named as pyCANON's report names them.
    pub models: Option<ModelsReport>,
    /// Re-identification risk of the release's classes.
    pub risk: Option<Risk>,
    /// Class sizes over all the QIs: (size, classes of that size), ascending.
    pub class_sizes: Vec<(u32, u32)>,
    /// The generalization of each QI, in words, with each level's use.
    pub generalization: Vec<QiGeneralization>,
    /// Information loss per attribute and overall.
    pub information_loss: InformationLoss,
    /// The derived-column check the release passed (an archive's
    /// `COLUMN_CHECKS`), if any.
    pub column_checks: Option<NamedChecks>,
    /// Sizes per column and part (an archive's).
    pub sizes: Option<Sizes>,
    /// What only the publisher should see (`internal` reports only).
    pub internal_detail: Option<InternalDetail>,
}

/// The writer and time of a report.
#[derive(Debug, Clone, Serialize)]
pub struct Generated {
    /// `karc X.Y.Z`.
    pub karc: String,
    /// UTC, RFC 3339 (`2026-11-28T10:00:00Z`).
    pub time: String,
}

impl Generated {
    /// This karc at `unix` seconds.
    pub fn at(unix: i64) -> Generated {
        let (days, secs) = (unix.div_euclid(86_400), unix.rem_euclid(86_400));
        let (y, m, d) = crate::civil::civil_from_days(days);
        Generated {
            karc: format!("karc {}", env!("CARGO_PKG_VERSION")),
            time: format!(
                "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
                secs / 3600,
                secs / 60 % 60,
                secs % 60
            ),
        }
    }
}

/// The file a report is on.
#[derive(Debug, Clone, Serialize)]
pub struct Source {
    /// `archive` (a `.karc` file, whole or published) or `table` (a release
    /// made by anyone).
    pub kind: &'static str,
    /// Its name as given.
    pub file: String,
    /// Its size (`None`: a table given in memory, from Python).
    pub bytes: Option<u64>,
    /// SHA-256 of the file (hex), as `sha256sum` prints it.
    pub sha256: Option<String>,
    /// An archive's format version.
    pub format: Option<String>,
    /// An archive's private part: `sealed (age)`, `unencrypted` or
    /// `absent (published copy)`.
    pub private: Option<String>,
    /// BLAKE3 of an archive's public part (hex), which its private part
    /// binds (spec/FORMAT.md §7.5).
    pub public_blake3: Option<String>,
}

/// A column and its role.
#[derive(Debug, Clone, Serialize)]
pub struct ColumnRole {
    /// The column's name.
    pub name: String,
    /// `identifier` (not released), `quasi`, `sensitive`, `insensitive`,
    /// or `pseudonym` (an identifier released as keyed pseudonyms).
    pub role: String,
    /// Its declared type (an archive's).
    pub value_type: Option<String>,
}

/// The signature's state.
#[derive(Debug, Clone, Serialize)]
pub struct Signature {
    /// `unsigned`, `not_checked` (signed; no trusted key given), `valid`
    /// (by a trusted key), or `not_applicable` (a table).
    pub state: &'static str,
    /// The signing key's id.
    pub key_id: Option<String>,
    /// The trusted comment (signed, but only checked when `valid`).
    pub trusted_comment: Option<String>,
}

impl Signature {
    /// The state of an archive's signature status.
    pub fn of(status: Option<&crate::archive::signature::Status>) -> Signature {
        match status {
            None => Signature {
                state: "unsigned",
                key_id: None,
                trusted_comment: None,
            },
            Some(s) => Signature {
                state: if s.checked { "valid" } else { "not_checked" },
                key_id: Some(s.key_id.clone()),
                trusted_comment: Some(s.trusted_comment.clone()),
            },
        }
    }
}

/// An archive's algorithm.
#[derive(Debug, Clone, Serialize)]
pub struct AlgorithmInfo {
    /// Its name.
    pub name: String,
    /// The seed of randomized steps.
    pub seed: u64,
    /// The config's extra `[algorithm]` keys (JSON), empty when none.
    pub params: String,
    /// Global recoding: each QI's level, in claim order.
    pub levels: Option<Vec<u32>>,
}

/// The claim, check by check.
#[derive(Debug, Clone, Serialize)]
pub struct ClaimSummary {
    /// Whether every check passes.
    pub holds: bool,
    /// How all-`*` rows count.
    pub policy: SuppressionPolicy,
    /// Rows released with `*` in every QI.
    pub suppressed_rows: usize,
    /// The most rows the claim lets the release suppress (an archive's).
    pub suppression_budget: Option<u64>,
    /// Every check: k per constraint, the suppression budget, each model.
    pub checks: Vec<Check>,
}

/// One check of the claim.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// `k_anonymity`, `suppression`, or a model by pyCANON's name.
    pub model: String,
    /// The columns it is over (QIs, or the sensitive column).
    pub on: Vec<String>,
    /// The claimed parameter (`k=5`, `l=2`, `t=0.2`).
    pub parameter: String,
    /// The release's value (`None`: no class, or unbounded).
    pub value: Option<f64>,
    /// How far the value is on the passing side of the parameter (negative:
    /// failing); `None` where the model has no single bound (recursive
    /// (c,l)) or no value.
    pub margin: Option<f64>,
    /// Whether it passes.
    pub holds: bool,
}

/// Information loss: per attribute from the release alone; overall the
/// public metrics, and the sealed ones when the key is given.
#[derive(Debug, Clone, Serialize)]
pub struct InformationLoss {
    /// Per QI.
    pub attributes: Vec<AttributeLoss>,
    /// Sweeney's Precision (an archive's; `None` without hierarchies or
    /// with intervals).
    pub precision: Option<f64>,
    /// Discernibility: the sum of squared class sizes, plus rows for each
    /// suppressed row.
    pub discernibility: f64,
    /// C_avg: average class size over the largest k.
    pub cavg: f64,
    /// NCP, measured against the original's domain: sealed in the private
    /// part (internal report with the key only).
    pub ncp: Option<f64>,
    /// GLM, sealed as NCP is.
    pub glm: Option<f64>,
}

/// One QI's loss, from its released cells.
#[derive(Debug, Clone, Serialize)]
pub struct AttributeLoss {
    /// The QI.
    pub name: String,
    /// Share of cells released as they are.
    pub exact: f64,
    /// Share of cells generalized (a group, an interval, a mask).
    pub generalized: f64,
    /// Share of cells suppressed (`*`).
    pub suppressed: f64,
    /// Mean level over the hierarchy's height (0: all exact, 1: all at the
    /// root): the attribute's share of 1 − Precision. `None` without a
    /// known hierarchy or with intervals.
    pub height_loss: Option<f64>,
    /// Distinct labels released.
    pub labels: usize,
}

/// Sizes of an archive, per part and column.
#[derive(Debug, Clone, Serialize)]
pub struct Sizes {
    /// The whole file.
    pub file_bytes: u64,
    /// The public part.
    pub public_bytes: u64,
    /// The private part as stored (sealed); 0 in a published copy.
    pub private_stored_bytes: u64,
    /// Per column: public bytes, and private bytes with the key.
    pub columns: Vec<ColumnSize>,
    /// The original file, with the key.
    pub original_bytes: Option<u64>,
    /// zip (deflate) of the original, with the key.
    pub zip_bytes: Option<u64>,
    /// xz -9e of the original, with the key.
    pub xz_bytes: Option<u64>,
}

/// One column's bytes.
#[derive(Debug, Clone, Serialize)]
pub struct ColumnSize {
    /// The column.
    pub name: String,
    /// In the public part.
    pub public_bytes: u64,
    /// In the private part before encryption (with the key).
    pub private_bytes: Option<u64>,
}

/// What only the publisher should see.
#[derive(Debug, Clone, Serialize)]
pub struct InternalDetail {
    /// The smallest classes, smallest first, with their released QI
    /// values and the sensitive distribution in each.
    pub smallest_classes: Vec<ClassDetail>,
    /// The rows at the highest risk: those in classes of the smallest size.
    pub rows_at_highest_risk: RowsAtRisk,
}

/// One class.
#[derive(Debug, Clone, Serialize)]
pub struct ClassDetail {
    /// Rows in it.
    pub size: usize,
    /// Its released QI labels, in QI order.
    pub values: Vec<String>,
    /// Per sensitive column: (value, rows), most rows first.
    pub sensitive: Vec<SensitiveCounts>,
}

/// A sensitive column's values in a class.
#[derive(Debug, Clone, Serialize)]
pub struct SensitiveCounts {
    /// The sensitive column.
    pub column: String,
    /// (value, rows), most rows first.
    pub counts: Vec<(String, usize)>,
}

/// The rows in the classes of the smallest size.
#[derive(Debug, Clone, Serialize)]
pub struct RowsAtRisk {
    /// The smallest class size (their risk is 1 / it).
    pub class_size: Option<usize>,
    /// How many rows.
    pub rows: usize,
    /// The first of them, 1-based data row numbers of the release.
    pub first: Vec<usize>,
}

/// The released columns a report reads: QIs (claim order) and sensitive
/// columns, as labels.
pub struct ReleaseColumns<'a> {
    /// The QIs the classes are over.
    pub qis: Vec<&'a Column>,
    /// The sensitive columns.
    pub sensitive: Vec<&'a Column>,
    /// How all-`*` rows count.
    pub policy: SuppressionPolicy,
}

impl ReleaseColumns<'_> {
    fn rows(&self) -> usize {
        self.qis.first().map_or(0, |c| c.codes.len())
    }

    /// Rows with `*` in every QI: exempt under the mask policy.
    fn exempt(&self) -> Option<Vec<bool>> {
        if self.policy != SuppressionPolicy::Mask {
            return None;
        }
        let star = |c: &Column| c.dict.code(crate::cell::SUPPRESSED);
        let stars: Vec<Option<u32>> = self.qis.iter().map(|c| star(c)).collect();
        let rows: Vec<bool> = (0..self.rows())
            .map(|r| {
                !self.qis.is_empty()
                    && (self.qis.iter().zip(&stars)).all(|(c, s)| Some(c.codes[r]) == *s)
            })
            .collect();
        Some(rows)
    }

    /// The classes over the QIs.
    fn partition(&self) -> Partition {
        let exempt = self.exempt();
        Partition::of_columns(
            self.qis.iter().map(|c| &c.codes[..]),
            self.rows(),
            exempt.as_deref(),
        )
    }

    /// The internal detail: the smallest classes and the rows at risk.
    pub fn internal_detail(&self) -> InternalDetail {
        let p = self.partition();
        let mut first_row = vec![usize::MAX; p.classes()];
        for (row, &c) in p.class_of.iter().enumerate() {
            if (c as usize) < first_row.len() && first_row[c as usize] == usize::MAX {
                first_row[c as usize] = row;
            }
        }
        let mut order: Vec<usize> = (0..p.classes()).collect();
        order.sort_by_key(|&c| (p.sizes[c], first_row[c]));
        let smallest_classes = order
            .iter()
            .take(SMALLEST_CLASSES)
            .map(|&c| self.class_detail(&p, c as u32, first_row[c]))
            .collect();
        let min = p.min_class();
        let at_risk: Vec<usize> = (p.class_of.iter().enumerate())
            .filter(|&(_, &c)| (c as usize) < p.sizes.len() && Some(p.sizes[c as usize]) == min)
            .map(|(row, _)| row + 1)
            .collect();
        InternalDetail {
            smallest_classes,
            rows_at_highest_risk: RowsAtRisk {
                class_size: min.map(|m| m as usize),
                rows: at_risk.len(),
                first: at_risk.into_iter().take(ROWS_LISTED).collect(),
            },
        }
    }

    fn class_detail(&self, p: &Partition, class: u32, first: usize) -> ClassDetail {
        let rows: Vec<usize> = (p.class_of.iter().enumerate())
            .filter(|&(_, &c)| c == class)
            .map(|(r, _)| r)
            .collect();
        let sensitive = self
            .sensitive
            .iter()
            .map(|s| {
                let mut counts: Vec<(String, usize)> = Vec::new();
                for &r in &rows {
                    let v = s.text(r);
                    match counts.iter_mut().find(|(t, _)| t == v) {
                        Some((_, n)) => *n += 1,
                        None => counts.push((v.to_owned(), 1)),
                    }
                }
                counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                SensitiveCounts {
                    column: s.name.clone(),
                    counts,
                }
            })
            .collect();
        ClassDetail {
            size: rows.len(),
            values: self.qis.iter().map(|c| c.text(first).to_owned()).collect(),
            sensitive,
        }
    }
}

/// A third party's QI column as labels, each kind read from its form.
pub fn labels_by_form(column: &Column) -> Vec<Labelled> {
    let mut rows = vec![0u64; column.dict.len()];
    for &c in &column.codes {
        rows[c as usize] += 1;
    }
    (0..column.dict.len() as u32)
        .filter(|&c| rows[c as usize] > 0)
        .map(|c| {
            let label = column.dict.value(c);
            Labelled {
                label: label.to_owned(),
                kind: super::generalization::kind_of_label(label),
                rows: rows[c as usize],
            }
        })
        .collect()
}

/// The claim's checks: k per constraint, the suppression budget, each
/// claimed model, with margins.
pub fn claim_summary(claim: &ClaimReport, budget: Option<u64>) -> ClaimSummary {
    let mut checks: Vec<Check> = claim
        .constraints
        .iter()
        .map(|c| Check {
            model: "k_anonymity".to_owned(),
            on: c.qi.clone(),
            parameter: format!("k={}", c.k),
            value: c.min_class.map(|m| m as f64),
            margin: c.min_class.map(|m| m as f64 - c.k as f64),
            holds: c.holds,
        })
        .collect();
    if let Some(budget) = budget {
        let suppressed = claim.suppressed_rows as f64;
        checks.push(Check {
            model: "suppression".to_owned(),
            on: Vec::new(),
            parameter: format!("at most {budget} rows"),
            value: Some(suppressed),
            margin: Some(budget as f64 - suppressed),
            holds: claim.suppressed_rows as u64 <= budget,
        });
    }
    if let Some(m) = &claim.models {
        checks.extend(m.checks.iter().map(|c| Check {
            model: c.model.to_owned(),
            on: vec![c.sensitive.clone()],
            parameter: c.parameter.clone(),
            value: c.value,
            margin: margin(c.model, &c.parameter, c.value),
            holds: c.holds,
        }));
    }
    let holds = checks.iter().all(|c| c.holds) && claim.holds();
    ClaimSummary {
        holds,
        policy: claim.policy,
        suppressed_rows: claim.suppressed_rows,
        suppression_budget: budget,
        checks,
    }
}

/// How far `value` is on the passing side of a model's one parameter: the
/// l's are lower bounds, t, α, δ and β upper bounds.
fn margin(model: &str, parameter: &str, value: Option<f64>) -> Option<f64> {
    let bound: f64 = parameter.split_once('=')?.1.parse().ok()?;
    let value = value?;
    match model {
        "l_diversity" | "entropy_l_diversity" => Some(value - bound),
        "t_closeness"
        | "alpha_k_anonymity"
        | "delta_disclosure"
        | "basic_beta_likeness"
        | "enhanced_beta_likeness" => Some(bound - value),
        _ => None,
    }
}

/// The class sizes' risk, and the histogram the report charts.
pub fn class_figures(claim: &ClaimReport) -> (Vec<(u32, u32)>, Option<Risk>) {
    let histogram = claim
        .constraints
        .first()
        .map(|c| c.histogram.clone())
        .unwrap_or_default();
    let sizes: Vec<u32> = histogram
        .iter()
        .flat_map(|&(size, count)| std::iter::repeat_n(size, count as usize))
        .collect();
    (histogram, risk_of_sizes(&sizes))
}

/// Discernibility and C_avg of the classes (the claim's largest k).
pub fn class_metrics(claim: &ClaimReport, histogram: &[(u32, u32)]) -> (f64, f64) {
    let rows = claim.rows as f64;
    let suppressed = claim.suppressed_rows as f64;
    let dm = histogram
        .iter()
        .map(|&(s, n)| f64::from(s) * f64::from(s) * f64::from(n))
        .sum::<f64>()
        + rows * suppressed;
    let classes: f64 = histogram.iter().map(|&(_, n)| f64::from(n)).sum();
    let k = claim.constraints.iter().map(|c| c.k).max().unwrap_or(1) as f64;
    let cavg = if classes == 0.0 {
        0.0
    } else {
        (rows - suppressed) / classes / k
    };
    (dm, cavg)
}

/// Each QI's loss from its labels (`heights`: each QI's hierarchy height).
pub fn attribute_loss(generalization: &[QiGeneralization]) -> Vec<AttributeLoss> {
    generalization
        .iter()
        .map(|g| {
            let share = |f: &dyn Fn(LabelKind) -> bool| -> f64 {
                (g.levels.iter())
                    .filter(|l| f(l.kind))
                    .fold(0.0, |sum, l| sum + l.share)
            };
            let height_loss = g.height.filter(|&h| h > 0).and_then(|h| {
                g.levels
                    .iter()
                    .map(|l| match l.kind {
                        LabelKind::Exact => Some(0.0),
                        LabelKind::Level(v) => Some(l.share * f64::from(v) / f64::from(h)),
                        LabelKind::Suppressed => Some(l.share),
                        _ => None,
                    })
                    .sum::<Option<f64>>()
            });
            AttributeLoss {
                name: g.name.clone(),
                exact: share(&|k| k == LabelKind::Exact),
                generalized: share(&|k| {
                    !matches!(
                        k,
                        LabelKind::Exact | LabelKind::Suppressed | LabelKind::Label
                    )
                }),
                suppressed: share(&|k| k == LabelKind::Suppressed),
                height_loss,
                labels: g.levels.iter().map(|l| l.labels).sum(),
            }
        })
        .collect()
}

/// The generalization of each QI (`labels` per QI, `heights` each one's
/// hierarchy height).
pub fn generalization(
    names: &[String],
    heights: &[Option<u32>],
    labels: &[Vec<Labelled>],
) -> Vec<QiGeneralization> {
    (names.iter().zip(heights).zip(labels))
        .map(|((n, &h), l)| describe(n, h, l))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn margins_point_to_the_passing_side() {
        assert_eq!(margin("l_diversity", "l=2", Some(3.0)), Some(1.0));
        assert_eq!(margin("t_closeness", "t=0.5", Some(0.2)), Some(0.3));
        assert_eq!(
            margin("recursive_c_l_diversity", "c=2,l=3", Some(1.0)),
            None
        );
        assert_eq!(margin("delta_disclosure", "delta=1", Some(2.0)), Some(-1.0));
    }

    #[test]
    fn times_in_rfc_3339() {
        assert_eq!(Generated::at(0).time, "1970-01-01T00:00:00Z");
        assert_eq!(Generated::at(1_700_000_000).time, "2023-11-14T22:13:20Z");
    }
}
