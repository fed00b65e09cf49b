//! What a restore must reproduce: the original file's checksum, and the
//! public part its private part was made for.
//!
//! The private part holds the original's CRC-32 and the BLAKE3 hash of the
//! public part ([`PublicDigest`], `spec/FORMAT.md` §7.5). The public part
//! is the one input of a restore that the private part's envelope does not
//! authenticate: with its hash in the authenticated plaintext, a public
//! part changed by someone without the key is refused before anything is
//! decoded, and the restored bytes are a function of authenticated inputs.
//! What is left for the original's checksum is to catch a decoder or
//! renderer gone wrong, as zip's CRC-32 does, at about 25 GB/s (0.1 ms for
//! Adult's 2.5 MB, split between the two render threads and combined).

/// The name of the original's checksum, as reports and messages give it.
pub const CHECKSUM: &str = "CRC-32";

/// A CRC-32 as zip tools print it: eight hexadecimal digits.
pub fn crc32_hex(crc: u32) -> String {
    format!("{crc:08x}")
}

/// Bytes in lowercase hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The BLAKE3 hash of `bytes` in hexadecimal: how golden files pin a
/// writer's output (`fixtures/archive/golden_adult.txt`).
pub fn blake3_hex(bytes: &[u8]) -> String {
    hex(blake3::hash(bytes).as_bytes())
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
    /// A digest bound to the format version, so a file cannot be relabelled.
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

    /// The 32-byte BLAKE3 digest of what was added so far.
    pub fn finish(&self) -> [u8; 32] {
        *self.0.finalize().as_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BLAKE3's published hash of the empty input, and a CRC-32 printed
    /// as zip tools print it (the check value, of "123456789").
    #[test]
    fn digests_match_published_vectors() {
        assert_eq!(
            blake3_hex(b""),
            "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
        );
        assert_eq!(crc32_hex(crc32fast::hash(b"123456789")), "cbf43926");
        assert_eq!(crc32_hex(0x1a), "0000001a");
    }

    #[test]
    fn the_public_digest_hashes_what_the_spec_says() {
        let mut d = PublicDigest::new(1, 3);
        d.section(1, 0, b"meta");
        d.hashed_section(3, 1, 2, blake3::hash(b"ab").into());
        let mut spelled = Vec::new();
        spelled.extend_from_slice(&[1, 0, 3, 0]);
        spelled.extend_from_slice(&[1, 0, 0, 0]);
        spelled.extend_from_slice(&4u64.to_le_bytes());
        spelled.extend_from_slice(blake3::hash(b"meta").as_bytes());
        spelled.extend_from_slice(&[3, 0, 1, 0]);
        spelled.extend_from_slice(&2u64.to_le_bytes());
        spelled.extend_from_slice(blake3::hash(b"ab").as_bytes());
        assert_eq!(d.finish(), *blake3::hash(&spelled).as_bytes());
        let mut other = PublicDigest::new(1, 0);
        other.section(1, 0, b"meta!");
        assert_ne!(other.finish(), PublicDigest::new(1, 0).finish());
        assert_ne!(
            PublicDigest::new(1, 0).finish(),
            PublicDigest::new(1, 3).finish()
        );
    }
}
