//! Derived columns: a released column that is a function of a
//! quasi-identifier (`age_code = 2·age + 1000` beside a generalized `age`,
//! a mother's age squared beside her generalized age) gives back what the
//! QI's generalization hides. Before anything is released, each released
//! non-QI column is measured against each QI on the data, and a pair whose
//! column pins the QI on a meaningful share of the rows is refused unless
//! the config allows it (`allow_derived`, docs/CONFIG.md).
//!
//! The measure (docs/DERIVED.md, the definitions and the constants' reasons):
//! a row is *hidden* when its released cell of the QI holds at least two
//! distinct original values among the rows; a hidden row is *narrowed* when
//! the column's value leaves at most a [`NARROWING`]th of those candidates,
//! judged on every row holding that value (the values test, at least
//! [`MIN_SUPPORT`] of them), or when the column orders the QI inside its
//! cells (the order test, numbers only, concordance at least
//! [`ORDER_CONCORDANCE`]). The pair's share is narrowed over hidden rows; at
//! [`DERIVED_SHARE`] or more it is refused. One pass per pair (a sort for
//! the order test), the pairs of a QI shared by two threads, memory linear
//! in the rows of the table or block.

use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

use crate::config::{Config, Role};
use crate::dataset::Dataset;
use crate::number::NumberFormat;
use crate::table::{Column, Table, ValueType};

/// The share of hidden rows a column may narrow before it is refused as
/// derived. Copies, recodings and monotone transforms narrow every hidden
/// row (1.0); the honest columns of the real tables stay below 0.2 on the
/// whole table (Adult's `fnlwgt`, a census weight computed from race, age
/// and sex: 0.14 against `race`) and below 0.55 in a stream's block of 100
/// rows (Adult's `relationship`, whose `Husband` and `Wife` say married,
/// against `marital-status`: 0.53), independent measurements near 0.
pub const DERIVED_SHARE: f64 = 0.8;

/// Hidden rows a pair needs before it can be refused: below, a table or
/// block is too small to tell a function from chance (ten rows of a
/// stream's block), and the share is reported only.
pub const MIN_HIDDEN_ROWS: u64 = 30;

/// Rows that must share a column value before the values test believes
/// what they show: two rows agreeing on a binary QI by chance are common,
/// three much less, and a column unique to each row (a weight, an amount)
/// is evidence of nothing.
pub const MIN_SUPPORT: u32 = 3;

/// A column value narrows a row when it leaves at most this fraction
/// (1/NARROWING) of the candidates its released cell leaves, or exactly one.
pub const NARROWING: u32 = 4;

/// The order test: Kendall-like concordance of consecutive rows (by the
/// column, within each released cell) at or above which a numeric column
/// is taken to order its QI (a monotone transform, rounding allowed).
pub const ORDER_CONCORDANCE: f64 = 0.9;

/// Pairs of consecutive rows the order test needs before it concludes.
pub const MIN_PAIRS: u64 = 20;

/// What the check finds is wrong: a released column that pins a QI.
#[derive(Debug, thiserror::Error)]
pub enum DerivedError {
    /// A column determines or narrows a QI on too many of its hidden rows.
    #[error(
        "{place}column {column:?} pins quasi-identifier {qi:?} on {:.1}% of the rows whose released {qi:?} hides its value (limit {:.0}%, {test} test): releasing it would undo the generalization; drop it, make it a quasi-identifier, or allow it with allow_derived = [{qi:?}] in its [[columns]] entry",
        share * 100.0, DERIVED_SHARE * 100.0
    )]
    Derived {
        /// Where: the table (or block) measured, ending in `": "`, or empty.
        place: String,
        /// The released column.
        column: String,
        /// The quasi-identifier it pins.
        qi: String,
        /// Narrowed rows over hidden rows.
        share: f64,
        /// `values` or `order`.
        test: &'static str,
    },
}

impl crate::error::AreaError for DerivedError {
    fn exit_code(&self) -> u8 {
        1
    }
}

/// One quasi-identifier as the check sees it.
pub struct QiSubject<'a> {
    /// Its name.
    pub name: &'a str,
    /// Each row's original value (dictionary code).
    pub original: &'a [u32],
    /// Each row's released cell, numbered in any way (equal cells, equal numbers).
    pub released: std::borrow::Cow<'a, [u32]>,
    /// The number of each original code, when the QI is numeric.
    pub numbers: Option<&'a [Option<f64>]>,
}

