//! The command line: argument definitions only (behaviour lives in one
//! module per command).

// Long: one clap definition per command and flag, each with its help text; splitting it would
// scatter the one place a reader looks up what a flag means and how it is parsed.

use std::path::{Path, PathBuf};

use clap::builder::TypedValueParser as _;
use clap::{Args, Parser, Subcommand};

/// `--suppressed`'s values, mask or strict: completions and `--help` list
/// them.
fn suppression_policy() -> impl clap::builder::TypedValueParser<Value = karc::api::SuppressionPolicy>
{
    clap::builder::PossibleValuesParser::new(["mask", "strict"])
        .try_map(|s| s.parse::<karc::api::SuppressionPolicy>())
}

/// `--definitions`' values, pycanon or literature.
fn definitions() -> impl clap::builder::TypedValueParser<Value = karc::api::Definitions> {
    clap::builder::PossibleValuesParser::new(["pycanon", "literature"])
        .try_map(|s| s.parse::<karc::api::Definitions>())
}

/// A whole number from 1 up (k, l, delay, beta, mu, group rows): refused
/// at parse time otherwise.
fn count(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("expected a whole number from 1 up, found {text:?}")),
    }
}

/// A number in 0..=1 (a fraction of rows, a loss); NaN and infinities are
/// refused.
fn fraction(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("expected a number in 0..=1, found {text:?}")),
    }
}

/// A number from 0 up (t, alpha, delta, beta, entropy l); NaN and
/// infinities are refused.
fn non_negative(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!("expected a number from 0 up, found {text:?}")),
    }
}

/// "C,L" of recursive (c,l)-diversity: C > 0, L >= 2.
fn recursive_cl(text: &str) -> Result<(f64, usize), String> {
    let bad = || format!("expected \"C,L\" with C > 0 and a whole L >= 2, found {text:?}");
    let (c, l) = text.split_once(',').ok_or_else(bad)?;
    let c: f64 = c.trim().parse().map_err(|_| bad())?;
    let l: usize = l.trim().parse().map_err(|_| bad())?;
    if !(c.is_finite() && c > 0.0) || l < 2 {
        return Err(bad());
    }
    Ok((c, l))
}

/// The privacy models beyond k, on the `--sensitive` columns (docs/MODELS.md).
#[derive(Debug, Clone, Args)]
pub struct ModelArgs {
    /// A sensitive column (repeatable): every model is measured, and must hold, on each. verify
    /// also takes NAME:categorical, NAME:numeric or NAME:hierarchy=FILE, t-closeness's equal,
    /// ordered or hierarchical distance (a table's NAME alone: numbers ordered, as pandas reads
    /// them; a .karc file's: as it declares them).
    #[arg(long)]
    pub sensitive: Vec<String>,
    /// Distinct l-diversity: every class holds at least L sensitive values.
    #[arg(long, value_parser = count)]
    pub l: Option<usize>,
    /// Entropy l-diversity: every class's entropy is at least ln L.
    #[arg(long, value_parser = non_negative)]
    pub entropy_l: Option<f64>,
    /// Recursive (c,l)-diversity "C,L": in every class r1 < C (r_L + ... + r_m).
    #[arg(long, value_parser = recursive_cl)]
    pub recursive_cl: Option<(f64, usize)>,
    /// t-closeness: every class within Earth Mover's Distance T of the table.
    #[arg(long, value_parser = non_negative)]
    pub t: Option<f64>,
    /// (alpha,k)-anonymity: no sensitive value above a share A of its class.
    #[arg(long, value_parser = non_negative)]
    pub alpha: Option<f64>,
    /// delta-disclosure privacy: |ln(q/p)| at most D for every class and value.
    #[arg(long, value_parser = non_negative)]
    pub delta: Option<f64>,
    /// beta-likeness: no value's frequency raised by more than B relative to the table.
    #[arg(long, value_parser = non_negative)]
    pub beta: Option<f64>,
    /// Check --beta as enhanced beta-likeness (gain at most min(B, -ln p)).
    #[arg(long, requires = "beta")]
    pub enhanced_beta: bool,
}

