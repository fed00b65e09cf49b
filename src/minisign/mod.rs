//! minisign's key and signature formats (<https://jedisct1.github.io/minisign/>),
//! so that the standard `minisign` tool verifies what karc signs and karc
//! reads the public keys minisign writes.
//!
//! Signatures are Ed25519 over the BLAKE2b-512 hash of the message
//! (minisign's "prehashed" algorithm `ED`), with a trusted comment signed
//! beside them; keys are identified by an 8-byte key id. [`keys`] holds the
//! public and secret key files (the secret one protected by scrypt, its
//! work factors capped before anything is allocated: a key file is
//! untrusted input), [`minisig`] the signature file. Every parser here
//! takes untrusted text: lengths, base64 and algorithm ids are checked, and
//! no message ever shows a key file's content.

pub mod keys;
pub mod minisig;

pub use keys::{PublicKey, SecretKey};
pub use minisig::Minisig;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// What can be wrong with a key or a signature in minisign's formats.
#[derive(Debug, thiserror::Error)]
pub enum MinisignError {
    /// A key (a file, or the base64 line given as an argument) that is not
    /// one: `which` names it, never its text.
    #[error("{which}: {message}")]
    Key {
        /// The file or argument concerned.
        which: String,
        /// What is wrong, for the message.
        message: String,
    },
    /// The secret key file is protected and the passphrase does not open it.
    #[error("{which}: wrong passphrase for this secret key")]
    WrongPassphrase {
        /// The key file.
        which: String,
    },
    /// The secret key file is protected and no passphrase was given.
    #[error(
        "{which}: the secret key is protected by a passphrase: give --passphrase-file (or type it when asked)"
    )]
    NeedsPassphrase {
        /// The key file.
        which: String,
    },
    /// A signature's text is malformed.
    #[error("{which}: not a minisign signature: {message}")]
    Malformed {
        /// The signature file or section concerned.
        which: String,
        /// What is wrong, for the message.
        message: String,
    },
    /// A signature that does not verify (a failed check).
    #[error("{0}")]
    Invalid(String),
    /// A key file that could not be written.
    #[error("{which}: {message}")]
    Write {
        /// The file concerned.
        which: String,
        /// What is wrong, for the message.
        message: String,
    },
}

impl crate::error::AreaError for MinisignError {
    fn exit_code(&self) -> u8 {
        match self {
            MinisignError::Invalid(_) => 1,
            _ => 2,
        }
    }
}

/// A key id as minisign prints it: the 8 bytes read as a little-endian
/// number, in 16 uppercase hexadecimal digits.
pub fn key_id_hex(id: &[u8; 8]) -> String {
    format!("{:016X}", u64::from_le_bytes(*id))
}

/// Standard base64 with padding, as minisign writes its lines.
fn encode(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// Decodes a base64 line of exactly `N` bytes (`what` names it in
/// messages); anything else (other characters, another length) is refused
/// before it is used.
fn decode<const N: usize>(line: &str, what: &str) -> Result<[u8; N], String> {
    let line = line.trim_end_matches(['\r', '\n']);
    // Base64 of N bytes has 4·ceil(N/3) characters: no longer line is decoded.
    if line.len() != N.div_ceil(3) * 4 {
        return Err(format!(
            "expected {what} of {} base64 characters, found {}",
            N.div_ceil(3) * 4,
            line.len()
        ));
    }
    let bytes = STANDARD
        .decode(line)
        .map_err(|_| format!("expected {what} in base64, found other characters"))?;
    bytes
        .try_into()
        .map_err(|_| format!("expected {what} of {N} bytes"))
}

/// A time as RFC 3339 in UTC (`2026-11-28T03:19:04Z`), from seconds since
/// 1970.
pub fn rfc3339(secs: u64) -> String {
    let secs = secs as i64;
    let (y, m, d) = crate::civil::civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// Seconds since 1970 now (0 on a clock before it).
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_lines_are_checked_before_use() {
        assert_eq!(decode::<2>("AQI=", "x").unwrap(), [1, 2]);
        assert!(decode::<2>("AQI", "x").unwrap_err().contains("4 base64"));
        assert!(
            decode::<2>("A!I=", "x")
                .unwrap_err()
                .contains("other characters")
        );
        assert!(decode::<3>("AQID", "x").is_ok());
        assert!(decode::<2>("AQID", "x").is_err());
    }

    #[test]
    fn times_and_key_ids_print_as_their_tools_print_them() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_764_300_000), "2025-11-28T03:20:00Z");
        assert_eq!(key_id_hex(&[1, 0, 0, 0, 0, 0, 0, 0xab]), "AB00000000000001");
    }
}
