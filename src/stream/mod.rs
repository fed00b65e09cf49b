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

// Long: binding, tuple conversion and running figures share Stream's private state; FADS and CASTLE
// live in their own modules already

pub mod castle;
pub mod fads;

use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use rustc_hash::FxHasher;
use serde::Serialize;

use crate::cell::Cell;
use crate::config::{Config, ConfigError, Role, ValueType};
use crate::dataset::{DataError, QuasiIdentifier, load_hierarchy};
use crate::dictionary::Dictionary;
use crate::hierarchy::Hierarchy;
use crate::number::NumberFormat;
use crate::{Error, Result};

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

/// How a categorical QI's generalizations cost and join.
#[derive(Debug, Clone)]
struct Categories {
    /// Loss of every node, `[level][node]`.
    loss: Vec<Vec<f64>>,
    /// Loss of the lowest common ancestor of two leaves, `[a * leaves + b]`
    /// (only for hierarchies of at most `PAIR_TABLE_LEAVES` leaves).
    pair: Vec<f64>,
    leaves: usize,
}

/// Largest hierarchy whose leaf-pair losses are tabulated (8 MiB at most).
const PAIR_TABLE_LEAVES: usize = 1024;

impl Categories {
    fn new(h: &Hierarchy) -> Categories {
        let leaves = h.leaf_count();
        let root = leaves as f64;
        let loss: Vec<Vec<f64>> = (0..=h.height())
            .map(|level| {
                (0..h.nodes(level) as u32)
                    .map(|node| {
                        if root <= 1.0 {
                            0.0
                        } else {
                            (h.leaves_under(level, node) as f64 - 1.0) / (root - 1.0)
                        }
                    })
                    .collect()
            })
            .collect();
        let mut c = Categories {
            loss,
            pair: Vec::new(),
            leaves,
        };
        if leaves <= PAIR_TABLE_LEAVES {
            let mut pair = vec![0.0; leaves * leaves];
            for a in 0..leaves as u32 {
                for b in 0..leaves as u32 {
                    let (level, node) = join(h, 0, a, b);
                    pair[a as usize * leaves + b as usize] = c.loss[level as usize][node as usize];
                }
            }
            c.pair = pair;
        }
        c
    }
}

/// The lowest ancestor of `node` at `level` that also covers `leaf`.
#[inline]
fn join(h: &Hierarchy, level: u32, node: u32, leaf: u32) -> (u32, u32) {
    let (mut l, mut n) = (level as usize, node);
    while h.node_of(l, leaf) != n {
        n = h.parent(l, n);
        l += 1;
    }
    (l as u32, n)
}

/// One QI of the stream: its growing dictionary and generalization data.
#[derive(Debug, Clone)]
pub struct StreamQi {
    /// `leaf_of` and `numbers` grow with `dict`, so [`Cell::label`] and
    /// [`Cell::covers`] work on stream cells as on table cells.
    pub qi: QuasiIdentifier,
    /// The distinct values seen so far; cells hold codes into it.
    pub dict: Dictionary,
    /// Smallest and largest number seen so far (numeric QIs; missing
    /// tokens are not numbers and leave it as it is).
    pub domain: Option<(f64, f64)>,
    categories: Option<Categories>,
}

impl StreamQi {
    fn is_numeric(&self) -> bool {
        self.categories.is_none()
    }

    /// The number of a value an interval holds (never a missing token).
    #[inline]
    fn number(&self, code: u32) -> f64 {
        self.qi.numbers[code as usize].expect("an interval bound is a number")
    }

    /// The span of numeric value `code` alone: a point, or its token.
    #[inline]
    fn numeric_point(&self, code: u32) -> Span {
        match self.qi.numbers[code as usize] {
            Some(x) => Span::Range {
                lo: x,
                hi: x,
                lo_code: code,
                hi_code: code,
            },
            None => Span::Token { code },
        }
    }

    #[inline]
    fn width(&self) -> f64 {
        self.domain.map_or(0.0, |(lo, hi)| hi - lo)
    }

    fn hierarchy(&self) -> &Hierarchy {
        self.qi
            .hierarchy
            .as_ref()
            .expect("categorical QI has a hierarchy")
    }
}

