//! The release report that `karc report` writes for a data steward and a
//! reviewer ([`ReleaseReport`], docs/REPORT.md): gathered from an archive or
//! a release table ([`gather`]), written as one self-contained HTML page
//! ([`html`], with its charts drawn by `svg`) or as JSON. It reads archives
//! and releases, so it sits above them; the anonymization report that
//! `anonymize --report-json` and `pack` write is `crate::report`.

pub mod content;
mod escape;
pub mod gather;
pub mod generalization;
pub mod html;
mod svg;

pub use content::ReleaseReport;