impl ModelArgs {
    /// Sets the models given on `config`'s [privacy] (same names).
    pub fn apply(&self, config: &mut karc::api::Config) {
        self.apply_to(&mut config.privacy);
    }

    /// Sets the models given on `p` (same names as the [privacy] keys).
    fn apply_to(&self, p: &mut karc::api::PrivacyConfig) {
        if !self.sensitive.is_empty() {
            p.sensitive = self.sensitive.clone();
        }
        p.l = self.l.or(p.l);
        p.entropy_l = self.entropy_l.or(p.entropy_l);
        p.recursive_cl = self.recursive_cl.or(p.recursive_cl);
        p.t = self.t.or(p.t);
        p.alpha = self.alpha.or(p.alpha);
        p.delta = self.delta.or(p.delta);
        p.beta = self.beta.or(p.beta);
        p.enhanced_beta |= self.enhanced_beta;
    }

    /// The claimed models, measured by `definitions` (the anonymizers
    /// enforce the default's).
    pub fn models(&self, definitions: karc::api::Definitions) -> karc::api::Models {
        // One reading of the model keys: the config's.
        let mut p = karc::api::PrivacyConfig::default();
        self.apply_to(&mut p);
        karc::api::Models {
            definitions,
            ..p.models()
        }
    }
}

/// scrypt's work factor, in the range karc seals with.
fn work_factor() -> clap::builder::RangedI64ValueParser<u8> {
    let range = karc::api::WORK_FACTORS;
    clap::value_parser!(u8).range(i64::from(*range.start())..=i64::from(*range.end()))
}

/// A finite number above 0.
fn positive(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("expected a finite number above 0, found {text:?}")),
    }
}

#[derive(Debug, Parser)]
#[command(
    name = "karc",
    version,
    about = "k-anonymized releases with a sealed, restorable original",
    long_about = "karc anonymizes a table to k-anonymity with the published algorithms, \
                  verifies privacy claims, and archives releases.\n\n\
                  Every input and output may be `-`: standard input or standard output.\n\n\
                  Exit codes: 0 success, 1 a check failed, 2 bad usage or bad input."
)]
pub struct Cli {
    /// Print the result as one JSON document (schemas in docs/JSON.md), on standard output, or on
    /// standard error when standard output carries the command's data (`-o -`, `karc stream`); an
    /// error is a `karc.error/1` document there too.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
#[allow(
    clippy::large_enum_variant,
    reason = "parsed once per run: boxing would only add noise"
)]
pub enum Command {
    /// Anonymize a CSV file into a k-anonymous release CSV.
    Anonymize(AnonymizeArgs),
    /// Check a release CSV's privacy claim, or a .karc file's integrity and claim (exit 1 when it fails).
    Verify(VerifyArgs),
    /// Anonymize standard input as a stream (FADS or CASTLE), row by row.
    Stream(StreamArgs),
    /// Anonymize a CSV file and archive release + sealed original in one .karc file.
    Pack(PackArgs),
    /// Restore the original CSV, byte for byte, from a .karc file's private part.
    Restore(RestoreArgs),
    /// Write a .karc file's release as CSV (as `karc anonymize` writes it).
    Export(ExportArgs),
    /// Write a copy of a .karc file without its private part, for third parties.
    Publish(PublishArgs),
    /// Show a .karc file's sections, sizes per part and column, claim, algorithm and metrics.
    Inspect(InspectArgs),
    /// Write a release's report: one self-contained HTML page (or, with --json, one JSON document) of
    /// the claim, every model, the risk, the class sizes, the generalization, the loss and the sizes.
    Report(ReportArgs),
    /// Sizes and times against zip (and zstd, xz) per algorithm and k.
    Compare(CompareArgs),
    /// Print a shell's completion script (bash, zsh, fish, elvish, powershell).
    Completions(CompletionsArgs),
    /// Print the man page karc(1) (roff), or write one page per command with --dir.
    Man(ManArgs),
    /// Make an age X25519 identity to seal archives for (its public key goes to stdout), or with
    /// --signing a key to sign archives with.
    Keygen(KeygenArgs),
    /// Sign a .karc file with a publisher's key (minisign's format), embedded or detached.
    Sign(SignArgs),
    /// Write a commented config for a table, with hierarchies built from its values.
    Init(InitArgs),
}

