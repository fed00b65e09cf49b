//! The `.karc` archive (format 2.0, `spec/FORMAT.md`; 1.0 files are read too).
//!
//! One file holds a **public part** (the release: every released column as
//! a codec blob, the privacy claim, hierarchies, algorithm, metrics) and a
//! **private part** (what restores the original file byte for byte: the
//! difference coding of the QI columns, the identifier columns, the layout
//! of the original CSV, its CRC-32, the digest of the public part, and what
//! the public part may not show: the hierarchies whole and the metrics
//! measured against the original's domain), sealed in an `age` envelope.
//! The public part holds only what the release shows (`pruning`, internal, keeps
//! the hierarchy nodes it uses and their ancestors).
//!
//! Modules follow the format's structure: [`format`](mod@format) (magic, version,
//! section table, CRC-32), [`meta`] (the postcard structures),
//! [`compressed`] (the Brotli streams of `META` and `HIERARCHIES`), [`layout`]
//! (how the original CSV's bytes are re-rendered), [`seal`] (the age
//! envelope), `pipeline` (row groups in, a file out: the one writer of
//! both [`writer`], a batch pack, and [`stream_pack`], a streamed one) and
//! [`reader`] (which checks integrity and the privacy claim every time a
//! file is opened). [`TableInput`] is what the archive seals: a CSV file's
//! bytes, or an Arrow table's canonical CSV rendered with [`layout`].

mod ahead;
pub mod batch_groups;
pub mod checks;
pub mod compat;
pub mod compressed;
pub mod digest;
pub mod format;
mod handoff;
mod hierarchies;
mod input;
pub mod layout;
pub mod meta;
pub mod models;
pub mod parts;
pub(crate) mod pipeline;
mod private_part;
pub(crate) mod pruning;
pub mod reader;
pub mod row_count;
pub mod seal;
pub mod sealed;
pub mod signature;
mod spool;
pub mod stream_pack;
mod wire;
pub mod writer;

pub use input::{Csv, Original, TableInput};

use std::path::PathBuf;

