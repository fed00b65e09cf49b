//! The models axis of `compare`: the information loss each privacy model
//! beyond k costs, beside k alone, per algorithm and k.
//!
//! A model set is written as the `[privacy]` keys name its models
//! (`"l=2,t=0.2"`). Each (algorithm, k) is anonymized under k alone, then
//! under each set; a row's loss is read against k alone's. An algorithm
//! that cannot meet a set gives a row carrying the refusal, not an abort:
//! which models an algorithm can meet is part of what is compared.

use serde::Serialize;

use crate::anonymize::Algorithm;
use crate::config::{Config, PrivacyConfig};
use crate::dataset::Dataset;
use crate::metrics::Metrics;
use crate::privacy::{Models, PrivacyModel};
use crate::report::Report;
use crate::{Error, Result};

/// The label of the first set of every (algorithm, k): no model beyond k.
pub const K_ALONE: &str = "k";

/// The keys a model set takes, as [privacy] names them.
const KEYS: &str = "l, entropy_l, recursive_cl=C:L, t, alpha, delta, beta, enhanced_beta";

/// One model set, as given, and the models it claims.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSet {
    /// The text as given (trimmed): the rows' label.
    pub label: String,
    /// The models.
    pub models: Models,
}

fn number<T: std::str::FromStr>(text: &str, key: &str, value: &str, what: &str) -> Result<T> {
    value.trim().parse().map_err(|_| {
        Error::Options(format!(
            "--models {text:?}: {key}: expected {what}, found {value:?}"
        ))
    })
}

impl ModelSet {
    /// Parses `"l=2,t=0.2"`: comma-separated `key=value` settings, with
    /// `enhanced_beta` alone (or `=true`) making `beta` enhanced.
    pub fn parse(text: &str) -> Result<ModelSet> {
        let label = text.trim().to_owned();
        let mut m = Models::default();
        for setting in label.split(',').map(str::trim) {
            let (key, value) = match setting.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim())),
                None => (setting, None),
            };
            let value = match (key, value) {
                ("enhanced_beta", None | Some("true")) => {
                    m.enhanced_beta = true;
                    continue;
                }
                (_, Some(v)) => v,
                (_, None) => {
                    return Err(Error::Options(format!(
                        "--models {text:?}: expected key=value settings ({KEYS}), found {setting:?}"
                    )));
                }
            };
            let real = |key| number::<f64>(text, key, value, "a number");
            match key {
                "l" => m.l = Some(number(text, key, value, "a whole number")?),
                "entropy_l" => m.entropy_l = Some(real(key)?),
                "t" => m.t = Some(real(key)?),
                "alpha" => m.alpha = Some(real(key)?),
                "delta" => m.delta = Some(real(key)?),
                "beta" => m.beta = Some(real(key)?),
                "recursive_cl" => {
                    let (c, l) = value.split_once(':').ok_or_else(|| {
                        Error::Options(format!(
                            "--models {text:?}: recursive_cl: expected C:L, found {value:?}"
                        ))
                    })?;
                    m.recursive_cl = Some((
                        number(text, key, c, "C:L with a number C")?,
                        number(text, key, l, "C:L with a whole number L")?,
                    ));
                }
                _ => {
                    return Err(Error::Options(format!(
                        "--models {text:?}: unknown model {key:?}: expected one of {KEYS}"
                    )));
                }
            }
        }
        if m.enhanced_beta && m.beta.is_none() {
            return Err(Error::Options(format!(
                "--models {text:?}: enhanced_beta needs beta=B"
            )));
        }
        m.check()
            .map_err(|e| Error::Options(format!("--models {text:?}: {e}")))?;
        Ok(ModelSet { label, models: m })
    }

    /// Sets these models on `p`, replacing any it had (k alone: none, and
    /// no sensitive column, which a config names only with a model).
    fn apply(&self, p: &mut PrivacyConfig) {
        let m = &self.models;
        if !m.any() {
            p.sensitive.clear();
        }
        p.l = m.l;
        p.entropy_l = m.entropy_l;
        p.recursive_cl = m.recursive_cl;
        p.t = m.t;
        p.alpha = m.alpha;
        p.delta = m.delta;
        p.beta = m.beta;
        p.enhanced_beta = m.enhanced_beta;
    }
}

