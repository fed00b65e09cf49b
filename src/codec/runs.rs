//! Row-classes coding 3, *runs* (`spec/CODING.md` 4.2): rows sorted or
//! grouped by their QIs (an export ordered by its columns) repeat the
//! previous row's class, and meet classes in their order of first
//! appearance, which is how classes are numbered. Each row codes a bit for
//! "the previous row's class", then one for "the next class not seen yet",
//! and only otherwise its class, under adaptive bit models: a sorted table
//! costs a few bits a run, where an order-0 code costs the classes'
//! entropy on every row.

use super::range::{self, BitModel, RangeDecoder, RangeEncoder};

/// The models of row-classes coding 3 (`spec/CODING.md` 4.2) and where
/// the rows are: the previous row's class, the classes seen so far, and
/// whether the previous row repeated its predecessor's class.
pub(super) struct Runs {
    size: u32,
    /// "Same class as the previous row", by whether the previous row was.
    same: [BitModel; 2],
    /// "The next class not seen yet", by whether the previous row was one.
    new: [BitModel; 2],
    /// Any other class: 6.4's symbol coding, one context.
    classes: Vec<BitModel>,
    previous: Option<u32>,
    seen: u32,
    was_same: bool,
    was_new: bool,
}

impl Runs {
    /// The models at the start of a row sequence whose first `opened`
    /// classes are already open (0 for a group's own class table).
    pub(super) fn opened(size: u32, opened: u32) -> Runs {
        Runs {
            size,
            same: [BitModel::default(); 2],
            new: [BitModel::default(); 2],
            classes: vec![BitModel::default(); 1 << range::width(size)],
            previous: None,
            seen: opened,
            was_same: false,
            was_new: false,
        }
    }

    pub(super) fn encode(&mut self, enc: &mut RangeEncoder, c: u32) {
        let same = self.previous == Some(c);
        if self.previous.is_some() {
            enc.encode(&mut self.same[usize::from(self.was_same)], same);
        }
        if !same {
            let new = c == self.seen && self.seen < self.size;
            if self.seen < self.size {
                enc.encode(&mut self.new[usize::from(self.was_new)], new);
            }
            if !new {
                range::encode_symbol(enc, &mut self.classes[..], c, self.size);
            }
            self.was_new = new;
        }
        self.step(c, same);
    }

    pub(super) fn decode(&mut self, dec: &mut RangeDecoder<'_>) -> u32 {
        let same =
            self.previous.is_some() && dec.decode(&mut self.same[usize::from(self.was_same)]);
        let c = match (same, self.previous) {
            (true, Some(p)) => p,
            _ => {
                let new =
                    self.seen < self.size && dec.decode(&mut self.new[usize::from(self.was_new)]);
                self.was_new = new;
                match new {
                    true => self.seen,
                    false => range::decode_symbol(dec, &mut self.classes[..], self.size),
                }
            }
        };
        self.step(c, same);
        c
    }

    fn step(&mut self, c: u32, same: bool) {
        self.was_same = same;
        self.previous = Some(c);
        // Classes are numbered in order of first appearance: a class not
        // seen yet is the next number.
        if c >= self.seen {
            self.seen = c + 1;
        }
    }
}
