//! Streaming anonymization (paper 003): rows arrive one at a time and each
//! leaves, generalized, no later than `delta` arrivals after it came.
//!
//! [`Stream`] binds a config to a header, turns each incoming record into a
//! [`Tuple`] (QI values as dictionary codes of per-column dictionaries that
//! grow as values arrive), hands it to FADS ([`fads`]) or the CASTLE baseline
//! ([`castle`]), and keeps the running figures: rows, suppressed rows and the
//! average information loss of paper 003 (Definition 5).
//!
//! Released cells reuse the project's [`Cell`] model: a numeric QI becomes
//! `Cell::Interval` between the dictionary codes of the cluster's smallest and
//! largest value (the value itself when they are equal); a categorical QI
//! becomes the lowest common ancestor of the cluster's values in its hierarchy.
//! A numeric QI is always released as an interval, even when the config gives
//! it a hierarchy: paper 003 (Definition 3) generalizes numbers to ranges.
//!
//! Missing values (`[input] missing`) in a numeric QI are values of their
//! own, as in the batch partitioning anonymizers ([`crate::anonymize`]'s
//! partitioning): a cluster whose members all hold one token releases that
//! token; a token beside a number (or another token) has no interval, so
//! that cell is released `*` and costs a full width (1).
//!
//! Choices the paper leaves open, made here:
//! - Information loss (Definition 4) is Iyengar's loss per tuple, as
//!   [`crate::metrics`] computes GLM: numeric `(hi - lo) / (max - min)`,
//!   categorical `(leaves(node) - 1) / (leaves(root) - 1)`, suppressed 1.
//!   While the stream runs, the numeric domain is the range of the values
//!   seen so far (a live feed knows no other); the reported average uses the
//!   range of the whole stream, so it equals `metrics::measure(..).glm` of
//!   the same release (the widths are summed per QI and divided at the end).
//! - Tuple distance = loss of the smallest generalization covering both
//!   (`ALGORITHMS.md`).
//! - A row without a person id column is its own person.
//! - Person ids are compared by a 64-bit hash of their text: a collision can
//!   only make two persons count as one, which errs on the safe side.
//! - Memory: the waiting tuples and clusters take O(delta x |QI|); the QI
//!   dictionaries hold each distinct QI value once (bounded by the domains,
//!   not by the stream length).

pub mod castle;
pub mod fads;
mod schema;

use std::path::PathBuf;

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use serde::Serialize;

use crate::cell::Cell;
use crate::config::Config;
use crate::{Error, Result};

pub use schema::{Generalization, Published, Schema, Span, StreamQi, Tuple};

/// The name the input is given in messages.
pub const STDIN: &str = "<stdin>";

/// Why a stream cannot start or a record cannot enter it.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// A stream parameter (k, delta, beta, ...) is out of its range.
    #[error("{name}: expected {expected}, found {found}")]
    Parameter {
        /// The parameter, algorithm or column as given.
        name: &'static str,
        /// What is accepted.
        expected: &'static str,
        /// What was found.
        found: String,
    },
    /// delta < k: no batch could ever hold k persons.
    #[error(
        "delay {delta} is smaller than k = {k}: a batch could never form a cluster of k persons"
    )]
    DelayBelowK {
        /// The delay given.
        delta: usize,
        /// The k of the config.
        k: usize,
    },
    /// The algorithm name is neither fads nor castle.
    #[error("unknown streaming algorithm {name:?}: expected fads or castle")]
    UnknownAlgorithm {
        /// The parameter, algorithm or column as given.
        name: String,
    },
    /// The person-id column named in the config is not in the header.
    #[error(
        "the person-id column {name:?} is not a column of the input (its columns: {available})"
    )]
    UnknownPid {
        /// The parameter, algorithm or column as given.
        name: String,
        /// The input's columns, for the message.
        available: String,
    },
    /// A record has a different number of fields than the header.
    #[error("{}:{line}: ragged row: expected {expected} fields (as the header), found {found}", input.display())]
    Ragged {
        /// The input file.
        input: PathBuf,
        /// Line of the record (1-based, header included).
        line: u64,
        /// What is accepted.
        expected: usize,
        /// What was found.
        found: usize,
    },
    /// The config claims a model beyond k that streaming anonymizers cannot give.
    #[error(
        "{}: the config claims l-diversity or another model beyond k, which FADS and CASTLE do not provide (they guarantee k); drop [privacy] sensitive and its models for a stream",
        config.display()
    )]
    LDiversityUnsupported {
        /// The config file.
        config: PathBuf,
    },
    /// Rows suppressed at the end would break a strict suppression policy.
    #[error(
        "the stream suppressed {suppressed} rows at its end, fewer than k = {k}: the config's strict suppression policy would count them as a class below k; use suppressed = \"mask\""
    )]
    StrictLeftover {
        /// Rows suppressed at the end of the stream.
        suppressed: u64,
        /// The k of the config.
        k: usize,
    },
    /// A categorical QI value is not a leaf of its hierarchy.
    #[error("{}:{line}: column {column:?}: value {found:?} is absent from the hierarchy {}", input.display(), hierarchy.display())]
    AbsentFromHierarchy {
        /// The input file.
        input: PathBuf,
        /// Line of the record (1-based, header included).
        line: u64,
        /// The QI column.
        column: String,
        /// What was found.
        found: String,
        /// The hierarchy file of the column.
        hierarchy: PathBuf,
    },
}

