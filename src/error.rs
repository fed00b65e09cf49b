//! The library's error type, at the bottom of the house: it imports nothing
//! from the crate, so every module can return it.
//!
//! Each area (the table reader, configs, hierarchies, archives, ...) keeps
//! its own error enum where it is defined and implements [`AreaError`] for
//! it there; the blanket `From` below then lets `?` turn it into an
//! [`Error`]. So imports run down: an area knows this module, never the
//! reverse. A caller that needs an area's variants asks [`Error::area`].
//!
//! Every variant names where the problem is (file, line, column, section)
//! and, for mismatches, what was expected and what was found. The binary maps
//! them to exit codes with [`Error::exit_code`]; the library never prints.

use std::fmt;
use std::path::PathBuf;

/// The error of one area of the library, carried by [`Error::Area`].
pub trait AreaError: std::error::Error + Send + Sync + 'static {
    /// The process exit code this error stands for: 2 (bad usage or bad
    /// input) unless the area says a check failed (1).
    fn exit_code(&self) -> u8 {
        2
    }
}

/// Every error the library returns.
#[derive(Debug)]
pub enum Error {
    /// An area's own error (shown as it is): a CSV table, a config, a
    /// hierarchy, a table that does not fit its config, a privacy model, an
    /// anonymizer, an Arrow table, a `.karc` archive, the streaming pipeline.
    Area(Box<dyn AreaError>),
    /// A file that could not be read or written.
    Io {
        /// The file concerned.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Options that contradict each other or name what is not there (a
    /// front end's flags or arguments): bad usage.
    Options(String),
    /// An error and where it comes from (the table, a config section).
    Located {
        /// Where the error comes from, as shown to the user.
        place: String,
        /// The error itself.
        source: Box<Error>,
    },
    /// An anonymizer's release failed the independent privacy check: a bug
    /// in the anonymizer, never the user's fault; nothing is written.
    ReleaseCheck {
        /// The anonymizer whose release failed.
        algorithm: String,
        /// What the check found.
        detail: String,
    },
}

impl<E: AreaError> From<E> for Error {
    fn from(e: E) -> Self {
        Error::Area(Box::new(e))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Area(e) => fmt::Display::fmt(e, f),
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Options(text) => f.write_str(text),
            Error::Located { place, source } => write!(f, "{place}: {source}"),
            Error::ReleaseCheck { algorithm, detail } => write!(
                f,
                "internal check failed: the {algorithm} release does not satisfy the claim: {detail}"
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // Shown as it is: its causes are this error's causes.
            Error::Area(e) => e.source(),
            Error::Io { source, .. } => Some(source),
            Error::Located { source, .. } => Some(&**source),
            Error::Options(_) | Error::ReleaseCheck { .. } => None,
        }
    }
}

impl Error {
    /// An [`Error::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// The area error of type `E` this is, if it is one (an error wrapped
    /// in [`Error::Located`] is not looked into).
    pub fn area<E: AreaError>(&self) -> Option<&E> {
        match self {
            Error::Area(e) => (&**e as &(dyn std::error::Error + 'static)).downcast_ref(),
            _ => None,
        }
    }

    /// The area error of type `E` this is, by value; `Err(self)` otherwise.
    pub fn into_area<E: AreaError>(self) -> Result<E, Self> {
        match self {
            Error::Area(e) if (&*e as &(dyn std::error::Error + 'static)).is::<E>() => {
                let e: Box<dyn std::error::Error + Send + Sync> = e;
                Ok(*e.downcast::<E>().expect("the type was checked"))
            }
            other => Err(other),
        }
    }

    /// The process exit code this error stands for: 1 when a check failed
    /// (a privacy model no release of the table can meet is one), 2 for bad
    /// usage or bad input.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::ReleaseCheck { .. } => 1,
            Error::Area(e) => e.exit_code(),
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
