//! How a new archive is sealed and a sealed one opened: the options a
//! front end gives, as the library's keys.

use std::path::{Path, PathBuf};

use age::secrecy::SecretString;

use crate::archive::seal::{self, Key, Seal};
use crate::io::{Access, Output, is_std};
use crate::{Error, Result};

/// How a new archive is sealed (exactly one way).
#[derive(Debug, Clone, Default)]
pub struct SealOptions {
    /// X25519 recipients (`age1...`).
    pub recipients: Vec<String>,
    /// Files of recipients, one `age1...` a line.
    pub recipients_files: Vec<PathBuf>,
    /// A passphrase given as text.
    pub passphrase: Option<String>,
    /// A passphrase on a file's first line.
    pub passphrase_file: Option<PathBuf>,
    /// scrypt's log2(N) for a passphrase (default: about one second).
    pub work_factor: Option<u8>,
    /// The private part in clear.
    pub no_encryption: bool,
}

impl SealOptions {
    /// The one way of sealing asked for.
    pub fn seal(&self) -> Result<Seal> {
        let recipients = !self.recipients.is_empty() || !self.recipients_files.is_empty();
        let ways = usize::from(recipients)
            + usize::from(self.passphrase.is_some())
            + usize::from(self.passphrase_file.is_some())
            + usize::from(self.no_encryption);
        if ways != 1 {
            return Err(Error::Options(
                "say how to seal the private part: --recipient / --recipients-file, a passphrase \
                 (--passphrase to be asked, --passphrase-file or --passphrase-env), or --no-encryption \
                 (exactly one of these; `karc keygen -o key.txt` makes a key)"
                    .to_owned(),
            ));
        }
        if recipients {
            let mut all = Vec::new();
            for (i, r) in self.recipients.iter().enumerate() {
                all.push(seal::parse_recipient(r, &format!("--recipient {}", i + 1))?);
            }
            for f in &self.recipients_files {
                all.extend(seal::read_recipients_file(f)?);
            }
            return Ok(Seal::Recipients(all));
        }
        let passphrase = match (&self.passphrase, &self.passphrase_file) {
            (Some(p), _) => Some(given_passphrase(p)?),
            (None, Some(f)) => Some(seal::read_passphrase_file(f)?),
            (None, None) => None,
        };
        Ok(match passphrase {
            Some(passphrase) => Seal::Passphrase {
                passphrase,
                work_factor: self.work_factor,
            },
            None => Seal::None,
        })
    }

    /// The key files these options read.
    pub fn files(&self) -> Vec<PathBuf> {
        self.recipients_files
            .iter()
            .chain(&self.passphrase_file)
            .cloned()
            .collect()
    }
}

/// How a sealed private part is opened (nothing: it is not sealed, or
/// only the public part is read).
#[derive(Debug, Clone, Default)]
pub struct KeyOptions {
    /// age identity files (`AGE-SECRET-KEY-1...` lines).
    pub identities: Vec<PathBuf>,
    /// A passphrase given in memory (the Python package's argument).
    pub passphrase: Option<String>,
    /// A file whose first line is the passphrase.
    pub passphrase_file: Option<PathBuf>,
}

impl KeyOptions {
    /// The key offered, if any.
    pub fn key(&self) -> Result<Option<Key>> {
        if let Some(p) = &self.passphrase {
            return Ok(Some(Key::Passphrase(given_passphrase(p)?)));
        }
        if let Some(f) = &self.passphrase_file {
            return Ok(Some(Key::Passphrase(seal::read_passphrase_file(f)?)));
        }
        let mut identities = Vec::new();
        for f in &self.identities {
            if let Key::Identities(ids) = seal::read_identity_file(f)? {
                identities.extend(ids);
            }
        }
        Ok((!identities.is_empty()).then_some(Key::Identities(identities)))
    }

    /// The key files these options read.
    pub fn files(&self) -> Vec<PathBuf> {
        self.identities
            .iter()
            .chain(&self.passphrase_file)
            .cloned()
            .collect()
    }
}

/// A passphrase given as text (the Python package's `passphrase=`, the
/// CLI's prompt and environment variable): refused when empty, as the CLI
/// and a passphrase file refuse it, so that no archive is sealed with a
/// passphrase no front end would accept to open it with.
fn given_passphrase(p: &str) -> Result<SecretString> {
    if p.is_empty() {
        return Err(Error::Options(
            "passphrase: expected at least one character, found an empty passphrase".to_owned(),
        ));
    }
    Ok(SecretString::from(p.to_owned()))
}

/// A new X25519 identity, as `karc keygen` (and `age-keygen`) writes it.
pub struct NewIdentity {
    /// Its public key (`age1...`), to seal for.
    pub recipient: String,
    /// The identity file's text: comments with the creation time and the
    /// public key, then the `AGE-SECRET-KEY-1...` line.
    pub file_text: SecretString,
}

impl NewIdentity {
    /// The identity file's text (secret: write it to a private file only).
    pub fn text(&self) -> &str {
        use age::secrecy::ExposeSecret;
        self.file_text.expose_secret()
    }
}

/// Makes a new pseudonym key (docs/CONFIG.md `pseudonym_key`) from the
/// system's randomness and writes it to `file` (owner only). An existing
/// file is replaced only with `force` (`force_hint` names that option in
/// the caller's words: releases made with the old key could no longer be
/// linked to new ones).
pub fn pseudonym_keygen(file: &Path, force: bool, force_hint: &str) -> Result<()> {
    if is_std(file) {
        return Err(Error::Options(format!(
            "{}: a pseudonym key goes to a file, never to the terminal",
            file.display()
        )));
    }
    if !force && std::fs::symlink_metadata(file).is_ok() {
        return Err(Error::Options(format!(
            "{}: the file exists: a pseudonym key is never overwritten without {force_hint} \
             (releases made with it could no longer be linked to new ones)",
            file.display()
        )));
    }
    let key = crate::pseudonym::PseudonymKey::fresh()?;
    Output::new(file, Access::Private)?.write_bytes(key.bytes())
}

/// Makes a new X25519 identity from the system's randomness.
pub fn keygen() -> NewIdentity {
    use age::secrecy::ExposeSecret;
    let identity = age::x25519::Identity::generate();
    let recipient = identity.to_public().to_string();
    let created = utc_now();
    let file_text = format!(
        "# created: {created}\n# public key: {recipient}\n{}\n",
        identity.to_string().expose_secret()
    );
    NewIdentity {
        recipient,
        file_text: SecretString::from(file_text),
    }
}

/// The public keys (`age1...`) of the X25519 identities in an identity
/// file, as `age-keygen -y` prints them. The file's secret keys are never
/// part of a message.
pub fn recipients_of(path: &std::path::Path) -> Result<Vec<String>> {
    let key_error = |message: String| crate::archive::ArchiveError::Key {
        path: path.to_owned(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| key_error(e.to_string()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let identity: age::x25519::Identity = line.parse().map_err(|_| {
            key_error(format!(
                "line {}: expected an age identity (AGE-SECRET-KEY-1...), found something else (not shown)",
                i + 1
            ))
        })?;
        out.push(identity.to_public().to_string());
    }
    if out.is_empty() {
        return Err(key_error("no identity in the file".to_owned()).into());
    }
    Ok(out)
}

/// The current UTC time as RFC 3339 (`2026-11-26T13:05:00Z`), as
/// `age-keygen` stamps its files.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (y, m, d) = crate::civil::civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}
