//! A sensitive attribute as the models beyond k read it: which of its cells
//! hold a value, how its values are ordered, and the ground distance
//! t-closeness measures them with (Li, Li & Venkatasubramanian 2007, in the
//! three forms ARX offers: equal, ordered, hierarchical).
//!
//! The distance follows the column's declaration, never its look: a
//! categorical column of `1, 2, 3` is three categories, one apart each.
//!
//! **Missing values.** A cell holding one of the `missing` tokens holds no
//! sensitive value: it is left out of every distribution the models read
//! (the table's p and its class's q) and adds no diversity, as if its row
//! were not in the table for ℓ, t, α, δ and β; the row still counts in its
//! class for k and the risk. A class whose every cell is missing discloses
//! no value and meets every model. Counted as a category instead, "missing"
//! would let a class of one known value and many missing ones pass as
//! diverse while it discloses that value to anyone who knows the target's
//! value was recorded.

use serde::{Deserialize, Serialize};

use super::ModelError;
use crate::dataset::Dataset;
pub use crate::dataset::Reference;
use crate::hierarchy::Hierarchy;
use crate::number::NumberFormat;
use crate::table::{Column, ValueType};

/// The ground distance between two values of a sensitive attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Distance {
    /// Categories, all one apart: the EMD is half the L1 distance.
    Equal,
    /// Numbers, `i / (m − 1)` apart for values `i` ranks apart.
    Ordered,
    /// Leaves of a hierarchy: the level of their lowest common ancestor
    /// over the hierarchy's height.
    Hierarchical,
}

impl Distance {
    /// The distance a declaration gives: hierarchical with a hierarchy,
    /// ordered for numbers, equal for categories.
    pub fn declared(value_type: ValueType, hierarchy: bool) -> Distance {
        if hierarchy {
            Distance::Hierarchical
        } else if value_type.is_numeric() {
            Distance::Ordered
        } else {
            Distance::Equal
        }
    }

    /// Its name, as the JSON and `--sensitive NAME:TYPE` spell it.
    pub fn name(self) -> &'static str {
        match self {
            Distance::Equal => "equal",
            Distance::Ordered => "ordered",
            Distance::Hierarchical => "hierarchical",
        }
    }
}

/// What is declared of a sensitive column.
#[derive(Debug, Clone, Copy)]
pub enum Declared<'h> {
    /// Categories (equal distance).
    Categorical,
    /// Numbers of this type, read in this format (ordered distance).
    Numeric(ValueType, NumberFormat),
    /// The leaves of this hierarchy (hierarchical distance).
    Hierarchy(&'h Hierarchy),
    /// Nothing: numbers when every value reads as one, as pandas reads a
    /// CSV column (pyCANON's choice), else categories.
    Inferred,
}

/// How one dictionary code counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Key {
    /// A missing-value token: no value.
    Missing,
    /// A category, ordered by its text.
    Text,
    /// A number.
    Number(f64),
    /// A leaf of [`Tree`] (its compact number).
    Leaf(u32),
}

/// The part of a hierarchy above the column's values, renumbered densely
/// level by level: `parents[l][n]` is the node of level `l + 1` above node
/// `n` of level `l`. Its height is the hierarchy's, so LCA levels (and the
/// EMD) are those of the whole hierarchy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    /// One list per level but the root's.
    pub parents: Vec<Vec<u32>>,
}

impl Tree {
    /// The root's level.
    pub fn height(&self) -> usize {
        self.parents.len()
    }

    /// Nodes at `level`.
    pub fn nodes(&self, level: usize) -> usize {
        match self.parents.get(level) {
            Some(p) => p.len(),
            None => 1,
        }
    }

