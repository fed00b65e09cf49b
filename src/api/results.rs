//! What each command did, as typed results a front end prints: the
//! command line's `--json` documents (docs/JSON.md). Each result names its
//! schema, `karc.<command>/<version>`; the version grows only when a key is
//! removed or changes meaning (new keys may appear within a version).

use serde::Serialize;

use crate::archive::reader::Inspection;
use crate::archive::seal::Seal;
use crate::arrow::TableFormat;
use crate::compare::CompareRow;
use crate::compare::models::ModelRow;
use crate::privacy::ClaimReport;
use crate::report::Report;
use crate::stream::{StreamParams, Summary};

/// A result with a versioned schema name.
pub trait Versioned: Serialize {
    /// `karc.<command>/<version>`.
    const SCHEMA: &'static str;

    /// The result as its JSON document: `{"schema": ..., <its keys>}`.
    fn document(&self) -> Document<'_, Self>
    where
        Self: Sized,
    {
        Document {
            schema: Self::SCHEMA,
            result: self,
        }
    }
}

/// A result with its schema name first.
#[derive(Debug, Serialize)]
pub struct Document<'a, T: Serialize> {
    /// The result's schema (`karc.<command>/<version>`).
    pub schema: &'static str,
    /// The result's own keys, beside `schema`.
    #[serde(flatten)]
    pub result: &'a T,
}

/// The name of a table format in results: `csv`, `parquet` or `arrow`.
pub fn format_name(format: TableFormat) -> &'static str {
    match format {
        TableFormat::Csv => "csv",
        TableFormat::Parquet => "parquet",
        TableFormat::Ipc => "arrow",
    }
}

/// How a private part is sealed, in results: `x25519`, `passphrase`,
/// `none`.
pub fn seal_name(seal: &Seal) -> &'static str {
    match seal {
        Seal::Recipients(_) => "x25519",
        Seal::Passphrase { .. } => "passphrase",
        Seal::None => "none",
    }
}

/// `karc anonymize`: a release written.
#[derive(Debug, Clone, Serialize)]
pub struct AnonymizeResult {
    /// The input table as named (`-`: standard input).
    pub input: String,
    /// The release as named (`-`: standard output).
    pub output: String,
    /// The release's format: `csv`, `parquet` or `arrow`.
    pub format: &'static str,
    /// The anonymization report (as `--report-json` writes it).
    pub report: Report,
}

impl Versioned for AnonymizeResult {
    const SCHEMA: &'static str = "karc.anonymize/1";
}

/// What only a streamed pack has (`karc pack --stream`).
#[derive(Debug, Clone, Serialize)]
pub struct StreamPackFigures {
    /// Row groups written.
    pub groups: usize,
    /// Clusters formed and published.
    pub clusters: u64,
    /// Rows released with an earlier cluster's generalization.
    pub reused: u64,
    /// Most arrivals between a row's arrival and its release.
    pub max_delay: u64,
}

/// `karc pack`: an archive written.
#[derive(Debug, Clone, Serialize)]
pub struct PackResult {
    /// The input table as named.
    pub input: String,
    /// The `.karc` file as named.
    pub output: String,
    /// The `.karc` file's size.
    pub file_bytes: u64,
    /// The original the private part restores (an Arrow input's canonical CSV).
    pub original_bytes: u64,
    /// The private part's difference coding (`spec/CODING.md`).
    pub mode: String,
    /// The private part's envelope: `x25519`, `passphrase` or `none`.
    pub encryption: &'static str,
    /// The anonymization report.
    pub report: Report,
    /// A streamed pack's figures (`null` for a batch pack).
    pub stream: Option<StreamPackFigures>,
}

impl Versioned for PackResult {
    const SCHEMA: &'static str = "karc.pack/1";
}

/// `karc restore`: the original written, every check passed.
#[derive(Debug, Clone, Serialize)]
pub struct RestoreResult {
    /// The `.karc` file as named.
    pub input: String,
    /// The original as named.
    pub output: String,
    /// `csv` (the original's bytes), `parquet` or `arrow` (its table).
    pub format: &'static str,
    /// Bytes written (CSV: the original's length).
    pub bytes: Option<u64>,
    /// Rows of the table written (Parquet, Arrow; `null` for CSV).
    pub rows: Option<u64>,
    /// What was checked: the sections' CRC-32, the public part's BLAKE3
    /// against the private part's copy, the original's digest.
    pub verified: Vec<&'static str>,
}

