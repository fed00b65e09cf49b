//! minisign's key files: the public key (`Ed`, key id, Ed25519 key) and
//! the secret key (the same with the seed, a checksum, and scrypt
//! parameters when a passphrase protects it).
//!
//! ```text
//! public key  (42 bytes, base64):  "Ed" | key id (8) | Ed25519 public key (32)
//! secret key (158 bytes, base64):  "Ed" | kdf "Sc" or 00 00 | "B2" | salt (32)
//!                                  | opslimit u64 LE | memlimit u64 LE
//!                                  | key id (8) | seed ‖ public key (64) | checksum (32)
//! ```
//!
//! The last 104 bytes of a protected secret key are XORed with scrypt's
//! output for the passphrase; the checksum, BLAKE2b-256 of `"Ed"`, the key
//! id and the 64 key bytes, tells a wrong passphrase. scrypt's parameters
//! come from the file and are picked from (opslimit, memlimit) as libsodium
//! picks them; a hostile file could ask for any amount of memory or time,
//! so both are capped ([`MAX_SCRYPT_BYTES`], [`MAX_SCRYPT_WORK`]) before
//! scrypt runs.

use age::secrecy::{ExposeSecret, SecretString};
use blake2::digest::consts::U32;
use blake2::{Blake2b, Digest};
use ed25519_dalek::{SigningKey, VerifyingKey};
use zeroize::Zeroizing;

use super::{MinisignError, decode, encode, key_id_hex};

/// The signature algorithm id of keys (Ed25519).
const ALG: [u8; 2] = *b"Ed";
/// The key derivation of a protected secret key (scrypt).
const KDF_SCRYPT: [u8; 2] = *b"Sc";
/// No key derivation: the secret key is stored in clear (`minisign -W`).
const KDF_NONE: [u8; 2] = [0, 0];
/// The checksum algorithm id (BLAKE2b-256).
const CHK_ALG: [u8; 2] = *b"B2";
/// Bytes of a public key's structure.
const PUBLIC_LEN: usize = 42;
/// Bytes of a secret key's structure.
const SECRET_LEN: usize = 158;
/// Where the key id starts in a secret key's structure (the protected part).
const PROTECTED_AT: usize = 54;

/// The most memory scrypt may take to open a secret key: 256 MiB, twice
/// what karc's own keys take (128 MiB). minisign's own `-G`
/// asks for 1 GiB; such a key is refused with a message saying how to
/// re-protect it, rather than letting any key file allocate gigabytes.
pub const MAX_SCRYPT_BYTES: u64 = 256 << 20;
/// The most scrypt work (N·r·p) a secret key may ask for: minisign's own
/// `-G` asks for 2^23 (opslimit 2^25), about two seconds.
pub const MAX_SCRYPT_WORK: u64 = 1 << 23;
/// The opslimit karc writes: with [`WRITE_MEMLIMIT`], scrypt N = 2^17,
/// r = 8, p = 4 (128 MiB, about half a second).
const WRITE_OPSLIMIT: u64 = 1 << 24;
/// The memlimit karc writes (128 MiB).
const WRITE_MEMLIMIT: u64 = 1 << 27;

/// A public key: what a verifier trusts.
#[derive(Clone, PartialEq, Eq)]
pub struct PublicKey {
    /// The key id (8 random bytes chosen when the key was made).
    pub key_id: [u8; 8],
    key: VerifyingKey,
}

impl std::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PublicKey({})", key_id_hex(&self.key_id))
    }
}