impl crate::error::AreaError for StreamError {}

/// Which streaming anonymizer runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StreamAlgorithm {
    /// Paper 003: batches of delta tuples, reusable published clusters.
    Fads,
    /// Cao et al. 2011: continuous clustering with merge and split.
    Castle,
}

impl StreamAlgorithm {
    /// Every algorithm, in the order `--help` and benchmarks list them.
    pub const ALL: [StreamAlgorithm; 2] = [StreamAlgorithm::Fads, StreamAlgorithm::Castle];

    /// The algorithm a config or flag names (`fads`, `castle`).
    pub fn from_name(name: &str) -> Result<StreamAlgorithm> {
        match name {
            "fads" => Ok(StreamAlgorithm::Fads),
            "castle" => Ok(StreamAlgorithm::Castle),
            _ => Err(StreamError::UnknownAlgorithm {
                name: name.to_owned(),
            }
            .into()),
        }
    }

    /// The name configs, flags and reports use.
    pub fn name(self) -> &'static str {
        match self {
            StreamAlgorithm::Fads => "fads",
            StreamAlgorithm::Castle => "castle",
        }
    }
}

/// The parameters of both anonymizers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StreamParams {
    /// Distinct persons every released class must hold.
    pub k: usize,
    /// Delay bound: a tuple leaves before `delta` further tuples arrive.
    pub delta: usize,
    /// FADS: a published cluster whose loss is below tau is kept for reuse.
    pub tau: f64,
    /// FADS: at most `c0 * delta / k` reusable clusters are kept.
    pub c0: f64,
    /// CASTLE: most clusters under construction before tuples must join one.
    pub beta: usize,
    /// CASTLE: its adaptive tau is the mean loss of the last mu clusters.
    pub mu: usize,
    /// Seed of the random choices (tie breaks), for reproducible runs.
    pub seed: u64,
}

impl StreamParams {
    /// Paper 003's setting (Table 3) with `k` and `delta`.
    pub fn new(k: usize, delta: usize) -> StreamParams {
        StreamParams {
            k,
            delta,
            tau: 0.5,
            c0: 1.0,
            beta: 50,
            mu: 100,
            seed: 0,
        }
    }

    /// Checks the ranges: k >= 1, delta >= k, tau in [0, 1], c0 > 0,
    /// beta >= 1, mu >= 1.
    pub fn validate(&self) -> Result<()> {
        let bad = |name, expected, found: String| -> Result<()> {
            Err(StreamError::Parameter {
                name,
                expected,
                found,
            }
            .into())
        };
        if self.k == 0 {
            return bad("k", "at least 1", "0".into());
        }
        if self.delta < self.k {
            return Err(StreamError::DelayBelowK {
                delta: self.delta,
                k: self.k,
            }
            .into());
        }
        if !(0.0..=1.0).contains(&self.tau) {
            return bad("tau", "a loss in 0..=1", self.tau.to_string());
        }
        if !(self.c0.is_finite() && self.c0 > 0.0) {
            return bad("c0", "a positive factor", self.c0.to_string());
        }
        if self.beta == 0 {
            return bad("beta", "at least 1", "0".into());
        }
        if self.mu == 0 {
            return bad("mu", "at least 1", "0".into());
        }
        Ok(())
    }

    /// FADS' bound on reusable clusters, `C_s = c0 * delta / K` (at least 1).
    pub fn reusable_clusters(&self) -> usize {
        ((self.c0 * self.delta as f64 / self.k as f64).floor() as usize).max(1)
    }
}

/// A uniform index in `0..n` (Lemire's multiply-shift).
pub(crate) fn pick(rng: &mut ChaCha8Rng, n: usize) -> usize {
    ((rng.next_u64() as u128 * n as u128) >> 64) as usize
}

