//! How well a set of attributes tells rows apart, before any anonymization:
//! ARX's quasi-identifier risk (`RiskModelAttributes`, after Motwani and Xu,
//! "Efficient algorithms for masking and finding quasi-identifiers", 2007).
//! `karc init` ranks candidate quasi-identifiers by it: an attribute that
//! splits the rows into many small classes singles people out.

use std::collections::HashMap;

/// Distinction and separation of a set of attributes on some rows.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct AttributeRisk {
    /// Distinct value combinations / rows: the share of rows that stays
    /// once the set is made a key by dropping rows (1: every row unique).
    pub distinction: f64,
    /// Share of row pairs whose combinations differ (1: no two rows agree).
    pub separation: f64,
}

impl AttributeRisk {
    /// From the sizes of the classes of equal combinations. ARX's NaN for
    /// fewer than two rows reads as 0, as ARX's getters return it.
    pub fn of_class_sizes(sizes: impl IntoIterator<Item = usize>) -> Self {
        let (mut rows, mut classes, mut together) = (0f64, 0f64, 0f64);
        for s in sizes {
            let s = s as f64;
            rows += s;
            classes += 1.0;
            together += s * (s - 1.0) / 2.0;
        }
        let pairs = rows * (rows - 1.0) / 2.0;
        AttributeRisk {
            distinction: if rows > 0.0 { classes / rows } else { 0.0 },
            separation: if pairs > 0.0 {
                1.0 - together / pairs
            } else {
                0.0
            },
        }
    }
}

/// Rows split into classes of equal values on the attributes so far, and
/// refined one attribute at a time: adding an attribute costs one pass over
/// the rows, whatever the set's size.
#[derive(Debug, Clone)]
pub struct Classes {
    /// Each row's class, numbered from 0 in order of first appearance.
    ids: Vec<u32>,
    /// Rows in each class.
    sizes: Vec<usize>,
}

impl Classes {
    /// `rows` rows, all in one class (the empty set of attributes).
    pub fn new(rows: usize) -> Self {
        Classes {
            ids: vec![0; rows],
            sizes: if rows > 0 { vec![rows] } else { Vec::new() },
        }
    }

    /// The classes once rows must also agree on `codes` (one value code a
    /// row, equal codes for equal values).
    pub fn refine(&self, codes: &[u32]) -> Classes {
        debug_assert_eq!(codes.len(), self.ids.len());
        let mut index: HashMap<(u32, u32), u32> = HashMap::new();
        let mut sizes: Vec<usize> = Vec::new();
        let ids = (self.ids.iter().zip(codes))
            .map(|(&class, &code)| {
                let next = sizes.len() as u32;
                let id = *index.entry((class, code)).or_insert(next);
                if id == next {
                    sizes.push(0);
                }
                sizes[id as usize] += 1;
                id
            })
            .collect();
        Classes { ids, sizes }
    }

    /// The risk of the attributes refined so far.
    pub fn risk(&self) -> AttributeRisk {
        AttributeRisk::of_class_sizes(self.sizes.iter().copied())
    }

    /// The number of classes.
    pub fn count(&self) -> usize {
        self.sizes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs counted one by one, as ARX's definition reads.
    fn brute(columns: &[&[u32]]) -> AttributeRisk {
        let rows = columns[0].len();
        let key = |r: usize| columns.iter().map(|c| c[r]).collect::<Vec<_>>();
        let mut distinct: Vec<Vec<u32>> = (0..rows).map(key).collect();
        distinct.sort();
        distinct.dedup();
        let (mut pairs, mut apart) = (0, 0);
        for a in 0..rows {
            for b in a + 1..rows {
                pairs += 1;
                apart += usize::from(key(a) != key(b));
            }
        }
        AttributeRisk {
            distinction: distinct.len() as f64 / rows as f64,
            separation: apart as f64 / pairs as f64,
        }
    }

    #[test]
    fn refined_classes_agree_with_pairs_counted_one_by_one() {
        let a = [1, 1, 2, 2, 3, 3, 3, 1, 2, 9];
        let b = [5, 6, 5, 6, 5, 5, 5, 5, 6, 5];
        let one = Classes::new(a.len()).refine(&a);
        let two = one.refine(&b);
        for (got, want) in [(one.risk(), brute(&[&a])), (two.risk(), brute(&[&a, &b]))] {
            assert!((got.distinction - want.distinction).abs() < 1e-12);
            assert!((got.separation - want.separation).abs() < 1e-12);
        }
        assert_eq!(one.count(), 4);
        assert_eq!(two.count(), 6);
        // ARX's figures for a key and for a constant.
        let key = Classes::new(4).refine(&[0, 1, 2, 3]).risk();
        assert_eq!((key.distinction, key.separation), (1.0, 1.0));
        let constant = Classes::new(4).risk();
        assert_eq!((constant.distinction, constant.separation), (0.25, 0.0));
        assert_eq!(Classes::new(1).risk().separation, 0.0);
        assert_eq!(Classes::new(0).risk().distinction, 0.0);
    }
}