    /// The tree over `leaves` (hierarchy leaf numbers, distinct), each
    /// renumbered by its position there.
    fn over(hierarchy: &Hierarchy, leaves: &[u32]) -> Tree {
        let height = hierarchy.height();
        let mut parents = Vec::with_capacity(height);
        // The hierarchy's node of each compact node at the current level.
        let mut nodes: Vec<u32> = leaves.to_vec();
        for level in 0..height {
            let mut compact: rustc_hash::FxHashMap<u32, u32> = Default::default();
            let mut above = Vec::new();
            let list = nodes
                .iter()
                .map(|&n| {
                    let p = hierarchy.parent(level, n);
                    *compact.entry(p).or_insert_with(|| {
                        above.push(p);
                        above.len() as u32 - 1
                    })
                })
                .collect();
            parents.push(list);
            nodes = above;
        }
        Tree { parents }
    }
}

/// One sensitive column as the models read it.
#[derive(Debug, Clone)]
pub struct Sensitive<'a> {
    /// The column.
    pub column: &'a Column,
    /// The ground distance of t-closeness.
    pub distance: Distance,
    /// How each dictionary code counts.
    pub(crate) keys: Vec<Key>,
    /// The hierarchy above the values (hierarchical distance only).
    pub tree: Option<Tree>,
    /// The whole table's rows of each entry, when the column holds one
    /// fragment of the table ([`Reference`]); `None`: the column's own rows.
    pub(crate) reference: Option<Vec<u64>>,
    /// The table's values the column's dictionary lacks: entries after the
    /// dictionary's codes (`keys` has one key per entry).
    pub(crate) absent: Vec<String>,
}

impl<'a> Sensitive<'a> {
    /// Reads `column` as `declared` says, the `missing` tokens holding no
    /// value. Refuses a value that is no number of a numeric column, or no
    /// leaf of its hierarchy (one line naming the column and the value).
    pub fn new(
        column: &'a Column,
        missing: &[String],
        declared: Declared<'_>,
    ) -> Result<Sensitive<'a>, ModelError> {
        Sensitive::with_reference(column, missing, declared, None)
    }

    /// [`Sensitive::new`] for a column that holds one fragment of a table
    /// whose distribution is `reference` (when given): refuses a value of
    /// the column that the reference lacks.
    pub fn with_reference(
        column: &'a Column,
        missing: &[String],
        declared: Declared<'_>,
        reference: Option<&Reference>,
    ) -> Result<Sensitive<'a>, ModelError> {
        let is_missing = |text: &str| missing.iter().any(|m| m == text);
        let (weights, absent) = match reference {
            Some(r) => {
                let (w, a) = reference_weights(column, r, &is_missing)?;
                (Some(w), a)
            }
            None => (None, Vec::new()),
        };
        let all = || {
            column
                .dict
                .values()
                .chain(absent.iter().map(String::as_str))
        };
        let texts = || all().map(|t| (t, is_missing(t)));
        let bad = |value: &str, expected: String| ModelError::SensitiveValue {
            column: column.name.clone(),
            value: value.to_owned(),
            expected,
        };
        let (distance, keys, tree) = match declared {
            Declared::Categorical => (Distance::Equal, text_keys(texts()), None),
            Declared::Numeric(value_type, format) => {
                let keys = texts()
                    .map(|(t, m)| match (m, format.number(t, value_type)) {
                        (true, _) => Ok(Key::Missing),
                        (false, Some(x)) => Ok(Key::Number(x)),
                        (false, None) => Err(bad(t, number_kind(value_type).to_owned())),
                    })
                    .collect::<Result<_, _>>()?;
                (Distance::Ordered, keys, None)
            }
            Declared::Hierarchy(h) => {
                let mut leaves = Vec::new();
                let keys = texts()
                    .map(|(t, m)| {
                        if m {
                            return Ok(Key::Missing);
                        }
                        let leaf = h.leaf(t).ok_or_else(|| {
                            bad(t, format!("a leaf of the hierarchy {}", h.source.display()))
                        })?;
                        leaves.push(leaf);
                        Ok(Key::Leaf(leaves.len() as u32 - 1))
                    })
                    .collect::<Result<_, _>>()?;
                (Distance::Hierarchical, keys, Some(Tree::over(h, &leaves)))
            }
            Declared::Inferred => {
                let numbers: Option<Vec<Key>> = texts()
                    .map(|(t, m)| match m {
                        true => Some(Key::Missing),
                        false => pandas_number(t).map(Key::Number),
                    })
                    .collect();
                match numbers {
                    Some(keys) => (Distance::Ordered, keys, None),
                    None => (Distance::Equal, text_keys(texts()), None),
                }
            }
        };
        Ok(Sensitive {
            column,
            distance,
            keys,
            tree,
            reference: weights,
            absent,
        })
    }

    /// The text of entry `i`: a dictionary code, then an absent value.
    pub(crate) fn text(&self, i: u32) -> &str {
        let dict = &self.column.dict;
        match (i as usize).checked_sub(dict.len()) {
            Some(a) => &self.absent[a],
            None => dict.value(i),
        }
    }

    /// The column's name.
    pub fn name(&self) -> &str {
        &self.column.name
    }

    /// Whether dictionary code `code` holds a value (not a missing token).
    pub fn known(&self, code: u32) -> bool {
        self.keys[code as usize] != Key::Missing
    }

    /// Each row's code, [`MISSING_VALUE`] where the cell holds no value:
    /// what distinct ℓ counts (the missing cells never).
    pub fn known_codes(&self) -> Vec<u32> {
        self.column
            .codes
            .iter()
            .map(|&c| if self.known(c) { c } else { MISSING_VALUE })
            .collect()
    }
}