impl Command {
    /// The output that may be standard output (`-`), which a `--json`
    /// document must then leave to the data.
    pub fn data_output(&self) -> Option<&Path> {
        match self {
            Command::Anonymize(a) => Some(&a.output),
            Command::Pack(a) => Some(&a.output),
            Command::Restore(a) => Some(&a.output),
            Command::Export(a) => Some(&a.output),
            Command::Publish(a) => Some(&a.output),
            Command::Compare(a) => a.output.as_deref(),
            Command::Completions(a) => Some(&a.output),
            Command::Man(a) => a.dir.is_none().then_some(a.output.as_path()),
            Command::Init(a) => Some(&a.output),
            // -y: the public keys are the result, so `--json` takes their place on standard
            // output; no -o: the identity on standard output.
            Command::Keygen(a) if a.recipients_of.is_some() => None,
            Command::Keygen(a) => Some(a.output.as_deref().unwrap_or(Path::new("-"))),
            Command::Stream(_) => Some(Path::new("-")),
            Command::Sign(a) => a.output.as_deref(),
            Command::Report(a) => Some(&a.output),
            Command::Verify(_) | Command::Inspect(_) => None,
        }
    }
}

/// A value karc checks itself (its message names the config key it
/// overrides too), whose known values clap lists in help and shell
/// completions offer.
#[derive(Debug, Clone)]
pub struct Known(Vec<&'static str>);

impl Known {
    /// The batch and stream algorithms (`pack` takes both).
    fn any_algorithm() -> Known {
        let mut names = karc::api::algorithm_names();
        names.extend(Self::stream_algorithms().0);
        Known(names)
    }

    /// The stream algorithms.
    fn stream_algorithms() -> Known {
        use karc::api::stream::StreamAlgorithm;
        Known(vec![
            StreamAlgorithm::Fads.name(),
            StreamAlgorithm::Castle.name(),
        ])
    }

    /// The batch algorithms and `all` (`compare`).
    fn algorithms_or_all() -> Known {
        let mut names = karc::api::algorithm_names();
        names.push("all");
        Known(names)
    }

    /// The difference modes of the private part.
    fn modes() -> Known {
        Known(karc::api::DiffMode::ALL.iter().map(|m| m.name()).collect())
    }
}

impl clap::builder::TypedValueParser for Known {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            self.0.iter().map(|n| clap::builder::PossibleValue::new(*n)),
        ))
    }
}

/// What every anonymizing command takes: the config and its overrides.
#[derive(Debug, Args)]
pub struct AnonymizerArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Algorithm, overriding [algorithm] name (`pack --stream`: fads or castle).
    #[arg(long, short = 'a', value_parser = Known::any_algorithm())]
    pub algorithm: Option<String>,
    /// k over all QIs, overriding [privacy] k and any constraint set.
    #[arg(long, short = 'k', value_parser = count)]
    pub k: Option<usize>,
}

/// The config and the overrides of every command that reads one
/// (`compare` takes its algorithms and k values as lists instead).
#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// The TOML config (column roles, types, hierarchies, privacy, algorithm).
    #[arg(long, short = 'c')]
    pub config: PathBuf,
    /// Seed of randomized steps, overriding [algorithm] seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Fraction of rows that may be suppressed (0..=1), overriding [privacy] suppression_limit.
    #[arg(long, value_parser = fraction, allow_negative_numbers = true)]
    pub suppression_limit: Option<f64>,
}

