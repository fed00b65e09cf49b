//! Signed archives from Python: `keygen(signing=True)`, `pack(sign=...)`,
//! `sign(...)` (also what `karc.spark.pack(sign=...)` calls after the
//! merge) and `Archive.verify(signer=...)`. Secret keys never cross into
//! Python.

use std::path::PathBuf;

use karc::api::{self, Access, ClaimCheck, Output, SignOptions, SignatureStatus, Signer};
use pyo3::prelude::*;

use crate::{detached, options, to_py};

/// The signer of a secret key file, opened with `passphrase` when it is
/// protected (Python cannot be asked on a terminal: an error says so).
pub fn signer(key: PathBuf, passphrase: Option<String>) -> karc::api::Result<Signer> {
    let which = key.display().to_string();
    SignOptions {
        key,
        passphrase,
        ..SignOptions::default()
    }
    .signer(&mut || {
        Err(options(&format!(
            "{which}: the signing key is protected by a passphrase: give sign_passphrase= (or passphrase=)"
        )))
    })
}

/// The signature of `archive` checked against `signers` (key files or
/// lines): its status, or a failed check.
pub fn verified(archive: &api::Archive, signers: &[String]) -> karc::api::Result<SignatureStatus> {
    let keys = signers
        .iter()
        .map(|s| api::public_key(s))
        .collect::<karc::api::Result<Vec<_>>>()?;
    Ok(SignatureStatus::from(&archive.verify_signature(&keys)?))
}

/// Writes a new signing key: the secret key to `path` (owner only), the
/// public key to `path.pub`; returns the public key's line.
#[pyfunction]
#[pyo3(signature = (path, force = false, passphrase = None))]
pub fn signing_keygen(path: PathBuf, force: bool, passphrase: Option<String>) -> PyResult<String> {
    let mut public = path.as_os_str().to_owned();
    public.push(".pub");
    let public = PathBuf::from(public);
    for p in [&path, &public] {
        if !force && std::fs::symlink_metadata(p).is_ok() {
            return Err(to_py(options(&format!(
                "{}: the file exists: a key is never overwritten without force=True",
                p.display()
            ))));
        }
    }
    let write = || {
        let passphrase = passphrase.map(api::Secret::from);
        let key = api::signing_keygen(passphrase.as_ref())?;
        Output::new(&path, Access::Private)?
            .write_bytes(api::expose(&key.secret_text).as_bytes())?;
        Output::new(&public, Access::Public)?.write_bytes(key.public_text().as_bytes())?;
        Ok(key.public_line())
    };
    write().map_err(to_py)
}

/// Signs the archive at `path` with the secret key `key` (replacing it, or
/// writing `output`), or with `detached` writes `output` (default
/// `path.minisig`) over its bytes; returns the trusted comment.
#[pyfunction]
#[pyo3(signature = (path, key, passphrase = None, output = None, detached_signature = false))]
pub fn sign_file(
    py: Python<'_>,
    path: PathBuf,
    key: PathBuf,
    passphrase: Option<String>,
    output: Option<PathBuf>,
    detached_signature: bool,
) -> PyResult<String> {
    detached(py, || {
        let signer = signer(key, passphrase)?;
        let bytes = std::fs::read(&path).map_err(|e| karc::api::Error::io(&path, e))?;
        let archive = api::open(&path, bytes, ClaimCheck::Enforce)?;
        let target = output.unwrap_or_else(|| match detached_signature {
            true => {
                let mut p = path.as_os_str().to_owned();
                p.push(".minisig");
                PathBuf::from(p)
            }
            false => path.clone(),
        });
        let (bytes, access) = match detached_signature {
            true => (
                archive.detached_signature(&signer)?.into_bytes(),
                Access::Public,
            ),
            false => (archive.signed(&signer)?, Access::Private),
        };
        Output::new(&target, access)?.write_bytes(&bytes)?;
        Ok(archive.trusted_comment(&signer))
    })
}
