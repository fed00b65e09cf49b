//! The command line: argument definitions only (behaviour lives in one
//! module per command).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "karc",
    version,
    about = "k-anonymized releases with a sealed, restorable original",
    long_about = "karc anonymizes a table to k-anonymity with the published algorithms, \
                  verifies privacy claims, and archives releases.\n\n\
                  Exit codes: 0 success, 1 a check failed, 2 bad usage or bad input."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Anonymize a CSV file into a k-anonymous release CSV.
    Anonymize(AnonymizeArgs),
    /// Check a release CSV's privacy claim (exit 1 when it fails).
    Verify(VerifyArgs),
}

/// What every anonymizing command takes: the config and its overrides.
#[derive(Debug, Args)]
pub struct AnonymizerArgs {
    /// The TOML config (column roles, types, hierarchies, privacy, algorithm).
    #[arg(long, short = 'c')]
    pub config: PathBuf,
    /// Algorithm, overriding [algorithm] name.
    #[arg(long, short = 'a')]
    pub algorithm: Option<String>,
    /// k over all QIs, overriding [privacy] k and any constraint set.
    #[arg(long, short = 'k')]
    pub k: Option<usize>,
    /// Seed of randomized steps, overriding [algorithm] seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Fraction of rows that may be suppressed, overriding [privacy] suppression_limit.
    #[arg(long)]
    pub suppression_limit: Option<f64>,
}

#[derive(Debug, Args)]
pub struct AnonymizeArgs {
    #[command(flatten)]
    pub anonymizer: AnonymizerArgs,
    /// The input CSV.
    pub input: PathBuf,
    /// Where to write the release CSV (written atomically).
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    /// Also write the report as JSON.
    #[arg(long)]
    pub report_json: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// A release CSV.
    pub input: PathBuf,
    /// Quasi-identifier columns, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub qi: Vec<String>,
    /// k over all the --qi columns.
    #[arg(long, short = 'k')]
    pub k: Option<usize>,
    /// A constraint "col,col:K" (repeatable), checked on its own columns.
    #[arg(long = "constraint")]
    pub constraints: Vec<String>,
    /// How all-`*` rows count: mask (exempt) or strict (one ordinary class).
    #[arg(long, default_value = "mask")]
    pub suppressed: karc::config::SuppressionPolicy,
    /// Sensitive column for distinct l-diversity.
    #[arg(long, requires = "l")]
    pub sensitive: Option<String>,
    /// The l of distinct l-diversity.
    #[arg(long, requires = "sensitive")]
    pub l: Option<usize>,
    /// Field delimiter (detected when absent).
    #[arg(long)]
    pub delimiter: Option<char>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}
