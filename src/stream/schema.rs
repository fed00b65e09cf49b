//! The config bound to the stream's header ([`Schema`]): each incoming
//! record turned into a [`Tuple`] of dictionary codes, and the
//! generalizations of paper 003 over tuples ([`Span`], Definition 6), with
//! their information loss (Definition 4) and the distance between tuples.
//! FADS and CASTLE both work through it.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use rustc_hash::FxHasher;

use crate::Result;
use crate::cell::Cell;
use crate::config::{Config, ConfigError, Role, ValueType};
use crate::dataset::{DataError, QuasiIdentifier, load_hierarchy};
use crate::dictionary::Dictionary;
use crate::hierarchy::Hierarchy;
use crate::number::NumberFormat;

use super::{STDIN, StreamError};

/// How a categorical QI's generalizations cost and join.
#[derive(Debug, Clone)]
pub(super) struct Categories {
    /// Loss of every node, `[level][node]`.
    pub(super) loss: Vec<Vec<f64>>,
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
    pub(super) categories: Option<Categories>,
}

impl StreamQi {
    pub(super) fn is_numeric(&self) -> bool {
        self.categories.is_none()
    }

    /// The number of a value an interval holds (never a missing token).
    #[inline]
    pub(super) fn number(&self, code: u32) -> f64 {
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
    pub(super) fn width(&self) -> f64 {
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