/// The generalization of one QI over a set of tuples (Definition 6).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Span {
    /// Numeric: the smallest and largest value, with their dictionary codes.
    Range {
        /// Smallest value.
        lo: f64,
        /// Largest value.
        hi: f64,
        /// Dictionary code of `lo`.
        lo_code: u32,
        /// Dictionary code of `hi`.
        hi_code: u32,
    },
    /// Numeric: one missing-value token that every member holds.
    Token {
        /// Dictionary code of the token.
        code: u32,
    },
    /// Numeric: numbers beside a missing token, or two tokens: no interval
    /// shows them, so the cell is released `*`.
    Mixed,
    /// Categorical: the lowest common ancestor; `code` is one member's
    /// dictionary code (the released value when the node is a leaf).
    Node {
        /// Hierarchy level of the ancestor (0 = leaves).
        level: u32,
        /// The ancestor's index at that level.
        node: u32,
        /// A member's dictionary code.
        code: u32,
    },
}

/// A generalization of every QI.
pub type Generalization = Vec<Span>;

/// One arrived row.
#[derive(Debug, Clone)]
pub struct Tuple {
    /// 1-based data row number (arrival order).
    pub row: u64,
    /// Hash of the person id (the row number when there is no pid column).
    pub pid: u64,
    /// Dictionary code of each QI value.
    pub codes: Box<[u32]>,
    /// Every field as read (trimmed when the config says so).
    pub record: csv::StringRecord,
}

/// A row leaving the anonymizer.
#[derive(Debug, Clone)]
pub struct Published {
    /// 1-based data row number (arrival order).
    pub row: u64,
    /// The generalized cell of each QI; all `Suppressed` for a suppressed row.
    pub cells: Vec<Cell>,
    /// Every field as read; the QI fields are replaced by `cells` on output.
    pub record: csv::StringRecord,
}

impl Published {
    /// Whether the row left suppressed (every QI `*`).
    pub fn is_suppressed(&self) -> bool {
        self.cells.iter().all(|c| *c == Cell::Suppressed)
    }
}

/// The config bound to the stream's header.
#[derive(Debug, Clone)]
pub struct Schema {
    /// The input, for messages.
    pub source: PathBuf,
    /// The header's column names.
    pub names: Vec<String>,
    /// The config's role of each column, in header order.
    pub roles: Vec<Role>,
    /// The quasi-identifiers, in header order.
    pub qis: Vec<StreamQi>,
    /// Position of the person-id column, if one is named.
    pub pid: Option<usize>,
    /// Whether fields are trimmed before they are read as values.
    pub trim: bool,
    /// How numbers are spelled (a decimal comma unless the delimiter is a
    /// comma).
    pub number_format: NumberFormat,
    missing: Vec<String>,
}

