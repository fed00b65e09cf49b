//! The original file's digest, which a restore must reproduce.
//!
//! Formats 1 and 2 store its SHA-256; format 3 its BLAKE3-256 hash. Both are
//! cryptographic (the digest sits in the authenticated private part, so a
//! changed public part cannot restore to another table unnoticed), but
//! BLAKE3 hashes Adult's 2.5 MB in 0.64 ms where SHA-256, even with SHA-NI,
//! takes 1.65 ms: more than unzip needs for the whole file, and the one
//! step of a restore that cannot be split between cores.

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

#[cfg(test)]
mod tests {
    use super::*;

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
