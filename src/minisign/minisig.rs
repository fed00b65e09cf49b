//! minisign's signature file (`.minisig`): four lines.
//!
//! ```text
//! untrusted comment: <text, not signed>
//! base64("ED" | key id (8) | Ed25519 signature of BLAKE2b-512(message) (64))
//! trusted comment: <one line, signed with the signature below>
//! base64(Ed25519 signature of (the signature above ‖ the trusted comment) (64))
//! ```
//!
//! Only the prehashed algorithm `ED` is written and read: minisign's
//! legacy `Ed` (the whole message signed) is refused, as `minisign -V -H`
//! refuses it. A trusted comment karc writes is printable ASCII on one line.

use blake2::{Blake2b512, Digest};

use super::{MinisignError, PublicKey, SecretKey, decode, encode, key_id_hex};

/// The prehashed signature algorithm id.
const ALG_PREHASHED: [u8; 2] = *b"ED";
/// The legacy (not prehashed) algorithm id, refused.
const ALG_LEGACY: [u8; 2] = *b"Ed";
/// The untrusted comment karc writes.
pub const UNTRUSTED: &str = "signature from karc secret key";
/// The longest trusted comment read (minisign's own bound).
pub const MAX_TRUSTED_COMMENT: usize = 8192;
/// The longest signature text read: the four lines at their bounds.
pub const MAX_TEXT: usize = 1024 + 120 + MAX_TRUSTED_COMMENT + 120;

/// BLAKE2b-512 of a message, fed piece by piece (what `ED` signs).
#[derive(Default)]
pub struct Prehash(Blake2b512);

impl Prehash {
    /// Adds bytes of the message.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The 64-byte hash.
    pub fn finish(self) -> [u8; 64] {
        self.0.finalize().into()
    }

    /// The hash of a whole message.
    pub fn of(bytes: &[u8]) -> [u8; 64] {
        let mut h = Prehash::default();
        h.update(bytes);
        h.finish()
    }
}

/// A parsed or new signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Minisig {
    /// The untrusted comment (not signed: never relied on).
    pub untrusted_comment: String,
    /// The signing key's id.
    pub key_id: [u8; 8],
    signature: [u8; 64],
    /// The trusted comment (signed).
    pub trusted_comment: String,
    global: [u8; 64],
}

impl Minisig {
    /// Signs the message whose BLAKE2b-512 is `prehash`, with
    /// `trusted_comment` (printable ASCII, one line: refused otherwise).
    pub fn sign(
        key: &SecretKey,
        prehash: &[u8; 64],
        trusted_comment: &str,
    ) -> Result<Minisig, MinisignError> {
        if !is_printable_ascii(trusted_comment) || trusted_comment.len() > MAX_TRUSTED_COMMENT {
            return Err(MinisignError::Malformed {
                which: "the trusted comment".to_owned(),
                message: "expected printable ASCII on one line".to_owned(),
            });
        }
        let signature = key.sign(prehash);
        let global = key.sign(&global_message(&signature, trusted_comment));
        Ok(Minisig {
            untrusted_comment: UNTRUSTED.to_owned(),
            key_id: key.key_id(),
            signature,
            trusted_comment: trusted_comment.to_owned(),
            global,
        })
    }

    /// The signature file's text.
    pub fn to_text(&self) -> String {
        let mut sig = Vec::with_capacity(74);
        sig.extend_from_slice(&ALG_PREHASHED);
        sig.extend_from_slice(&self.key_id);
        sig.extend_from_slice(&self.signature);
        format!(
            "untrusted comment: {}\n{}\ntrusted comment: {}\n{}\n",
            self.untrusted_comment,
            encode(&sig),
            self.trusted_comment,
            encode(&self.global)
        )
    }

    /// Parses a signature's text (untrusted: every line's prefix, length,
    /// base64 and the algorithm id are checked); `which` names it in
    /// messages.
    pub fn parse(text: &str, which: &str) -> Result<Minisig, MinisignError> {
        let bad = |message: String| MinisignError::Malformed {
            which: which.to_owned(),
            message,
        };
        if text.len() > MAX_TEXT {
            return Err(bad(format!(
                "{} bytes, longer than a signature can be ({MAX_TEXT})",
                text.len()
            )));
        }
        let lines: Vec<&str> = text.lines().collect();
        let [untrusted, sig, trusted, global] = lines[..] else {
            return Err(bad(format!("expected 4 lines, found {}", lines.len())));
        };
        let untrusted = untrusted
            .strip_prefix("untrusted comment: ")
            .ok_or_else(|| bad("line 1: expected `untrusted comment: `".to_owned()))?;
        let trusted = trusted
            .strip_prefix("trusted comment: ")
            .ok_or_else(|| bad("line 3: expected `trusted comment: `".to_owned()))?;
        if !is_printable(trusted) || trusted.len() > MAX_TRUSTED_COMMENT {
            return Err(bad(
                "line 3: the trusted comment holds a control character or is too long".to_owned(),
            ));
        }
        let raw: [u8; 74] = decode(sig, "line 2, the signature,").map_err(bad)?;
        match [raw[0], raw[1]] {
            ALG_PREHASHED => {}
            ALG_LEGACY => {
                return Err(bad(
                    "line 2: a legacy (not prehashed) signature: sign again with `minisign -S` \
                     of version 0.8 or later"
                        .to_owned(),
                ));
            }
            [a, b] => {
                return Err(bad(format!(
                    "line 2: unknown signature algorithm {a:02x} {b:02x} (expected \"ED\")"
                )));
            }
        }
        let global: [u8; 64] =
            decode(global, "line 4, the trusted comment's signature,").map_err(bad)?;
        Ok(Minisig {
            untrusted_comment: untrusted.chars().filter(|c| !c.is_control()).collect(),
            key_id: raw[2..10].try_into().expect("8 bytes"),
            signature: raw[10..].try_into().expect("64 bytes"),
            trusted_comment: trusted.to_owned(),
            global,
        })
    }

