//! A column's dictionary: each distinct text once, addressed by a dense `u32` code.

use rustc_hash::FxHashMap;

/// Distinct values of one column in order of first appearance.
///
/// Codes are dense (`0..len`), so per-value tables (hierarchy leaves,
/// numeric values, generalization maps) are plain vectors indexed by code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dictionary {
    values: Vec<Box<str>>,
    index: FxHashMap<Box<str>, u32>,
}

impl Dictionary {
    pub fn new() -> Self {
        Self::default()
    }

    /// Returns the code of `value`, adding it on first sight. Allocates only
    /// for a new distinct value, never for a repeated one.
    pub fn intern(&mut self, value: &str) -> u32 {
        if let Some(&code) = self.index.get(value) {
            return code;
        }
        let code = u32::try_from(self.values.len()).expect("more than 2^32 distinct values");
        let boxed: Box<str> = value.into();
        self.values.push(boxed.clone());
        self.index.insert(boxed, code);
        code
    }

    pub fn code(&self, value: &str) -> Option<u32> {
        self.index.get(value).copied()
    }

    pub fn value(&self, code: u32) -> &str {
        &self.values[code as usize]
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    pub fn values(&self) -> impl ExactSizeIterator<Item = &str> {
        self.values.iter().map(|v| &**v)
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
}
