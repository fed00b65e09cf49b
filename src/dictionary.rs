//! A column's dictionary: each distinct text once, addressed by a dense `u32` code.

use std::hash::BuildHasher;
use std::sync::OnceLock;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// Distinct values of one column in order of first appearance.
///
/// Codes are dense (`0..len`), so per-value tables (hierarchy leaves,
/// numeric values, generalization maps) are plain vectors indexed by code.
///
/// The texts live in one buffer, each ending where the next starts, and
/// the index holds codes only (hashed by their text): a column of a million
/// distinct numbers costs its text and about ten bytes a value, not two
/// allocations and a map entry each, which took half of a restore's time
/// and most of a pack's memory on such columns. A decoder that knows its
/// values are distinct appends them with [`Dictionary::push_new`]; the
/// index is then built only if something looks a text up.
#[derive(Clone, Default)]
pub struct Dictionary {
    texts: String,
    /// `ends[c]`: where value `c`'s text ends in `texts`.
    ends: Vec<usize>,
    index: OnceLock<HashTable<u32>>,
}

fn hash(text: &str) -> u64 {
    FxBuildHasher.hash_one(text)
}

/// Value `c`'s text in the buffers of a dictionary.
fn text_of<'a>(texts: &'a str, ends: &[usize], c: u32) -> &'a str {
    let c = c as usize;
    &texts[if c == 0 { 0 } else { ends[c - 1] }..ends[c]]
}

/// The index of every value in the buffers, with room for `room` values
/// (as many as the buffers have room for: what [`Dictionary::reserve`]
/// asked).
fn index_of(texts: &str, ends: &[usize], room: usize) -> HashTable<u32> {
    let mut index = HashTable::with_capacity(room);
    for c in 0..ends.len() as u32 {
        index.insert_unique(hash(text_of(texts, ends, c)), c, |&c| {
            hash(text_of(texts, ends, c))
        });
    }
    index
}

impl Dictionary {
    /// An empty dictionary.
    pub fn new() -> Self {
        Self::default()
    }

    /// Returns the code of `value`, adding it on first sight. Allocates only
    /// to grow its buffers, never per value.
    pub fn intern(&mut self, value: &str) -> u32 {
        let h = hash(value);
        if self.index.get().is_none() {
            let index = index_of(&self.texts, &self.ends, self.ends.capacity());
            self.index = OnceLock::from(index);
        }
        let Dictionary { texts, ends, index } = self;
        let index = index.get_mut().expect("built above");
        if let Some(&code) = index.find(h, |&c| text_of(texts, ends, c) == value) {
            return code;
        }
        texts.push_str(value);
        Self::record(texts, ends, Some((index, h)))
    }

    /// Appends `value`, which the caller knows is not in the dictionary
    /// yet (a decoder that deduplicated its values by number), without
    /// hashing it unless the index is built already. A value appended
    /// twice is held twice: [`Dictionary::code`] then finds one of them.
    pub fn push_new(&mut self, value: &str) -> u32 {
        self.push_with(|texts| texts.push_str(value))
    }

    /// [`Dictionary::push_new`] of the text `write` appends to the string
    /// it is given: rendered in place, not through a buffer.
    pub fn push_with(&mut self, write: impl FnOnce(&mut String)) -> u32 {
        let Dictionary { texts, ends, index } = self;
        let start = texts.len();
        write(texts);
        let index = index.get_mut().map(|index| (index, hash(&texts[start..])));
        Self::record(texts, ends, index)
    }

    /// Reserves room for `values` more values of `bytes` bytes in all (in
    /// the index too, when one is built or when it is built next): a
    /// dictionary filled to a known size never rehashes.
    pub fn reserve(&mut self, values: usize, bytes: usize) {
        self.ends.reserve(values);
        self.texts.reserve(bytes);
        let Dictionary { texts, ends, index } = self;
        if let Some(index) = index.get_mut() {
            index.reserve(values, |&c| hash(text_of(texts, ends, c)));
        }
    }

