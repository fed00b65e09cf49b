//! What a restore must reproduce: the original file's checksum, and the
//! public part its private part was made for.
//!
//! From format 8 on, the private part holds the original's CRC-32 and the
//! BLAKE3 hash of the public part ([`PublicDigest`], `spec/FORMAT.md` §7.5).
//! The public part is the one input of a restore that the private part's
//! envelope does not authenticate: with its hash in the authenticated
//! plaintext, a public part changed by someone without the key is refused
//! before anything is decoded, and the restored bytes are a function of
//! authenticated inputs. What is left for the original's checksum is to
//! catch a decoder or renderer gone wrong, as zip's CRC-32 does. CRC-32
//! does that at about 25 GB/s (0.1 ms for Adult's 2.5 MB, split between
//! the two render threads and combined), where the BLAKE3 hash of the
//! original that formats 3 to 7 stored took 0.6 ms of a restore's 2.9 ms
//! of CPU. Formats 1 and 2 stored its SHA-256.

use sha2::{Digest as _, Sha256};

/// Which digest a file's `digest` fields hold (fixed by its major version).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DigestKind {
    Sha256,
    Blake3,
    Crc32,
}

impl DigestKind {
    /// The digest of files of major version `major`.
    pub fn of_major(major: u16) -> DigestKind {
        match major {
            8.. => DigestKind::Crc32,
            3..=7 => DigestKind::Blake3,
            _ => DigestKind::Sha256,
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
            DigestKind::Crc32 => "CRC-32",
        }
    }

    pub fn hasher(self) -> Hasher {
        match self {
            DigestKind::Sha256 => Hasher::Sha256(Sha256::new()),
            DigestKind::Blake3 => Hasher::Blake3(Box::new(blake3::Hasher::new())),
            DigestKind::Crc32 => Hasher::Crc32(crc32fast::Hasher::new()),
        }
    }

    /// The digest of `bytes` in one call.
    pub fn digest(self, bytes: &[u8]) -> Digest {
        let mut h = self.hasher();
        h.update(bytes);
        h.finalize()
    }
}

/// A digest value of either kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Digest {
    Sha256([u8; 32]),
    Blake3([u8; 32]),
    Crc32(u32),
}

impl Digest {
    /// A 32-byte `digest` field of a file of major version `major` (1 to
    /// 7: SHA-256 before 3, BLAKE3 from 3).
    pub fn stored(major: u16, bytes: [u8; 32]) -> Digest {
        if major < 3 {
            Digest::Sha256(bytes)
        } else {
            Digest::Blake3(bytes)
        }
    }

    pub fn kind(&self) -> DigestKind {
        match self {
            Digest::Sha256(_) => DigestKind::Sha256,
            Digest::Blake3(_) => DigestKind::Blake3,
            Digest::Crc32(_) => DigestKind::Crc32,
        }
    }

    /// In hexadecimal: a hash's bytes in order, a CRC-32 as its value
    /// (eight digits, as zip tools print it).
    pub fn hex(&self) -> String {
        match self {
            Digest::Sha256(b) | Digest::Blake3(b) => hex(b),
            Digest::Crc32(c) => format!("{c:08x}"),
        }
    }
}

/// Bytes in lowercase hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An incremental digest of any kind.
pub enum Hasher {
    Sha256(Sha256),
    Blake3(Box<blake3::Hasher>),
    Crc32(crc32fast::Hasher),
}

impl Hasher {
    pub fn update(&mut self, bytes: &[u8]) {
        match self {
            Hasher::Sha256(h) => h.update(bytes),
            Hasher::Blake3(h) => {
                h.update(bytes);
            }
            Hasher::Crc32(h) => h.update(bytes),
        }
    }

    pub fn finalize(self) -> Digest {
        match self {
            Hasher::Sha256(h) => Digest::Sha256(h.finalize().into()),
            Hasher::Blake3(h) => Digest::Blake3(*h.finalize().as_bytes()),
            Hasher::Crc32(h) => Digest::Crc32(h.finalize()),
        }
    }
}

/// The BLAKE3 hash that binds a private part to its public part
/// (`spec/FORMAT.md` §7.5): over the file's version, then each public
/// section in table order as its type, flags, length and BLAKE3 hash.
/// Hashes of the sections rather than their bytes, so that a writer that
/// streams its row groups' sections out before it knows `META` can hash
/// each as it goes. Offsets and CRCs are left out: a published copy
/// (without the private section) has other offsets, the same sections.
pub struct PublicDigest(blake3::Hasher);

impl PublicDigest {
    pub fn new(major: u16, minor: u16) -> PublicDigest {
        let mut h = blake3::Hasher::new();
        h.update(&major.to_le_bytes());
        h.update(&minor.to_le_bytes());
        PublicDigest(h)
    }

    /// Adds the section of type `code` and `flags` whose bytes are `body`.
    pub fn section(&mut self, code: u16, flags: u16, body: &[u8]) {
        self.hashed_section(code, flags, body.len() as u64, blake3::hash(body).into());
    }

    /// Adds a section of `len` bytes whose BLAKE3 hash is `hash`.
    pub fn hashed_section(&mut self, code: u16, flags: u16, len: u64, hash: [u8; 32]) {
        let h = &mut self.0;
        h.update(&code.to_le_bytes());
        h.update(&flags.to_le_bytes());
        h.update(&len.to_le_bytes());
        h.update(&hash);
    }

    pub fn finish(&self) -> [u8; 32] {
        *self.0.finalize().as_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Published test vectors: FIPS 180-2's "abc", BLAKE3's empty input,
    /// and CRC-32's check value (of "123456789").
    #[test]
    fn digests_match_published_vectors() {
        assert_eq!(
            DigestKind::Sha256.digest(b"abc").hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            DigestKind::Blake3.digest(b"").hex(),
            "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
        );
        assert_eq!(DigestKind::Crc32.digest(b"123456789").hex(), "cbf43926");
    }

    #[test]
    fn incremental_equals_one_shot() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        for kind in [DigestKind::Sha256, DigestKind::Blake3, DigestKind::Crc32] {
            let mut h = kind.hasher();
            for chunk in data.chunks(4093) {
                h.update(chunk);
            }
            assert_eq!(h.finalize(), kind.digest(&data), "{}", kind.name());
        }
        assert_eq!(DigestKind::of_major(2), DigestKind::Sha256);
        assert_eq!(DigestKind::of_major(3), DigestKind::Blake3);
        assert_eq!(DigestKind::of_major(7), DigestKind::Blake3);
        assert_eq!(DigestKind::of_major(8), DigestKind::Crc32);
    }

    #[test]
    fn the_public_digest_hashes_what_the_spec_says() {
        let mut d = PublicDigest::new(8, 0);
        d.section(1, 0, b"meta");
        d.hashed_section(3, 1, 2, blake3::hash(b"ab").into());
        let mut spelled = Vec::new();
        spelled.extend_from_slice(&[8, 0, 0, 0]);
        spelled.extend_from_slice(&[1, 0, 0, 0]);
        spelled.extend_from_slice(&4u64.to_le_bytes());
        spelled.extend_from_slice(blake3::hash(b"meta").as_bytes());
        spelled.extend_from_slice(&[3, 0, 1, 0]);
        spelled.extend_from_slice(&2u64.to_le_bytes());
        spelled.extend_from_slice(blake3::hash(b"ab").as_bytes());
        assert_eq!(d.finish(), *blake3::hash(&spelled).as_bytes());
        let mut other = PublicDigest::new(8, 0);
        other.section(1, 0, b"meta!");
        assert_ne!(other.finish(), PublicDigest::new(8, 0).finish());
    }
}
