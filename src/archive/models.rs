//! The `PRIVACY_MODELS` section (`spec/FORMAT.md` §5.1): the models beyond
//! k a release claims, with their parameters and sensitive columns, so that
//! every reader re-checks them on open as it re-checks k.
//!
//! A wire copy of [`Models`], kept apart so that the format does not change
//! when the in-memory type grows.

use serde::{Deserialize, Serialize};

use super::meta::PublicMeta;
use crate::config::Role;
use crate::privacy::{Definitions, Distance, Models};

/// t-closeness's ground distance on one sensitive column (postcard: the
/// variant index), as its declaration in `META` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DistanceMeta {
    /// Categories, one apart ([`Distance::Equal`]).
    Equal,
    /// Numbers in order ([`Distance::Ordered`]).
    Ordered,
    /// Leaves of the column's hierarchy ([`Distance::Hierarchical`]).
    Hierarchical,
}

impl From<Distance> for DistanceMeta {
    fn from(d: Distance) -> DistanceMeta {
        match d {
            Distance::Equal => DistanceMeta::Equal,
            Distance::Ordered => DistanceMeta::Ordered,
            Distance::Hierarchical => DistanceMeta::Hierarchical,
        }
    }
}

/// Whose definitions the claim is checked by (postcard: the variant index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DefinitionsMeta {
    /// pyCANON 1.3's definitions ([`Definitions::PyCanon`]).
    PyCanon,
    /// The papers' definitions ([`Definitions::Literature`]).
    Literature,
}

/// The claimed models, on `sensitive` (indices into `PublicMeta::columns`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelsClaim {
    /// The sensitive columns, as indices into the public columns.
    pub sensitive: Vec<u32>,
    /// Distinct ℓ-diversity.
    pub l: Option<u64>,
    /// Entropy ℓ-diversity.
    pub entropy_l: Option<f64>,
    /// Recursive (c, ℓ)-diversity.
    pub recursive_cl: Option<(f64, u64)>,
    /// t-closeness (equal-distance EMD).
    pub t: Option<f64>,
    /// (α, k)-anonymity's α.
    pub alpha: Option<f64>,
    /// δ-disclosure privacy.
    pub delta: Option<f64>,
    /// β-likeness (basic, or enhanced by `enhanced_beta`).
    pub beta: Option<f64>,
    /// Whether `beta` is enhanced β-likeness.
    pub enhanced_beta: bool,
    /// Whose definitions the values follow.
    pub definitions: DefinitionsMeta,
    /// t-closeness's ground distance on each of `sensitive` (2.0).
    pub distances: Vec<DistanceMeta>,
}

impl ModelsClaim {
    /// The claim of `models` on the table columns `sensitive`, measured
    /// with `distances` (one each).
    pub fn new(sensitive: &[usize], models: &Models, distances: &[Distance]) -> ModelsClaim {
        ModelsClaim {
            sensitive: sensitive.iter().map(|&c| c as u32).collect(),
            l: models.l.map(|l| l as u64),
            entropy_l: models.entropy_l,
            recursive_cl: models.recursive_cl.map(|(c, l)| (c, l as u64)),
            t: models.t,
            alpha: models.alpha,
            delta: models.delta,
            beta: models.beta,
            enhanced_beta: models.enhanced_beta,
            definitions: match models.definitions {
                Definitions::PyCanon => DefinitionsMeta::PyCanon,
                Definitions::Literature => DefinitionsMeta::Literature,
            },
            distances: distances.iter().map(|&d| d.into()).collect(),
        }
    }

    /// The models as the checks take them (after [`ModelsClaim::validate`]:
    /// counts fit a `usize`).
    pub fn models(&self) -> Models {
        Models {
            l: self.l.map(|l| l as usize),
            entropy_l: self.entropy_l,
            recursive_cl: self.recursive_cl.map(|(c, l)| (c, l as usize)),
            t: self.t,
            alpha: self.alpha,
            delta: self.delta,
            beta: self.beta,
            enhanced_beta: self.enhanced_beta,
            definitions: match self.definitions {
                DefinitionsMeta::PyCanon => Definitions::PyCanon,
                DefinitionsMeta::Literature => Definitions::Literature,
            },
        }
    }

    /// The section's rules: at least one model, each parameter in its
    /// range, and distinct sensitive columns of `meta` (role sensitive).
    pub fn validate(&self, meta: &PublicMeta) -> Result<(), String> {
        let too_big = |v: Option<u64>| v.is_some_and(|v| usize::try_from(v).is_err());
        if too_big(self.l) || too_big(self.recursive_cl.map(|(_, l)| l)) {
            return Err("a model's l does not fit this machine's word".to_owned());
        }
        let models = self.models();
        if !models.any() {
            return Err("no model is claimed".to_owned());
        }
        models.check()?;
        if self.sensitive.is_empty() {
            return Err("no sensitive column".to_owned());
        }
        for (i, &c) in self.sensitive.iter().enumerate() {
            let ok = meta
                .columns
                .get(c as usize)
                .is_some_and(|m| m.role == Role::Sensitive);
            if !ok || self.sensitive[..i].contains(&c) {
                return Err(format!(
                    "sensitive column {c}: expected a sensitive column of the metadata, listed once"
                ));
            }
        }
        if self.distances.len() != self.sensitive.len() {
            return Err(format!(
                "{} distances for {} sensitive columns: expected one each",
                self.distances.len(),
                self.sensitive.len()
            ));
        }
        for (&c, &d) in self.sensitive.iter().zip(&self.distances) {
            let m = &meta.columns[c as usize];
            let declared = Distance::declared(m.value_type, m.hierarchy.is_some());
            if DistanceMeta::from(declared) != d {
                return Err(format!(
                    "column {:?}: distance {d:?}, but its declaration ({:?}{}) gives {}",
                    m.name,
                    m.value_type,
                    if m.hierarchy.is_some() {
                        ", a hierarchy"
                    } else {
                        ""
                    },
                    declared.name()
                ));
            }
        }
        Ok(())
    }

    /// The sensitive columns' names, for messages.
    pub fn names<'a>(&self, meta: &'a PublicMeta) -> Vec<&'a str> {
        self.sensitive
            .iter()
            .map(|&c| meta.columns[c as usize].name.as_str())
            .collect()
    }
}

/// A sensitive column's hierarchy is public only for the hierarchical
/// distance of a claim on it: refuses one that no claim lists.
pub fn check_sensitive_hierarchies(
    meta: &PublicMeta,
    claim: Option<&ModelsClaim>,
) -> Result<(), String> {
    for (i, c) in meta.columns.iter().enumerate() {
        let listed = claim.is_some_and(|m| m.sensitive.contains(&(i as u32)));
        if c.role == Role::Sensitive && c.hierarchy.is_some() && !listed {
            return Err(format!(
                "sensitive column {:?} has a hierarchy but no PRIVACY_MODELS claim measures it",
                c.name
            ));
        }
    }
    Ok(())
}