#[derive(Debug, Args)]
pub struct AnonymizeArgs {
    #[command(flatten)]
    pub anonymizer: AnonymizerArgs,
    /// The models beyond k, overriding [privacy]'s keys of the same names.
    #[command(flatten)]
    pub models: ModelArgs,
    /// The input table: CSV, or Parquet (.parquet) or Arrow IPC (.arrow, .feather, .ipc) by its extension
    /// (`-`: standard input, Parquet or IPC recognized by their magic bytes).
    pub input: PathBuf,
    /// Where to write the release: CSV, or Parquet or Arrow IPC by the extension (written atomically; `-`:
    /// standard output, as CSV).
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    /// Also write the report as JSON.
    #[arg(long)]
    pub report_json: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// A release CSV, Parquet or Arrow IPC table, or a .karc file (recognized by its magic or extension; it
    /// carries its own claim, so the other flags are refused); `-`: standard input.
    pub input: PathBuf,
    #[command(flatten)]
    pub claim: ClaimArgs,
    #[command(flatten)]
    pub signer: SignerArgs,
}

/// The claim to check on a release table (`verify`, `report`); a .karc
/// file carries its own, and refuses these flags but the models'.
#[derive(Debug, Args)]
pub struct ClaimArgs {
    /// Quasi-identifier columns of a release table, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub qi: Vec<String>,
    /// k over all the --qi columns.
    #[arg(long, short = 'k', value_parser = count)]
    pub k: Option<usize>,
    /// A constraint "col,col:K" (repeatable), checked on its own columns.
    #[arg(long = "constraint")]
    pub constraints: Vec<String>,
    /// How all-`*` rows count: mask (exempt; the default) or strict (one ordinary class).
    #[arg(long, value_parser = suppression_policy())]
    pub suppressed: Option<karc::api::SuppressionPolicy>,
    #[command(flatten)]
    pub models: ModelArgs,
    /// Whose definitions the values follow where they differ: pycanon or literature.
    #[arg(long, default_value = "pycanon", value_parser = definitions())]
    pub definitions: karc::api::Definitions,
    /// Field delimiter of a CSV release (detected when absent).
    #[arg(long)]
    pub delimiter: Option<char>,
    /// A token that stands for a missing sensitive value (repeatable; default "" and "?"): such a
    /// cell holds no value for the models beyond k.
    #[arg(long)]
    pub missing: Vec<String>,
}

/// The publisher keys a reader trusts (`verify`, `restore`, `export`).
#[derive(Debug, Args)]
pub struct SignerArgs {
    /// A publisher's public key (a .pub file, or its base64 line RW...); repeatable: the .karc file
    /// must carry a valid signature by one of them over every byte of its public part (and of its
    /// private part when present), else exit 1.
    #[arg(long = "signer", value_name = "PUB")]
    pub signers: Vec<String>,
}

/// A publisher's secret key, to sign with.
#[derive(Debug, Args)]
pub struct SignKeyArgs {
    /// Sign the .karc file with this secret key (minisign's format, as `karc keygen --signing` writes).
    #[arg(id = "sign_key", long = "sign", value_name = "KEY")]
    pub key: Option<PathBuf>,
    /// The signing key's passphrase on this file's first line (asked on the terminal otherwise).
    #[arg(
        id = "sign_passphrase_file",
        long = "sign-passphrase-file",
        value_name = "FILE",
        requires = "sign_key"
    )]
    pub passphrase_file: Option<PathBuf>,
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
    #[arg(long, short = 'a', value_parser = Known::stream_algorithms())]
    pub algorithm: Option<String>,
    /// Distinct persons per released class, overriding [privacy] k.
    #[arg(long, short = 'k', value_parser = count)]
    pub k: Option<usize>,
    /// Seed of the random choices, overriding [algorithm] seed.
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub params: StreamParamArgs,
    /// Name of the output column with each row's original row number.
    #[arg(long, default_value = "row")]
    pub row_column: String,
    /// Also write the summary as JSON (rows, suppressed, avg_infoloss, elapsed_ms, parameters).
    #[arg(long)]
    pub report_json: Option<PathBuf>,
}

