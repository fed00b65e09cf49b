//! Reports: the anonymization report that `anonymize --report-json` and
//! `pack` write beside a release ([`Report`]), and the release report that
//! `karc report` writes for a data steward and a reviewer
//! ([`ReleaseReport`], docs/REPORT.md): gathered from an archive or a
//! release table ([`gather`]), written as one self-contained HTML page
//! ([`html`], with its charts drawn by `svg`) or as JSON.

mod anonymization;
pub mod content;
mod escape;
pub mod gather;
pub mod generalization;
pub mod html;
mod svg;

pub use anonymization::{ConstraintSummary, Report};
pub use content::ReleaseReport;