/// What can be wrong with an archive or with the keys offered to it.
///
/// Unsupported versions are told apart from corrupt files, and corrupt files
/// from checksum mismatches, as age and regex-automata do.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// The file does not start with the karc magic: some other file was given.
    #[error("{}: not a karc file: expected the magic 89 4b 52 43 0d 0a 1a 0a, found {found}", path.display())]
    NotKarc {
        /// The archive (or key file) concerned.
        path: PathBuf,
        /// What was found instead, as shown in the message.
        found: String,
    },
    /// A format major version this karc cannot read (written by a newer karc).
    #[error("{}: unsupported format version {major}.{minor}: this karc reads formats {}.x to {}.x (a newer major needs a newer karc)", path.display(), compat::MAJOR, format::VERSION_MAJOR)]
    UnsupportedVersion {
        /// The archive (or key file) concerned.
        path: PathBuf,
        /// Major version of the file.
        major: u16,
        /// Minor version of the file.
        minor: u16,
    },
    /// A section that must be understood (not skippable) but has an unknown type.
    #[error("{}: format {major}.{minor} section type {code} is not skippable and unknown to this karc (reads up to {}.{}); use a newer karc", path.display(), format::VERSION_MAJOR, format::VERSION_MINOR)]
    UnsupportedSection {
        /// The archive (or key file) concerned.
        path: PathBuf,
        /// The unknown section type code.
        code: u16,
        /// Major version of the file.
        major: u16,
        /// Minor version of the file.
        minor: u16,
    },
    /// The file ends before a part the header or section table points to.
    #[error("{}: truncated: {what} needs the file to reach byte {needed}, it has {file_len} bytes", path.display())]
    Truncated {
        /// The archive (or key file) concerned.
        path: PathBuf,
        /// The part that was being read.
        what: String,
        /// The byte offset the part needs the file to reach.
        needed: u64,
        /// The file's actual length in bytes.
        file_len: u64,
    },
    /// A section decodes to something the format forbids.
    #[error("{}: corrupt {section}: {detail}", path.display())]
    Corrupt {
        /// The archive (or key file) concerned.
        path: PathBuf,
        /// The section concerned.
        section: String,
        /// What is wrong, for the message.
        detail: String,
    },
    /// A section's bytes do not match their stored CRC-32: damage in storage or transit.
    #[error("{}: CRC mismatch in {section}: stored {stored:#010x}, computed {computed:#010x} (the file is damaged)", path.display())]
    CrcMismatch {
        /// The archive (or key file) concerned.
        path: PathBuf,
        /// The section concerned.
        section: String,
        /// The CRC-32 stored in the file.
        stored: u32,
        /// The CRC-32 of the bytes as read.
        computed: u32,
    },
    /// The release does not satisfy the privacy claim stored beside it; the file is refused.
    #[error("{}: the release breaks its privacy claim, refusing the file: {failures}", path.display())]
    ClaimBroken {
        /// The archive (or key file) concerned.
        path: PathBuf,
        /// The claim's failed checks, for the message.
        failures: String,
    },
    /// A published copy (release only) was asked for something only the private part holds.
    #[error("{}: no private part: this is a published copy (release only); restore needs the archive it was published from", path.display())]
    NoPrivatePart {
        /// The archive (or key file) concerned.
        path: PathBuf,
    },
    /// None of the identities given is a recipient of the private part.
    #[error("{}: none of the given identities can open the private part (it was sealed for other recipients)", path.display())]
    WrongIdentity {
        /// The archive (or key file) concerned.
        path: PathBuf,
    },
    /// The passphrase does not open the private part.
    #[error("{}: wrong passphrase for the private part", path.display())]
    WrongPassphrase {
        /// The archive (or key file) concerned.
        path: PathBuf,
    },
    /// The private part is passphrase-sealed and no passphrase was given.
    #[error("{}: the private part is sealed with a passphrase: give --passphrase (asked on the terminal), --passphrase-file or --passphrase-env", path.display())]
    NeedsPassphrase {
        /// The archive (or key file) concerned.
        path: PathBuf,
    },
    /// The private part is sealed for X25519 recipients and no identity was given.
    #[error("{}: the private part is sealed for X25519 recipients: give --identity", path.display())]
    NeedsIdentity {
        /// The archive (or key file) concerned.
        path: PathBuf,
    },
    /// The age envelope is malformed or failed authentication (tampered or truncated).
    #[error("{}: the private part's age envelope failed authentication or is malformed: {detail}", path.display())]
    Envelope {
        /// The archive (or key file) concerned.
        path: PathBuf,
        /// What is wrong, for the message.
        detail: String,
    },
    /// The public part's BLAKE3 digest differs from the one the private part binds.
    #[error("{}: the public part is not the one the private part was made for (BLAKE3 {found}, the private part expects {expected}): the release, its claim or its metadata was changed after packing; refusing to restore", path.display())]
    PublicPartChanged {
        /// The archive (or key file) concerned.
        path: PathBuf,
        /// The value the private part recorded.
        expected: String,
        /// What was found instead, as shown in the message.
        found: String,
    },
    /// The restored bytes differ from the original's recorded length or CRC-32.
    #[error("{}: restored {found_len} bytes with CRC-32 {found}, but the original had {expected_len} bytes with CRC-32 {expected}", path.display())]
    RestoreChecksum {
        /// The archive (or key file) concerned.
        path: PathBuf,
        /// The value the private part recorded.
        expected: String,
        /// What was found instead, as shown in the message.
        found: String,
        /// Length of the original in bytes.
        expected_len: u64,
        /// Length of the restored bytes.
        found_len: u64,
    },
    /// A key file (identity or passphrase) could not be read or parsed.
    #[error("{}: {message}", path.display())]
    Key {
        /// The archive (or key file) concerned.
        path: PathBuf,
        /// What is wrong, for the message.
        message: String,
    },
    /// `which` names the recipient (`--recipient 2`, `FILE: line 3`), never
    /// its text, which may be a secret given by mistake.
    #[error("{which}: {message}")]
    Recipient {
        /// Which recipient: its position or file and line.
        which: String,
        /// What is wrong, for the message.
        message: String,
    },
    /// age refused to seal the private part (its message).
    #[error("sealing failed: {0}")]
    Seal(String),
    /// The original file's byte layout could not be recorded, so it could not be restored exactly.
    #[error("{}: the layout of the original file could not be captured: {detail}", path.display())]
    Layout {
        /// The archive (or key file) concerned.
        path: PathBuf,
        /// What is wrong, for the message.
        detail: String,
    },
}

impl crate::error::AreaError for ArchiveError {
    fn exit_code(&self) -> u8 {
        ArchiveError::exit_code(self)
    }
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