/// The streaming anonymizers' parameters (`karc stream`, `karc pack --stream`).
#[derive(Debug, Args)]
pub struct StreamParamArgs {
    /// Delay bound delta: a row leaves before this many further rows arrive ([algorithm] delay).
    #[arg(long, value_parser = count)]
    pub delay: Option<usize>,
    /// FADS: loss bound (0..=1) below which a published cluster is kept for reuse (default 0.5).
    #[arg(long, value_parser = fraction, allow_negative_numbers = true)]
    pub tau: Option<f64>,
    /// FADS: at most c0 * delay / k reusable clusters are kept (c0 > 0, default 1.0).
    #[arg(long, value_parser = positive, allow_negative_numbers = true)]
    pub c0: Option<f64>,
    /// CASTLE: most clusters under construction ([algorithm] beta, default 50). Not the --beta of
    /// beta-likeness, a privacy model.
    #[arg(long = "castle-beta", value_name = "BETA", value_parser = count)]
    pub castle_beta: Option<usize>,
    /// CASTLE: its tau is the mean loss of the last mu published clusters (default 100).
    #[arg(long, value_parser = count)]
    pub mu: Option<usize>,
    /// Column holding the person id: rows of one person count once toward k.
    #[arg(long)]
    pub pid: Option<String>,
}

/// How the private part of a new archive is sealed (exactly one way).
#[derive(Debug, Args)]
pub struct SealArgs {
    /// Seal for this X25519 recipient (age1...); repeatable.
    #[arg(long = "recipient", short = 'r', value_name = "AGE1...")]
    pub recipients: Vec<String>,
    /// Seal for every recipient listed in this file (one age1... per line, # comments); repeatable.
    #[arg(long = "recipients-file", short = 'R', value_name = "FILE")]
    pub recipients_files: Vec<PathBuf>,
    /// Seal with a passphrase asked for on the terminal (typed twice, not shown).
    #[arg(long, short = 'p', group = "pass")]
    pub passphrase: bool,
    /// Seal with the passphrase on this file's first line (scrypt).
    #[arg(long, value_name = "FILE", group = "pass")]
    pub passphrase_file: Option<PathBuf>,
    /// Seal with the passphrase held by this environment variable.
    #[arg(long, value_name = "VAR", group = "pass")]
    pub passphrase_env: Option<String>,
    /// scrypt work factor log2(N) for a passphrase, 1..=22 (scrypt takes 2^N KiB; default: about
    /// one second of work).
    #[arg(long, value_name = "LOG_N", requires = "pass", value_parser = work_factor())]
    pub work_factor: Option<u8>,
    /// Write the private part unencrypted: anyone with the file can restore the original.
    #[arg(long)]
    pub no_encryption: bool,
}

