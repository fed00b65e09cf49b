//! What the private part holds beside its row groups (`spec/FORMAT.md`
//! §7.1, `SealedMeta`): what the public part may not show (§2.1).

use serde::{Deserialize, Serialize};

use crate::metrics::Metrics;

/// The utility metrics measured against the original's domain (the span
/// of a numeric QI's values, the leaves under a hierarchy node): sealed in
/// the private part, since with the release they would tell what the
/// release hides (one numeric QI's NCP gives its hidden span).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SealedMetrics {
    /// Normalized certainty penalty.
    pub ncp: f64,
    /// NCP as the kaylode library computes it (for comparison).
    pub ncp_kaylode: f64,
    /// Iyengar's general loss metric.
    pub glm: f64,
}

impl From<&Metrics> for SealedMetrics {
    fn from(m: &Metrics) -> Self {
        SealedMetrics {
            ncp: m.ncp,
            ncp_kaylode: m.ncp_kaylode,
            glm: m.glm,
        }
    }
}

/// What the private part holds beside its row groups (`spec/FORMAT.md`
/// §7.1): the QIs' whole hierarchies, of which the public part holds the
/// nodes the release uses, and the metrics the public part may not show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SealedMeta {
    /// The whole hierarchies, one per `HIERARCHIES` record and in its
    /// order, as a `HIERARCHIES` section codes them (a Brotli stream).
    #[serde(with = "serde_bytes")]
    pub hierarchies: Vec<u8>,
    /// The metrics measured against the original's domain.
    pub metrics: SealedMetrics,
    /// An Arrow input's schema with its custom metadata (as `ARROW_SCHEMA`
    /// codes a schema), which the public one leaves out; empty when the
    /// input was CSV or its schema had none.
    #[serde(with = "serde_bytes")]
    pub arrow_schema: Vec<u8>,
    /// The pseudonym keys drawn for this pack (column index, key), which
    /// only the private part may hold; a key read from a publisher's key
    /// file is not kept (the `pseudonym` module).
    pub pseudonym_keys: Vec<(u32, [u8; 32])>,
}