/// One released non-QI column as the check sees it.
pub struct ColumnSubject<'a> {
    /// The column.
    pub column: &'a Column,
    /// The number of each of its codes, when every value that is not
    /// missing is a number ([`column_numbers`]).
    pub numbers: Option<Vec<Option<f64>>>,
    /// The QIs the config allows it to pin (`allow_derived`).
    pub allowed: &'a [String],
}

/// The number of each value of `column` when every value that is not a
/// missing token reads as a finite number (and at least one does); `None`
/// for a column of words.
pub fn column_numbers(
    column: &Column,
    missing: &[String],
    number: impl Fn(&str) -> Option<f64>,
) -> Option<Vec<Option<f64>>> {
    let mut any = false;
    let mut numbers = Vec::with_capacity(column.dict.len());
    for value in column.dict.values() {
        if missing.iter().any(|m| m == value) {
            numbers.push(None);
            continue;
        }
        let n = number(value).filter(|n| n.is_finite())?;
        any = true;
        numbers.push(Some(n));
    }
    any.then_some(numbers)
}

/// One (column, QI) pair measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairMeasure {
    /// The released column.
    pub column: String,
    /// The quasi-identifier.
    pub qi: String,
    /// Rows whose released cell of the QI holds two or more original values.
    pub hidden_rows: u64,
    /// Hidden rows the column narrows.
    pub narrowed_rows: u64,
    /// `narrowed_rows / hidden_rows` (0 when nothing is hidden); a stream's
    /// largest over its blocks.
    pub share: f64,
    /// The test that narrowed them: `values`, `order`, or `none`.
    pub test: String,
    /// Whether the config allows the column to pin this QI.
    pub allowed: bool,
}

impl PairMeasure {
    /// Whether the pair is refused: at or above [`DERIVED_SHARE`] on at
    /// least [`MIN_HIDDEN_ROWS`] hidden rows, and not allowed.
    pub fn refused(&self) -> bool {
        !self.allowed && self.hidden_rows >= MIN_HIDDEN_ROWS && self.share >= DERIVED_SHARE
    }
}

/// The check of every released non-QI column against every QI: what
/// `--json` shows, and (without the measured shares) what the
/// `COLUMN_CHECKS` section keeps (spec/FORMAT.md §5.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnChecks {
    /// [`DERIVED_SHARE`] as applied.
    pub threshold: f64,
    /// The released non-QI columns checked.
    pub columns: Vec<String>,
    /// The quasi-identifiers they were checked against.
    pub qis: Vec<String>,
    /// The (column, QI) pairs the config allows.
    pub allowed: Vec<(String, String)>,
    /// Every pair measured.
    pub pairs: Vec<PairMeasure>,
    /// Whether every pair at or above the threshold is allowed.
    pub passed: bool,
}

impl ColumnChecks {
    /// Measures every column against every QI (`names` names them), a QI
    /// per thread at a time: memory holds two QIs' rows beside the table.
    pub fn measure<'a>(
        names: Vec<String>,
        qis: impl IntoIterator<Item = QiSubject<'a>>,
        columns: &[ColumnSubject<'_>],
    ) -> ColumnChecks {
        let mut checks = ColumnChecks {
            threshold: DERIVED_SHARE,
            columns: columns.iter().map(|c| c.column.name.clone()).collect(),
            qis: names,
            allowed: Vec::new(),
            pairs: Vec::new(),
            passed: true,
        };
        for c in columns {
            for qi in &checks.qis {
                if c.allowed.contains(qi) {
                    checks.allowed.push((c.column.name.clone(), qi.clone()));
                }
            }
        }
        // Where each row's QI values go when the columns' values are
        // moved to other rows ([`shuffled`]).
        let qis: Vec<QiSubject<'a>> = qis.into_iter().collect();
        let rows = qis.first().map_or(0, |qi| qi.original.len());
        let targets = shuffled(&(0..rows as u32).collect::<Vec<_>>());
        // Several QIs share the threads a QI at a time (each QI's rows are
        // made on the thread that measures it); one QI shares its columns.
        let measure = |q: usize| {
            let parallel = qis.len() == 1 && rows >= PARALLEL_ROWS;
            measure_qi(&qis[q], &targets, columns, parallel)
        };
        let pairs = crate::jobs::on_two_threads(qis.len(), rows >= PARALLEL_ROWS, measure);
        checks.pairs = pairs.into_iter().flatten().collect();
        checks.passed = checks.pairs.iter().all(|p| !p.refused());
        checks
    }

