//! The private part's envelope: an `age` file (binary, not armored) for one
//! or more X25519 recipients, or for a passphrase (scrypt), as the age
//! specification (C2SP `age.md`) defines it (`spec/FORMAT.md` §8).
//!
//! Which kind of key a file needs is read from the envelope's header, so a
//! passphrase offered to a recipients file (or the reverse) gets its own
//! message rather than "wrong key".

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use age::secrecy::SecretString;

use super::ArchiveError;

/// How the private part is written.
pub enum Seal {
    /// For X25519 recipients (`age1...`): any of their identities opens it.
    Recipients(Vec<age::x25519::Recipient>),
    /// For a passphrase; `work_factor` is scrypt's log2(N) (age picks about
    /// one second of work when `None`).
    Passphrase {
        /// The passphrase, zeroed when dropped.
        passphrase: SecretString,
        /// scrypt's log2(N), within [`WORK_FACTORS`].
        work_factor: Option<u8>,
    },
    /// In clear (`--no-encryption`): anyone with the file can restore.
    None,
}

/// The scrypt work factors (log2 N) a passphrase may be sealed with. scrypt
/// takes 2^N KiB of memory: 22 is 4 GiB, the most that age's reference
/// implementation opens by default (`maxWorkFactor`); above it a file could
/// be sealed that no one can open, or the sealing itself fail to allocate.
pub const WORK_FACTORS: std::ops::RangeInclusive<u8> = 1..=22;

/// What is offered to open the private part.
pub enum Key {
    /// X25519 identities (from `-i` files); any recipient's opens the part.
    Identities(Vec<Box<dyn age::Identity + Send + Sync>>),
    /// A passphrase, for a passphrase-sealed part.
    Passphrase(SecretString),
}

/// Parses one `age1...` recipient; `which` names it in messages
/// (`--recipient 2`, `FILE: line 3`). The text itself is never shown: a
/// secret key or a passphrase given here by mistake must not reach a
/// terminal or a log.
pub fn parse_recipient(text: &str, which: &str) -> Result<age::x25519::Recipient, ArchiveError> {
    let text = text.trim();
    age::x25519::Recipient::from_str(text).map_err(|e| {
        let message = if text.to_ascii_uppercase().starts_with("AGE-SECRET-KEY-") {
            "this is a secret key (AGE-SECRET-KEY-1...), not a recipient: give its public key \
             (age1..., as `karc keygen -y FILE` prints it), and keep the secret key for restoring"
                .to_owned()
        } else {
            format!("expected an X25519 recipient (age1...): {e}")
        };
        ArchiveError::Recipient {
            which: which.to_owned(),
            message,
        }
    })
}

/// Reads a recipients file: one `age1...` per line, `#` comments and
/// blank lines ignored (age's format).
pub fn read_recipients_file(path: &Path) -> Result<Vec<age::x25519::Recipient>, ArchiveError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| key_file_error(path, KeyFile::Recipients, e))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        out.push(parse_recipient(
            line,
            &format!("{}: line {}", path.display(), i + 1),
        )?);
    }
    if out.is_empty() {
        return Err(key_error(path, "no recipient in the file".to_owned()));
    }
    Ok(out)
}

/// Reads an identity file (`AGE-SECRET-KEY-1...` lines, as `age-keygen`
/// writes them).
pub fn read_identity_file(path: &Path) -> Result<Key, ArchiveError> {
    let file =
        std::fs::File::open(path).map_err(|e| key_file_error(path, KeyFile::Identities, e))?;
    let identities = age::IdentityFile::from_buffer(std::io::BufReader::new(file))
        .map_err(|e| key_error(path, format!("not an age identity file: {e}")))?
        .into_identities()
        .map_err(|e| key_error(path, e.to_string()))?;
    if identities.is_empty() {
        return Err(key_error(path, "no identity in the file".to_owned()));
    }
    Ok(Key::Identities(identities))
}

/// Reads a passphrase: the file's first line, without its line ending.
pub fn read_passphrase_file(path: &Path) -> Result<SecretString, ArchiveError> {
    let file =
        std::fs::File::open(path).map_err(|e| key_file_error(path, KeyFile::Passphrase, e))?;
    let mut line = String::new();
    std::io::BufReader::new(file)
        .read_line(&mut line)
        .map_err(|e| key_error(path, e.to_string()))?;
    let pass = line.trim_end_matches(['\n', '\r']);
    if pass.is_empty() {
        return Err(key_error(
            path,
            "the passphrase file is empty: expected the passphrase on its first line".to_owned(),
        ));
    }
    Ok(SecretString::from(pass.to_owned()))
}

/// Which key file a command asked for, to tell a key given in its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyFile {
    /// A file of `age1...` public keys (`-R`).
    Recipients,
    /// A file of `AGE-SECRET-KEY-1...` identities (`-i`, `keygen -y`).
    Identities,
    /// A file holding a passphrase.
    Passphrase,
}

