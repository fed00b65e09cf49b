//! The original file's digest, which a restore must reproduce.
//!
//! Formats 1 and 2 store its SHA-256; format 3 its BLAKE3-256 hash. Both are
//! cryptographic (the digest sits in the authenticated private part, so a
//! changed public part cannot restore to another table unnoticed), but
//! BLAKE3 hashes Adult's 2.5 MB in 0.64 ms where SHA-256, even with SHA-NI,
//! takes 1.65 ms: more than unzip needs for the whole file, and the one
//! step of a restore that SHA-256 cannot split between cores. BLAKE3 can:
//! [`Blake3Split`] hashes the two sides of a cut through its tree on two
//! threads and joins them into the same hash.

use std::ops::Range;

use blake3::hazmat::{ChainingValue, HasherExt as _, Mode};
use blake3::hazmat::{left_subtree_len, merge_subtrees_non_root, merge_subtrees_root};
use sha2::{Digest as _, Sha256};

/// Which hash a file's `digest` fields hold (fixed by its major version).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DigestKind {
    Sha256,
    Blake3,
}

impl DigestKind {
    /// The digest of files of major version `major`.
    pub fn of_major(major: u16) -> DigestKind {
        if major >= 3 {
            DigestKind::Blake3
        } else {
            DigestKind::Sha256
        }
    }

    /// The digest this code writes.
    pub fn current() -> DigestKind {
        DigestKind::of_major(super::format::VERSION_MAJOR)
    }

    /// As reports and messages name it.
    pub fn name(self) -> &'static str {
        match self {
            DigestKind::Sha256 => "SHA-256",
            DigestKind::Blake3 => "BLAKE3",
        }
    }

    pub fn hasher(self) -> Hasher {
        match self {
            DigestKind::Sha256 => Hasher::Sha256(Sha256::new()),
            DigestKind::Blake3 => Hasher::Blake3(Box::new(blake3::Hasher::new())),
        }
    }

    /// The digest of `bytes` in one call.
    pub fn digest(self, bytes: &[u8]) -> [u8; 32] {
        let mut h = self.hasher();
        h.update(bytes);
        h.finalize()
    }
}

/// An incremental digest of either kind.
pub enum Hasher {
    Sha256(Sha256),
    Blake3(Box<blake3::Hasher>),
}

impl Hasher {
    pub fn update(&mut self, bytes: &[u8]) {
        match self {
            Hasher::Sha256(h) => h.update(bytes),
            Hasher::Blake3(h) => {
                h.update(bytes);
            }
        }
    }

    pub fn finalize(self) -> [u8; 32] {
        match self {
            Hasher::Sha256(h) => h.finalize().into(),
            Hasher::Blake3(h) => *h.finalize().as_bytes(),
        }
    }
}

/// BLAKE3's hash of `len` bytes computed as two halves, each on its own
/// thread. The hash is a binary tree over 1024-byte chunks in which every
/// node's left child holds the largest power of two of chunks below the
/// node's length. A cut at a chunk boundary `at` crosses one path from the
/// root; every node off that path lies wholly on one side, and the maximal
/// such nodes ([`Blake3Split::left`], [`Blake3Split::right`]) are hashed as
/// subtrees (`blake3::hazmat`). [`Blake3Split::root`] merges their chaining
/// values up the path into the hash `blake3::hash` gives for all the bytes.
#[derive(Debug, Clone)]
pub struct Blake3Split {
    /// Byte ranges of the subtrees before the cut, then after it, each in
    /// input order.
    left: Vec<Range<u64>>,
    right: Vec<Range<u64>>,
    len: u64,
    at: u64,
}

impl Blake3Split {
    /// The cut of `len` bytes at the chunk boundary at or below `near`;
    /// `None` when no boundary lies strictly inside the bytes (they fit in
    /// one chunk, or `near` is below the first boundary or not below `len`).
    pub fn new(len: u64, near: u64) -> Option<Blake3Split> {
        let chunk = blake3::CHUNK_LEN as u64;
        let at = near - near % chunk;
        if at == 0 || at >= len {
            return None;
        }
        let mut split = Blake3Split {
            left: Vec::new(),
            right: Vec::new(),
            len,
            at,
        };
        split.collect(0, len);
        Some(split)
    }

    /// Where the cut is.
    pub fn at(&self) -> u64 {
        self.at
    }

    /// Sorts node `offset..offset + len` to a side, or (crossing the cut)
    /// its children.
    fn collect(&mut self, offset: u64, len: u64) {
        if offset + len <= self.at {
            self.left.push(offset..offset + len);
        } else if offset >= self.at {
            self.right.push(offset..offset + len);
        } else {
            // Both ends chunk-aligned around the cut: the node is longer
            // than a chunk, so it has children.
            let l = left_subtree_len(len);
            self.collect(offset, l);
            self.collect(offset + l, len - l);
        }
    }

    /// The chaining values of the subtrees before the cut; `pieces`
    /// concatenated are the input (or at least its first `at` bytes).
    pub fn left(&self, pieces: &[&[u8]]) -> Vec<ChainingValue> {
        Blake3Split::hash_subtrees(&self.left, pieces, 0)
    }

    /// The chaining values of the subtrees after the cut; `pieces`
    /// concatenated are the input from byte `from` (at most the cut) on.
    pub fn right(&self, pieces: &[&[u8]], from: u64) -> Vec<ChainingValue> {
        assert!(from <= self.at, "the pieces start after the cut");
        Blake3Split::hash_subtrees(&self.right, pieces, from)
    }