/// One (algorithm, k, model set): the loss, or why the algorithm refused.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelRow {
    /// The algorithm's name.
    pub algorithm: String,
    /// Its k.
    pub k: usize,
    /// The model set as given (`k`: k alone).
    pub models: String,
    /// Why the algorithm gave no release under the set (`None`: it did).
    pub refused: Option<String>,
    /// The release's utility (`None` when refused).
    pub metrics: Option<Metrics>,
    /// NCP minus k alone's NCP (the model's cost; `None` when either refused).
    pub ncp_increase: Option<f64>,
    /// GLM minus k alone's GLM.
    pub glm_increase: Option<f64>,
    /// Rows released with `*` in every QI.
    pub suppressed: Option<usize>,
    /// The anonymization's time.
    pub anonymize_ms: Option<f64>,
}

/// Anonymizes under one set. The set's model is built first, and an error
/// there aborts (a sensitive column the config lacks fails every set
/// alike); the algorithm's refusal is a row. A failed release check is a
/// bug, never an algorithm's limit, and aborts too.
fn run(
    config: &Config,
    data: &Dataset,
    set: &ModelSet,
) -> Result<std::result::Result<Report, String>> {
    let mut config = config.clone();
    set.apply(&mut config.privacy);
    let model = PrivacyModel::from_config(&config, data)?;
    match Report::anonymize(data, &model, &config.algorithm) {
        Ok((_, report)) => Ok(Ok(report)),
        Err(e @ (Error::ReleaseCheck { .. } | Error::Io { .. })) => Err(e),
        Err(e) => Ok(Err(e.to_string())),
    }
}

/// The rows of `algorithms` × `ks` × (k alone, then `sets`) on `data`;
/// `progress` hears of each.
pub fn compare_models(
    config: &Config,
    data: &Dataset,
    algorithms: &[Algorithm],
    ks: &[usize],
    sets: &[ModelSet],
    progress: &mut dyn FnMut(&ModelRow),
) -> Result<Vec<ModelRow>> {
    if config.privacy.sensitive.is_empty() {
        return Err(Error::Options(
            "--models: the models hold on a sensitive column: give --sensitive (or [privacy] sensitive)"
                .to_owned(),
        ));
    }
    let alone = ModelSet {
        label: K_ALONE.to_owned(),
        models: Models::default(),
    };
    let mut rows = Vec::new();
    for &algorithm in algorithms {
        for &k in ks {
            let mut config = config.clone();
            config.algorithm.name = algorithm.name().to_owned();
            config.privacy.k = Some(k);
            config.privacy.constraints.clear();
            let mut base: Option<Metrics> = None;
            for set in std::iter::once(&alone).chain(sets) {
                let outcome = run(&config, data, set)?;
                let (report, refused) = match outcome {
                    Ok(r) => (Some(r), None),
                    Err(e) => (None, Some(e)),
                };
                let metrics = report.as_ref().map(|r| r.metrics.clone());
                if set.label == K_ALONE && base.is_none() {
                    base.clone_from(&metrics);
                }
                let increase =
                    |f: fn(&Metrics) -> f64| Some(f(metrics.as_ref()?) - f(base.as_ref()?));
                let row = ModelRow {
                    algorithm: algorithm.name().to_owned(),
                    k,
                    models: set.label.clone(),
                    refused,
                    ncp_increase: increase(|m| m.ncp),
                    glm_increase: increase(|m| m.glm),
                    metrics,
                    suppressed: report.as_ref().map(|r| r.suppressed),
                    anonymize_ms: report.as_ref().map(|r| r.elapsed_ms),
                };
                progress(&row);
                rows.push(row);
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_key_and_refuses_bad_text() {
        let s = ModelSet::parse(" l=2, t=0.2,recursive_cl=3:2,beta=1,enhanced_beta ").unwrap();
        assert_eq!(s.label, "l=2, t=0.2,recursive_cl=3:2,beta=1,enhanced_beta");
        assert_eq!(s.models.l, Some(2));
        assert_eq!(s.models.t, Some(0.2));
        assert_eq!(s.models.recursive_cl, Some((3.0, 2)));
        assert!(s.models.enhanced_beta && s.models.beta == Some(1.0));
        for bad in [
            "q=1",
            "t",
            "t=x",
            "l=0",
            "l=1.5",
            "recursive_cl=3",
            "enhanced_beta",
            "alpha=-1",
            "",
        ] {
            let e = ModelSet::parse(bad).unwrap_err().to_string();
            assert!(
                e.starts_with("--models ") && !e.contains('\n'),
                "{bad}: {e}"
            );
        }
    }
}