/// The error of a key file that cannot be opened. A key typed where its
/// file's name goes (`-i age1...`, `-R age1...`, `-i AGE-SECRET-KEY-1...`)
/// is named as such instead of "No such file or directory", and a secret
/// key given so is never echoed.
pub fn key_file_error(path: &Path, want: KeyFile, e: std::io::Error) -> ArchiveError {
    let text = path.to_string_lossy();
    let secret = text.to_ascii_uppercase().starts_with("AGE-SECRET-KEY-");
    let public = text.starts_with("age1") && !path.exists();
    let message = match (want, secret, public) {
        (KeyFile::Identities, false, true) => {
            "this is a public key (age1...), not an identity \
            file: give the file holding its secret key (AGE-SECRET-KEY-1..., as `karc keygen -o \
            FILE` writes it); a public key only seals (`-r age1...`)"
        }
        (KeyFile::Recipients, false, true) => {
            "this is a public key (age1...), not a file of \
            them: give it with `-r age1...`, or `-R FILE` for a file of such lines"
        }
        (KeyFile::Passphrase, false, true) => {
            "this is a public key (age1...), not a \
            passphrase file: a public key seals with `-r age1...`"
        }
        (KeyFile::Identities, true, _) => {
            "this is a secret key itself, not its file: put it in \
            a file readable by you only (as `karc keygen -o FILE` writes one) and give that file"
        }
        (_, true, _) => {
            "this is a secret key (AGE-SECRET-KEY-1...), not a file: keep it for \
            restoring (`-i FILE`), and seal with its public key (`-r age1...`, as `karc keygen -y \
            FILE` prints it)"
        }
        _ => return key_error(path, e.to_string()),
    };
    let shown = if secret {
        PathBuf::from("AGE-SECRET-KEY-(not shown)")
    } else {
        path.to_owned()
    };
    key_error(&shown, message.to_owned())
}

fn key_error(path: &Path, message: String) -> ArchiveError {
    ArchiveError::Key {
        path: path.to_owned(),
        message,
    }
}

/// The age encryptor of `how` (`None` for an unencrypted private part).
pub fn encryptor(how: &Seal) -> Result<Option<age::Encryptor>, ArchiveError> {
    let encryptor = match how {
        Seal::None => return Ok(None),
        Seal::Recipients(rs) => {
            age::Encryptor::with_recipients(rs.iter().map(|r| r as &dyn age::Recipient))
                .map_err(|e| ArchiveError::Seal(e.to_string()))?
        }
        Seal::Passphrase {
            passphrase,
            work_factor,
        } => {
            let mut r = age::scrypt::Recipient::new(passphrase.clone());
            if let Some(w) = work_factor {
                if !WORK_FACTORS.contains(w) {
                    return Err(ArchiveError::Seal(format!(
                        "scrypt work factor: expected {}..={}, found {w}",
                        WORK_FACTORS.start(),
                        WORK_FACTORS.end()
                    )));
                }
                r.set_work_factor(*w);
            }
            age::Encryptor::with_recipients(std::iter::once(&r as &dyn age::Recipient))
                .map_err(|e| ArchiveError::Seal(e.to_string()))?
        }
    };
    Ok(Some(encryptor))
}

/// Seals `plain`; `None` for [`Seal::None`].
pub fn seal(plain: &[u8], how: &Seal) -> Result<Option<Vec<u8>>, ArchiveError> {
    let Some(encryptor) = encryptor(how)? else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(plain.len() + plain.len() / 4096 * 16 + 256);
    let mut w = encryptor
        .wrap_output(&mut out)
        .map_err(|e| ArchiveError::Seal(e.to_string()))?;
    w.write_all(plain)
        .map_err(|e| ArchiveError::Seal(e.to_string()))?;
    w.finish().map_err(|e| ArchiveError::Seal(e.to_string()))?;
    Ok(Some(out))
}

