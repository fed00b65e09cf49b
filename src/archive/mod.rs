//! The `.karc` archive (format 1.0, `spec/FORMAT.md`).
//!
//! One file holds a **public part** (the release: every released column as
//! a codec blob, the privacy claim, hierarchies, algorithm, metrics) and a
//! **private part** (what restores the original file byte for byte: the
//! difference coding of the QI columns, the identifier columns, the layout
//! of the original CSV, its CRC-32 and the digest of the public part),
//! sealed in an `age` envelope.
//!
//! Modules follow the format's structure: [`format`](mod@format) (magic, version,
//! section table, CRC-32), [`meta`] (the postcard structures), [`layout`]
//! (how the original CSV's bytes are re-rendered), [`seal`] (the age
//! envelope), [`pipeline`] (row groups in, a file out: the one writer of
//! both [`writer`], a batch pack, and [`stream_pack`], a streamed one) and
//! [`reader`] (which checks integrity and the privacy claim every time a
//! file is opened).

pub mod digest;
pub mod format;
mod jobs;
pub mod layout;
pub mod meta;
pub mod models;
pub mod parts;
pub mod pipeline;
pub mod reader;
pub mod seal;
pub mod stream_pack;
pub mod writer;

use std::path::PathBuf;

/// What can be wrong with an archive or with the keys offered to it.
///
/// Unsupported versions are told apart from corrupt files, and corrupt files
/// from checksum mismatches, as age and regex-automata do.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("{}: not a karc file: expected the magic 89 4b 52 43 0d 0a 1a 0a, found {found}", path.display())]
    NotKarc { path: PathBuf, found: String },
    #[error("{}: unsupported format version {major}.{minor}: this karc reads format {}.x only (a newer major needs a newer karc)", path.display(), format::VERSION_MAJOR)]
    UnsupportedVersion {
        path: PathBuf,
        major: u16,
        minor: u16,
    },
    #[error("{}: format {major}.{minor} section type {code} is not skippable and unknown to this karc (reads up to {}.{}); use a newer karc", path.display(), format::VERSION_MAJOR, format::VERSION_MINOR)]
    UnsupportedSection {
        path: PathBuf,
        code: u16,
        major: u16,
        minor: u16,
    },
    #[error("{}: truncated: {what} needs the file to reach byte {needed}, it has {file_len} bytes", path.display())]
    Truncated {
        path: PathBuf,
        what: String,
        needed: u64,
        file_len: u64,
    },
    #[error("{}: corrupt {section}: {detail}", path.display())]
    Corrupt {
        path: PathBuf,
        section: String,
        detail: String,
    },
    #[error("{}: CRC mismatch in {section}: stored {stored:#010x}, computed {computed:#010x} (the file is damaged)", path.display())]
    CrcMismatch {
        path: PathBuf,
        section: String,
        stored: u32,
        computed: u32,
    },
    #[error("{}: the release breaks its privacy claim, refusing the file: {failures}", path.display())]
    ClaimBroken { path: PathBuf, failures: String },
    #[error("{}: no private part: this is a published copy (release only); restore needs the archive it was published from", path.display())]
    NoPrivatePart { path: PathBuf },
    #[error("{}: none of the given identities can open the private part (it was sealed for other recipients)", path.display())]
    WrongIdentity { path: PathBuf },
    #[error("{}: wrong passphrase for the private part", path.display())]
    WrongPassphrase { path: PathBuf },
    #[error("{}: the private part is sealed with a passphrase: give --passphrase (asked on the terminal), --passphrase-file or --passphrase-env", path.display())]
    NeedsPassphrase { path: PathBuf },
    #[error("{}: the private part is sealed for X25519 recipients: give --identity", path.display())]
    NeedsIdentity { path: PathBuf },
    #[error("{}: the private part's age envelope failed authentication or is malformed: {detail}", path.display())]
    Envelope { path: PathBuf, detail: String },
    #[error("{}: the public part is not the one the private part was made for (BLAKE3 {found}, the private part expects {expected}): the release, its claim or its metadata was changed after packing; refusing to restore", path.display())]
    PublicPartChanged {
        path: PathBuf,
        expected: String,
        found: String,
    },
    #[error("{}: restored {found_len} bytes with CRC-32 {found}, but the original had {expected_len} bytes with CRC-32 {expected}", path.display())]
    RestoreChecksum {
        path: PathBuf,
        expected: String,
        found: String,
        expected_len: u64,
        found_len: u64,
    },
    #[error("{}: {message}", path.display())]
    Key { path: PathBuf, message: String },
    /// `which` names the recipient (`--recipient 2`, `FILE: line 3`), never
    /// its text, which may be a secret given by mistake.
    #[error("{which}: {message}")]
    Recipient { which: String, message: String },
    #[error("sealing failed: {0}")]
    Seal(String),
    #[error("{}: the layout of the original file could not be captured: {detail}", path.display())]
    Layout { path: PathBuf, detail: String },
}

impl ArchiveError {
    /// 1 for a failed check (integrity, privacy claim, restore checksum),
    /// 2 for bad input (not an archive, unsupported version, wrong key).
    pub fn exit_code(&self) -> u8 {
        match self {
            ArchiveError::Truncated { .. }
            | ArchiveError::Corrupt { .. }
            | ArchiveError::CrcMismatch { .. }
            | ArchiveError::ClaimBroken { .. }
            | ArchiveError::Envelope { .. }
            | ArchiveError::RestoreChecksum { .. }
            | ArchiveError::PublicPartChanged { .. }
            | ArchiveError::Layout { .. } => 1,
            ArchiveError::NotKarc { .. }
            | ArchiveError::UnsupportedVersion { .. }
            | ArchiveError::UnsupportedSection { .. }
            | ArchiveError::NoPrivatePart { .. }
            | ArchiveError::WrongIdentity { .. }
            | ArchiveError::WrongPassphrase { .. }
            | ArchiveError::NeedsPassphrase { .. }
            | ArchiveError::NeedsIdentity { .. }
            | ArchiveError::Key { .. }
            | ArchiveError::Recipient { .. }
            | ArchiveError::Seal(_) => 2,
        }
    }
}