impl PublicKey {
    /// Parses the base64 line of a public key (`RWQ...`, as `minisign -P`
    /// takes it); `which` names it in messages.
    pub fn from_line(line: &str, which: &str) -> Result<PublicKey, MinisignError> {
        let bad = |message: String| MinisignError::Key {
            which: which.to_owned(),
            message,
        };
        let raw: [u8; PUBLIC_LEN] = decode(line.trim(), "a minisign public key").map_err(bad)?;
        if raw[..2] != ALG {
            return Err(bad(format!(
                "expected the signature algorithm \"Ed\", found {:02x} {:02x}",
                raw[0], raw[1]
            )));
        }
        let key = VerifyingKey::from_bytes(raw[10..].try_into().expect("32 bytes"))
            .map_err(|_| bad("the Ed25519 public key is not a valid point".to_owned()))?;
        if key.is_weak() {
            return Err(bad("the Ed25519 public key is of small order".to_owned()));
        }
        Ok(PublicKey {
            key_id: raw[2..10].try_into().expect("8 bytes"),
            key,
        })
    }

    /// Parses a public key file: an `untrusted comment:` line, then the
    /// key's line (as `minisign -G` writes `minisign.pub`); a file of the
    /// line alone is read too.
    pub fn from_file_text(text: &str, which: &str) -> Result<PublicKey, MinisignError> {
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let first = lines.next().unwrap_or("");
        let line = match first.starts_with("untrusted comment:") {
            true => lines.next().unwrap_or(""),
            false => first,
        };
        if lines.next().is_some() {
            return Err(MinisignError::Key {
                which: which.to_owned(),
                message: "expected a comment line and one key line, found more lines".to_owned(),
            });
        }
        PublicKey::from_line(line, which)
    }

    /// The key's base64 line.
    pub fn to_line(&self) -> String {
        let mut raw = Vec::with_capacity(PUBLIC_LEN);
        raw.extend_from_slice(&ALG);
        raw.extend_from_slice(&self.key_id);
        raw.extend_from_slice(self.key.as_bytes());
        encode(&raw)
    }

    /// The public key file's text, as minisign writes it.
    pub fn file_text(&self) -> String {
        format!(
            "untrusted comment: minisign public key {}\n{}\n",
            key_id_hex(&self.key_id),
            self.to_line()
        )
    }

    /// The key id in minisign's notation.
    pub fn id(&self) -> String {
        key_id_hex(&self.key_id)
    }

    /// Whether `signature` over `message` is this key's (strict Ed25519:
    /// non-canonical and small-order values refused, as libsodium does).
    pub(crate) fn verifies(&self, message: &[u8], signature: &[u8; 64]) -> bool {
        let sig = ed25519_dalek::Signature::from_bytes(signature);
        self.key.verify_strict(message, &sig).is_ok()
    }
}

/// A secret key: what a publisher signs with (wiped from memory on drop).
#[derive(Clone)]
pub struct SecretKey {
    key_id: [u8; 8],
    key: SigningKey,
}

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SecretKey({}, not shown)", key_id_hex(&self.key_id))
    }
}

impl SecretKey {
    /// A new key from the system's randomness.
    pub fn generate() -> Result<SecretKey, MinisignError> {
        let mut seed = Zeroizing::new([0u8; 40]);
        getrandom::fill(&mut seed[..]).map_err(|e| MinisignError::Key {
            which: "new key".to_owned(),
            message: format!("the system's randomness failed: {e}"),
        })?;
        let key_id: [u8; 8] = seed[32..].try_into().expect("8 bytes");
        let key = SigningKey::from_bytes(seed[..32].try_into().expect("32 bytes"));
        Ok(SecretKey { key_id, key })
    }

    /// A key from a fixed seed and key id: test vectors only.
    pub fn from_seed(seed: &[u8; 32], key_id: [u8; 8]) -> SecretKey {
        SecretKey {
            key_id,
            key: SigningKey::from_bytes(seed),
        }
    }

    /// Its public key.
    pub fn public(&self) -> PublicKey {
        PublicKey {
            key_id: self.key_id,
            key: self.key.verifying_key(),
        }
    }

    /// Ed25519 signature of `message` (deterministic, as RFC 8032 defines it).
    pub(crate) fn sign(&self, message: &[u8]) -> [u8; 64] {
        use ed25519_dalek::Signer;
        self.key.sign(message).to_bytes()
    }

