//! The `COLUMN_CHECKS` section (`spec/FORMAT.md` §5.2): which released
//! columns the derived-column check (`crate::derived`) measured against
//! which quasi-identifiers, under what threshold, which pairs the config
//! allowed, and whether it passed. The measured shares are not stored: a
//! share is a figure of the hidden relation between a column and a QI's
//! original values, which the release does not show.

use serde::{Deserialize, Serialize};

use super::meta::PublicMeta;
use crate::config::Role;
use crate::derived::ColumnChecks;

/// The check as the public part keeps it; columns as indices into
/// `PublicMeta::columns`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnChecksMeta {
    /// The share of hidden rows at or above which a pair is refused.
    pub threshold: f64,
    /// The released columns checked (role sensitive or insensitive), ascending.
    pub columns: Vec<u32>,
    /// The quasi-identifiers they were checked against, ascending.
    pub qis: Vec<u32>,
    /// The (column, QI) pairs the config allowed, ascending.
    pub allowed: Vec<(u32, u32)>,
    /// Whether every pair at or above the threshold was allowed.
    pub passed: bool,
}

/// [`ColumnChecksMeta`] with names for indices (docs/JSON.md, `inspect`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamedChecks {
    /// The share at or above which a pair is refused.
    pub threshold: f64,
    /// The released columns checked.
    pub columns: Vec<String>,
    /// The QIs they were checked against.
    pub qis: Vec<String>,
    /// The (column, QI) pairs the config allowed.
    pub allowed: Vec<(String, String)>,
    /// Whether the check passed.
    pub passed: bool,
}

impl ColumnChecksMeta {
    /// The section of `checks`, the columns named as `names` (the table's,
    /// in file order) name them.
    pub fn new(checks: &ColumnChecks, names: &[String]) -> ColumnChecksMeta {
        let index = |name: &String| names.iter().position(|n| n == name).map(|i| i as u32);
        let sorted = |mut v: Vec<u32>| {
            v.sort_unstable();
            v
        };
        let mut allowed: Vec<(u32, u32)> = checks
            .allowed
            .iter()
            .filter_map(|(c, q)| Some((index(c)?, index(q)?)))
            .collect();
        allowed.sort_unstable();
        ColumnChecksMeta {
            threshold: checks.threshold,
            columns: sorted(checks.columns.iter().filter_map(index).collect()),
            qis: sorted(checks.qis.iter().filter_map(index).collect()),
            allowed,
            passed: checks.passed,
        }
    }

    /// The section with its columns named, as `karc inspect` shows it.
    pub fn named(&self, meta: &PublicMeta) -> NamedChecks {
        let name = |i: &u32| meta.columns[*i as usize].name.clone();
        NamedChecks {
            threshold: self.threshold,
            columns: self.columns.iter().map(name).collect(),
            qis: self.qis.iter().map(name).collect(),
            allowed: self
                .allowed
                .iter()
                .map(|(c, q)| (name(c), name(q)))
                .collect(),
            passed: self.passed,
        }
    }

    /// The section's rules against `META` (the message of a corrupt one).
    pub fn validate(&self, meta: &PublicMeta) -> Result<(), String> {
        if !(self.threshold > 0.0 && self.threshold <= 1.0) {
            return Err(format!(
                "threshold {} is not a share in (0, 1]",
                self.threshold
            ));
        }
        let role = |i: u32| meta.columns.get(i as usize).map(|c| c.role);
        let ascending = |v: &[u32]| v.windows(2).all(|w| w[0] < w[1]);
        if self.columns.is_empty()
            || !ascending(&self.columns)
            || !self
                .columns
                .iter()
                .all(|&c| matches!(role(c), Some(Role::Sensitive | Role::Insensitive)))
        {
            return Err(
                "its columns are not ascending released columns (sensitive or insensitive)"
                    .to_owned(),
            );
        }
        if self.qis.is_empty()
            || !ascending(&self.qis)
            || !self.qis.iter().all(|&q| role(q) == Some(Role::Quasi))
        {
            return Err("its quasi-identifiers are not ascending QI columns".to_owned());
        }
        let strictly = self.allowed.windows(2).all(|w| w[0] < w[1]);
        let known = self
            .allowed
            .iter()
            .all(|(c, q)| self.columns.contains(c) && self.qis.contains(q));
        if !strictly || !known {
            return Err(
                "its allowed pairs are not ascending pairs of its columns and QIs".to_owned(),
            );
        }
        Ok(())
    }
}
