//! `--json`: each command's result as one JSON document (docs/JSON.md), on
//! standard output, or on standard error when standard output carries the
//! command's data (`-o -`, `karc stream`), so the two never mix.

use std::path::Path;

use anyhow::Result;
use karc::api::Versioned;
use karc::api::is_std;

/// Where a command's `--json` document goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Json {
    /// No `--json`: the usual human lines on standard error.
    Off,
    /// On standard output.
    Stdout,
    /// On standard error: standard output carries the data.
    Stderr,
}

impl Json {
    /// The place of the document of a command writing `output` (`-`:
    /// standard output), when `--json` was given.
    pub fn new(asked: bool, output: Option<&Path>) -> Json {
        match (asked, output.is_some_and(is_std)) {
            (false, _) => Json::Off,
            (true, false) => Json::Stdout,
            (true, true) => Json::Stderr,
        }
    }

    /// Whether `--json` was given (the human summaries are then left out).
    pub fn on(self) -> bool {
        self != Json::Off
    }

    /// Prints `result`'s document where it goes; nothing without `--json`.
    pub fn print<T: Versioned>(self, result: &T) -> Result<()> {
        let text = serde_json::to_string_pretty(&result.document())?;
        match self {
            Json::Off => {}
            Json::Stdout => println!("{text}"),
            Json::Stderr => eprintln!("{text}"),
        }
        Ok(())
    }
}
