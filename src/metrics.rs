//! Utility metrics of a release, each under its own name (`ALGORITHMS.md`).
//!
//! Per-cell costs are computed once per distinct cell of a column and then
//! summed over rows, so the cost is O(rows x QIs) lookups.
//!
//! Choices the definitions leave open, made here:
//! - the numeric domain of a QI is the range of the values in the table;
//! - a hierarchy node of a numeric QI spans its numeric leaves, clipped to
//!   that domain (the Adult age node `20-24` covers 21..25); a leaf reads as
//!   a number with a decimal point or a decimal comma (`1234,56` of a
//!   `;`-separated file);
//! - `ncp_kaylode` follows that project's code, see `kaylode_cost`;
//! - DM and C_avg count classes over the rows that are not suppressed;
//!   C_avg uses the largest k of the constraint set.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::cell::Cell;
use crate::classes::Partition;
use crate::dataset::{Dataset, QuasiIdentifier};
use crate::number::NumberFormat;

/// How hierarchy leaves read as numbers: either spelling, since a leaf of a
/// numeric QI is one of its values, spelled as its file spells them.
const LEAF_NUMBERS: NumberFormat = NumberFormat {
    decimal_comma: true,
};
use crate::privacy::PrivacyModel;
use crate::release::Release;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
/// The utility a release kept, by the measures of the papers.
pub struct Metrics {
    /// Sweeney's Precision; `None` when a cell is an interval or a QI has no
    /// hierarchy.
    pub precision: Option<f64>,
    /// Normalized certainty penalty (Xu et al. 2006), averaged over cells.
    pub ncp: f64,
    /// NCP as the kaylode/k-anonymity project scores it (see
    /// `kaylode_cost`), so results can be set beside theirs.
    pub ncp_kaylode: f64,
    /// Iyengar's loss metric, averaged over cells.
    pub glm: f64,
    /// Discernibility: sum of |E|^2, plus n for every suppressed row.
    pub dm: f64,
    /// Normalized average class size.
    pub cavg: f64,
}

/// Costs of one distinct cell.
#[derive(Debug, Clone, Copy)]
struct CellCost {
    level: Option<f64>,
    ncp: f64,
    ncp_kaylode: f64,
    glm: f64,
}

fn numeric_span(qi: &QuasiIdentifier, cell: &Cell, domain: (f64, f64)) -> f64 {
    let (dmin, dmax) = domain;
    let width = dmax - dmin;
    if width <= 0.0 {
        return 0.0;
    }
    let num = |code: u32| qi.numbers[code as usize];
    let (lo, hi) = match *cell {
        Cell::Value(_) => return 0.0,
        Cell::Suppressed => return 1.0,
        Cell::Interval { lo, hi } => match (num(lo), num(hi)) {
            (Some(a), Some(b)) => (a, b),
            _ => return 1.0,
        },
        Cell::Node { level, node } => {
            let h = qi.hierarchy.as_ref().expect("node cell needs a hierarchy");
            let leaves = h.leaves_of(level as usize, node);
            let mut span: Option<(f64, f64)> = None;
            for leaf in leaves {
                if let Some(x) = LEAF_NUMBERS.decimal(h.label(0, leaf)) {
                    span = Some(span.map_or((x, x), |(a, b)| (a.min(x), b.max(x))));
                }
            }
            match span {
                Some(s) => s,
                None => return 1.0,
            }
        }
    };
    ((hi.min(dmax) - lo.max(dmin)).max(0.0) / width).min(1.0)
}

