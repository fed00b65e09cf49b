//! The models beyond k, measured on a release and checked against a claim:
//! every model's value for every sensitive attribute, named after the
//! pyCANON function that computes it, with the re-identification risk.
//!
//! With several sensitive attributes the classes are those of the QIs and
//! each model holds for each attribute (pyCANON's `gen=True`): a release's
//! value is the worst over the attributes.

use serde::{Deserialize, Serialize};

use super::definitions::Definitions;
use super::distribution::Distribution;
use super::risk::{Risk, risk};
use super::sensitive::{Distance, Sensitive};
use super::{alpha_k, beta_likeness, delta_disclosure, k, l_diversity, t_closeness};
use crate::cell::SUPPRESSED;
use crate::classes::Partition;
use crate::config::PrivacyConfig;
use crate::table::Column;

/// The models a release claims beyond k, each with its parameter.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Models {
    /// Distinct ℓ: every class holds at least l sensitive values.
    pub l: Option<usize>,
    /// Entropy ℓ: every class's entropy ℓ is at least this.
    pub entropy_l: Option<f64>,
    /// Recursive (c,ℓ): r1 < c (r_ℓ + … + r_m) in every class.
    pub recursive_cl: Option<(f64, usize)>,
    /// t-closeness: every class within EMD t.
    pub t: Option<f64>,
    /// (α,k): no value above a share α of its class.
    pub alpha: Option<f64>,
    /// δ-disclosure: |ln(q/p)| at most δ.
    pub delta: Option<f64>,
    /// β-likeness: relative gain at most β (enhanced when `enhanced_beta`).
    pub beta: Option<f64>,
    /// Whether `beta` is enhanced β-likeness rather than basic.
    #[serde(default)]
    pub enhanced_beta: bool,
    /// Whose definitions the values follow.
    #[serde(default)]
    pub definitions: Definitions,
}

/// Defined here, not in config, so that imports run down (config knows
/// nothing of the models).
impl PrivacyConfig {
    /// The models beyond k these keys claim, by pyCANON's definitions (the
    /// ones the anonymizers enforce): the one reading of the keys.
    pub fn models(&self) -> Models {
        Models {
            l: self.l,
            entropy_l: self.entropy_l,
            recursive_cl: self.recursive_cl,
            t: self.t,
            alpha: self.alpha,
            delta: self.delta,
            beta: self.beta,
            enhanced_beta: self.enhanced_beta,
            definitions: Definitions::PyCanon,
        }
    }

    /// Whether the keys name sensitive columns or claim a model beyond k.
    pub fn beyond_k(&self) -> bool {
        !self.sensitive.is_empty() || self.models().any()
    }
}

impl Models {
    /// Whether any model beyond k is claimed.
    pub fn any(&self) -> bool {
        self.l.is_some()
            || self.entropy_l.is_some()
            || self.recursive_cl.is_some()
            || self.t.is_some()
            || self.alpha.is_some()
            || self.delta.is_some()
            || self.beta.is_some()
    }

    /// Refuses parameters no model takes (one line naming the flag).
    pub fn check(&self) -> Result<(), String> {
        let positive = |name: &str, v: Option<f64>| match v {
            Some(v) if !(v.is_finite() && v >= 0.0) => {
                Err(format!("{name}: expected a number >= 0, found {v}"))
            }
            _ => Ok(()),
        };
        if self.l == Some(0) {
            return Err("--l: expected a whole number >= 1, found 0".to_owned());
        }
        if let Some((c, l)) = self.recursive_cl
            && (!(c.is_finite() && c > 0.0) || l < 2)
        {
            return Err(format!(
                "--recursive-cl: expected C > 0 and L >= 2, found {c},{l}"
            ));
        }
        positive("--entropy-l", self.entropy_l)?;
        positive("--t", self.t)?;
        positive("--alpha", self.alpha)?;
        positive("--delta", self.delta)?;
        positive("--beta", self.beta)
    }
}

/// Every model's value on one sensitive attribute (`None`: no class).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SensitiveReport {
    /// The sensitive column.
    pub sensitive: String,
    /// Whether t-closeness measured it with the ordered distance.
    pub numeric: bool,
    /// t-closeness's ground distance: `equal`, `ordered` or
    /// `hierarchical`, as the column's declaration gives it.
    pub distance: Distance,
    /// Distinct ℓ: fewest distinct values in a class.
    pub l_diversity: Option<usize>,
    /// Entropy ℓ: the smallest over the classes.
    pub entropy_l_diversity: Option<f64>,
    /// Recursive c at the release's ℓ (over every attribute, as pyCANON).
    pub recursive_c: Option<f64>,
    /// α: the largest share of one value in a class.
    pub alpha: Option<f64>,
    /// t: the largest EMD of a class to the table.
    pub t_closeness: Option<f64>,
    /// δ: the largest |ln(q/p)| over classes and values.
    pub delta_disclosure: Option<f64>,
    /// Basic β: the largest relative gain.
    pub basic_beta_likeness: Option<f64>,
    /// Enhanced β: the largest relative gain, capped per value.
    pub enhanced_beta_likeness: Option<f64>,
}