    /// Refuses the first pair at or above the threshold that the config
    /// does not allow; `place` ("table.csv: ", or empty) starts the message.
    pub fn enforce(&self, place: &str) -> crate::Result<()> {
        let worst = self
            .pairs
            .iter()
            .filter(|p| p.refused())
            .max_by(|a, b| a.share.total_cmp(&b.share));
        match worst {
            None => Ok(()),
            Some(p) => Err(DerivedError::Derived {
                place: place.to_owned(),
                column: p.column.clone(),
                qi: p.qi.clone(),
                share: p.share,
                test: if p.test == "order" { "order" } else { "values" },
            }
            .into()),
        }
    }

    /// Adds a later block's check (a stream): rows add up, each pair keeps
    /// its largest share.
    pub fn absorb(&mut self, block: ColumnChecks) {
        for (mine, theirs) in self.pairs.iter_mut().zip(block.pairs) {
            mine.hidden_rows += theirs.hidden_rows;
            mine.narrowed_rows += theirs.narrowed_rows;
            if theirs.share > mine.share {
                mine.share = theirs.share;
                mine.test = theirs.test;
            }
        }
        self.passed &= block.passed;
    }
}

/// The check of a release made from `data`: `released[q]` is QI `q` as
/// the public sees it ([`crate::release::Release::qi_columns`]: cells of
/// one label are one value to a reader). `None` when no column besides
/// the QIs is released.
pub fn check_release(
    config: &Config,
    data: &Dataset,
    released: Vec<Column>,
) -> Option<ColumnChecks> {
    let qis = data
        .qis
        .iter()
        .zip(released)
        .map(|(qi, released)| QiSubject {
            name: &qi.name,
            original: &data.table.columns[qi.column].codes,
            released: std::borrow::Cow::Owned(released.codes),
            numbers: qi.value_type.is_numeric().then_some(qi.numbers.as_slice()),
        });
    let names = data.qis.iter().map(|q| q.name.clone()).collect();
    check_table(config, &data.table, &data.roles, names, qis)
}

/// The check of `table` (a whole table or a stream's block) whose columns
/// have `roles`: every released column that is neither a QI nor an
/// identifier against each of `qis` (named `names`). `None` when there is
/// no such column or no QI.
pub fn check_table<'a>(
    config: &Config,
    table: &Table,
    roles: &[Role],
    names: Vec<String>,
    qis: impl IntoIterator<Item = QiSubject<'a>>,
) -> Option<ColumnChecks> {
    let format = NumberFormat::for_delimiter(table.delimiter);
    let columns: Vec<ColumnSubject<'_>> = table
        .columns
        .iter()
        .zip(roles)
        .filter(|(_, r)| matches!(r, Role::Sensitive | Role::Insensitive))
        .map(|(column, _)| {
            let allowed = config
                .columns
                .iter()
                .find(|c| c.name == column.name)
                .map_or(&[][..], |c| c.allow_derived.as_slice());
            ColumnSubject {
                numbers: column_numbers(column, &config.input.missing, |t| {
                    format.number(t, ValueType::Decimal)
                }),
                column,
                allowed,
            }
        })
        .collect();
    if columns.is_empty() || names.is_empty() {
        return None;
    }
    Some(ColumnChecks::measure(names, qis, &columns))
}

/// Per released cell of a QI: how many distinct original values it holds.
struct CellCandidates {
    distinct: Vec<u32>,
}

impl CellCandidates {
    fn of(qi: &QiSubject<'_>) -> CellCandidates {
        let cells = qi.released.iter().max().map_or(0, |&m| m as usize + 1);
        let mut distinct = vec![0u32; cells];
        let mut seen: FxHashSet<u64> = FxHashSet::default();
        for (&r, &q) in qi.released.iter().zip(qi.original) {
            if seen.insert(u64::from(r) << 32 | u64::from(q)) {
                distinct[r as usize] += 1;
            }
        }
        CellCandidates { distinct }
    }

    fn hidden(&self, cell: u32) -> bool {
        self.distinct[cell as usize] >= 2
    }
}

/// A QI's rows as the values test reads them: each row's original value
/// and released cell.
struct Rows<'a> {
    original: std::borrow::Cow<'a, [u32]>,
    released: std::borrow::Cow<'a, [u32]>,
    /// One more than the largest original code.
    originals: usize,
}

