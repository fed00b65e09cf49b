//! Whose definitions the models follow where pyCANON and the papers
//! differ: one switch that the model functions, the claim check and the
//! command line share.

use serde::{Deserialize, Serialize};

/// Whose definitions the values follow where pyCANON and the literature
/// differ (see docs/MODELS.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Definitions {
    /// pyCANON 1.3: suppressed rows count in the table's distribution,
    /// entropy ℓ is floored, recursive c is its ascending-order formula,
    /// δ skips absent values, enhanced β is min(β, max −ln p).
    #[default]
    #[serde(rename = "pycanon")]
    PyCanon,
    /// The papers: suppressed rows are out of the release, entropy ℓ is
    /// e^H, recursive c is r1 / (r_ℓ + … + r_m), δ and enhanced β are
    /// unbounded when a class lacks a value or exceeds −ln p.
    Literature,
}

impl std::str::FromStr for Definitions {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        crate::config::from_name(s, "pycanon or literature")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Flags read the definitions by their TOML names, and only those.
    #[test]
    fn definitions_read_their_toml_names() {
        assert_eq!("pycanon".parse(), Ok(Definitions::PyCanon));
        assert_eq!("literature".parse(), Ok(Definitions::Literature));
        assert_eq!(
            "".parse::<Definitions>(),
            Err("expected pycanon or literature, found \"\"".to_owned())
        );
    }
}
