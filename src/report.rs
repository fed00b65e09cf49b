//! The anonymization report: what `karc anonymize --report-json` writes and
//! what an archive keeps beside its release.

use serde::{Deserialize, Serialize};

use crate::anonymize::{self, Algorithm, Outcome};
use crate::classes::Partition;
use crate::config::AlgorithmConfig;
use crate::dataset::Dataset;
use crate::metrics::{Metrics, measure, measure_classes};
use crate::privacy::PrivacyModel;
use crate::table::Column;

/// What ran: the algorithm, its seed and its wall-clock time.
struct Run {
    algorithm: Algorithm,
    seed: u64,
    elapsed_ms: f64,
}

/// One constraint of the privacy model: k over some QIs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConstraintSummary {
    /// The constrained quasi-identifiers' names.
    pub qi: Vec<String>,
    /// Rows each class over them must hold.
    pub k: usize,
}

/// What an anonymization did: its parameters, its release's classes and
/// suppressions, and the utility it kept (docs/JSON.md, "report").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The algorithm's name.
    pub algorithm: String,
    /// The largest k of the constraint set (the k of a single constraint).
    pub k: usize,
    /// The constraint set.
    pub constraints: Vec<ConstraintSummary>,
    /// The seed of randomized steps.
    pub seed: u64,
    /// Rows of the input.
    pub rows: usize,
    /// Rows released with `*` in every QI.
    pub suppressed: usize,
    /// The most rows the algorithm may suppress.
    pub suppression_budget: usize,
    /// Classes over the constrained QIs, suppressed rows left out.
    pub classes: usize,
    /// The smallest class (`None`: every row suppressed).
    pub min_class: Option<usize>,
    /// Global recoding: one level per QI in config order.
    pub levels: Option<Vec<usize>>,
    /// Incognito: every minimal k-anonymous level vector.
    pub minimal_levels: Option<Vec<Vec<usize>>>,
    /// The quasi-identifiers' names, in config order.
    pub qis: Vec<String>,
    /// The utility kept (Precision, NCP, GLM, DM, C_avg).
    pub metrics: Metrics,
    /// The anonymization's wall-clock time.
    pub elapsed_ms: f64,
    /// The derived-column check of the release (`crate::derived`): `None`
    /// when no column besides the QIs is released.
    #[serde(default)]
    pub column_checks: Option<crate::derived::ColumnChecks>,
}

impl Report {
    /// Runs `config`'s algorithm on `data` under `model`, timed, and
    /// reports on its release: what `anonymize`, `pack`, `compare` and the
    /// benchmarks all do.
    pub fn anonymize(
        data: &Dataset,
        model: &PrivacyModel,
        config: &AlgorithmConfig,
    ) -> crate::Result<(Outcome, Report)> {
        Report::anonymize_labelled(data, model, config)
            .map(|(outcome, report, _)| (outcome, report))
    }

    /// [`Report::anonymize`], and the release's QI columns as the public
    /// sees them, which its check and report used.
    pub(crate) fn anonymize_labelled(
        data: &Dataset,
        model: &PrivacyModel,
        config: &AlgorithmConfig,
    ) -> crate::Result<(Outcome, Report, Vec<Column>)> {
        let algorithm = Algorithm::from_name(&config.name)?;
        let start = std::time::Instant::now();
        let (outcome, labels) = anonymize::run_labelled(data, model, config)?;
        let elapsed_ms = start.elapsed().as_secs_f64() * 1e3;
        let run = Run {
            algorithm,
            seed: config.seed,
            elapsed_ms,
        };
        let report = Report::labelled(run, data, model, &outcome, &labels);
        Ok((outcome, report, labels))
    }

    #[allow(clippy::too_many_arguments)]
    /// The report of `algorithm`'s `outcome`; the suppression budget is the
    /// algorithm's own (`Algorithm::suppression_budget`), the one its release
    /// was checked against and that readers re-check.
    pub fn new(
        algorithm: Algorithm,
        seed: u64,
        data: &Dataset,
        model: &PrivacyModel,
        outcome: &Outcome,
        elapsed_ms: f64,
    ) -> Report {
        let run = Run {
            algorithm,
            seed,
            elapsed_ms,
        };
        let labels = outcome.release.qi_columns(data);
        Report::labelled(run, data, model, outcome, &labels)
    }