    /// The key id.
    pub fn key_id(&self) -> [u8; 8] {
        self.key_id
    }

    /// The secret key file's text, protected by `passphrase` when one is
    /// given (scrypt, a new random salt), else in clear as `minisign -W`
    /// writes it. Secret: write it to a private file only.
    pub fn file_text(
        &self,
        passphrase: Option<&SecretString>,
    ) -> Result<SecretString, MinisignError> {
        let mut raw = Zeroizing::new(Vec::with_capacity(SECRET_LEN));
        raw.extend_from_slice(&ALG);
        raw.extend_from_slice(if passphrase.is_some() {
            &KDF_SCRYPT
        } else {
            &KDF_NONE
        });
        raw.extend_from_slice(&CHK_ALG);
        let mut salt = [0u8; 32];
        let (ops, mem) = match passphrase {
            Some(_) => {
                getrandom::fill(&mut salt).map_err(|e| MinisignError::Key {
                    which: "new key".to_owned(),
                    message: format!("the system's randomness failed: {e}"),
                })?;
                (WRITE_OPSLIMIT, WRITE_MEMLIMIT)
            }
            None => (0, 0),
        };
        raw.extend_from_slice(&salt);
        raw.extend_from_slice(&ops.to_le_bytes());
        raw.extend_from_slice(&mem.to_le_bytes());
        raw.extend_from_slice(&self.key_id);
        raw.extend_from_slice(&self.key.to_keypair_bytes());
        let chk = checksum(&self.key_id, &raw[PROTECTED_AT + 8..PROTECTED_AT + 72]);
        raw.extend_from_slice(&chk);
        if let Some(passphrase) = passphrase {
            let stream = scrypt_stream(passphrase, &salt, ops, mem, "new key")?;
            xor(&mut raw[PROTECTED_AT..], &stream[..]);
        }
        let comment = match passphrase {
            Some(_) => "minisign encrypted secret key",
            None => "minisign secret key (not protected by a passphrase)",
        };
        let text = format!("untrusted comment: {comment}\n{}\n", encode(&raw));
        Ok(SecretString::from(text))
    }

    /// Whether a secret key file's text says it is protected by a
    /// passphrase (so a front end knows to ask for one).
    pub fn is_protected(text: &SecretString) -> bool {
        key_line(text.expose_secret())
            .ok()
            .and_then(|l| decode::<SECRET_LEN>(l, "").ok())
            .is_some_and(|raw| raw[2..4] == KDF_SCRYPT)
    }

    /// Reads a secret key file's text (`which` names the file in
    /// messages, which never show its content), opening it with
    /// `passphrase` when it is protected.
    pub fn from_file_text(
        text: &SecretString,
        passphrase: Option<&SecretString>,
        which: &str,
    ) -> Result<SecretKey, MinisignError> {
        let bad = |message: String| MinisignError::Key {
            which: which.to_owned(),
            message,
        };
        let line = key_line(text.expose_secret()).map_err(bad)?;
        let mut raw = Zeroizing::new(
            decode::<SECRET_LEN>(line, "a minisign secret key")
                .map_err(|e| bad(format!("{e} (the line is not shown)")))?,
        );
        if raw[..2] != ALG || raw[4..6] != CHK_ALG {
            return Err(bad(
                "expected the algorithms \"Ed\" and \"B2\" of a minisign secret key".to_owned(),
            ));
        }
        let kdf: [u8; 2] = raw[2..4].try_into().expect("2 bytes");
        if kdf == KDF_SCRYPT {
            let Some(passphrase) = passphrase else {
                return Err(MinisignError::NeedsPassphrase {
                    which: which.to_owned(),
                });
            };
            let salt: [u8; 32] = raw[6..38].try_into().expect("32 bytes");
            let ops = u64::from_le_bytes(raw[38..46].try_into().expect("8 bytes"));
            let mem = u64::from_le_bytes(raw[46..54].try_into().expect("8 bytes"));
            let stream = scrypt_stream(passphrase, &salt, ops, mem, which)?;
            xor(&mut raw[PROTECTED_AT..], &stream[..]);
        } else if kdf != KDF_NONE {
            return Err(bad(format!(
                "unknown key derivation {:02x} {:02x} (expected \"Sc\" or none)",
                kdf[0], kdf[1]
            )));
        }
        let key_id: [u8; 8] = raw[PROTECTED_AT..PROTECTED_AT + 8].try_into().expect("8");
        let pair: &[u8; 64] = raw[PROTECTED_AT + 8..PROTECTED_AT + 72]
            .try_into()
            .expect("64 bytes");
        if checksum(&key_id, pair)[..] != raw[PROTECTED_AT + 72..] {
            return Err(match kdf == KDF_SCRYPT {
                true => MinisignError::WrongPassphrase {
                    which: which.to_owned(),
                },
                false => bad("the key's checksum does not match: the file is damaged".to_owned()),
            });
        }
        let key = SigningKey::from_keypair_bytes(pair)
            .map_err(|_| bad("its public half is not its secret half's".to_owned()))?;
        Ok(SecretKey { key_id, key })
    }
}