/// Sensitive column `column` of `data`, read as its config declares it
/// (checked when the table was bound: `Dataset::bind`).
pub fn of_dataset(data: &Dataset, column: usize) -> Sensitive<'_> {
    of_dataset_checked(data, column)
        .expect("a sensitive column's values are checked when the table is bound")
}

/// [`of_dataset`], refusing a value the column's whole-table reference
/// lacks (the only check left once the table is bound).
pub fn of_dataset_checked(data: &Dataset, column: usize) -> Result<Sensitive<'_>, ModelError> {
    let declared = declared(data, column);
    let reference = (data.sensitive_reference.iter())
        .find(|(c, _)| *c == column)
        .map(|(_, r)| r);
    Sensitive::with_reference(
        &data.table.columns[column],
        &data.missing,
        declared,
        reference,
    )
}

/// What `data`'s config declares of sensitive column `column`.
pub fn declared(data: &Dataset, column: usize) -> Declared<'_> {
    let value_type = data.types[column];
    let hierarchy = data
        .sensitive_hierarchies
        .iter()
        .find(|(c, _)| *c == column)
        .map(|(_, h)| h);
    match hierarchy {
        Some(h) => Declared::Hierarchy(h),
        None if value_type.is_numeric() => Declared::Numeric(
            value_type,
            NumberFormat::for_delimiter(data.table.delimiter),
        ),
        None => Declared::Categorical,
    }
}

/// Each dictionary code's rows in `reference` (0 for a missing token), and
/// the reference's values the dictionary lacks; refuses a known value of
/// the column that the reference lacks.
fn reference_weights(
    column: &Column,
    reference: &Reference,
    is_missing: &impl Fn(&str) -> bool,
) -> Result<(Vec<u64>, Vec<String>), ModelError> {
    let rows: rustc_hash::FxHashMap<&str, u64> = (reference.values.iter())
        .map(|(v, n)| (v.as_str(), *n))
        .collect();
    let mut weights = Vec::with_capacity(column.dict.len());
    for value in column.dict.values() {
        let n = match rows.get(value) {
            _ if is_missing(value) => 0,
            Some(&n) => n,
            None => {
                return Err(ModelError::SensitiveValue {
                    column: column.name.clone(),
                    value: value.to_owned(),
                    expected: "a value of the whole table's distribution given with it".to_owned(),
                });
            }
        };
        weights.push(n);
    }
    let mut absent = Vec::new();
    for (value, n) in &reference.values {
        if column.dict.code(value).is_none() && !is_missing(value) {
            absent.push(value.clone());
            weights.push(*n);
        }
    }
    Ok((weights, absent))
}

