//! Gathering a [`ReleaseReport`] from a `.karc` file or from a release
//! table made by anyone.
//!
//! What the default report reads of an archive is its public part: the
//! released symbols (whose hierarchy levels say how each QI was
//! generalized), the claim re-checked on open, the public metrics and
//! sizes. The private part is read only for an internal report, with the
//! key when it is sealed: an unencrypted private part is readable by
//! anyone holding the file, but its figures still stay off a default page,
//! which is meant to travel without the file.

use std::path::Path;

use super::content::{
    AlgorithmInfo, ColumnRole, ColumnSize, Generated, InformationLoss, ReleaseColumns,
    ReleaseReport, SCHEMA, Signature, Sizes, Source, attribute_loss, claim_summary, class_figures,
    class_metrics, generalization, labels_by_form,
};
use super::generalization::{LabelKind, Labelled};
use crate::Result;
use crate::archive::reader::Archive;
use crate::archive::seal::Key;
use crate::codec::ReleasedSymbol;
use crate::compare::baseline::Compressor;
use crate::config::Role;
use crate::hierarchy::NodeLabels;
use crate::privacy::ClaimReport;
use crate::table::{Column, Table};

/// What a report is asked for.
#[derive(Clone, Copy)]
pub struct Scope<'k> {
    /// Add what only the publisher should see.
    pub internal: bool,
    /// The archive's key (internal reports on a sealed archive).
    pub key: Option<&'k Key>,
    /// The time the report states, Unix seconds.
    pub time: i64,
}

/// SHA-256 of a file's bytes, hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The report on an opened archive; `claim` is its claim as checked
/// (models measured), `budget` its suppression budget, `signature` its
/// signature's status (checked against trusted keys or not).
// Long: one straight pass over the archive's figures into the report's fields, public first, then
// the private part's when asked
pub fn for_archive(
    name: &Path,
    file: &[u8],
    archive: &Archive,
    claim: &ClaimReport,
    signature: Option<&crate::archive::signature::Status>,
    scope: Scope,
) -> Result<ReleaseReport> {
    let meta = &archive.meta;
    let inspection = archive.inspect(if scope.internal { scope.key } else { None })?;
    let release = archive.release_columns()?;
    let qi_names: Vec<String> = (meta.qis.iter())
        .map(|&q| meta.columns[q as usize].name.clone())
        .collect();
    let heights: Vec<Option<u32>> = (meta.qis.iter())
        .map(|&q| {
            let h = meta.columns[q as usize].hierarchy?;
            Some(archive.hierarchies.get(h as usize)?.height() as u32)
        })
        .collect();
    let labels: Vec<Vec<Labelled>> = (0..meta.qis.len())
        .map(|q| archive_labels(archive, q))
        .collect::<Result<_>>()?;
    let generalization = generalization(&qi_names, &heights, &labels);
    let (class_sizes, risk) = class_figures(claim);
    let private = scope.internal.then_some(&inspection);
    let sealed_metrics = private.and_then(|i| i.sealed_metrics);
    let by_name = |n: &str| release.iter().find(|c| c.name == n);
    let columns = ReleaseColumns {
        qis: qi_names.iter().filter_map(|n| by_name(n)).collect(),
        sensitive: (meta.columns.iter())
            .filter(|c| c.role == Role::Sensitive)
            .filter_map(|c| by_name(&c.name))
            .collect(),
        policy: meta.claim.policy,
    };
    let original = match (scope.internal, scope.key, inspection.private.as_str()) {
        (true, _, "unencrypted") | (true, Some(_), "sealed (age)") => {
            Some(archive.restore(scope.key)?)
        }
        _ => None,
    };
    let compressed = |c: Compressor| -> Result<Option<u64>> {
        original
            .as_ref()
            .map(|o| c.compress(o, "original").map(|b| b.len() as u64))
            .transpose()
            .map_err(|source| crate::Error::Io {
                path: name.to_path_buf(),
                source,
            })
    };
    Ok(ReleaseReport {
        schema: SCHEMA,
        internal: scope.internal,
        generated: Generated::at(scope.time),
        source: Source {
            kind: "archive",
            file: name.display().to_string(),
            bytes: Some(file.len() as u64),
            sha256: Some(sha256_hex(file)),
            format: Some(inspection.version.clone()),
            private: Some(inspection.private.clone()),
            public_blake3: Some(hex(&archive.public_digest())),
        },
        rows: archive.rows(),
        columns: (meta.columns.iter())
            .map(|c| ColumnRole {
                name: c.name.clone(),
                role: match (c.pseudonym, c.role) {
                    (true, _) => "pseudonym".to_owned(),
                    (false, r) => format!("{r:?}").to_lowercase(),
                },
                value_type: Some(format!("{:?}", c.value_type).to_lowercase()),
            })
            .collect(),
        signature: Signature::of(signature),
        algorithm: Some(AlgorithmInfo {
            name: meta.algorithm.name.clone(),
            seed: meta.algorithm.seed,
            params: meta.algorithm.params.clone(),
            levels: meta.algorithm.levels.clone(),
        }),
        claim: claim_summary(claim, Some(meta.claim.suppression_budget)),
        models: claim.models.clone(),
        risk,
        information_loss: InformationLoss {
            attributes: attribute_loss(&generalization),
            precision: meta.metrics.precision,
            discernibility: meta.metrics.dm,
            cavg: meta.metrics.cavg,
            ncp: sealed_metrics.map(|m| m.ncp),
            glm: sealed_metrics.map(|m| m.glm),
        },
        class_sizes,
        generalization,
        column_checks: inspection.column_checks.clone(),
        sizes: Some(Sizes {
            file_bytes: inspection.file_bytes,
            public_bytes: inspection.public_bytes,
            private_stored_bytes: inspection
                .sealed_bytes
                .or(inspection.private_bytes)
                .unwrap_or(0),
            columns: (inspection.columns.iter())
                .map(|c| ColumnSize {
                    name: c.name.clone(),
                    public_bytes: c.public_bytes,
                    private_bytes: private.and(c.private_bytes),
                })
                .collect(),
            original_bytes: original.as_ref().map(|o| o.len() as u64),
            zip_bytes: compressed(Compressor::Zip)?,
            xz_bytes: compressed(Compressor::Xz)?,
        }),
        internal_detail: scope.internal.then(|| columns.internal_detail()),
    })
}