/// How a sealed private part is opened.
#[derive(Debug, Args)]
pub struct KeyArgs {
    /// An age identity file (AGE-SECRET-KEY-1... lines, as age-keygen writes); repeatable.
    #[arg(long = "identity", short = 'i', value_name = "FILE")]
    pub identities: Vec<PathBuf>,
    /// Ask for the passphrase on the terminal (not shown).
    #[arg(long, short = 'p', group = "pass", conflicts_with = "identities")]
    pub passphrase: bool,
    /// The passphrase on this file's first line.
    #[arg(
        long,
        value_name = "FILE",
        group = "pass",
        conflicts_with = "identities"
    )]
    pub passphrase_file: Option<PathBuf>,
    /// The passphrase held by this environment variable.
    #[arg(
        long,
        value_name = "VAR",
        group = "pass",
        conflicts_with = "identities"
    )]
    pub passphrase_env: Option<String>,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Makes a new age X25519 identity (as age-keygen does; age's tools read it too). \
                  With -o FILE, the identity goes to FILE (readable by its owner only) and its \
                  public key (age1...) to standard output: seal with `karc pack -r age1...` or \
                  `-R` a file of such lines, restore with `-i FILE`. Without -o, the identity goes \
                  to standard output only when that is not a terminal (`-o -` forces it), and the \
                  public key to standard error. With -y FILE, prints the public keys of an \
                  identity file instead."
)]
pub struct KeygenArgs {
    /// Where to write the identity (`-`: standard output).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace an existing identity file (its old key cannot open what was sealed for it).
    #[arg(long, requires = "output")]
    pub force: bool,
    /// Print the public keys of this identity file's identities instead.
    #[arg(short = 'y', value_name = "FILE", conflicts_with_all = ["output", "force", "signing", "pseudonym"])]
    pub recipients_of: Option<PathBuf>,
    /// Make a signing key instead (minisign's formats): the secret key to -o FILE (readable by its
    /// owner only), the public key to FILE.pub, and the public key's line to standard output.
    #[arg(long, requires = "output")]
    pub signing: bool,
    /// Make a pseudonym key instead (32 random bytes for a config's pseudonym_key) to -o FILE
    /// (readable by its owner only): releases packed with it give a person the same pseudonym.
    #[arg(long, requires = "output", conflicts_with = "signing")]
    pub pseudonym: bool,
    /// With --signing: protect the secret key with a passphrase asked on the terminal (typed twice).
    #[arg(
        long,
        short = 'p',
        requires = "signing",
        conflicts_with = "passphrase_file"
    )]
    pub passphrase: bool,
    /// With --signing: protect the secret key with the passphrase on this file's first line.
    #[arg(long, value_name = "FILE", requires = "signing")]
    pub passphrase_file: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Signs a .karc file with a publisher's secret key (minisign's format; `karc keygen \
                  --signing -o KEY` makes one). The signature is a SIGNATURE section over every \
                  other section, the private part by its own digest, so that `karc publish` keeps \
                  it valid; the file is replaced atomically (or written to -o), any earlier \
                  signature replaced. With --detached, FILE.minisig is written instead, over the \
                  file's bytes, which `minisign -Vm FILE -p KEY.pub` checks."
)]
pub struct SignArgs {
    /// The .karc file.
    pub input: PathBuf,
    /// The secret key (minisign's format).
    #[arg(long, value_name = "KEY")]
    pub key: PathBuf,
    /// The key's passphrase on this file's first line (asked on the terminal otherwise).
    #[arg(long, value_name = "FILE")]
    pub passphrase_file: Option<PathBuf>,
    /// Where to write the signed file (default: replace FILE), or with --detached the signature
    /// (default: FILE.minisig); `-`: standard output.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Write a detached signature over the file's bytes instead of embedding one.
    #[arg(long)]
    pub detached: bool,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Reads a table and writes a commented TOML config that packs it right away: \
                  the delimiter, header, each column's type and number of distinct values are \
                  sniffed; quasi-identifiers are chosen (or taken from --qi) and each gets a \
                  hierarchy built from its values (numbers: interval ladders; fixed-width digit \
                  codes: digit masking; dates: day, month, year; other values: value -> *), \
                  declared inline or written as ARX files with --hierarchies-dir. Read the \
                  comments, then adjust: see docs/CONFIG.md."
)]
pub struct InitArgs {
    /// The table: CSV, or Parquet or Arrow IPC by its extension.
    pub input: PathBuf,
    /// Quasi-identifier columns, comma-separated (default: chosen from the data, as the comments say).
    #[arg(long, value_delimiter = ',')]
    pub qi: Vec<String>,
    /// The sensitive column (released as it is; the target of l-diversity with --l).
    #[arg(long)]
    pub sensitive: Option<String>,
    /// Also claim distinct l-diversity of the --sensitive column.
    #[arg(long, requires = "sensitive", value_parser = count)]
    pub l: Option<usize>,
    /// The k to claim.
    #[arg(long, short = 'k', default_value_t = 5, value_parser = count)]
    pub k: usize,
    /// Write the hierarchies as ARX CSV files in this directory (one per QI) instead of inline.
    #[arg(long, value_name = "DIR")]
    pub hierarchies_dir: Option<PathBuf>,
    /// Print the ranking: each column's role, reason, distinction and separation (standard error
    /// when the config goes to standard output).
    #[arg(long)]
    pub explain: bool,
    /// Where to write the config (`-`: standard output).
    #[arg(long, short = 'o', default_value = "-")]
    pub output: PathBuf,
    /// Replace an existing config or hierarchy files.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct PackArgs {
    #[command(flatten)]
    pub anonymizer: AnonymizerArgs,
    /// The models beyond k, overriding [privacy]'s keys of the same names; stored in the file's claim
    /// and re-checked whenever it is opened.
    #[command(flatten)]
    pub models: ModelArgs,
    /// Difference coding of the private part: per-value-rans (default: small, and restores about as fast as
    /// unzip), context (smallest, restores about 3x slower), per-value (Huffman codes), or paper (paper 004,
    /// for reproduction).
    #[arg(long, value_parser = Known::modes())]
    pub mode: Option<String>,
    /// Anonymize as a stream (--algorithm fads or castle) and pack row group by row group, in memory
    /// bounded by the group size and the delay, not by the input.
    #[arg(long)]
    pub stream: bool,
    #[command(flatten)]
    pub stream_params: StreamParamArgs,
    /// Rows per row group: each is coded, and read back, on its own, in memory bounded by the group (default
    /// 65536 with --stream; without, one group: the groups share one class table, but a group's private
    /// part codes a Mondrian class's values without the rows of other groups, which grows the file a few
    /// percent). A Parquet or Arrow IPC input is one row group.
    #[arg(long, value_parser = count)]
    pub group_rows: Option<usize>,
    /// The input table: CSV, or Parquet or Arrow IPC by its extension (`-`: standard input, recognized by
    /// its magic bytes).
    pub input: PathBuf,
    /// Where to write the .karc file (written atomically, readable by its owner only; `-`: standard output).
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    #[command(flatten)]
    pub seal: SealArgs,
    #[command(flatten)]
    pub sign: SignKeyArgs,
    /// Also write the anonymization report as JSON.
    #[arg(long)]
    pub report_json: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The .karc file (`-`: standard input).
    pub input: PathBuf,
    /// Where to write the original CSV (written atomically, readable by its owner only, after its digest is
    /// checked; `-`: standard output); a .parquet, .arrow, .feather or .ipc output gets the original table as
    /// Parquet or Arrow IPC (a Parquet or IPC input's exact table; a CSV input's columns as strings).
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    /// Replace an existing file (without it, an existing regular file is refused: it may be the original itself).
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub key: KeyArgs,
    /// Open the file even if its release breaks its privacy claim (forensics only).
    #[arg(long)]
    pub no_privacy_check: bool,
    #[command(flatten)]
    pub signer: SignerArgs,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The .karc file (`-`: standard input).
    pub input: PathBuf,
    /// Where to write the release: CSV, or Parquet or Arrow IPC by the extension (written atomically; `-`:
    /// standard output, as CSV).
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    /// Replace an existing file (without it, an existing regular file is refused).
    #[arg(long)]
    pub force: bool,
    /// Open the file even if its release breaks its privacy claim (forensics only).
    #[arg(long)]
    pub no_privacy_check: bool,
    #[command(flatten)]
    pub signer: SignerArgs,
}