/// The key line of a key file: the line after its `untrusted comment:`.
fn key_line(text: &str) -> Result<&str, String> {
    let mut lines = text.lines();
    match (lines.next(), lines.next()) {
        (Some(c), Some(line)) if c.starts_with("untrusted comment:") => Ok(line.trim()),
        _ => Err(
            "expected a minisign secret key file: an `untrusted comment:` line, then the key"
                .to_owned(),
        ),
    }
}

/// BLAKE2b-256 of `"Ed"`, the key id and the key's 64 bytes.
fn checksum(key_id: &[u8; 8], pair: &[u8]) -> [u8; 32] {
    let mut h = Blake2b::<U32>::new();
    h.update(ALG);
    h.update(key_id);
    h.update(pair);
    h.finalize().into()
}

fn xor(bytes: &mut [u8], stream: &[u8]) {
    for (b, s) in bytes.iter_mut().zip(stream) {
        *b ^= s;
    }
}

/// scrypt's (log2 N, r, p) for libsodium's (opslimit, memlimit), as
/// libsodium's `pickparams` (and so minisign) derives them.
pub fn scrypt_params(opslimit: u64, memlimit: u64) -> (u8, u32, u64) {
    let ops = opslimit.max(32_768);
    let r = 8u64;
    let first_n_above = |max_n: u64| (1..63u8).find(|&l| 1u64 << l > max_n / 2).unwrap_or(63);
    if ops < memlimit / 32 {
        (first_n_above(ops / (r * 4)), r as u32, 1)
    } else {
        let log_n = first_n_above(memlimit / (r * 128));
        let max_rp = ((ops / 4) >> log_n).min(0x3fff_ffff);
        (log_n, r as u32, max_rp / r)
    }
}