    fn hash_subtrees(ranges: &[Range<u64>], pieces: &[&[u8]], from: u64) -> Vec<ChainingValue> {
        ranges
            .iter()
            .map(|range| {
                let mut h = blake3::Hasher::new();
                h.set_input_offset(range.start);
                let mut start = from;
                for piece in pieces {
                    let end = start + piece.len() as u64;
                    let (a, b) = (range.start.max(start), range.end.min(end));
                    if a < b {
                        h.update(&piece[(a - start) as usize..(b - start) as usize]);
                    }
                    start = end;
                }
                assert!(
                    start >= range.end,
                    "the pieces hold {start} bytes, the subtree ends at {}",
                    range.end
                );
                h.finalize_non_root()
            })
            .collect()
    }

    /// The hash of the whole input from [`Blake3Split::left`]'s and
    /// [`Blake3Split::right`]'s chaining values.
    pub fn root(&self, left: &[ChainingValue], right: &[ChainingValue]) -> [u8; 32] {
        assert_eq!(
            (left.len(), right.len()),
            (self.left.len(), self.right.len()),
            "one chaining value per subtree"
        );
        let (mut left, mut right) = (left.iter(), right.iter());
        let l = left_subtree_len(self.len);
        let a = self.merge(0, l, &mut left, &mut right);
        let b = self.merge(l, self.len - l, &mut left, &mut right);
        *merge_subtrees_root(&a, &b, Mode::Hash).as_bytes()
    }

    /// The chaining value of node `offset..offset + len`, walking the tree
    /// as [`Blake3Split::collect`] did.
    fn merge<'a>(
        &self,
        offset: u64,
        len: u64,
        left: &mut impl Iterator<Item = &'a ChainingValue>,
        right: &mut impl Iterator<Item = &'a ChainingValue>,
    ) -> ChainingValue {
        if offset + len <= self.at {
            *left.next().expect("counted")
        } else if offset >= self.at {
            *right.next().expect("counted")
        } else {
            let l = left_subtree_len(len);
            let a = self.merge(offset, l, left, right);
            let b = self.merge(offset + l, len - l, left, right);
            merge_subtrees_non_root(&a, &b, Mode::Hash)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The split hash of `data` cut near `near`, its bytes handed over as
    /// two pieces split at `piece` (independent of the cut); the right
    /// side gets only the pieces from the one holding the cut on.
    fn split_hash(data: &[u8], near: u64, piece: usize) -> Option<[u8; 32]> {
        let split = Blake3Split::new(data.len() as u64, near)?;
        let pieces = [&data[..piece], &data[piece..]];
        let right = if piece as u64 <= split.at() {
            split.right(&pieces[1..], piece as u64)
        } else {
            split.right(&pieces, 0)
        };
        Some(split.root(&split.left(&pieces), &right))
    }

    fn bytes(len: usize) -> Vec<u8> {
        (0..len as u64)
            .map(|i| (i.wrapping_mul(0x9e37_79b9) >> 7) as u8)
            .collect()
    }

    #[test]
    fn split_hash_equals_blake3_at_edges() {
        const C: usize = blake3::CHUNK_LEN;
        for len in [
            0,
            1,
            C - 1,
            C,
            C + 1,
            2 * C,
            2 * C + 1,
            3 * C,
            8 * C,
            8 * C + 1,
            33 * C - 7,
        ] {
            let data = bytes(len);
            for near in [
                0,
                1,
                C - 1,
                C,
                C + 1,
                2 * C,
                3 * C,
                len / 2,
                len.saturating_sub(1),
                len,
            ] {
                let got = split_hash(&data, near as u64, len / 3);
                let at = near - near % C;
                if at == 0 || at >= len {
                    assert_eq!(got, None, "len {len} near {near}");
                } else {
                    assert_eq!(
                        got,
                        Some(*blake3::hash(&data).as_bytes()),
                        "len {len} near {near}"
                    );
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Any length up to 3 MB, any cut, any boundary between the pieces.
        #[test]
        fn split_hash_equals_blake3(
            len in 1025usize..3_000_000,
            near in 0.0f64..1.0,
            piece in 0.0f64..=1.0,
        ) {
            let data = bytes(len);
            let near = (1024.0 + near * (len - 1025) as f64) as u64;
            let piece = (piece * len as f64) as usize;
            prop_assert_eq!(
                split_hash(&data, near, piece),
                Some(*blake3::hash(&data).as_bytes())
            );
        }
    }

    /// Published test vectors: FIPS 180-2's "abc" and BLAKE3's empty input.
    #[test]
    fn digests_match_published_vectors() {
        let hex = |d: [u8; 32]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(
            hex(DigestKind::Sha256.digest(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hex(DigestKind::Blake3.digest(b"")),
            "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
        );
    }

    #[test]
    fn incremental_equals_one_shot() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        for kind in [DigestKind::Sha256, DigestKind::Blake3] {
            let mut h = kind.hasher();
            for chunk in data.chunks(4093) {
                h.update(chunk);
            }
            assert_eq!(h.finalize(), kind.digest(&data), "{}", kind.name());
        }
        assert_eq!(DigestKind::of_major(2), DigestKind::Sha256);
        assert_eq!(DigestKind::of_major(3), DigestKind::Blake3);
    }
}