impl Versioned for RestoreResult {
    const SCHEMA: &'static str = "karc.restore/1";
}

/// The checks every restore passes before its output gets its name.
pub const RESTORE_CHECKS: [&str; 3] = ["section-crc32", "public-blake3", "original-digest"];

/// `karc export`: a release written from an archive.
#[derive(Debug, Clone, Serialize)]
pub struct ExportResult {
    /// The `.karc` file as named.
    pub input: String,
    /// The release as named.
    pub output: String,
    /// `csv`, `parquet` or `arrow`.
    pub format: &'static str,
    /// Rows in the release (suppressed rows included).
    pub rows: u64,
    /// Bytes written (CSV only; `null` for Parquet and Arrow).
    pub bytes: Option<u64>,
    /// Whether the claim was re-checked on open (`false` with `--no-privacy-check`).
    pub claim_checked: bool,
}

impl Versioned for ExportResult {
    const SCHEMA: &'static str = "karc.export/1";
}

/// `karc publish`: a copy without the private part written.
#[derive(Debug, Clone, Serialize)]
pub struct PublishResult {
    /// The `.karc` file as named.
    pub input: String,
    /// The copy as named.
    pub output: String,
    /// The copy's size.
    pub file_bytes: u64,
    /// The original file's size.
    pub input_bytes: u64,
}

impl Versioned for PublishResult {
    const SCHEMA: &'static str = "karc.publish/1";
}

/// `karc inspect`: an archive's layout, sizes, claim and metadata.
#[derive(Debug, Clone, Serialize)]
pub struct InspectResult(pub Inspection);

impl Versioned for InspectResult {
    const SCHEMA: &'static str = "karc.inspect/2";
}

/// What only an archive's verification has.
#[derive(Debug, Clone, Serialize)]
pub struct ArchiveFigures {
    /// The format version, "major.minor".
    pub format: String,
    /// `ok`: every section's CRC-32 and the structure (a failure is an error).
    pub integrity: &'static str,
    /// The most rows the claim lets the release suppress.
    pub suppression_budget: u64,
    /// The suppressed rows are within the budget.
    pub within_budget: bool,
    /// The signature (`null`: unsigned): its key id and trusted comment,
    /// `checked` when `--signer` keys were given and one of them signed it.
    pub signature: Option<crate::archive::signature::Status>,
}

/// `karc verify`: a release's claim (and an archive's integrity) checked.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyResult {
    /// The file as named.
    pub file: String,
    /// `table` (a release CSV, Parquet or Arrow file) or `archive`.
    pub kind: &'static str,
    /// Everything checked holds (the exit code is 0 exactly then).
    pub holds: bool,
    /// The claim's report: rows, suppressed rows, each constraint, l-diversity.
    #[serde(flatten)]
    pub claim: ClaimReport,
    /// An archive's own figures (`null` for a table).
    pub archive: Option<ArchiveFigures>,
}

impl Versioned for VerifyResult {
    const SCHEMA: &'static str = "karc.verify/2";
}

/// `karc stream`: a stream's summary.
#[derive(Debug, Clone, Serialize)]
pub struct StreamResult {
    /// `fads` or `castle`.
    pub algorithm: &'static str,
    /// The anonymizer's parameters.
    #[serde(flatten)]
    pub params: StreamParams,
    /// Rows, suppressed rows, loss, delay, clusters.
    #[serde(flatten)]
    pub summary: Summary,
    /// Wall-clock time of the stream.
    pub elapsed_ms: f64,
}

impl Versioned for StreamResult {
    const SCHEMA: &'static str = "karc.stream/1";
}

/// `karc compare`: one row per algorithm, k and mode.
#[derive(Debug, Clone, Serialize)]
pub struct CompareResult {
    /// The input table as named.
    pub input: String,
    /// The measurements.
    pub rows: Vec<CompareRow>,
    /// The information loss per algorithm, k and model set (`--models`;
    /// empty without).
    pub models: Vec<ModelRow>,
}

