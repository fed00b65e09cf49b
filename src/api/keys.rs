//! How a new archive is sealed and a sealed one opened: the options a
//! front end gives, as the library's keys.

use std::path::PathBuf;

use age::secrecy::SecretString;

use crate::archive::seal::{self, Key, Seal};
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
                "say how to seal the private part: --recipient / --recipients-file, --passphrase-file, \
                 or --no-encryption (exactly one of these)"
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
            (Some(p), _) => Some(SecretString::from(p.clone())),
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
            return Ok(Some(Key::Passphrase(SecretString::from(p.clone()))));
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