#[derive(Debug, Args)]
pub struct PublishArgs {
    /// The .karc file (`-`: standard input).
    pub input: PathBuf,
    /// Where to write the copy without private part (written atomically; `-`: standard output).
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    /// Replace an existing file (without it, an existing regular file is refused).
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The .karc file (`-`: standard input).
    pub input: PathBuf,
    /// Optional key, to report the private part's sizes per column when it is sealed.
    #[command(flatten)]
    pub key: KeyArgs,
    /// Open the file even if its release breaks its privacy claim (forensics only).
    #[arg(long)]
    pub no_privacy_check: bool,
}

/// `karc report`: a .karc file's, or a release table's under the claim its flags give.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A .karc file (whole or a published copy), or a release table (CSV, Parquet or Arrow IPC) with
    /// the claim to check (--qi with --k, --constraint, --sensitive and the models); `-`: standard input.
    pub input: PathBuf,
    /// Where to write the page (written atomically; `-`: standard output).
    #[arg(long, short = 'o', default_value = "-")]
    pub output: PathBuf,
    /// Add what only the publisher should see: the smallest classes with their released values, the
    /// sensitive values in each, the rows at the highest risk; with the key, the sealed figures. The
    /// page says so at its top.
    #[arg(long)]
    pub internal: bool,
    #[command(flatten)]
    pub claim: ClaimArgs,
    /// The archive's key, for an --internal report's sealed figures.
    #[command(flatten)]
    pub key: KeyArgs,
    #[command(flatten)]
    pub signer: SignerArgs,
}