    /// The signing key's id in minisign's notation.
    pub fn key_id_hex(&self) -> String {
        key_id_hex(&self.key_id)
    }

    /// Checks the signature of the message whose BLAKE2b-512 is
    /// `prehash`, and of the trusted comment, with `key`: a key of another
    /// id, or either signature not verifying, is a failed check.
    pub fn verify(&self, key: &PublicKey, prehash: &[u8; 64]) -> Result<(), MinisignError> {
        if self.key_id != key.key_id {
            return Err(MinisignError::Invalid(format!(
                "signed by key id {}, not by the key given ({})",
                self.key_id_hex(),
                key.id()
            )));
        }
        if !key.verifies(prehash, &self.signature) {
            return Err(MinisignError::Invalid(format!(
                "the signature does not verify with key {}: the signed bytes were changed",
                key.id()
            )));
        }
        if !key.verifies(
            &global_message(&self.signature, &self.trusted_comment),
            &self.global,
        ) {
            return Err(MinisignError::Invalid(format!(
                "the trusted comment's signature does not verify with key {}: the comment was changed",
                key.id()
            )));
        }
        Ok(())
    }
}

/// What the second signature covers: the first signature, then the
/// trusted comment's bytes.
fn global_message(signature: &[u8; 64], trusted_comment: &str) -> Vec<u8> {
    let mut m = Vec::with_capacity(64 + trusted_comment.len());
    m.extend_from_slice(signature);
    m.extend_from_slice(trusted_comment.as_bytes());
    m
}

/// Printable ASCII (0x20..=0x7e): what karc writes in a trusted comment.
pub fn is_printable_ascii(text: &str) -> bool {
    text.bytes().all(|b| (0x20..=0x7e).contains(&b))
}

/// No control character (tab allowed, as minisign allows it): what karc
/// reads in a trusted comment written by another tool.
fn is_printable(text: &str) -> bool {
    text.chars().all(|c| c == '\t' || !c.is_control())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SecretKey {
        SecretKey::from_seed(&[3; 32], *b"12345678")
    }

    #[test]
    fn a_signature_round_trips_and_verifies() {
        let key = key();
        let hash = Prehash::of(b"message");
        let sig = Minisig::sign(&key, &hash, "timestamp:1 rows:3").unwrap();
        let parsed = Minisig::parse(&sig.to_text(), "s").unwrap();
        assert_eq!(parsed, sig);
        parsed.verify(&key.public(), &hash).unwrap();
        // Another message, another key, an edited comment: each refused.
        assert!(
            parsed
                .verify(&key.public(), &Prehash::of(b"other"))
                .is_err()
        );
        let other = SecretKey::from_seed(&[4; 32], *b"12345678").public();
        assert!(parsed.verify(&other, &hash).is_err());
        let mut edited = parsed.clone();
        edited.trusted_comment.push('!');
        let e = edited.verify(&key.public(), &hash).unwrap_err();
        assert!(e.to_string().contains("comment was changed"), "{e}");
    }

    #[test]
    fn malformed_signatures_are_refused() {
        let sig = Minisig::sign(&key(), &Prehash::of(b"m"), "c")
            .unwrap()
            .to_text();
        let lines: Vec<&str> = sig.lines().collect();
        assert!(Minisig::parse(&lines[..3].join("\n"), "s").is_err());
        let mut raw: [u8; 74] = decode(lines[1], "").unwrap();
        raw[1] = b'd';
        let legacy = sig.replacen(lines[1], &encode(&raw), 1);
        let e = Minisig::parse(&legacy, "s").unwrap_err().to_string();
        assert!(e.contains("legacy"), "{e}");
        let short = sig.replacen(lines[3], &lines[3][4..], 1);
        assert!(Minisig::parse(&short, "s").is_err());
        let control = sig.replacen("trusted comment: c", "trusted comment: c\u{1b}[2J", 1);
        assert!(Minisig::parse(&control, "s").is_err());
        assert!(Minisig::sign(&key(), &[0; 64], "two\nlines").is_err());
        assert!(Minisig::sign(&key(), &[0; 64], "caf\u{e9}").is_err());
    }
}