impl Schema {
    // Long: binds every column of the config to the header in one pass (role, type, hierarchy,
    // refused claims), so errors name the column
    /// Binds `config` to the column names of the stream, whose fields
    /// `delimiter` separates. Every column must be listed in the config;
    /// categorical QIs need a hierarchy.
    pub fn bind(
        config: &Config,
        header: &[String],
        delimiter: u8,
        pid: Option<&str>,
    ) -> Result<Schema> {
        // FADS and CASTLE guarantee k only: a claim beyond it is refused,
        // not dropped.
        if config.privacy.beyond_k() {
            return Err(StreamError::LDiversityUnsupported {
                config: config.path.clone(),
            }
            .into());
        }
        let source = PathBuf::from(STDIN);
        let names: Vec<String> = if config.input.header {
            header.to_vec()
        } else {
            if config.columns.len() != header.len() {
                return Err(ConfigError::ColumnCount {
                    path: config.path.clone(),
                    csv: source,
                    listed: config.columns.len(),
                    found: header.len(),
                }
                .into());
            }
            config.columns.iter().map(|c| c.name.clone()).collect()
        };
        for c in &config.columns {
            if !names.contains(&c.name) {
                return Err(ConfigError::UnknownColumn {
                    path: config.path.clone(),
                    csv: source,
                    name: c.name.clone(),
                    available: names.join(", "),
                    hint: String::new(),
                }
                .into());
            }
        }
        let mut roles = Vec::with_capacity(names.len());
        for name in &names {
            let Some(role) = config.role(name) else {
                return Err(ConfigError::UnlistedColumn {
                    path: config.path.clone(),
                    csv: source,
                    name: name.clone(),
                }
                .into());
            };
            roles.push(role);
        }
        let mut qis = Vec::new();
        for c in config
            .columns
            .iter()
            .filter(|c| c.role == Some(Role::Quasi))
        {
            let column = names.iter().position(|n| *n == c.name).expect("checked");
            let numeric = c.value_type.is_numeric();
            if !numeric && matches!(c.hierarchy, Some(crate::config::HierarchyConfig::Build(_))) {
                return Err(crate::Error::Options(format!(
                    "column {:?}: a streamed table is not read whole, so its hierarchy cannot be built \
                     from its values: give a hierarchy file (`karc init --hierarchies-dir DIR` writes one)",
                    c.name
                )));
            }
            let hierarchy = match config.hierarchy_source(c) {
                Some(crate::config::HierarchySource::File(path)) if !numeric => {
                    Some(load_hierarchy(config, &c.name, &path)?)
                }
                Some(_) => None,
                None if numeric => None,
                None => {
                    return Err(DataError::NoHierarchy {
                        column: c.name.clone(),
                    }
                    .into());
                }
            };
            let categories = hierarchy.as_ref().map(Categories::new);
            qis.push(StreamQi {
                qi: QuasiIdentifier {
                    column,
                    name: c.name.clone(),
                    value_type: c.value_type,
                    hierarchy,
                    leaf_of: Vec::new(),
                    numbers: Vec::new(),
                },
                dict: Dictionary::new(),
                domain: None,
                categories,
            });
        }
        if qis.is_empty() {
            return Err(DataError::NoQuasiIdentifier.into());
        }
        let pid =
            match pid {
                None => None,
                Some(p) => Some(names.iter().position(|n| n == p).ok_or_else(|| {
                    StreamError::UnknownPid {
                        name: p.to_owned(),
                        available: names.join(", "),
                    }
                })?),
            };
        Ok(Schema {
            source,
            names,
            roles,
            qis,
            pid,
            trim: config.input.trim,
            number_format: NumberFormat::for_delimiter(delimiter),
            missing: config.input.missing.clone(),
        })
    }

    /// Reads one record (line `line` of the input) as the tuple of data row
    /// `row`: interns its QI values, checks numbers and hierarchy leaves.
    pub fn tuple(&mut self, line: u64, row: u64, raw: &csv::StringRecord) -> Result<Tuple> {
        if raw.len() != self.names.len() {
            return Err(StreamError::Ragged {
                input: self.source.clone(),
                line,
                expected: self.names.len(),
                found: raw.len(),
            }
            .into());
        }
        let record = if self.trim {
            raw.iter().map(crate::table::trim_blanks).collect()
        } else {
            raw.clone()
        };
        let mut codes = Vec::with_capacity(self.qis.len());
        for sq in &mut self.qis {
            let value = &record[sq.qi.column];
            let known = sq.dict.len();
            let code = sq.dict.intern(value);
            if code as usize == known
                && let Err(e) = register(
                    sq,
                    value,
                    (&self.missing, self.number_format),
                    &self.source,
                    line,
                    row,
                )
            {
                // Keep the dictionary and its per-code tables in step.
                sq.dict = sq.dict.values().take(known).collect();
                return Err(e);
            }
            codes.push(code);
        }
        // Only a row that is taken widens the domains.
        for (sq, &code) in self.qis.iter_mut().zip(&codes) {
            if sq.is_numeric()
                && let Some(x) = sq.qi.numbers[code as usize]
            {
                sq.domain = Some(sq.domain.map_or((x, x), |(a, b)| (a.min(x), b.max(x))));
            }
        }
        let pid = match self.pid {
            Some(p) => {
                let mut h = FxHasher::default();
                record[p].hash(&mut h);
                h.finish()
            }
            None => row,
        };
        Ok(Tuple {
            row,
            pid,
            codes: codes.into_boxed_slice(),
            record,
        })
    }