impl Versioned for CompareResult {
    const SCHEMA: &'static str = "karc.compare/1";
}

/// `karc completions` and `karc man`: a generated text written.
#[derive(Debug, Clone, Serialize)]
pub struct GeneratedResult {
    /// What was generated: `completions` or `man`.
    pub what: &'static str,
    /// The shell of completions (`null` for a man page).
    pub shell: Option<String>,
    /// The files written, as named (`-`: standard output).
    pub files: Vec<String>,
    /// Bytes written, all files together.
    pub bytes: u64,
}

impl Versioned for GeneratedResult {
    const SCHEMA: &'static str = "karc.generated/1";
}

/// `karc keygen`: an identity made, or an identity file's public keys read
/// (`-y`).
#[derive(Debug, Clone, Serialize)]
pub struct KeygenResult {
    /// Whether a new identity was made (`false` with `-y`).
    pub created: bool,
    /// The identity file as named: written (`-`: standard output), or read
    /// with `-y`.
    pub identity_file: String,
    /// The public keys (`age1...`): the new identity's, or each of the
    /// file's. Never the secret key.
    pub recipients: Vec<String>,
}

impl Versioned for KeygenResult {
    const SCHEMA: &'static str = "karc.keygen/1";
}

/// `karc keygen --signing`: a signing key pair written.
#[derive(Debug, Clone, Serialize)]
pub struct SigningKeygenResult {
    /// The secret key file as named.
    pub secret_key_file: String,
    /// The public key file as named (`FILE.pub`).
    pub public_key_file: String,
    /// The key id, as minisign prints it.
    pub key_id: String,
    /// The public key's base64 line (never the secret key).
    pub public_key: String,
    /// Whether the secret key is protected by a passphrase.
    pub protected: bool,
}

impl Versioned for SigningKeygenResult {
    const SCHEMA: &'static str = "karc.keygen-signing/1";
}

/// `karc keygen --pseudonym`: a pseudonym key written (never its bytes).
#[derive(Debug, Clone, Serialize)]
pub struct PseudonymKeygenResult {
    /// The key file as named.
    pub key_file: String,
}

impl Versioned for PseudonymKeygenResult {
    const SCHEMA: &'static str = "karc.keygen-pseudonym/1";
}

/// `karc sign`: an archive signed.
#[derive(Debug, Clone, Serialize)]
pub struct SignResult {
    /// The archive as named.
    pub input: String,
    /// What was written: the signed archive, or the detached `.minisig`.
    pub output: String,
    /// `embedded` or `detached`.
    pub kind: &'static str,
    /// The signing key's id.
    pub key_id: String,
    /// The trusted comment signed.
    pub trusted_comment: String,
}

impl Versioned for SignResult {
    const SCHEMA: &'static str = "karc.sign/1";
}

/// `karc init`: the drafted config and hierarchy files written.
#[derive(Debug, Clone, Serialize)]
pub struct InitResult {
    /// The table as named.
    pub input: String,
    /// The config as named (`-`: standard output).
    pub config: String,
    /// The hierarchy files written (`--hierarchies-dir`), as named.
    pub hierarchy_files: Vec<String>,
    /// Rows the scores in `columns` were measured on.
    pub sampled_rows: usize,
    /// Each column's role and why, ranked as `--explain` prints them.
    pub columns: Vec<super::ColumnChoice>,
}

impl Versioned for InitResult {
    const SCHEMA: &'static str = "karc.init/1";
}

/// A command that failed, as `--json` reports it.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorResult {
    /// `usage` (bad flags), `bad-input` (exit 2) or `check-failed` (exit 1).
    pub kind: &'static str,
    /// The one-line message also printed on standard error.
    pub message: String,
    /// The process's exit code.
    pub exit_code: u8,
}

impl ErrorResult {
    /// An error with its exit code; `usage` marks a command-line error.
    pub fn new(message: String, exit_code: u8, usage: bool) -> ErrorResult {
        let kind = match (usage, exit_code) {
            (true, _) => "usage",
            (false, 1) => "check-failed",
            _ => "bad-input",
        };
        ErrorResult {
            kind,
            message,
            exit_code,
        }
    }
}

impl Versioned for ErrorResult {
    const SCHEMA: &'static str = "karc.error/1";
}