/// (α,k)-anonymity of a release: both halves, each `None` without classes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlphaK {
    /// The release's α (worst over its sensitive attributes).
    pub alpha: Option<f64>,
    /// The release's k.
    pub k: Option<usize>,
}

/// Recursive (c,ℓ)-diversity of a release: the ℓ it reaches and c at that ℓ.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecursiveCl {
    /// The c at `l`.
    pub c: Option<f64>,
    /// The release's distinct ℓ.
    pub l: Option<usize>,
}

/// One claimed model checked on one attribute.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelCheck {
    /// The pyCANON name of the model.
    pub model: &'static str,
    /// The sensitive column.
    pub sensitive: String,
    /// The claimed parameter, as the flag gives it.
    pub parameter: String,
    /// The release's value (`None`: no class; JSON null also stands for an
    /// unbounded value).
    pub value: Option<f64>,
    /// Whether the release's value meets the parameter.
    pub holds: bool,
}

/// The models measured on a release: the release's value of each (the
/// worst over its sensitive attributes), per attribute, the risk, and the
/// claimed models' checks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelsReport {
    /// Whose definitions the values follow.
    pub definitions: Definitions,
    /// The smallest class.
    pub k_anonymity: Option<usize>,
    /// (α,k)-anonymity.
    pub alpha_k_anonymity: AlphaK,
    /// Distinct ℓ.
    pub l_diversity: Option<usize>,
    /// Entropy ℓ.
    pub entropy_l_diversity: Option<f64>,
    /// Recursive (c,ℓ)-diversity.
    pub recursive_c_l_diversity: RecursiveCl,
    /// Basic β-likeness.
    pub basic_beta_likeness: Option<f64>,
    /// Enhanced β-likeness.
    pub enhanced_beta_likeness: Option<f64>,
    /// t-closeness.
    pub t_closeness: Option<f64>,
    /// δ-disclosure privacy.
    pub delta_disclosure: Option<f64>,
    /// Re-identification risk from the class sizes.
    pub risk: Option<Risk>,
    /// Every model on each sensitive attribute.
    pub sensitive: Vec<SensitiveReport>,
    /// The claimed models, each checked on each attribute.
    pub checks: Vec<ModelCheck>,
}

impl ModelsReport {
    /// Whether every claimed model holds.
    pub fn holds(&self) -> bool {
        self.checks.iter().all(|c| c.holds)
    }

    /// One line per failed check, for messages.
    pub fn failures(&self) -> Vec<String> {
        self.checks
            .iter()
            .filter(|c| !c.holds)
            .map(|c| {
                let value = c.value.map_or("unbounded".to_owned(), |v| format!("{v}"));
                format!(
                    "{} ({}) on {}: the release has {value}",
                    c.model, c.parameter, c.sensitive
                )
            })
            .collect()
    }
}

fn worst(values: impl Iterator<Item = Option<f64>>, max: bool) -> Option<f64> {
    let pick = if max { f64::max } else { f64::min };
    values.flatten().reduce(pick)
}

/// Measures every model on the classes `p` (exempt rows outside every
/// class) for each of `sensitive`, and checks `claim`.
pub fn measure(p: &Partition, sensitive: &[Sensitive], claim: &Models) -> ModelsReport {
    let defs = claim.definitions;
    let dists: Vec<Distribution> = sensitive
        .iter()
        .map(|s| Distribution::new(s, p, defs == Definitions::PyCanon))
        .collect();
    let l = dists.iter().filter_map(l_diversity::distinct_l).min();
    let per: Vec<SensitiveReport> = dists
        .iter()
        .map(|d| SensitiveReport {
            sensitive: d.name.clone(),
            numeric: d.distance == Distance::Ordered,
            distance: d.distance,
            l_diversity: l_diversity::distinct_l(d),
            entropy_l_diversity: l_diversity::min_entropy(d)
                .map(|h| l_diversity::entropy_l(h, defs)),
            recursive_c: l.and_then(|l| l_diversity::recursive_c(d, l, defs)),
            alpha: alpha_k::alpha(d),
            t_closeness: t_closeness::t_closeness(d),
            delta_disclosure: delta_disclosure::delta(d, defs),
            basic_beta_likeness: beta_likeness::basic_beta(d),
            enhanced_beta_likeness: beta_likeness::enhanced_beta(d, defs),
        })
        .collect();
    let checks = dists
        .iter()
        .zip(&per)
        .flat_map(|(d, s)| checks(d, s, claim))
        .collect();
    ModelsReport {
        definitions: defs,
        k_anonymity: k::k_anonymity(p),
        alpha_k_anonymity: AlphaK {
            alpha: worst(per.iter().map(|s| s.alpha), true),
            k: k::k_anonymity(p),
        },
        l_diversity: l,
        entropy_l_diversity: worst(per.iter().map(|s| s.entropy_l_diversity), false),
        recursive_c_l_diversity: RecursiveCl {
            c: worst(per.iter().map(|s| s.recursive_c), true),
            l,
        },
        basic_beta_likeness: worst(per.iter().map(|s| s.basic_beta_likeness), true),
        enhanced_beta_likeness: worst(per.iter().map(|s| s.enhanced_beta_likeness), true),
        t_closeness: worst(per.iter().map(|s| s.t_closeness), true),
        delta_disclosure: worst(per.iter().map(|s| s.delta_disclosure), true),
        risk: risk(p),
        sensitive: per,
        checks,
    }
}

