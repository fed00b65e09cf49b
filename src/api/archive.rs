//! An opened `.karc` file: its release, its original, its checks.

use std::path::Path;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use serde::Serialize;

use super::{ClaimCheck, Inspection};
use crate::Result;
use crate::archive::seal::Key;
use crate::privacy::ClaimReport;
use crate::table::Column;

/// An archive's own check: integrity (every section's CRC, structure),
/// then its claim recomputed from the released QI columns.
#[derive(Debug, Clone, Serialize)]
pub struct ArchiveCheck {
    /// The format version, "major.minor".
    pub format: String,
    /// The most rows the claim lets the release suppress.
    pub suppression_budget: u64,
    /// The suppressed rows are within the budget.
    pub within_budget: bool,
    /// The claim holds and the suppressed rows are within the budget.
    pub holds: bool,
    /// The claim recomputed from the released QI columns.
    pub claim: ClaimReport,
    /// The signature's key id and trusted comment (`null`: unsigned),
    /// `checked` once compared with keys the reader trusts.
    pub signature: Option<super::SignatureStatus>,
}

/// An opened, checked archive.
pub struct Archive(crate::archive::reader::Archive);

/// Opens and checks an archive's bytes (`name` names it in messages).
pub fn open(name: &Path, bytes: Vec<u8>, check: ClaimCheck) -> Result<Archive> {
    crate::archive::reader::Archive::from_bytes(name, bytes, check).map(Archive)
}

/// [`open`] for one export of the release ([`Archive::export_csv`]): the
/// released columns, decoded on two threads while the file is checked,
/// are kept for it rather than decoded again.
pub fn open_to_export(name: &Path, bytes: Vec<u8>, check: ClaimCheck) -> Result<Archive> {
    crate::archive::reader::Archive::from_bytes_to_export(name, bytes, check).map(Archive)
}

/// Opens an archive's bytes and restores its original into `sink` as it
/// is rendered (about a MiB at a time), unsealing while the file is
/// checked; returns the length. On an error, what `sink` received must be
/// thrown away.
pub fn open_and_restore(
    name: &Path,
    bytes: Vec<u8>,
    check: ClaimCheck,
    key: Option<&Key>,
    sink: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<u64> {
    crate::archive::reader::Archive::from_bytes_restoring(name, bytes, check, key, sink)
        .map(|(_, len)| len)
}

/// [`open_and_restore`] as an Arrow record batch: an Arrow input's table
/// exactly (schema, types, nulls, values), a CSV input's columns as
/// strings; checked whole first, as the bytes are.
pub fn open_and_restore_batch(
    name: &Path,
    bytes: Vec<u8>,
    check: ClaimCheck,
    key: Option<&Key>,
) -> Result<RecordBatch> {
    crate::archive::reader::Archive::from_bytes_and_restore_batch(name, bytes, check, key)
        .map(|(_, batch)| batch)
}

/// [`open_and_restore`] into memory: the original's bytes, checked.
pub fn open_and_restore_bytes(
    name: &Path,
    bytes: Vec<u8>,
    check: ClaimCheck,
    key: Option<&Key>,
) -> Result<Vec<u8>> {
    crate::archive::reader::Archive::from_bytes_and_restore(name, bytes, check, key)
        .map(|(_, original)| original)
}

impl Archive {
    /// The library's reader, for what the facade does not cover.
    pub fn reader(&self) -> &crate::archive::reader::Archive {
        &self.0
    }

    /// The release's columns (identifiers left out, but for those released
    /// as pseudonyms), in file order.
    pub fn release(&self) -> Result<Vec<Column>> {
        self.0.release_columns()
    }

    /// The release as CSV, byte-equal to `karc anonymize`'s.
    pub fn export_csv(&self, out: &mut dyn std::io::Write) -> Result<()> {
        self.0.export_csv(out)
    }

    /// The original file's bytes, checked against their digests.
    pub fn restore(&self, key: Option<&Key>) -> Result<Vec<u8>> {
        self.0.restore(key)
    }

    /// The release as an Arrow record batch: an Arrow input's columns keep
    /// their types where the released texts still parse (the QIs are
    /// strings); a CSV input's are strings.
    pub fn release_batch(&self) -> Result<RecordBatch> {
        self.0.release_batch()
    }

    /// The release as Arrow record batches, one per row group (one batch
    /// of a file of one group), made as they are read.
    pub fn release_batches(&self) -> Box<dyn Iterator<Item = Result<RecordBatch>> + '_> {
        self.0.release_batches()
    }

    /// The original as an Arrow record batch: an Arrow input's table
    /// exactly (schema, types, nulls, values), a CSV input's columns as
    /// strings; checked as [`Archive::restore`] checks the bytes.
    pub fn restore_batch(&self, key: Option<&Key>) -> Result<RecordBatch> {
        self.0.restore_batch(key)
    }

    /// The schema of an Arrow input (`None`: the input was a CSV file).
    pub fn arrow_schema(&self) -> Option<&SchemaRef> {
        self.0.arrow_schema()
    }

    /// The file without its private part, checked to open as it is
    /// (`name` names the copy in messages).
    pub fn published(&self, name: &Path) -> Result<Vec<u8>> {
        let bytes = self.0.published();
        crate::archive::reader::Archive::from_bytes(name, bytes.clone(), ClaimCheck::Enforce)?;
        Ok(bytes)
    }

    /// Sections, sizes per part and column, claim, algorithm, metrics; a
    /// key adds the private part's sizes per column.
    pub fn inspect(&self, key: Option<&Key>) -> Result<Inspection> {
        self.0.inspect(key)
    }

    /// The trusted comment `signer` states over this file.
    pub fn trusted_comment(&self, signer: &super::Signer) -> String {
        let (major, minor) = self.0.version();
        crate::archive::signature::trusted_comment(major, minor, signer.time, &self.0.claim_text())
    }

    /// The file signed by `signer` (any earlier signature replaced).
    pub fn signed(&self, signer: &super::Signer) -> Result<Vec<u8>> {
        self.0.signed(signer)
    }

    /// A detached signature (`.minisig` text) over the file's bytes, which
    /// `minisign -Vm FILE -p KEY.pub` accepts.
    pub fn detached_signature(&self, signer: &super::Signer) -> Result<String> {
        self.0.detached_signature(signer)
    }

    /// Checks that a valid signature by one of `trusted` covers the whole
    /// file (a failed check otherwise: unsigned, another key, changed).
    pub fn verify_signature(&self, trusted: &[super::PublicKey]) -> Result<super::Verified> {
        self.0.verify_signature(trusted)
    }

    /// The signature's key id and trusted comment, not checked against a
    /// key (`None`: unsigned).
    pub fn signature(&self) -> Option<super::SignatureStatus> {
        self.0.signature().map(|s| s.status())
    }

    /// Integrity (checked on open) and the claim, recomputed.
    pub fn verify(&self) -> Result<ArchiveCheck> {
        let claim = self.0.check_claim()?;
        let budget = self.0.meta.claim.suppression_budget;
        let within_budget = claim.suppressed_rows as u64 <= budget;
        let (major, minor) = self.0.version();
        Ok(ArchiveCheck {
            format: format!("{major}.{minor}"),
            suppression_budget: budget,
            within_budget,
            holds: claim.holds() && within_budget,
            claim,
            signature: self.signature(),
        })
    }
}
