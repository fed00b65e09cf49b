//! Reading format 1.0 files (`spec/FORMAT.md` §10): their `META` names
//! Incognito's minimal level vectors and every utility metric, which 2.0
//! leaves out of the public part, and their `HIERARCHIES` holds every
//! hierarchy whole (node numbers are then the full hierarchy's, and the
//! private part has no `SealedMeta`), and their `PRIVACY_MODELS` names no
//! t-closeness distance, and their columns no `pseudonym` flag. Everything else reads as in 2.0.

use serde::Deserialize;

use super::compressed;
use super::meta::{
    self, AlgorithmMeta, Claim, ColumnMeta, Dialect, MAX_META_BYTES, MetricsMeta, PublicMeta,
    SealedMetrics,
};
use super::models::{DefinitionsMeta, DistanceMeta, ModelsClaim};
use crate::config::{Role, ValueType};
use crate::privacy::Distance;

/// The major version of the files this module reads.
pub const MAJOR: u16 = 1;

/// A 1.0 `META` (FORMAT 1.0 §5): 2.0's fields, with `minimal_levels` in
/// `algorithm` and all six metrics.
#[derive(Deserialize)]
struct PublicMetaV1 {
    writer: String,
    rows: u64,
    columns: Vec<ColumnMetaV1>,
    qis: Vec<u32>,
    claim: Claim,
    algorithm: AlgorithmMetaV1,
    metrics: MetricsMetaV1,
    dialect: Dialect,
    missing: Vec<String>,
}

/// A 1.0 column: 2.0's without `pseudonym` (1.0 released no identifier).
#[derive(Deserialize)]
struct ColumnMetaV1 {
    name: String,
    role: Role,
    value_type: ValueType,
    hierarchy: Option<u32>,
}

#[derive(Deserialize)]
struct AlgorithmMetaV1 {
    name: String,
    seed: u64,
    params: String,
    levels: Option<Vec<u32>>,
    #[allow(dead_code, reason = "read to be skipped: 2.0 keeps it out of the file")]
    minimal_levels: Option<Vec<Vec<u32>>>,
}

#[derive(Deserialize)]
struct MetricsMetaV1 {
    precision: Option<f64>,
    ncp: f64,
    ncp_kaylode: f64,
    glm: f64,
    dm: f64,
    cavg: f64,
}

/// Reads a 1.0 `META` section (a Brotli stream of its postcard): the
/// metadata as 2.0 holds it, and the metrics 2.0 seals, which a 1.0 file
/// shows.
pub fn meta_from_bytes(bytes: &[u8]) -> Result<(PublicMeta, SealedMetrics), String> {
    let v1: PublicMetaV1 = meta::from_bytes(&compressed::decompress(bytes, MAX_META_BYTES)?)?;
    let m = &v1.metrics;
    let sealed = SealedMetrics {
        ncp: m.ncp,
        ncp_kaylode: m.ncp_kaylode,
        glm: m.glm,
    };
    let public = PublicMeta {
        writer: v1.writer,
        rows: v1.rows,
        columns: (v1.columns.into_iter())
            .map(|c| ColumnMeta {
                name: c.name,
                role: c.role,
                value_type: c.value_type,
                hierarchy: c.hierarchy,
                pseudonym: false,
            })
            .collect(),
        qis: v1.qis,
        claim: v1.claim,
        algorithm: AlgorithmMeta {
            name: v1.algorithm.name,
            seed: v1.algorithm.seed,
            params: v1.algorithm.params,
            levels: v1.algorithm.levels,
        },
        metrics: MetricsMeta {
            precision: m.precision,
            dm: m.dm,
            cavg: m.cavg,
        },
        dialect: v1.dialect,
        missing: v1.missing,
    };
    Ok((public, sealed))
}

/// A 1.0 `PRIVACY_MODELS` (FORMAT 1.0 §5.1): 2.0's fields without
/// `distances`.
#[derive(Deserialize)]
struct ModelsClaimV1 {
    sensitive: Vec<u32>,
    l: Option<u64>,
    entropy_l: Option<f64>,
    recursive_cl: Option<(f64, u64)>,
    t: Option<f64>,
    alpha: Option<f64>,
    delta: Option<f64>,
    beta: Option<f64>,
    enhanced_beta: bool,
    definitions: DefinitionsMeta,
}

/// Reads a 1.0 `PRIVACY_MODELS` section as 2.0 holds it. 1.0 had no
/// hierarchical distance: t-closeness measured a numeric column in order
/// and any other with the equal distance, which is the distance 2.0
/// declares for a column without a hierarchy. A sensitive column index
/// outside `meta` is left for [`ModelsClaim::validate`] to refuse.
pub fn models_from_bytes(bytes: &[u8], meta: &PublicMeta) -> Result<ModelsClaim, String> {
    let v1: ModelsClaimV1 = meta::from_bytes(bytes)?;
    let distances = (v1.sensitive.iter())
        .map(|&c| match meta.columns.get(c as usize) {
            Some(m) => Distance::declared(m.value_type, false).into(),
            None => DistanceMeta::Equal,
        })
        .collect();
    Ok(ModelsClaim {
        sensitive: v1.sensitive,
        l: v1.l,
        entropy_l: v1.entropy_l,
        recursive_cl: v1.recursive_cl,
        t: v1.t,
        alpha: v1.alpha,
        delta: v1.delta,
        beta: v1.beta,
        enhanced_beta: v1.enhanced_beta,
        definitions: v1.definitions,
        distances,
    })
}
