//! A decoded column built a row at a time from keyed values (a number, an
//! exception's index): each key's text is rendered once and found again by
//! its key. A column decoded only to be written out stops looking keys up
//! when its first rows show that its values hardly repeat, or when its map
//! outgrows the caches, and appends each row's text as it comes: on a column of a million distinct numbers the
//! map cost more time than rendering the texts, and more memory than them.

use std::collections::hash_map::Entry;
use std::hash::Hash;

use rustc_hash::FxHashMap;

use crate::dictionary::Dictionary;

/// What a decoded column's codes are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Values to count or compare (a claim check): each distinct text has
    /// one code.
    Values,
    /// Texts to write out (a restore, an export): a column whose values
    /// hardly repeat may hold a text more than once, one entry per row.
    Rendering,
}

/// Rows between two checks of whether a column to render should stop
/// looking keys up.
const WINDOW: usize = 4096;

/// It stops once its map holds this many keys (past the second-level
/// cache) and more than `MISSES` of the window's rows were new values.
const LARGE: usize = 1 << 15;
const MISSES: (usize, usize) = (1, 4);

/// ... or once its map holds this many keys, however few rows are new:
/// past the caches a lookup misses them, which costs more than rendering
/// the text again (on 1M rows of `gen-table numeric`, a fifth of a
/// restore's time went to looking up incomes and balances of 165K and
/// 580K distinct values).
const HUGE: usize = 1 << 16;

/// A column being decoded: its texts, its rows' codes, and the code of
/// each key seen (while keys are looked up).
pub(crate) struct ColumnRows<K> {
    dict: Dictionary,
    codes: Vec<u32>,
    seen: FxHashMap<K, u32>,
    /// Keys in `seen` when the current window started.
    keys_before: usize,
    /// Whether keys are looked up: always for [`Purpose::Values`].
    lookup: bool,
    purpose: Purpose,
}

impl<K: Hash + Eq> ColumnRows<K> {
    pub(crate) fn new(rows: usize, purpose: Purpose) -> Self {
        ColumnRows {
            dict: Dictionary::new(),
            codes: Vec::with_capacity(rows),
            seen: FxHashMap::default(),
            keys_before: 0,
            lookup: true,
            purpose,
        }
    }

    /// Appends a row of value `key`, whose text `write` appends to the
    /// string it is given (called only when the text is stored).
    #[inline]
    pub(crate) fn push(&mut self, key: K, write: impl FnOnce(&mut String)) {
        let code = if self.lookup {
            match self.seen.entry(key) {
                Entry::Occupied(e) => *e.get(),
                Entry::Vacant(e) => *e.insert(self.dict.push_with(write)),
            }
        } else {
            self.dict.push_with(write)
        };
        self.codes.push(code);
        if self.lookup && self.codes.len().is_multiple_of(WINDOW) {
            self.window_done();
        }
    }

    /// After each [`WINDOW`] rows: stops looking keys up when the column
    /// is rendered, its map large and the window's rows often new.
    #[cold]
    fn window_done(&mut self) {
        let (misses, of) = MISSES;
        let new = self.seen.len() - self.keys_before;
        self.keys_before = self.seen.len();
        if self.purpose == Purpose::Rendering
            && (self.seen.len() >= HUGE || self.seen.len() >= LARGE && new * of > WINDOW * misses)
        {
            self.lookup = false;
            self.seen = FxHashMap::default();
            // A text per row from now on: room for the rows left at the
            // texts' average length so far, so that the texts are not
            // copied again and again as they grow (a tenth of the decoding
            // of a column of a million distinct numbers). At most 64 bytes
            // a row: a few long texts do not reserve for every row.
            let left = self.codes.capacity() - self.codes.len();
            let average = self.dict.joined().len().div_ceil(self.dict.len().max(1));
            self.dict
                .reserve(left, left.saturating_mul(average.min(64)));
        }
    }

    /// The rows so far.
    pub(crate) fn len(&self) -> usize {
        self.codes.len()
    }

    /// The column's texts and its rows' codes.
    pub(crate) fn finish(self) -> (Dictionary, Vec<u32>) {
        (self.dict, self.codes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Column;

    /// Rows of `values` (keyed by themselves) through a builder.
    fn build(values: &[u32], purpose: Purpose) -> Column {
        let mut rows = ColumnRows::new(values.len(), purpose);
        for &v in values {
            rows.push(v, |s| s.push_str(&v.to_string()));
        }
        let (dict, codes) = rows.finish();
        Column {
            name: "c".to_owned(),
            dict,
            codes,
        }
    }

    fn texts(c: &Column) -> Vec<&str> {
        (0..c.codes.len()).map(|r| c.text(r)).collect()
    }

    /// Distinct values past a large map: rendered row by row (a text per
    /// row) only for rendering, including the repeats after the switch;
    /// the texts are the same either way, and a column of values keeps
    /// each once.
    #[test]
    fn distinct_values_stop_the_lookups_only_for_rendering() {
        let distinct = (LARGE + 2 * WINDOW) as u32;
        let values: Vec<u32> = (0..distinct + 10_000).map(|i| i % distinct).collect();
        let expected: Vec<String> = values.iter().map(u32::to_string).collect();
        let rendered = build(&values, Purpose::Rendering);
        let counted = build(&values, Purpose::Values);
        assert_eq!(texts(&rendered), expected);
        assert_eq!(texts(&counted), expected);
        assert_eq!(rendered.dict.len(), values.len());
        assert_eq!(counted.dict.len(), distinct as usize);
    }

    /// Repeating values keep the lookups, even past a large map when few
    /// rows are new: each text once.
    #[test]
    fn repeated_values_are_stored_once() {
        let many = LARGE as u32 + 1_000;
        let values: Vec<u32> = (0..20 * many)
            .map(|i| if i % 8 == 0 { i / 8 % many } else { i % 1000 })
            .collect();
        let rendered = build(&values, Purpose::Rendering);
        let distinct: std::collections::HashSet<u32> = values.iter().copied().collect();
        assert_eq!(rendered.dict.len(), distinct.len());
        let expected: Vec<String> = values.iter().map(u32::to_string).collect();
        assert_eq!(texts(&rendered), expected);
    }

    /// Past a huge map a column to render stops looking keys up even when
    /// its values repeat (each lookup would miss the caches); a column of
    /// values keeps each text once. The texts are the same either way.
    #[test]
    fn a_huge_map_stops_the_lookups_for_rendering() {
        let many = (HUGE + WINDOW) as u32;
        let values: Vec<u32> = (0..8 * many)
            .map(|i| if i % 8 == 0 { i / 8 } else { i % 1000 })
            .collect();
        let rendered = build(&values, Purpose::Rendering);
        let counted = build(&values, Purpose::Values);
        let expected: Vec<String> = values.iter().map(u32::to_string).collect();
        assert_eq!(texts(&rendered), expected);
        assert_eq!(texts(&counted), expected);
        assert!(rendered.dict.len() > counted.dict.len());
        assert_eq!(counted.dict.len(), many as usize);
    }
}
