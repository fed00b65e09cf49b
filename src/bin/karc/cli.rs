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
    /// Anonymize standard input as a stream (FADS or CASTLE), row by row.
    Stream(StreamArgs),
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

#[derive(Debug, Args)]
#[command(
    long_about = "Anonymizes the CSV on standard input as a data stream (paper 003): every row is \
                  written to standard output, generalized, as soon as it is published, and no \
                  later than --delay rows after it arrived. Output rows come in publication order, \
                  not input order: an extra last column (--row-column, default `row`) gives each \
                  row's original 1-based data row number. Suppressed rows show `*` in every \
                  quasi-identifier. A summary (rows, suppressed, average information loss, \
                  elapsed time) goes to standard error.\n\n\
                  Bad input, even in the middle of the stream, stops with exit code 2; rows \
                  already written stay written."
)]
pub struct StreamArgs {
    /// The TOML config (column roles, types, hierarchies).
    #[arg(long, short = 'c')]
    pub config: PathBuf,
    /// fads (paper 003) or castle (Cao et al. 2011); default: [algorithm] name.
    #[arg(long, short = 'a')]
    pub algorithm: Option<String>,
    /// Distinct persons per released class, overriding [privacy] k.
    #[arg(long, short = 'k')]
    pub k: Option<usize>,
    /// Delay bound delta: a row leaves before this many further rows arrive ([algorithm] delay).
    #[arg(long)]
    pub delay: Option<usize>,
    /// FADS: loss bound below which a published cluster is kept for reuse (default 0.5).
    #[arg(long)]
    pub tau: Option<f64>,
    /// FADS: at most c0 * delay / k reusable clusters are kept (default 1.0).
    #[arg(long)]
    pub c0: Option<f64>,
    /// CASTLE: most clusters under construction (default 50).
    #[arg(long)]
    pub beta: Option<usize>,
    /// CASTLE: its tau is the mean loss of the last mu published clusters (default 100).
    #[arg(long)]
    pub mu: Option<usize>,
    /// Column holding the person id: rows of one person count once toward k.
    #[arg(long)]
    pub pid: Option<String>,
    /// Seed of the random choices, overriding [algorithm] seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Name of the output column with each row's original row number.
    #[arg(long, default_value = "row")]
    pub row_column: String,
    /// Also write the summary as JSON (rows, suppressed, avg_infoloss, elapsed_ms, parameters).
    #[arg(long)]
    pub report_json: Option<PathBuf>,
}