/// The 104 bytes that protect a secret key: scrypt of the passphrase, with
/// the work the file asks for, refused above the caps before any memory is
/// taken.
fn scrypt_stream(
    passphrase: &SecretString,
    salt: &[u8; 32],
    opslimit: u64,
    memlimit: u64,
    which: &str,
) -> Result<Zeroizing<[u8; 104]>, MinisignError> {
    let (log_n, r, p) = scrypt_params(opslimit, memlimit);
    let bad = |message: String| MinisignError::Key {
        which: which.to_owned(),
        message,
    };
    let memory = (128u128 * u128::from(r)) << log_n;
    let work = (u128::from(r) * u128::from(p)) << log_n;
    if memory > u128::from(MAX_SCRYPT_BYTES) || work > u128::from(MAX_SCRYPT_WORK) {
        return Err(bad(format!(
            "its scrypt parameters ask for {} MiB and {work} units of work, above karc's limits of \
             {} MiB and {MAX_SCRYPT_WORK} (a key made by `minisign -G` asks for 1 GiB): \
             remove its passphrase with `minisign -C -W`, or make a key with `karc keygen --signing`",
            memory >> 20,
            MAX_SCRYPT_BYTES >> 20
        )));
    }
    let p = u32::try_from(p).map_err(|_| bad("scrypt's p is out of range".to_owned()))?;
    let params = scrypt::Params::new(log_n, r, p, 32).map_err(|_| {
        bad(format!(
            "invalid scrypt parameters (log2 N {log_n}, r {r}, p {p})"
        ))
    })?;
    let mut out = Zeroizing::new([0u8; 104]);
    scrypt::scrypt(
        passphrase.expose_secret().as_bytes(),
        salt,
        &params,
        &mut out[..],
    )
    .map_err(|_| bad("scrypt refused the output length".to_owned()))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrypt_parameters_are_libsodiums() {
        // minisign -G's (OPSLIMIT/MEMLIMIT_SENSITIVE): N = 2^20, r = 8, p = 1.
        assert_eq!(scrypt_params(33_554_432, 1_073_741_824), (20, 8, 1));
        // rsign's (OPSLIMIT 2^20, MEMLIMIT 32 MiB): N = 2^15, p = 1.
        assert_eq!(scrypt_params(1_048_576, 33_554_432), (15, 8, 1));
        // karc's: N = 2^17, p = 4 (128 MiB).
        assert_eq!(scrypt_params(WRITE_OPSLIMIT, WRITE_MEMLIMIT), (17, 8, 4));
    }

    #[test]
    fn hostile_work_factors_are_refused_before_scrypt_runs() {
        let pass = SecretString::from("x".to_owned());
        for (ops, mem) in [(1 << 25, 1 << 30), (u64::MAX, u64::MAX), (u64::MAX, 0)] {
            let e = scrypt_stream(&pass, &[0; 32], ops, mem, "k").unwrap_err();
            assert!(e.to_string().contains("above karc's limits"), "{e}");
        }
    }

    #[test]
    fn keys_round_trip_in_their_files() {
        let key = SecretKey::from_seed(&[7; 32], *b"karctest");
        let text = key.file_text(None).unwrap();
        assert!(!SecretKey::is_protected(&text));
        let back = SecretKey::from_file_text(&text, None, "k").unwrap();
        assert_eq!(back.public(), key.public());
        let public = key.public();
        let parsed = PublicKey::from_file_text(&public.file_text(), "p").unwrap();
        assert_eq!(parsed, public);
        assert_eq!(
            PublicKey::from_line(&public.to_line(), "p").unwrap(),
            public
        );
        // A damaged checksum is told apart from a wrong passphrase.
        let mut raw = decode::<SECRET_LEN>(key_line(text.expose_secret()).unwrap(), "").unwrap();
        raw[SECRET_LEN - 1] ^= 1;
        let damaged = SecretString::from(format!("untrusted comment: x\n{}\n", encode(&raw)));
        let e = SecretKey::from_file_text(&damaged, None, "k").unwrap_err();
        assert!(e.to_string().contains("damaged"), "{e}");
    }

    #[test]
    fn a_protected_key_needs_its_passphrase() {
        let key = SecretKey::from_seed(&[9; 32], [1; 8]);
        let pass = SecretString::from("correct horse".to_owned());
        let text = key.file_text(Some(&pass)).unwrap();
        assert!(SecretKey::is_protected(&text));
        assert!(matches!(
            SecretKey::from_file_text(&text, None, "k"),
            Err(MinisignError::NeedsPassphrase { .. })
        ));
        let wrong = SecretString::from("wrong".to_owned());
        assert!(matches!(
            SecretKey::from_file_text(&text, Some(&wrong), "k"),
            Err(MinisignError::WrongPassphrase { .. })
        ));
        let back = SecretKey::from_file_text(&text, Some(&pass), "k").unwrap();
        assert_eq!(back.public(), key.public());
    }
}