/// A cell's NCP as the kaylode/k-anonymity project computes it
/// (`metrics/ncp.py` over the trees of
/// `algorithms/basic_mondrian/models/gentree.py`, snapshot `17af591`):
/// - every QI that has a hierarchy is scored on it, numeric or not (their
///   Adult run declares all QIs categorical "because all hierarchies are
///   provided", so age counts as a 100-leaf tree): a node costs
///   leaves(node) / leaves(root), the root 1, and a leaf 0 (their tree gives a
///   leaf no leaves below it, so it costs nothing, as in Xu et al.);
/// - an interval of such a QI (their peers never make one) costs the number
///   of hierarchy leaves whose label lies in it, over leaves(root);
/// - a numeric QI without hierarchy costs (hi - lo) / (max - min) of the
///   column's values, as their `NumRange`.
///
/// `leaf_numbers`: the hierarchy's leaf labels that read as numbers, sorted.
fn kaylode_cost(
    qi: &QuasiIdentifier,
    cell: &Cell,
    domain: Option<(f64, f64)>,
    leaf_numbers: &[f64],
) -> f64 {
    let Some(h) = qi.hierarchy.as_ref() else {
        return domain.map_or(0.0, |d| numeric_span(qi, cell, d));
    };
    let root = h.leaf_count() as f64;
    match *cell {
        Cell::Value(_) => 0.0,
        Cell::Node { level, node } => f64::from(h.leaves_under(level as usize, node)) / root,
        Cell::Suppressed => 1.0,
        Cell::Interval { lo, hi } => match (qi.numbers[lo as usize], qi.numbers[hi as usize]) {
            (Some(a), Some(b)) => {
                let from = leaf_numbers.partition_point(|&x| x < a);
                let to = leaf_numbers.partition_point(|&x| x <= b);
                (to - from) as f64 / root
            }
            _ => 1.0,
        },
    }
}

fn cell_cost(
    qi: &QuasiIdentifier,
    cell: &Cell,
    domain: Option<(f64, f64)>,
    leaf_numbers: &[f64],
) -> CellCost {
    let level = match (cell.level(qi), qi.height()) {
        (Some(l), Some(h)) if h > 0 => Some(l as f64 / h as f64),
        _ => None,
    };
    let ncp_kaylode = kaylode_cost(qi, cell, domain, leaf_numbers);
    if let Some(domain) = domain {
        let span = numeric_span(qi, cell, domain);
        return CellCost {
            level,
            ncp: span,
            ncp_kaylode,
            glm: span,
        };
    }
    let Some(h) = qi.hierarchy.as_ref() else {
        // A numeric QI without a hierarchy and without a single number
        // (every cell missing): a value released as it is costs nothing,
        // anything generalized the whole (empty) domain.
        let cost = if matches!(cell, Cell::Value(_)) {
            0.0
        } else {
            1.0
        };
        return CellCost {
            level,
            ncp: cost,
            ncp_kaylode,
            glm: cost,
        };
    };
    let root = h.leaf_count() as f64;
    let leaves = match *cell {
        Cell::Value(_) => 1.0,
        Cell::Node { level, node } => h.leaves_under(level as usize, node) as f64,
        Cell::Suppressed | Cell::Interval { .. } => root,
    };
    CellCost {
        level,
        ncp: if leaves <= 1.0 { 0.0 } else { leaves / root },
        ncp_kaylode,
        glm: if root <= 1.0 {
            0.0
        } else {
            (leaves - 1.0) / (root - 1.0)
        },
    }
}

/// Measures `release` of `data` under `model`.
pub fn measure(data: &Dataset, release: &Release, model: &PrivacyModel) -> Metrics {
    let suppressed = crate::privacy::release_suppressed(data, release, model);
    let columns = (0..data.qis.len()).map(|i| release.qi_column(data, i).codes);
    let p = Partition::of_columns(columns, data.rows(), Some(&suppressed));
    measure_classes(data, release, model, &suppressed, &p)
}

