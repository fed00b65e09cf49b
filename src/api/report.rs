//! `karc report`: a release's report, for a data steward to file and a
//! reviewer to read (docs/REPORT.md), from a `.karc` file or a release
//! table made by anyone.

use std::path::Path;

use super::{ClaimCheck, VerifyOptions, verify_archive_models, verify_table};
use crate::archive::seal::Key;
use crate::release_report::gather::{self, Scope};
use crate::table::Table;
use crate::{Error, Result};

pub use crate::release_report::ReleaseReport;

/// What a report shows beyond the release's public figures.
pub struct ReportOptions {
    /// Add what only the publisher should see (the page says so).
    pub internal: bool,
    /// The archive's key, to read its sealed private part (internal only).
    pub key: Option<Key>,
    /// Publisher keys the archive's signature is checked against (a
    /// signature that fails is a failed check).
    pub signers: Vec<super::PublicKey>,
    /// Sensitive columns to measure every model on (an archive measures
    /// its claimed ones anyway).
    pub sensitive: Vec<String>,
    /// The models to measure with `sensitive`.
    pub models: crate::privacy::Models,
    /// The time the report states (Unix seconds): a front end's clock, or
    /// `SOURCE_DATE_EPOCH` for a reproducible report.
    pub time: i64,
}

/// The report on the archive `bytes` (`name` names it).
pub fn report_archive(name: &Path, bytes: Vec<u8>, o: &ReportOptions) -> Result<ReleaseReport> {
    if o.key.is_some() && !o.internal {
        return Err(Error::Options(
            "a key reads the sealed private part, whose figures only an --internal report shows: \
             add --internal, or leave the key out"
                .to_owned(),
        ));
    }
    let file = bytes.clone();
    // A release that breaks its claim is reported (FAIL), not refused.
    let archive = super::open(name, bytes, ClaimCheck::Skip)?;
    let signature = match o.signers.is_empty() {
        true => archive.signature(),
        false => Some(super::SignatureStatus::from(
            &archive.verify_signature(&o.signers)?,
        )),
    };
    let mut check = archive.verify()?;
    if !o.sensitive.is_empty() {
        check.claim.models = verify_archive_models(name, &archive, &o.sensitive, &o.models)?.models;
    }
    gather::for_archive(
        name,
        &file,
        archive.reader(),
        &check.claim,
        signature.as_ref(),
        scope(o),
    )
}

/// The report on a release table made by anyone (read by
/// [`super::read_release`], or from Arrow) under the claim `claim`; `file`: the
/// bytes it was read from, whose SHA-256 the report states (`None`: a
/// table in memory).
pub fn report_table(
    name: &Path,
    table: &Table,
    file: Option<&[u8]>,
    claim: &VerifyOptions,
    o: &ReportOptions,
) -> Result<ReleaseReport> {
    if o.key.is_some() || !o.signers.is_empty() {
        return Err(Error::Options(
            "a key and --signer apply to .karc files; a release table has no private part or signature"
                .to_owned(),
        ));
    }
    let report = verify_table(table, claim)?;
    let mut qis = claim.qi.clone();
    for c in &claim.constraints {
        qis.extend(c.columns.iter().filter(|n| !claim.qi.contains(n)).cloned());
    }
    let sensitive: Vec<String> = (claim.sensitive.iter())
        .map(|s| super::parse_sensitive(s, |n| table.column(n).is_some()).map(|(name, _)| name))
        .collect::<Result<_>>()?;
    Ok(gather::for_table(
        name,
        file,
        table,
        &qis,
        &sensitive,
        &report,
        scope(o),
    ))
}

fn scope(o: &ReportOptions) -> Scope<'_> {
    Scope {
        internal: o.internal,
        key: o.key.as_ref(),
        time: o.time,
    }
}
