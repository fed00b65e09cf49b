//! Signed archives: a publisher's keys (minisign's formats), and the
//! options that sign a file or check who signed it.

use std::path::{Path, PathBuf};

use age::secrecy::SecretString;

use crate::archive::seal;
use crate::archive::signature;
pub use crate::minisign::PublicKey;
use crate::minisign::{self, MinisignError, SecretKey};
use crate::{Error, Result};

pub use crate::archive::signature::{Signer, Status as SignatureStatus, Verified};

pub use age::secrecy::SecretString as Secret;

/// A passphrase on a file's first line (a key's).
pub fn read_passphrase(path: &Path) -> Result<SecretString> {
    Ok(seal::read_passphrase_file(path)?)
}

/// A secret's text, to write it to a private file.
pub fn expose(secret: &SecretString) -> &str {
    use age::secrecy::ExposeSecret;
    secret.expose_secret()
}

/// The longest key file read: a minisign key file is two short lines.
const MAX_KEY_FILE: u64 = 64 << 10;

/// A new signing key pair, as `karc keygen --signing` writes it.
pub struct NewSigningKey {
    /// The public key, for verifiers (`FILE.pub`).
    pub public: PublicKey,
    /// The secret key file's text (secret: write it to a private file only).
    pub secret_text: SecretString,
}

impl NewSigningKey {
    /// The public key's file text (`untrusted comment:` line, key line).
    pub fn public_text(&self) -> String {
        self.public.file_text()
    }

    /// The public key's base64 line, as `verify --signer` takes it.
    pub fn public_line(&self) -> String {
        self.public.to_line()
    }

    /// The key id, as minisign prints it.
    pub fn key_id(&self) -> String {
        self.public.id()
    }
}

/// Makes a new signing key from the system's randomness, its secret file
/// protected by `passphrase` (scrypt) when one is given.
pub fn signing_keygen(passphrase: Option<&SecretString>) -> Result<NewSigningKey> {
    let key = SecretKey::generate()?;
    Ok(NewSigningKey {
        public: key.public(),
        secret_text: key.file_text(passphrase)?,
    })
}

/// How a publisher's secret key is read (`--sign KEY`, `karc sign --key`).
#[derive(Debug, Clone, Default)]
pub struct SignOptions {
    /// The secret key file (minisign's format).
    pub key: PathBuf,
    /// Its passphrase, given in memory (the Python package's argument).
    pub passphrase: Option<String>,
    /// A file whose first line is its passphrase.
    pub passphrase_file: Option<PathBuf>,
    /// The signing time (seconds since 1970; default now): reproducible
    /// signatures for test vectors.
    pub time: Option<u64>,
}

impl SignOptions {
    /// The signer: the key read and opened, `ask` called for its
    /// passphrase only when it is protected and none was given.
    pub fn signer(&self, ask: &mut dyn FnMut() -> Result<String>) -> Result<Signer> {
        let which = self.key.display().to_string();
        let text = read_small(&self.key)?;
        let text = SecretString::from(text);
        let passphrase = match (&self.passphrase, &self.passphrase_file) {
            (Some(p), _) => Some(SecretString::from(p.clone())),
            (None, Some(f)) => Some(seal::read_passphrase_file(f)?),
            (None, None) if SecretKey::is_protected(&text) => Some(SecretString::from(ask()?)),
            (None, None) => None,
        };
        let key = SecretKey::from_file_text(&text, passphrase.as_ref(), &which)?;
        Ok(Signer {
            key,
            time: self.time.unwrap_or_else(minisign::now),
        })
    }

    /// The files these options read.
    pub fn files(&self) -> Vec<PathBuf> {
        std::iter::once(self.key.clone())
            .chain(self.passphrase_file.clone())
            .collect()
    }
}

/// A trusted public key: a `.pub` file (as `minisign -G` and `karc keygen
/// --signing` write it), or the key's base64 line itself.
pub fn public_key(arg: &str) -> Result<PublicKey> {
    let path = Path::new(arg);
    if path.is_file() {
        let text = read_small(path)?;
        return Ok(PublicKey::from_file_text(&text, arg)?);
    }
    let line = arg.trim();
    // A key line is 56 base64 characters (which may hold `/`).
    if line.len() == 56 && line.starts_with("RW") {
        return Ok(PublicKey::from_line(line, "--signer")?);
    }
    Err(MinisignError::Key {
        which: arg.to_owned(),
        message: "no such public key file, nor a key's base64 line (RW..., 56 characters)"
            .to_owned(),
    }
    .into())
}

/// A key file's text, refused above [`MAX_KEY_FILE`] before it is read.
fn read_small(path: &Path) -> Result<String> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if len > MAX_KEY_FILE {
        return Err(MinisignError::Key {
            which: path.display().to_string(),
            message: format!("{len} bytes: not a minisign key file (two short lines)"),
        }
        .into());
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    String::from_utf8(bytes).map_err(|_| {
        MinisignError::Key {
            which: path.display().to_string(),
            message: "not text: not a minisign key file".to_owned(),
        }
        .into()
    })
}

/// Signs an archive's bytes just written by [`crate::api::pack`] (`name`
/// names it in messages): a `SIGNATURE` section added before its private
/// part.
pub fn sign_packed(name: &Path, bytes: &[u8], signer: &Signer) -> Result<Vec<u8>> {
    signature::sign_bytes(name, bytes, signer)
}

/// Checks an archive's signature against the `trusted` keys before the
/// file is opened (`restore --signer` writes nothing unless it passes).
pub fn check_signature(name: &Path, bytes: &[u8], trusted: &[PublicKey]) -> Result<Verified> {
    signature::check_bytes(name, bytes, trusted)
}