/// How `karc compare` prints its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Table,
    Csv,
    Json,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The config, and overrides of its suppression limit and seed.
    #[command(flatten)]
    pub config: ConfigArgs,
    /// The input table: CSV, or Parquet or Arrow IPC by its extension (`-`: standard input, recognized by
    /// its magic bytes).
    pub input: PathBuf,
    /// Algorithms, comma-separated, or "all" (default: the five of Ibrahim et al.'s comparison).
    #[arg(long, value_delimiter = ',', value_parser = Known::algorithms_or_all())]
    pub algorithms: Vec<String>,
    /// k values, comma-separated (default: 5,10,50,100 as in paper 004).
    #[arg(long = "ks", value_delimiter = ',', value_parser = count)]
    pub ks: Vec<usize>,
    /// Difference modes of the private part, comma-separated (default: all).
    #[arg(long = "mode", value_delimiter = ',', value_parser = Known::modes())]
    pub modes: Vec<String>,
    /// Output format of the rows (default: table; json with --json); csv with --models: the model
    /// rows.
    #[arg(long, value_enum)]
    pub format: Option<OutputFormat>,
    /// Write the rows here instead of standard output (atomically).
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Also draw a bar chart of the sizes: SVG, or PNG for a .png path.
    #[arg(long)]
    pub chart: Option<PathBuf>,
    /// Add zstd and xz beside zip.
    #[arg(long)]
    pub baselines: bool,
    /// Timed runs of each step (the fastest counts).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
    pub repeats: u64,
    /// A model set beside k alone (repeatable), as [privacy] names its models: "l=2", "t=0.2",
    /// "alpha=0.8,delta=1.2", "recursive_cl=3:2", "beta=1,enhanced_beta"; adds the information loss of
    /// each algorithm and k under each set.
    #[arg(long)]
    pub models: Vec<String>,
    /// A sensitive column the --models hold on (repeatable; default: [privacy] sensitive).
    #[arg(long, requires = "models")]
    pub sensitive: Vec<String>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
    /// Where to write the script (`-`: standard output).
    #[arg(long, short = 'o', default_value = "-")]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Where to write karc(1) (`-`: standard output).
    #[arg(long, short = 'o', default_value = "-", conflicts_with = "dir")]
    pub output: PathBuf,
    /// Write karc.1 and a karc-COMMAND.1 page per command into this folder instead.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}