    /// The columns a release shows, in input order (identifiers left out).
    pub fn released_columns(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.names.len()).filter(|&i| self.roles[i] != Role::Identifier)
    }

    /// The text of released column `column` of `p`.
    pub fn released_text<'a>(
        &'a self,
        p: &'a Published,
        column: usize,
    ) -> std::borrow::Cow<'a, str> {
        match self.qis.iter().position(|q| q.qi.column == column) {
            Some(q) => p.cells[q].label(&self.qis[q].qi, &self.qis[q].dict),
            None => std::borrow::Cow::Borrowed(&p.record[column]),
        }
    }

    /// The generalization of a single tuple.
    pub fn point(&self, t: &Tuple) -> Generalization {
        self.qis
            .iter()
            .zip(t.codes.iter())
            .map(|(sq, &code)| {
                if sq.is_numeric() {
                    sq.numeric_point(code)
                } else {
                    Span::Node {
                        level: 0,
                        node: sq.qi.leaf_of[code as usize],
                        code,
                    }
                }
            })
            .collect()
    }

    /// Widens `g` to cover tuple `t`.
    pub fn extend(&self, g: &mut [Span], t: &Tuple) {
        for ((span, sq), &code) in g.iter_mut().zip(&self.qis).zip(t.codes.iter()) {
            match span {
                Span::Node { level, node, .. } => {
                    let leaf = sq.qi.leaf_of[code as usize];
                    (*level, *node) = join(sq.hierarchy(), *level, *node, leaf);
                }
                numeric => *numeric = widen(*numeric, sq.numeric_point(code)),
            }
        }
    }

    /// Widens `g` to cover generalization `other`.
    pub fn merge(&self, g: &mut [Span], other: &[Span]) {
        for ((span, sq), o) in g.iter_mut().zip(&self.qis).zip(other) {
            match (span, *o) {
                (
                    Span::Node { level, node, .. },
                    Span::Node {
                        level: ol,
                        node: on,
                        ..
                    },
                ) => {
                    let h = sq.hierarchy();
                    // Raise the lower node to the other's level, then climb both.
                    let (mut a, mut al, mut b, mut bl) = (*node, *level as usize, on, ol as usize);
                    while al < bl {
                        a = h.parent(al, a);
                        al += 1;
                    }
                    while bl < al {
                        b = h.parent(bl, b);
                        bl += 1;
                    }
                    while a != b {
                        a = h.parent(al, a);
                        b = h.parent(bl, b);
                        al += 1;
                        bl += 1;
                    }
                    (*level, *node) = (al as u32, a);
                }
                (numeric, o) => *numeric = widen(*numeric, o),
            }
        }
    }

    /// Whether `g` covers tuple `t`.
    pub fn covers(&self, g: &[Span], t: &Tuple) -> bool {
        g.iter()
            .zip(&self.qis)
            .zip(t.codes.iter())
            .all(|((span, sq), &code)| match *span {
                Span::Range { lo, hi, .. } => {
                    sq.qi.numbers[code as usize].is_some_and(|x| lo <= x && x <= hi)
                }
                Span::Token { code: token } => token == code,
                Span::Mixed => true,
                Span::Node { level, node, .. } => {
                    sq.hierarchy()
                        .covers(level as usize, node, sq.qi.leaf_of[code as usize])
                }
            })
    }

    /// Information loss of a tuple released as `g` (Definition 4), with the
    /// numeric domains seen so far.
    pub fn loss(&self, g: &[Span]) -> f64 {
        let sum: f64 = g
            .iter()
            .zip(&self.qis)
            .map(|(span, sq)| span_loss(sq, span))
            .sum();
        sum / self.qis.len() as f64
    }

    /// Loss of `g` widened to cover `t`, without building it.
    pub fn loss_with(&self, g: &[Span], t: &Tuple) -> f64 {
        let sum: f64 = g
            .iter()
            .zip(&self.qis)
            .zip(t.codes.iter())
            .map(|((span, sq), &code)| match *span {
                Span::Node { level, node, .. } => {
                    let (l, n) = join(sq.hierarchy(), level, node, sq.qi.leaf_of[code as usize]);
                    sq.categories.as_ref().expect("categorical").loss[l as usize][n as usize]
                }
                numeric => span_loss(sq, &widen(numeric, sq.numeric_point(code))),
            })
            .sum();
        sum / self.qis.len() as f64
    }

    /// Distance of two tuples: the loss of the smallest generalization
    /// covering both (`ALGORITHMS.md`).
    pub fn distance(&self, a: &Tuple, b: &Tuple) -> f64 {
        let mut sum = 0.0;
        for ((sq, &x), &y) in self.qis.iter().zip(a.codes.iter()).zip(b.codes.iter()) {
            sum += match &sq.categories {
                None => match (sq.qi.numbers[x as usize], sq.qi.numbers[y as usize]) {
                    (Some(a), Some(b)) => {
                        let w = sq.width();
                        if w <= 0.0 { 0.0 } else { (a - b).abs() / w }
                    }
                    // A token beside itself, or beside a number or another token.
                    _ if x == y => 0.0,
                    _ => 1.0,
                },
                Some(c) => {
                    let (lx, ly) = (sq.qi.leaf_of[x as usize], sq.qi.leaf_of[y as usize]);
                    if lx == ly {
                        0.0
                    } else if !c.pair.is_empty() {
                        c.pair[lx as usize * c.leaves + ly as usize]
                    } else {
                        let (l, n) = join(sq.hierarchy(), 0, lx, ly);
                        c.loss[l as usize][n as usize]
                    }
                }
            };
        }
        sum / self.qis.len() as f64
    }

    /// The released cells of generalization `g`.
    pub fn cells(&self, g: &[Span]) -> Vec<Cell> {
        g.iter()
            .zip(&self.qis)
            .map(|(span, sq)| match *span {
                Span::Range {
                    lo_code, hi_code, ..
                } => Cell::interval(lo_code, hi_code),
                Span::Token { code } => Cell::Value(code),
                Span::Mixed => Cell::Suppressed,
                Span::Node { level, node, code } => {
                    if level == 0 {
                        Cell::Value(code)
                    } else if level as usize >= sq.hierarchy().height() {
                        Cell::Suppressed
                    } else {
                        Cell::Node { level, node }
                    }
                }
            })
            .collect()
    }
}

