//! Generalized cells: what a release shows in place of a QI value.

use std::borrow::Cow;

use crate::dataset::QuasiIdentifier;

/// The label of a suppressed cell (a hierarchy's root is shown this way too).
pub const SUPPRESSED: &str = "*";

/// One released QI cell. Codes refer to the column's dictionary; nodes to
/// its hierarchy.
///
/// Canonical form: a hierarchy level 0 is `Value`, the root level is
/// `Suppressed` (see [`Cell::at_level`]), and an interval with `lo == hi` is
/// `Value`, so equal releases have equal cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cell {
    /// The raw value (dictionary code).
    Value(u32),
    /// A hierarchy node strictly between the leaves and the root.
    Node {
        /// The hierarchy level (the leaves are level 0).
        level: u32,
        /// The node's index within its level.
        node: u32,
    },
    /// A numeric range `[lo, hi]`, its ends given by the dictionary codes of
    /// the smallest and largest values it covers (made by partitioning).
    Interval {
        /// The code of the smallest value covered.
        lo: u32,
        /// The code of the largest value covered.
        hi: u32,
    },
    /// The root `*`.
    Suppressed,
}

impl Cell {
    /// The canonical cell generalizing dictionary code `code` to `level`.
    #[inline]
    pub fn at_level(qi: &QuasiIdentifier, level: usize, code: u32) -> Cell {
        let h = qi
            .hierarchy
            .as_ref()
            .expect("hierarchy-based cell needs a hierarchy");
        if level == 0 {
            Cell::Value(code)
        } else if level >= h.height() {
            Cell::Suppressed
        } else {
            Cell::Node {
                level: level as u32,
                node: h.node_of(level, qi.leaf_of[code as usize]),
            }
        }
    }

    /// The canonical interval between two dictionary codes.
    pub fn interval(lo: u32, hi: u32) -> Cell {
        if lo == hi {
            Cell::Value(lo)
        } else {
            Cell::Interval { lo, hi }
        }
    }

    /// The hierarchy level of the cell, `None` for an interval.
    pub fn level(&self, qi: &QuasiIdentifier) -> Option<usize> {
        match *self {
            Cell::Value(_) => Some(0),
            Cell::Node { level, .. } => Some(level as usize),
            Cell::Interval { .. } => None,
            Cell::Suppressed => Some(qi.height().unwrap_or(1)),
        }
    }

    /// The text shown in the release: the value, the node's label, `lo~hi`
    /// (the tilde stays unambiguous with negative numbers and any delimiter),
    /// or `*`.
    pub fn label<'a>(
        &self,
        qi: &'a QuasiIdentifier,
        dict: &'a crate::dictionary::Dictionary,
    ) -> Cow<'a, str> {
        match *self {
            Cell::Value(code) => Cow::Borrowed(dict.value(code)),
            Cell::Node { level, node } => Cow::Borrowed(
                qi.hierarchy
                    .as_ref()
                    .expect("node cell needs a hierarchy")
                    .label(level as usize, node),
            ),
            Cell::Interval { lo, hi } => {
                Cow::Owned(format!("{}~{}", dict.value(lo), dict.value(hi)))
            }
            Cell::Suppressed => Cow::Borrowed(SUPPRESSED),
        }
    }

    /// Whether the cell covers the original dictionary code `code`.
    pub fn covers(&self, qi: &QuasiIdentifier, code: u32) -> bool {
        match *self {
            Cell::Value(c) => c == code,
            Cell::Node { level, node } => {
                let h = qi.hierarchy.as_ref().expect("node cell needs a hierarchy");
                h.covers(level as usize, node, qi.leaf_of[code as usize])
            }
            Cell::Interval { lo, hi } => {
                match (
                    qi.numbers.get(code as usize).copied().flatten(),
                    qi.numbers.get(lo as usize).copied().flatten(),
                    qi.numbers.get(hi as usize).copied().flatten(),
                ) {
                    (Some(x), Some(a), Some(b)) => a <= x && x <= b,
                    _ => false,
                }
            }
            Cell::Suppressed => true,
        }
    }
}