/// Opens a sealed private part with `key`.
pub fn unseal(path: &Path, sealed: &[u8], key: &Key) -> Result<Vec<u8>, ArchiveError> {
    let path_buf = || -> PathBuf { path.to_owned() };
    let envelope = |detail: String| ArchiveError::Envelope {
        path: path_buf(),
        detail,
    };
    let decryptor = age::Decryptor::new_buffered(sealed).map_err(|e| envelope(e.to_string()))?;
    let scrypt = decryptor.is_scrypt();
    let reader = match key {
        Key::Identities(ids) => {
            if scrypt {
                return Err(ArchiveError::NeedsPassphrase { path: path_buf() });
            }
            decryptor.decrypt(ids.iter().map(|i| i.as_ref() as &dyn age::Identity))
        }
        Key::Passphrase(p) => {
            if !scrypt {
                return Err(ArchiveError::NeedsIdentity { path: path_buf() });
            }
            // The work factor is read from the file: without a cap, age allows
            // its own estimate + 4 (a fast machine's 26: 64 GiB), so a forged
            // stanza would allocate before any check. karc never seals above
            // WORK_FACTORS' end, so nothing above it is opened either.
            let mut id = age::scrypt::Identity::new(p.clone());
            id.set_max_work_factor(*WORK_FACTORS.end());
            decryptor.decrypt(std::iter::once(&id as &dyn age::Identity))
        }
    };
    let mut reader = reader.map_err(|e| match (e, key) {
        (age::DecryptError::NoMatchingKeys, Key::Identities(_)) => {
            ArchiveError::WrongIdentity { path: path_buf() }
        }
        (age::DecryptError::DecryptionFailed, Key::Passphrase(_)) => {
            ArchiveError::WrongPassphrase { path: path_buf() }
        }
        (age::DecryptError::ExcessiveWork { required, .. }, _) => envelope(format!(
            "scrypt work factor: expected {}..={}, found {required} (2^{required} KiB of memory)",
            WORK_FACTORS.start(),
            WORK_FACTORS.end()
        )),
        (e, _) => envelope(e.to_string()),
    })?;
    let mut plain = Vec::with_capacity(sealed.len());
    reader
        .read_to_end(&mut plain)
        .map_err(|e| envelope(e.to_string()))?;
    Ok(plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_recipient_is_never_echoed() {
        let secret = age::x25519::Identity::generate();
        let text = secret.to_string();
        let text = age::secrecy::ExposeSecret::expose_secret(&text);
        let err = parse_recipient(text, "--recipient 1")
            .unwrap_err()
            .to_string();
        assert!(!err.contains(text) && !err.contains(&text[20..40]), "{err}");
        assert!(
            err.starts_with("--recipient 1: this is a secret key"),
            "{err}"
        );
        let err = parse_recipient("correct horse battery", "F: line 2")
            .unwrap_err()
            .to_string();
        assert!(
            !err.contains("horse") && err.starts_with("F: line 2: expected"),
            "{err}"
        );
    }

    #[test]
    fn recipients_and_passphrase_round_trip_and_refuse_wrong_keys() {
        let id = age::x25519::Identity::generate();
        let other = age::x25519::Identity::generate();
        let p = Path::new("x.karc");
        let sealed = seal(b"secret rows", &Seal::Recipients(vec![id.to_public()]))
            .unwrap()
            .unwrap();
        let ok = Key::Identities(vec![Box::new(id)]);
        assert_eq!(unseal(p, &sealed, &ok).unwrap(), b"secret rows");
        let wrong = Key::Identities(vec![Box::new(other)]);
        assert!(matches!(
            unseal(p, &sealed, &wrong),
            Err(ArchiveError::WrongIdentity { .. })
        ));
        let pass = Key::Passphrase(SecretString::from("pw".to_owned()));
        assert!(matches!(
            unseal(p, &sealed, &pass),
            Err(ArchiveError::NeedsIdentity { .. })
        ));

        let sealed = seal(
            b"more",
            &Seal::Passphrase {
                passphrase: SecretString::from("pw".to_owned()),
                work_factor: Some(2),
            },
        )
        .unwrap()
        .unwrap();
        assert_eq!(unseal(p, &sealed, &pass).unwrap(), b"more");
        let bad = Key::Passphrase(SecretString::from("no".to_owned()));
        assert!(matches!(
            unseal(p, &sealed, &bad),
            Err(ArchiveError::WrongPassphrase { .. })
        ));
        assert!(matches!(
            unseal(p, &sealed, &ok),
            Err(ArchiveError::NeedsPassphrase { .. })
        ));
    }

    #[test]
    fn a_work_factor_above_the_cap_is_refused_before_scrypt_runs() {
        // Issue 32: a stanza edited to work factor 23 made readers allocate
        // 8 GiB (and abort) before any check.
        let sealed = seal(
            b"rows",
            &Seal::Passphrase {
                passphrase: SecretString::from("pw".to_owned()),
                work_factor: Some(2),
            },
        )
        .unwrap()
        .unwrap();
        let text = String::from_utf8_lossy(&sealed[..sealed.len().min(300)]).into_owned();
        let line = text.lines().find(|l| l.starts_with("-> scrypt ")).unwrap();
        let forged_line = format!("{} 23", line.rsplit_once(' ').unwrap().0);
        let at = sealed
            .windows(line.len())
            .position(|w| w == line.as_bytes())
            .unwrap();
        let mut forged = sealed[..at].to_vec();
        forged.extend_from_slice(forged_line.as_bytes());
        forged.extend_from_slice(&sealed[at + line.len()..]);
        let pass = Key::Passphrase(SecretString::from("pw".to_owned()));
        let err = unseal(Path::new("x.karc"), &forged, &pass)
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected 1..=22, found 23"), "{err}");
    }
}