/// The figures of a stream so far (paper 003's measures).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Rows read.
    pub rows: u64,
    /// Rows released suppressed (every QI `*`).
    pub suppressed: u64,
    /// Average information loss (Definition 5) over the released rows.
    pub avg_infoloss: f64,
    /// Largest number of arrivals between a row's arrival and its release.
    pub max_delay: u64,
    /// Clusters formed and published.
    pub clusters: u64,
    /// Rows released with a previously published cluster's generalization.
    pub reused: u64,
}

/// What an anonymizer keeps between arrivals.
#[derive(Debug)]
enum Engine {
    Fads(fads::Fads),
    Castle(castle::Castle),
}

/// Counters an engine updates.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    /// Clusters formed and published.
    pub clusters: u64,
    /// Rows released with a previously published cluster's generalization.
    pub reused: u64,
}

/// A streaming anonymizer bound to its schema: push records, take the
/// published rows, finish at the end of input.
#[derive(Debug)]
pub struct Stream {
    schema: Schema,
    params: StreamParams,
    algorithm: StreamAlgorithm,
    engine: Engine,
    published: Vec<Published>,
    counters: Counters,
    arrivals: u64,
    released: u64,
    suppressed: u64,
    max_delay: u64,
    /// Per QI: summed interval widths (numeric) or losses (categorical).
    loss_sums: Vec<f64>,
    /// Per numeric QI: its `*` cells in rows not suppressed (a missing token
    /// beside another value), each a full width whatever the final domain.
    stars: Vec<u64>,
}

impl Stream {
    /// An empty stream; fails on out-of-range parameters.
    pub fn new(schema: Schema, algorithm: StreamAlgorithm, params: StreamParams) -> Result<Stream> {
        params.validate()?;
        let rng = ChaCha8Rng::seed_from_u64(params.seed);
        let engine = match algorithm {
            StreamAlgorithm::Fads => Engine::Fads(fads::Fads::new(&params, rng)),
            StreamAlgorithm::Castle => Engine::Castle(castle::Castle::new(&params, rng)),
        };
        let q = schema.qis.len();
        Ok(Stream {
            schema,
            params,
            algorithm,
            engine,
            published: Vec::new(),
            counters: Counters::default(),
            arrivals: 0,
            released: 0,
            suppressed: 0,
            max_delay: 0,
            loss_sums: vec![0.0; q],
            stars: vec![0; q],
        })
    }

    /// The config bound to the header, with the dictionaries grown so far.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The parameters the stream runs with.
    pub fn params(&self) -> &StreamParams {
        &self.params
    }

    /// The anonymizer that runs.
    pub fn algorithm(&self) -> StreamAlgorithm {
        self.algorithm
    }

    /// Rows read so far.
    pub fn arrivals(&self) -> u64 {
        self.arrivals
    }

    /// Reads record `raw` (line `line` of the input) and runs the anonymizer;
    /// rows it publishes wait in [`Stream::take_published`]. On error the
    /// stream is unchanged and the row is not taken.
    pub fn push(&mut self, line: u64, raw: &csv::StringRecord) -> Result<()> {
        let tuple = self.schema.tuple(line, self.arrivals + 1, raw)?;
        self.arrivals += 1;
        let start = self.published.len();
        match &mut self.engine {
            Engine::Fads(f) => f.push(&self.schema, tuple, &mut self.published, &mut self.counters),
            Engine::Castle(c) => {
                c.push(&self.schema, tuple, &mut self.published, &mut self.counters)
            }
        }
        self.account(start);
        Ok(())
    }

    /// Ends the stream: every waiting row is published (fewer than k left
    /// over are suppressed).
    pub fn finish(&mut self) {
        let start = self.published.len();
        match &mut self.engine {
            Engine::Fads(f) => f.finish(&self.schema, &mut self.published, &mut self.counters),
            Engine::Castle(c) => c.finish(&self.schema, &mut self.published, &mut self.counters),
        }
        self.account(start);
    }

    /// The rows published since the last call, in publication order.
    pub fn take_published(&mut self) -> Vec<Published> {
        std::mem::take(&mut self.published)
    }

    fn account(&mut self, start: usize) {
        for p in &self.published[start..] {
            self.released += 1;
            self.max_delay = self.max_delay.max(self.arrivals - p.row);
            if p.is_suppressed() {
                self.suppressed += 1;
                continue;
            }
            for (((sum, stars), sq), cell) in self
                .loss_sums
                .iter_mut()
                .zip(&mut self.stars)
                .zip(&self.schema.qis)
                .zip(&p.cells)
            {
                *sum += match (*cell, &sq.categories) {
                    (Cell::Value(_), _) => 0.0,
                    (Cell::Interval { lo, hi }, None) => sq.number(hi) - sq.number(lo),
                    (Cell::Suppressed, None) => {
                        *stars += 1;
                        0.0
                    }
                    (Cell::Suppressed, Some(_)) => 1.0,
                    (Cell::Node { level, node }, Some(c)) => c.loss[level as usize][node as usize],
                    _ => unreachable!("numeric QIs get intervals, categorical ones nodes"),
                };
            }
        }
    }