pub use crate::classes::MISSING_VALUE;

fn number_kind(value_type: ValueType) -> &'static str {
    match value_type {
        ValueType::Integer => "an integer",
        _ => "a decimal number",
    }
}

fn text_keys<'t>(texts: impl Iterator<Item = (&'t str, bool)>) -> Vec<Key> {
    texts
        .map(|(_, m)| if m { Key::Missing } else { Key::Text })
        .collect()
}

/// A number as pandas reads a CSV cell into a numeric column, when it is one.
fn pandas_number(text: &str) -> Option<f64> {
    let t = text.trim();
    let first = t.bytes().next()?;
    if !(first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.')) {
        return None;
    }
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn column(values: &[&str]) -> Column {
        let mut c = Column::new("s");
        for v in values {
            c.push(v);
        }
        c
    }

    #[test]
    fn declarations_give_their_distance_and_missing_cells_no_value() {
        let c = column(&["1", "2", "?", "3"]);
        let missing = ["?".to_owned()];
        let s = Sensitive::new(&c, &missing, Declared::Categorical).unwrap();
        assert_eq!(s.distance, Distance::Equal);
        assert_eq!(s.known_codes(), vec![0, 1, MISSING_VALUE, 3]);
        let f = NumberFormat::for_delimiter(b',');
        let s = Sensitive::new(&c, &missing, Declared::Numeric(ValueType::Integer, f)).unwrap();
        assert_eq!(s.distance, Distance::Ordered);
        assert_eq!(s.keys[2], Key::Missing);
        let s = Sensitive::new(&c, &missing, Declared::Inferred).unwrap();
        assert_eq!(s.distance, Distance::Ordered);
        let c = column(&["1", "x"]);
        let e = Sensitive::new(&c, &missing, Declared::Numeric(ValueType::Integer, f)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "sensitive column \"s\": \"x\" is not an integer"
        );
    }

    #[test]
    fn a_fragment_refuses_a_value_its_reference_lacks() {
        let c = column(&["a", "?", "z"]);
        let missing = ["?".to_owned()];
        let reference = Reference {
            values: vec![("a".to_owned(), 4), ("b".to_owned(), 2)],
        };
        let e = Sensitive::with_reference(&c, &missing, Declared::Categorical, Some(&reference))
            .unwrap_err();
        assert!(e.to_string().contains("\"z\""), "{e}");
        let c = column(&["a", "?"]);
        let s = Sensitive::with_reference(&c, &missing, Declared::Categorical, Some(&reference))
            .unwrap();
        // The dictionary's codes, then the table's values the column lacks.
        assert_eq!(s.reference, Some(vec![4, 0, 2]));
        assert_eq!((s.absent.clone(), s.text(2)), (vec!["b".to_owned()], "b"));
    }

    #[test]
    fn a_tree_keeps_the_height_over_the_values_it_holds() {
        let h = Hierarchy::from_bytes(Path::new("h"), b"a;ab;*\nb;ab;*\nc;cd;*\nd;cd;*\ne;e;*\n")
            .unwrap();
        let c = column(&["d", "a", "b"]);
        let s = Sensitive::new(&c, &[], Declared::Hierarchy(&h)).unwrap();
        let tree = s.tree.unwrap();
        assert_eq!(tree.height(), 2);
        assert_eq!(tree.parents, vec![vec![0, 1, 1], vec![0, 0]]);
        let c = column(&["z"]);
        assert!(Sensitive::new(&c, &[], Declared::Hierarchy(&h)).is_err());
    }
}