fn span_loss(sq: &StreamQi, span: &Span) -> f64 {
    match *span {
        Span::Range { lo, hi, .. } => {
            let w = sq.width();
            if w <= 0.0 { 0.0 } else { (hi - lo) / w }
        }
        Span::Token { .. } => 0.0,
        Span::Mixed => 1.0,
        Span::Node { level, node, .. } => {
            sq.categories.as_ref().expect("categorical").loss[level as usize][node as usize]
        }
    }
}

/// The numeric span covering both `a` and `b` (numeric spans).
fn widen(a: Span, b: Span) -> Span {
    match (a, b) {
        (
            Span::Range {
                lo,
                hi,
                lo_code,
                hi_code,
            },
            Span::Range {
                lo: blo,
                hi: bhi,
                lo_code: blc,
                hi_code: bhc,
            },
        ) => {
            // Ties keep `a`'s codes.
            let (lo, lo_code) = if blo < lo { (blo, blc) } else { (lo, lo_code) };
            let (hi, hi_code) = if bhi > hi { (bhi, bhc) } else { (hi, hi_code) };
            Span::Range {
                lo,
                hi,
                lo_code,
                hi_code,
            }
        }
        (Span::Token { code }, Span::Token { code: other }) if code == other => a,
        (Span::Node { .. }, _) | (_, Span::Node { .. }) => {
            unreachable!("spans of one QI have one kind")
        }
        _ => Span::Mixed,
    }
}

/// Records a new dictionary value's number or hierarchy leaf.
fn register(
    sq: &mut StreamQi,
    value: &str,
    (missing, format): (&[String], NumberFormat),
    source: &std::path::Path,
    line: u64,
    row: u64,
) -> Result<()> {
    match sq.qi.value_type {
        ValueType::Categorical => {}
        numeric => {
            // A missing token is a value of its own, not a number.
            if missing.iter().any(|m| m == value) {
                sq.qi.numbers.push(None);
                return Ok(());
            }
            let Some(x) = format.number(value, numeric) else {
                return Err(DataError::NotNumeric {
                    csv: source.to_owned(),
                    row: row as usize,
                    column: sq.qi.name.clone(),
                    expected: if numeric == ValueType::Integer {
                        "an integer"
                    } else {
                        "a decimal number"
                    },
                    found: value.to_owned(),
                }
                .into());
            };
            sq.qi.numbers.push(Some(x));
            return Ok(());
        }
    }
    let h = sq.hierarchy();
    match h.leaf(value) {
        Some(leaf) => {
            sq.qi.leaf_of.push(leaf);
            Ok(())
        }
        None => Err(StreamError::AbsentFromHierarchy {
            input: source.to_owned(),
            line,
            column: sq.qi.name.clone(),
            found: value.to_owned(),
            hierarchy: h.source.clone(),
        }
        .into()),
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