impl<'a> Rows<'a> {
    fn of(qi: &'a QiSubject<'_>) -> Rows<'a> {
        Rows {
            original: std::borrow::Cow::Borrowed(qi.original),
            released: std::borrow::Cow::Borrowed(&qi.released),
            originals: qi.original.iter().max().map_or(0, |&m| m as usize + 1),
        }
    }

    /// Row `i`'s values moved to row `targets[i]`: the values test of a
    /// column against these rows is its test on the column's values moved
    /// by [`shuffled`] (row `i` taking row `targets[i]`'s value), made
    /// once per QI instead of once per pair.
    fn moved(&self, targets: &[u32]) -> Rows<'static> {
        let scatter = |values: &[u32]| {
            let mut out = vec![0u32; values.len()];
            for (&v, &t) in values.iter().zip(targets) {
                out[t as usize] = v;
            }
            std::borrow::Cow::Owned(out)
        };
        Rows {
            original: scatter(&self.original),
            released: scatter(&self.released),
            originals: self.originals,
        }
    }
}

/// Measures every column against `qi`, its rows moved to `targets` for
/// the chance they agree, the columns shared by two threads when
/// `parallel`.
fn measure_qi(
    qi: &QiSubject<'_>,
    targets: &[u32],
    columns: &[ColumnSubject<'_>],
    parallel: bool,
) -> Vec<PairMeasure> {
    let cells = CellCandidates::of(qi);
    let rows = Rows::of(qi);
    let moved = rows.moved(targets);
    measure_columns(qi, &rows, &moved, &cells, columns, parallel)
}

/// Measures every column against one QI, in order, the columns shared by
/// two threads when `parallel`; `rows` are its rows ([`Rows::of`]),
/// `moved` the same moved.
fn measure_columns(
    qi: &QiSubject<'_>,
    rows: &Rows<'_>,
    moved: &Rows<'_>,
    cells: &CellCandidates,
    columns: &[ColumnSubject<'_>],
    parallel: bool,
) -> Vec<PairMeasure> {
    let measure = |j: usize| measure_pair(qi, rows, moved, cells, &columns[j]);
    crate::jobs::on_two_threads(columns.len(), parallel, measure)
}

/// Rows below which the pairs are measured on the calling thread.
const PARALLEL_ROWS: usize = 1 << 16;

/// Measures one pair: the values test, and the order test when both are
/// numbers. `moved` are `rows` moved as [`Rows::moved`] says.
fn measure_pair(
    qi: &QiSubject<'_>,
    rows: &Rows<'_>,
    moved: &Rows<'_>,
    cells: &CellCandidates,
    c: &ColumnSubject<'_>,
) -> PairMeasure {
    let codes = &c.column.codes;
    let hidden = qi.released.iter().filter(|&&r| cells.hidden(r)).count() as u64;
    let values = values_test(rows, cells, codes, c.column.dict.len());
    // What chance narrows (the column's values on other rows) is taken off,
    // as Cohen's kappa takes off chance agreement: a column unique to almost
    // every row, or a skewed QI whose groups agree by chance, pins nothing.
    let chance = match values {
        0 => 0,
        _ => values_test(moved, cells, codes, c.column.dict.len()),
    };
    let values = match hidden > chance {
        true => values.saturating_sub(chance) * hidden / (hidden - chance),
        false => 0,
    };
    let order = match (qi.numbers, &c.numbers) {
        (Some(qn), Some(cn)) if hidden > 0 => order_test(qi, cells, codes, qn, cn),
        _ => 0,
    };
    let (narrowed, test) = match (values, order) {
        (0, 0) => (0, "none"),
        (v, o) if o > v => (o, "order"),
        (v, _) => (v, "values"),
    };
    PairMeasure {
        column: c.column.name.clone(),
        qi: qi.name.to_owned(),
        hidden_rows: hidden,
        narrowed_rows: narrowed,
        share: if hidden == 0 {
            0.0
        } else {
            narrowed as f64 / hidden as f64
        },
        test: test.to_owned(),
        allowed: c.allowed.iter().any(|a| a == qi.name),
    }
}

/// Hidden rows whose column value, over every row holding it, goes with one
/// original QI value or at most a [`NARROWING`]th of those the row's cell
/// holds, backed by at least [`MIN_SUPPORT`] rows per value it goes with.
/// On the QI's rows moved ([`Rows::moved`]), the same count is what chance
/// alone narrows.
fn values_test(rows: &Rows<'_>, cells: &CellCandidates, codes: &[u32], values: usize) -> u64 {
    let mut support = vec![0u32; values];
    let mut distinct = vec![0u32; values];
    let mut pairs = Pairs::new(values, rows.originals);
    for (&c, &q) in codes.iter().zip(rows.original.iter()) {
        support[c as usize] = support[c as usize].saturating_add(1);
        if pairs.insert(c, q) {
            distinct[c as usize] += 1;
        }
    }
    drop(pairs);
    let narrowed = |c: usize, d_cell: u32| {
        d_cell >= 2
            && support[c] >= MIN_SUPPORT.saturating_mul(distinct[c])
            && (distinct[c] == 1 || NARROWING * distinct[c] <= d_cell)
    };
    codes
        .iter()
        .zip(rows.released.iter())
        .filter(|&(&c, &r)| narrowed(c as usize, cells.distinct[r as usize]))
        .count() as u64
}

/// The (column value, QI value) pairs seen: one bit each when there are
/// at most [`DENSE_PAIRS`] of them (a category against an age), else a
/// hash set.
enum Pairs {
    Dense { bits: Vec<u64>, originals: usize },
    Sparse(FxHashSet<u64>),
}

/// The most possible pairs [`Pairs`] keeps one bit for (16 MiB).
const DENSE_PAIRS: usize = 1 << 27;

impl Pairs {
    fn new(values: usize, originals: usize) -> Pairs {
        match values.checked_mul(originals) {
            Some(all) if all <= DENSE_PAIRS => Pairs::Dense {
                bits: vec![0; all.div_ceil(64)],
                originals,
            },
            _ => Pairs::Sparse(FxHashSet::default()),
        }
    }

    /// Whether the pair is new.
    fn insert(&mut self, c: u32, q: u32) -> bool {
        match self {
            Pairs::Dense { bits, originals } => {
                let at = c as usize * *originals + q as usize;
                let (word, bit) = (&mut bits[at / 64], 1u64 << (at % 64));
                let new = *word & bit == 0;
                *word |= bit;
                new
            }
            Pairs::Sparse(seen) => seen.insert(u64::from(c) << 32 | u64::from(q)),
        }
    }
}

/// `codes` in a fixed pseudo-random order (Fisher–Yates driven by
/// SplitMix64 from a constant seed): given the row numbers, where each
/// row's values go when a column's values are moved to other rows, the
/// same on every run. A stride or any order with structure would
/// keep a function of a periodic table (row i's values from i mod m) a
/// function, and the baseline would hide it.
fn shuffled(codes: &[u32]) -> Vec<u32> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut out = codes.to_vec();
    for i in (1..out.len()).rev() {
        let j = ((u128::from(next()) * (i as u128 + 1)) >> 64) as usize;
        out.swap(i, j);
    }
    out
}

/// Hidden rows with a number in both, when consecutive such rows of a cell
/// (by the column's number) order the QI's numbers the same way with a
/// concordance of at least [`ORDER_CONCORDANCE`] over at least
/// [`MIN_PAIRS`] pairs: the column then orders the QI (all of them
/// count); otherwise none.
fn order_test(
    qi: &QiSubject<'_>,
    cells: &CellCandidates,
    codes: &[u32],
    qi_numbers: &[Option<f64>],
    numbers: &[Option<f64>],
) -> u64 {
    let mut rows: Vec<(u32, f64, f64)> = codes
        .iter()
        .zip(qi.original)
        .zip(qi.released.iter())
        .filter(|(_, r)| cells.hidden(**r))
        .filter_map(|((&c, &q), &r)| {
            let q = qi_numbers.get(q as usize).copied().flatten()?;
            Some((r, numbers[c as usize]?, q))
        })
        .collect();
    rows.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let (mut up, mut down) = (0u64, 0u64);
    for w in rows.windows(2) {
        let (a, b) = (w[0], w[1]);
        if a.0 != b.0 || a.1 == b.1 || a.2 == b.2 {
            continue;
        }
        if b.2 > a.2 { up += 1 } else { down += 1 }
    }
    let pairs = up + down;
    let concordance = if pairs == 0 {
        0.0
    } else {
        up.abs_diff(down) as f64 / pairs as f64
    };
    match pairs >= MIN_PAIRS && concordance >= ORDER_CONCORDANCE {
        true => rows.len() as u64,
        false => 0,
    }
}

#[cfg(test)]
mod tests;