    /// The figures so far; the numeric losses use the range of every value
    /// seen.
    pub fn summary(&self) -> Summary {
        let q = self.schema.qis.len() as f64;
        let n = self.released as f64;
        let avg_infoloss = if self.released == 0 {
            0.0
        } else {
            let mut total = self.suppressed as f64 * q;
            for ((sum, &stars), sq) in self.loss_sums.iter().zip(&self.stars).zip(&self.schema.qis)
            {
                total += if sq.is_numeric() {
                    // As `metrics`: a `*` costs 1 unless the numbers seen
                    // span no width (then every cell costs 0).
                    let w = sq.width();
                    match sq.domain {
                        Some(_) if w <= 0.0 => 0.0,
                        Some(_) => sum / w + stars as f64,
                        None => stars as f64,
                    }
                } else {
                    *sum
                };
            }
            total / (n * q)
        };
        Summary {
            rows: self.released,
            suppressed: self.suppressed,
            avg_infoloss,
            max_delay: self.max_delay,
            clusters: self.counters.clusters,
            reused: self.counters.reused,
        }
    }
}

/// Releases `t` with generalization `g`.
pub(crate) fn publish(schema: &Schema, g: &[Span], t: Tuple, out: &mut Vec<Published>) {
    out.push(Published {
        row: t.row,
        cells: schema.cells(g),
        record: t.record,
    });
}

/// Releases `t` suppressed (every QI `*`).
pub(crate) fn suppress(schema: &Schema, t: Tuple, out: &mut Vec<Published>) {
    out.push(Published {
        row: t.row,
        cells: vec![Cell::Suppressed; schema.qis.len()],
        record: t.record,
    });
}

/// The column names of a header record (trimmed when the config says so).
pub fn header_names(config: &Config, header: &csv::StringRecord) -> Vec<String> {
    header
        .iter()
        .map(|f| {
            if config.input.trim {
                crate::table::trim_blanks(f).to_owned()
            } else {
                f.to_owned()
            }
        })
        .collect()
}

/// Runs a whole CSV held in memory through a stream (tests and runners):
/// `sink` gets each published row with the number of rows that had arrived
/// when it left. The command line streams standard input instead.
pub fn run_csv(
    config: &Config,
    bytes: &[u8],
    algorithm: StreamAlgorithm,
    params: StreamParams,
    pid: Option<&str>,
    mut sink: impl FnMut(&Schema, Published, u64),
) -> Result<Summary> {
    let delimiter = config
        .delimiter()?
        .unwrap_or_else(|| crate::table::detect_delimiter(bytes));
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let malformed = |e: csv::Error| {
        Error::from(crate::table::CsvError::Malformed {
            path: STDIN.into(),
            line: e.position().map_or(0, |p| p.line()),
            message: e.to_string(),
        })
    };
    let mut records = reader.records();
    let first = match records.next() {
        Some(r) => r.map_err(malformed)?,
        None => {
            return Err(crate::table::CsvError::Empty { path: STDIN.into() }.into());
        }
    };
    let schema = Schema::bind(config, &header_names(config, &first), delimiter, pid)?;
    let mut stream = Stream::new(schema, algorithm, params)?;
    let mut drain = |stream: &mut Stream| {
        let arrivals = stream.arrivals();
        for p in stream.take_published() {
            sink(stream.schema(), p, arrivals);
        }
    };
    if !config.input.header {
        stream.push(1, &first)?;
        drain(&mut stream);
    }
    let mut last = first
        .position()
        .map_or((0, 1), |p| (p.byte() as usize, p.line()));
    for r in records {
        let r = r.map_err(malformed)?;
        let line = r.position().map_or(0, |p| p.line());
        last = r.position().map_or(last, |p| (p.byte() as usize, line));
        stream.push(line, &r)?;
        drain(&mut stream);
    }
    let mut quotes = crate::table::QuoteState::new(delimiter, last.1);
    quotes.feed(&bytes[last.0.min(bytes.len())..]);
    if let Some(line) = quotes.unclosed() {
        return Err(crate::table::QuoteState::error(std::path::Path::new(STDIN), line).into());
    }
    stream.finish();
    drain(&mut stream);
    Ok(stream.summary())
}