/// Measures every model on a release given as its released QI columns
/// `qi` (labels): the classes of `qi`, the all-`*` rows left out when
/// `exempt` (they are suppressed rows under `mask`, `spec/FORMAT.md` §5),
/// else counted as one class.
pub fn measure_columns(
    qi: &[&Column],
    exempt: bool,
    sensitive: &[Sensitive],
    claim: &Models,
) -> ModelsReport {
    let rows = qi.first().map_or(0, |c| c.codes.len());
    let stars: Vec<Option<u32>> = qi.iter().map(|c| c.dict.code(SUPPRESSED)).collect();
    let star: Vec<bool> = (0..rows)
        .map(|r| {
            exempt
                && qi
                    .iter()
                    .zip(&stars)
                    .all(|(c, s)| s.is_some_and(|s| c.codes[r] == s))
        })
        .collect();
    let cols: Vec<&[u32]> = qi.iter().map(|c| &c.codes[..]).collect();
    let p = Partition::new(&cols, rows, exempt.then_some(&star[..]));
    measure(&p, sensitive, claim)
}

/// The claimed models' checks on one attribute. Without classes (every row
/// exempt) each holds, as k does.
fn checks(d: &Distribution, s: &SensitiveReport, claim: &Models) -> Vec<ModelCheck> {
    let mut out = Vec::new();
    let mut push = |model, parameter: String, value: Option<f64>, holds: bool| {
        out.push(ModelCheck {
            model,
            sensitive: s.sensitive.clone(),
            parameter,
            value: value.filter(|v| v.is_finite()),
            holds,
        })
    };
    let at_least = |v: Option<f64>, x: f64| v.is_none_or(|v| v >= x);
    let at_most = |v: Option<f64>, x: f64| v.is_none_or(|v| v <= x);
    if let Some(l) = claim.l {
        let v = s.l_diversity.map(|v| v as f64);
        push("l_diversity", format!("l={l}"), v, at_least(v, l as f64));
    }
    if let Some(l) = claim.entropy_l {
        // e^H itself: pyCANON's whole ⌊e^H⌋ >= L for a whole L, and a
        // fractional L keeps its meaning.
        let v =
            l_diversity::min_entropy(d).map(|h| l_diversity::entropy_l(h, Definitions::Literature));
        push("entropy_l_diversity", format!("l={l}"), v, at_least(v, l));
    }
    if let Some((c, l)) = claim.recursive_cl {
        let v = l_diversity::recursive_c(d, l, Definitions::Literature);
        let holds = l_diversity::recursive_holds(d, c, l);
        push("recursive_c_l_diversity", format!("c={c},l={l}"), v, holds);
    }
    if let Some(t) = claim.t {
        let v = s.t_closeness;
        push("t_closeness", format!("t={t}"), v, at_most(v, t));
    }
    if let Some(a) = claim.alpha {
        let v = s.alpha;
        push("alpha_k_anonymity", format!("alpha={a}"), v, at_most(v, a));
    }
    if let Some(delta) = claim.delta {
        let v = s.delta_disclosure;
        push(
            "delta_disclosure",
            format!("delta={delta}"),
            v,
            at_most(v, delta),
        );
    }
    if let Some(b) = claim.beta {
        let (model, v) = if claim.enhanced_beta {
            ("enhanced_beta_likeness", s.enhanced_beta_likeness)
        } else {
            ("basic_beta_likeness", s.basic_beta_likeness)
        };
        push(model, format!("beta={b}"), v, at_most(v, b));
    }
    out
}