    /// [`Report::new`] of a release whose QI columns as the public sees
    /// them are `labels` ([`crate::release::Release::qi_columns`]).
    fn labelled(
        run: Run,
        data: &Dataset,
        model: &PrivacyModel,
        outcome: &Outcome,
        labels: &[Column],
    ) -> Report {
        let Run {
            algorithm,
            seed,
            elapsed_ms,
        } = run;
        let budget = algorithm.suppression_budget(model, data.rows());
        let release = &outcome.release;
        let suppressed = crate::privacy::release_suppressed(data, release, model);
        let constrained = model.constrained_qis(data.qis.len());
        let columns = constrained.iter().map(|&q| &labels[q].codes[..]);
        let p = Partition::of_columns(columns, data.rows(), Some(&suppressed));
        // The metrics' classes are over every QI: these, when every QI is
        // constrained (the usual claim), else made again.
        let metrics = match constrained.len() == data.qis.len() {
            true => measure_classes(data, release, model, &suppressed, &p),
            false => measure(data, release, model),
        };
        Report {
            algorithm: algorithm.name().to_owned(),
            k: model.max_k(),
            constraints: model
                .constraints
                .iter()
                .map(|c| ConstraintSummary {
                    qi: c.qis.iter().map(|&q| data.qis[q].name.clone()).collect(),
                    k: c.k,
                })
                .collect(),
            seed,
            rows: data.rows(),
            suppressed: suppressed.iter().filter(|&&s| s).count(),
            suppression_budget: budget,
            classes: p.classes(),
            min_class: p.min_class().map(|s| s as usize),
            levels: outcome.levels.clone(),
            minimal_levels: outcome.minimal_levels.clone(),
            qis: data.qis.iter().map(|q| q.name.clone()).collect(),
            metrics,
            elapsed_ms,
            column_checks: None,
        }
    }

    /// [`Report::anonymize`], then the derived-column check
    /// (`crate::derived`) of its release, its result kept, and a released
    /// column that pins a QI the config does not allow it to refused
    /// (exit 1): what every entry point that releases runs before it
    /// writes anything. (The check is not run beside the report: on 1M
    /// rows of `gen-table mixed`, whose QIs are near-unique, holding both
    /// at once took a pack's peak from 953 to 1,105 MB.)
    pub fn anonymize_checked(
        config: &crate::config::Config,
        data: &Dataset,
        model: &PrivacyModel,
    ) -> crate::Result<(Outcome, Report)> {
        let (outcome, mut report, labels) =
            Report::anonymize_labelled(data, model, &config.algorithm)?;
        let checks = crate::derived::check_release(config, data, labels);
        report.column_checks = checks;
        if let Some(checks) = &report.column_checks {
            checks.enforce(&format!("{}: ", data.table.source.display()))?;
        }
        Ok((outcome, report))
    }

    /// A short human summary (two lines).
    pub fn summary(&self) -> String {
        let fmt_opt = |v: Option<f64>| v.map_or("n/a".to_owned(), |v| format!("{v:.4}"));
        let levels = self
            .levels
            .as_ref()
            .map(|l| format!(", levels {l:?}"))
            .unwrap_or_default();
        format!(
            "{} k={} on {} rows, {} QIs: {} suppressed, {} classes (smallest {}){}, {:.1} ms\n\
             precision {}  ncp {:.4}  ncp_kaylode {:.4}  glm {:.4}  dm {:.0}  cavg {:.3}",
            self.algorithm,
            self.k,
            self.rows,
            self.qis.len(),
            self.suppressed,
            self.classes,
            self.min_class.map_or("-".to_owned(), |m| m.to_string()),
            levels,
            self.elapsed_ms,
            fmt_opt(self.metrics.precision),
            self.metrics.ncp,
            self.metrics.ncp_kaylode,
            self.metrics.glm,
            self.metrics.dm,
            self.metrics.cavg,
        )
    }
}