/// QI `q`'s released labels with the level each symbol names.
fn archive_labels(archive: &Archive, q: usize) -> Result<Vec<Labelled>> {
    let released = &archive.released()[q];
    let labels = archive.qi_labels(q)?;
    let mut rows = vec![0u64; released.symbols.len()];
    let mut first = vec![0usize; released.symbols.len()];
    for (r, &s) in released.rows.iter().enumerate() {
        if rows[s as usize] == 0 {
            first[s as usize] = r;
        }
        rows[s as usize] += 1;
    }
    Ok((released.symbols.iter().enumerate())
        .filter(|&(s, _)| rows[s] > 0)
        .map(|(s, symbol)| {
            let kind = match symbol {
                ReleasedSymbol::Value(_) => LabelKind::Exact,
                ReleasedSymbol::Node { level, .. } => LabelKind::Level(*level),
                ReleasedSymbol::Interval { .. } => LabelKind::Interval,
                ReleasedSymbol::Suppressed => LabelKind::Suppressed,
            };
            Labelled {
                // The label of the symbol: any row that carries it shows it.
                label: labels.text(first[s]).to_owned(),
                kind,
                rows: rows[s],
            }
        })
        .collect())
}

/// The report on a release table made by anyone, whose claim `claim`
/// checked over `qis` (the sensitive columns: `sensitive`); `file`: the
/// bytes it was read from (`None`: a table in memory).
pub fn for_table(
    name: &Path,
    file: Option<&[u8]>,
    table: &Table,
    qis: &[String],
    sensitive: &[String],
    claim: &ClaimReport,
    scope: Scope,
) -> ReleaseReport {
    let find = |n: &String| table.column(n);
    let qi_columns: Vec<&Column> = qis.iter().filter_map(find).collect();
    let labels: Vec<Vec<Labelled>> = qi_columns.iter().map(|c| labels_by_form(c)).collect();
    let generalization = generalization(qis, &vec![None; qis.len()], &labels);
    let (class_sizes, risk) = class_figures(claim);
    let (dm, cavg) = class_metrics(claim, &class_sizes);
    let columns = ReleaseColumns {
        qis: qi_columns,
        sensitive: sensitive.iter().filter_map(find).collect(),
        policy: claim.policy,
    };
    let role = |n: &String| {
        if qis.contains(n) {
            "quasi"
        } else if sensitive.contains(n) {
            "sensitive"
        } else {
            "insensitive"
        }
    };
    ReleaseReport {
        schema: SCHEMA,
        internal: scope.internal,
        generated: Generated::at(scope.time),
        source: Source {
            kind: "table",
            file: name.display().to_string(),
            bytes: file.map(|f| f.len() as u64),
            sha256: file.map(sha256_hex),
            format: None,
            private: None,
            public_blake3: None,
        },
        rows: table.rows,
        columns: (table.columns.iter())
            .map(|c| ColumnRole {
                name: c.name.clone(),
                role: role(&c.name).to_owned(),
                value_type: None,
            })
            .collect(),
        signature: Signature {
            state: "not_applicable",
            key_id: None,
            trusted_comment: None,
        },
        algorithm: None,
        claim: claim_summary(claim, None),
        models: claim.models.clone(),
        risk,
        information_loss: InformationLoss {
            attributes: attribute_loss(&generalization),
            precision: None,
            discernibility: dm,
            cavg,
            ncp: None,
            glm: None,
        },
        class_sizes,
        generalization,
        column_checks: None,
        sizes: None,
        internal_detail: scope.internal.then(|| columns.internal_detail()),
    }
}