/// [`measure`] given the rows `suppressed` (`privacy::release_suppressed`)
/// and `classes`, the partition of the other rows by every QI.
pub fn measure_classes(
    data: &Dataset,
    release: &Release,
    model: &PrivacyModel,
    suppressed: &[bool],
    classes: &Partition,
) -> Metrics {
    let mut tally = Tally::new(data.qis.len());
    for (counts, column) in tally.cells.iter_mut().zip(&release.qis) {
        // Rows per palette entry, then per cell (a cell may be listed
        // twice), the cells entered in order of first use as a count per
        // row would: the map's order, and so the metrics' sums, stay the same.
        let mut per_entry = vec![0u64; column.palette.len()];
        let mut order = Vec::new();
        for &p in column.rows.iter() {
            let n = &mut per_entry[p as usize];
            if *n == 0 {
                order.push(p);
            }
            *n += 1;
        }
        for p in order {
            *counts.entry(column.palette[p as usize]).or_default() += per_entry[p as usize];
        }
    }
    tally.rows = data.rows() as u64;
    tally.suppressed = suppressed.iter().filter(|&&s| s).count() as u64;
    let qis: Vec<&QuasiIdentifier> = data.qis.iter().collect();
    let sizes = classes.sizes.iter().map(|&s| u64::from(s));
    tally.metrics(&qis, sizes, model.max_k())
}

/// What the metrics need of a release, gathered in one pass over a table or
/// a stream: how many rows carry each distinct cell of each QI, and how many
/// rows there are and are suppressed. Memory grows with the distinct cells,
/// not with the rows.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// Per QI (claim order): rows per distinct cell.
    pub cells: Vec<FxHashMap<Cell, u64>>,
    /// Rows counted.
    pub rows: u64,
    /// Rows suppressed (every QI `*`).
    pub suppressed: u64,
}

impl Tally {
    /// An empty tally over `qis` quasi-identifiers.
    pub fn new(qis: usize) -> Tally {
        Tally {
            cells: vec![FxHashMap::default(); qis],
            rows: 0,
            suppressed: 0,
        }
    }

    /// The metrics, with `class_sizes` the sizes of the classes of the rows
    /// that are not suppressed and `max_k` the largest k of the claim. Each
    /// numeric QI's domain is the range of its values (`qi.numbers`).
    pub fn metrics(
        &self,
        qis: &[&QuasiIdentifier],
        class_sizes: impl Iterator<Item = u64>,
        max_k: usize,
    ) -> Metrics {
        let cells = (self.rows as usize * qis.len()) as f64;
        let (mut level_sum, mut ncp, mut ncp_k, mut glm) = (0.0, 0.0, 0.0, 0.0);
        let mut precision_defined = true;
        for (qi, counts) in qis.iter().zip(&self.cells) {
            let domain = if qi.value_type.is_numeric() {
                qi.domain()
            } else {
                None
            };
            let mut leaf_numbers: Vec<f64> = match &qi.hierarchy {
                Some(h) if qi.value_type.is_numeric() => (0..h.leaf_count() as u32)
                    .filter_map(|leaf| LEAF_NUMBERS.decimal(h.label(0, leaf)))
                    .collect(),
                _ => Vec::new(),
            };
            leaf_numbers.sort_by(f64::total_cmp);
            for (cell, &count) in counts {
                let c = cell_cost(qi, cell, domain, &leaf_numbers);
                let w = count as f64;
                match c.level {
                    Some(l) => level_sum += l * w,
                    None => precision_defined = false,
                }
                ncp += c.ncp * w;
                ncp_k += c.ncp_kaylode * w;
                glm += c.glm * w;
            }
        }
        let (mut dm, mut classes) = (0.0, 0u64);
        for s in class_sizes {
            dm += (s as f64) * (s as f64);
            classes += 1;
        }
        dm += self.rows as f64 * self.suppressed as f64;
        let cavg = if classes == 0 {
            0.0
        } else {
            ((self.rows - self.suppressed) as f64 / classes as f64) / max_k as f64
        };
        let per_cell = |x: f64| if cells > 0.0 { x / cells } else { 0.0 };
        Metrics {
            precision: precision_defined.then(|| 1.0 - per_cell(level_sum)),
            ncp: per_cell(ncp),
            ncp_kaylode: per_cell(ncp_k),
            glm: per_cell(glm),
            dm,
            cavg,
        }
    }
}
