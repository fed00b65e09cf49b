//! The library's error type: one enum per area, gathered here.
//!
//! Every variant names where the problem is (file, line, column, section)
//! and, for mismatches, what was expected and what was found. The binary maps
//! them to exit codes with [`Error::exit_code`]; the library never prints.

use std::path::PathBuf;

pub use crate::anonymize::AnonymizeError;
pub use crate::archive::ArchiveError;
pub use crate::config::ConfigError;
pub use crate::dataset::DataError;
pub use crate::hierarchy::HierarchyError;
pub use crate::privacy::ModelError;
pub use crate::stream::StreamError;
pub use crate::table::CsvError;

/// Every error the library returns, by the area it comes from.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or parsing a CSV table.
    #[error(transparent)]
    Csv(#[from] CsvError),
    /// Boxed: Arrow's messages carry more than the other variants.
    #[error(transparent)]
    Arrow(Box<crate::arrow::ArrowTableError>),
    /// A config file that does not parse or contradicts itself.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A generalization hierarchy that is malformed or misses values.
    #[error(transparent)]
    Hierarchy(#[from] HierarchyError),
    /// A table that does not fit its config (columns, types, values).
    #[error(transparent)]
    Data(#[from] DataError),
    /// A privacy model that cannot be built from the config and data.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// An anonymizer that could not produce a release.
    #[error(transparent)]
    Anonymize(#[from] AnonymizeError),
    /// Writing, reading or opening a `.karc` archive.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// The streaming (chunked) pipeline.
    #[error(transparent)]
    Stream(#[from] StreamError),
    /// A file that could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// Options that contradict each other or name what is not there (a
    /// front end's flags or arguments): bad usage.
    #[error("{0}")]
    Options(String),
    /// An error and where it comes from (the table, a config section).
    #[error("{place}: {source}")]
    Located {
        /// Where the error comes from, as shown to the user.
        place: String,
        /// The error itself.
        #[source]
        source: Box<Error>,
    },
    /// An anonymizer's release failed the independent privacy check: a bug
    /// in the anonymizer, never the user's fault; nothing is written.
    #[error("internal check failed: the {algorithm} release does not satisfy the claim: {detail}")]
    ReleaseCheck {
        /// The anonymizer whose release failed.
        algorithm: String,
        /// What the check found.
        detail: String,
    },
}

impl Error {
    /// An [`Error::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// The process exit code this error stands for: 1 when a check failed
    /// (a privacy model no release of the table can meet is one), 2 for bad
    /// usage or bad input.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::ReleaseCheck { .. } => 1,
            Error::Model(e) if e.unreachable() => 1,
            Error::Archive(e) => e.exit_code(),
            Error::Located { source, .. } => source.exit_code(),
            _ => 2,
        }
    }
}

/// An error and its causes on one line, leaving out a cause whose text the
/// message already shows (an I/O error is named by its wrapper too): what
/// the command line prints after `karc: error:`, and what the Python
/// package's exceptions say.
pub fn message(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = String::new();
    let mut cause = Some(err);
    while let Some(e) = cause {
        let part = e.to_string();
        if !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
        cause = e.source();
    }
    text.replace(['\n', '\r'], " ")
}