    /// Ends a value at the end of `texts` (indexed with its hash `h`).
    fn record(
        texts: &str,
        ends: &mut Vec<usize>,
        index: Option<(&mut HashTable<u32>, u64)>,
    ) -> u32 {
        let code = u32::try_from(ends.len()).expect("more than 2^32 distinct values");
        ends.push(texts.len());
        if let Some((index, h)) = index {
            let ends = &*ends;
            index.insert_unique(h, code, |&c| hash(text_of(texts, ends, c)));
        }
        code
    }

    /// The code of `value`, if it is in the dictionary.
    pub fn code(&self, value: &str) -> Option<u32> {
        self.index
            .get_or_init(|| index_of(&self.texts, &self.ends, self.ends.len()))
            .find(hash(value), |&c| self.value(c) == value)
            .copied()
    }

    /// The text of `code` (a code this dictionary gave).
    pub fn value(&self, code: u32) -> &str {
        text_of(&self.texts, &self.ends, code)
    }

    /// The number of distinct values.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether it holds no value.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Every value's text, one after the other (where each ends is not said).
    pub fn joined(&self) -> &str {
        &self.texts
    }

    /// The texts' buffer and where each value ends in it (`ends[c]`), taken
    /// without a copy: for a reader that only writes the texts out.
    pub fn into_parts(self) -> (String, Vec<usize>) {
        (self.texts, self.ends)
    }

    /// Every value, in code order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &str> {
        (0..self.ends.len() as u32).map(|c| self.value(c))
    }
}

impl PartialEq for Dictionary {
    /// The same values in the same order (the index follows from them).
    fn eq(&self, other: &Self) -> bool {
        self.ends == other.ends && self.texts == other.texts
    }
}

impl Eq for Dictionary {}

impl std::fmt::Debug for Dictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.values()).finish()
    }
}

impl<S: AsRef<str>> FromIterator<S> for Dictionary {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        let mut dict = Dictionary::new();
        for v in iter {
            dict.intern(v.as_ref());
        }
        dict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_dense_in_first_seen_order() {
        let mut d = Dictionary::new();
        assert_eq!(d.intern("b"), 0);
        assert_eq!(d.intern("a"), 1);
        assert_eq!(d.intern("b"), 0);
        assert_eq!(d.len(), 2);
        assert_eq!(d.value(1), "a");
        assert_eq!(d.code("a"), Some(1));
        assert_eq!(d.code("c"), None);
    }

    /// Empty texts, texts that are prefixes of others, non-ASCII, and
    /// enough values to grow the index many times: every value keeps its
    /// code and text.
    #[test]
    fn many_values_keep_their_codes() {
        let texts: Vec<String> = (0..50_000)
            .map(|i| match i % 4 {
                0 => String::new(),
                1 => format!("{i}"),
                2 => format!("{}é", i / 2),
                _ => format!("{i}0"),
            })
            .collect();
        let mut d = Dictionary::new();
        let codes: Vec<u32> = texts.iter().map(|t| d.intern(t)).collect();
        for (t, &c) in texts.iter().zip(&codes) {
            assert_eq!(d.value(c), t);
            assert_eq!(d.code(t), Some(c));
            assert_eq!(d.intern(t), c);
        }
        let distinct: std::collections::HashSet<&String> = texts.iter().collect();
        assert_eq!(d.len(), distinct.len());
        assert_eq!(d.clone(), d);
    }

    /// Values appended without the index are found once it is built, by
    /// `code` or by `intern`, and values appended after it are indexed.
    #[test]
    fn values_pushed_new_are_found_later() {
        let mut d = Dictionary::new();
        let a = d.push_new("a");
        let b = d.push_new("");
        assert_eq!(d.code(""), Some(b));
        assert_eq!(d.intern("a"), a);
        let c = d.push_new("c");
        assert_eq!(d.code("c"), Some(c));
        assert_eq!(d.intern("d"), 3);
        let mut e = Dictionary::new();
        e.push_new("x");
        assert_eq!(e.intern("y"), 1);
        assert_eq!(e.intern("x"), 0);
        assert_eq!(d.len(), 4);
    }
}
