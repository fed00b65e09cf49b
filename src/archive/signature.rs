//! The `SIGNATURE` section (`spec/FORMAT.md` §4.1): a manifest of the
//! file's sections, signed in minisign's format by the publisher's key.
//!
//! The manifest lists every section but `SIGNATURE` itself and the private
//! one (by index, type, flags, length and BLAKE3 hash), whatever its type,
//! so that it covers sections this version does not know; the private
//! section enters as a field of its own, so that `karc publish`, which drops
//! it, leaves the signature valid. A verifier with the publisher's public
//! key checks the signature, then that the file's sections are the ones
//! listed: any change to any byte of the public part, or of the private
//! part when it is present, fails, and so does a signature moved onto
//! another file. The trusted comment states the claim (rows, k, models),
//! the signing time and the format version, in printable ASCII; a verifier
//! requires it to describe the file it is in.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::ArchiveError;
use super::format::{self, Container, SectionEntry, SectionKind};
use super::meta::{self, PublicMeta};
use super::models::ModelsClaim;
use crate::minisign::minisig::Prehash;
use crate::minisign::{self, Minisig, MinisignError, PublicKey, SecretKey, minisig};

/// The manifest's first field: a signature over a manifest is not one over
/// any other kind of message (a file signed detached, another tool's data).
pub const CONTEXT: &str = "karc signed manifest";

/// A signature check that failed: exit code 1, as any failed check.
#[derive(Debug, thiserror::Error)]
pub enum SignatureError {
    /// The file has no `SIGNATURE` section.
    #[error("{}: unsigned: the file has no signature, so nothing says who published it", path.display())]
    Unsigned {
        /// The archive concerned.
        path: std::path::PathBuf,
    },
    /// The signature is not a trusted key's, or does not cover this file.
    #[error("{}: signature check failed: {detail}", path.display())]
    Failed {
        /// The archive concerned.
        path: std::path::PathBuf,
        /// Why, for the message.
        detail: String,
    },
}

impl crate::error::AreaError for SignatureError {
    fn exit_code(&self) -> u8 {
        1
    }
}

/// A publisher's key and the time its signatures state.
#[derive(Clone)]
pub struct Signer {
    /// The secret key.
    pub key: SecretKey,
    /// Seconds since 1970, as the trusted comment states it (RFC 3339).
    pub time: u64,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Signer({:?}, {})", self.key, self.time)
    }
}

/// One signed section: where it is and what it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionDigest {
    /// Its position in the section table.
    pub index: u32,
    /// Its type code.
    pub code: u16,
    /// Its flags.
    pub flags: u16,
    /// Its length in bytes.
    pub length: u64,
    /// The BLAKE3-256 hash of its bytes.
    pub blake3: [u8; 32],
}

/// The private section, as signed: absent from a published copy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrivateDigest {
    /// Its type code (sealed or unencrypted).
    pub code: u16,
    /// Its length in bytes.
    pub length: u64,
    /// The BLAKE3-256 hash of its bytes.
    pub blake3: [u8; 32],
}

/// What the signature covers (postcard, the message minisign signs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`CONTEXT`].
    pub context: String,
    /// The file's format version.
    pub major: u16,
    /// The file's minor version.
    pub minor: u16,
    /// The signing key's id (as in the signature).
    pub key_id: [u8; 8],
    /// Every section but `SIGNATURE` and the private one, in table order.
    pub sections: Vec<SectionDigest>,
    /// The private section, when the signed file had one.
    pub private: Option<PrivateDigest>,
}

/// The section's content (postcard): the manifest's bytes, and the
/// signature over them as a `.minisig` file's text.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SectionBody {
    #[serde(with = "serde_bytes")]
    manifest: Vec<u8>,
    minisig: String,
}

/// A `SIGNATURE` section as read from a file (its syntax checked, its
/// signature not yet: that needs a key the reader trusts).
#[derive(Debug, Clone)]
pub struct Embedded {
    /// The section's position in the table.
    pub section: usize,
    /// The signature over `manifest`.
    pub minisig: Minisig,
    manifest: Vec<u8>,
}

impl Embedded {
    /// What the section says without a key to check it against.
    pub fn status(&self) -> Status {
        Status {
            key_id: self.minisig.key_id_hex(),
            trusted_comment: self.minisig.trusted_comment.clone(),
            checked: false,
            private_absent: None,
        }
    }
}

/// A signature as `inspect` and `verify` show it.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    /// The signing key's id, as minisign prints it.
    pub key_id: String,
    /// The trusted comment (as the file holds it: signed, but not checked
    /// unless `checked`).
    pub trusted_comment: String,
    /// Whether the signature was checked against a key the reader trusts.
    pub checked: bool,
    /// Checked only: whether the signed private part is absent (a
    /// published copy).
    pub private_absent: Option<bool>,
}

impl From<&Verified> for Status {
    fn from(v: &Verified) -> Status {
        Status {
            key_id: v.key_id.clone(),
            trusted_comment: v.trusted_comment.clone(),
            checked: true,
            private_absent: Some(v.private_absent),
        }
    }
}

/// Whether a section is signed as a public section: every one but
/// `SIGNATURE` and the private part (unknown types included).
pub fn is_signed_public(entry: &SectionEntry) -> bool {
    !entry
        .kind()
        .is_some_and(|k| k.is_private() || k == SectionKind::Signature)
}

/// The claim as the trusted comment states it: `rows:N k:K[,K...]
/// models:none` or the models with their parameters (`models:l=3,t=0.2`),
/// named as `[privacy]` names them. Numbers only: no column name or other
/// text of the file, so the comment is ASCII and shows nothing the
/// release does not.
pub fn claim_text(meta: &PublicMeta, models: Option<&ModelsClaim>) -> String {
    let ks: Vec<String> = meta
        .claim
        .constraints
        .iter()
        .map(|c| c.k.to_string())
        .collect();
    let mut named = Vec::new();
    if let Some((_, l)) = meta.claim.l_diversity {
        named.push(format!("l={l}"));
    }
    if let Some(m) = models {
        let mut add = |name: &str, v: Option<String>| {
            if let Some(v) = v {
                named.push(format!("{name}={v}"));
            }
        };
        add("l", m.l.map(|l| l.to_string()));
        add("entropy_l", m.entropy_l.map(|x| x.to_string()));
        add(
            "recursive_cl",
            m.recursive_cl.map(|(c, l)| format!("{c}:{l}")),
        );
        add("t", m.t.map(|x| x.to_string()));
        add("alpha", m.alpha.map(|x| x.to_string()));
        add("delta", m.delta.map(|x| x.to_string()));
        let beta = if m.enhanced_beta {
            "enhanced_beta"
        } else {
            "beta"
        };
        add(beta, m.beta.map(|x| x.to_string()));
    }
    let models = match named.is_empty() {
        true => "none".to_owned(),
        false => named.join(","),
    };
    format!("rows:{} k:{} models:{models}", meta.rows, ks.join(","))
}

/// The trusted comment: `karc format:M.m signed:TIME CLAIM`.
pub fn trusted_comment(major: u16, minor: u16, time: u64, claim: &str) -> String {
    format!(
        "karc format:{major}.{minor} signed:{} {claim}",
        minisign::rfc3339(time)
    )
}

/// The signing time a trusted comment states, when it is the comment karc
/// writes for a file of version `major.minor` whose claim is `claim`.
pub fn comment_time<'a>(comment: &'a str, major: u16, minor: u16, claim: &str) -> Option<&'a str> {
    let rest = comment.strip_prefix(&format!("karc format:{major}.{minor} signed:"))?;
    let (time, tail) = rest.split_once(' ')?;
    let well_formed = time.len() == 20
        && time.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            10 => b == b'T',
            13 | 16 => b == b':',
            19 => b == b'Z',
            _ => b.is_ascii_digit(),
        });
    (well_formed && tail == claim).then_some(time)
}

/// The manifest of a file of version `major.minor` whose sections are
/// `sections` (each with its index in the table and the BLAKE3 hash of its
/// bytes), signed by the key `key_id`.
pub fn manifest_of_hashed<'a>(
    (major, minor): (u16, u16),
    sections: impl Iterator<Item = (usize, &'a SectionEntry, [u8; 32])>,
    key_id: [u8; 8],
) -> Manifest {
    let mut manifest = Manifest {
        context: CONTEXT.to_owned(),
        major,
        minor,
        key_id,
        sections: Vec::new(),
        private: None,
    };
    for (index, e, blake3) in sections {
        if e.kind().is_some_and(SectionKind::is_private) {
            manifest.private = Some(PrivateDigest {
                code: e.code,
                length: e.length,
                blake3,
            });
        } else if is_signed_public(e) {
            manifest.sections.push(SectionDigest {
                index: index as u32,
                code: e.code,
                flags: e.flags,
                length: e.length,
                blake3,
            });
        }
    }
    manifest
}

/// [`manifest_of_hashed`] of sections given by their bytes.
fn manifest_of<'a>(
    version: (u16, u16),
    sections: impl Iterator<Item = (usize, &'a SectionEntry, &'a [u8])>,
    key_id: [u8; 8],
) -> Manifest {
    let hashed = sections.map(|(i, e, body)| (i, e, blake3::hash(body).into()));
    manifest_of_hashed(version, hashed, key_id)
}

/// The manifest of the file `bytes` whose table is `container`.
fn file_manifest(container: &Container, bytes: &[u8], key_id: [u8; 8]) -> Manifest {
    let sections = (container.entries.iter().enumerate()).map(|(i, e)| (i, e, &bytes[e.range()]));
    manifest_of((container.major, container.minor), sections, key_id)
}

/// The bytes of a `SIGNATURE` section over `manifest`.
pub fn section_bytes(
    signer: &Signer,
    manifest: &Manifest,
    claim: &str,
) -> Result<Vec<u8>, MinisignError> {
    let comment = trusted_comment(manifest.major, manifest.minor, signer.time, claim);
    let manifest = meta::to_bytes(manifest);
    let minisig = Minisig::sign(&signer.key, &Prehash::of(&manifest), &comment)?;
    Ok(meta::to_bytes(&SectionBody {
        manifest,
        minisig: minisig.to_text(),
    }))
}

/// The file `bytes` (a whole archive, its container already parsed and its
/// claim checked by the caller) signed by `signer`: any earlier
/// `SIGNATURE` replaced by a new one, placed before the private section.
pub fn sign_file(
    path: &Path,
    bytes: &[u8],
    container: &Container,
    claim: &str,
    signer: &Signer,
) -> crate::Result<Vec<u8>> {
    if (container.major, container.minor) != (format::VERSION_MAJOR, format::VERSION_MINOR) {
        return Err(ArchiveError::Corrupt {
            path: path.to_owned(),
            section: "header".to_owned(),
            detail: format!(
                "a file of format {}.{} is signed by the karc that reads it as its own version ({}.{})",
                container.major,
                container.minor,
                format::VERSION_MAJOR,
                format::VERSION_MINOR
            ),
        }
        .into());
    }
    // Without the old signature; the new one goes before the private
    // section (or last), so every public section keeps its index.
    let kept: Vec<&SectionEntry> = container
        .entries
        .iter()
        .filter(|e| e.kind() != Some(SectionKind::Signature))
        .collect();
    let at = kept
        .iter()
        .position(|e| e.kind().is_some_and(SectionKind::is_private))
        .unwrap_or(kept.len());
    let placed = kept.iter().enumerate().map(|(i, e)| {
        let index = if i < at { i } else { i + 1 };
        (index, *e, &bytes[e.range()])
    });
    let version = (container.major, container.minor);
    let manifest = manifest_of(version, placed, signer.key.key_id());
    let section = section_bytes(signer, &manifest, claim)?;
    let mut raw: Vec<(u16, u16, &[u8])> = kept
        .iter()
        .map(|e| (e.code, e.flags, &bytes[e.range()]))
        .collect();
    raw.insert(at, (SectionKind::Signature.code(), 0, &section));
    Ok(format::assemble_raw(container.major, container.minor, &raw))
}

/// The claim of the file `bytes` (table `container`) as a trusted
/// comment states it, read from its `META` and `PRIVACY_MODELS` sections
/// alone (the file is not opened whole).
fn claim_of_bytes(path: &Path, bytes: &[u8], container: &Container) -> crate::Result<String> {
    let corrupt = |i: usize, detail: String| ArchiveError::Corrupt {
        path: path.to_owned(),
        section: format::section_label(i, &container.entries[i], None),
        detail,
    };
    let section = |kind: SectionKind| {
        (container.entries.iter().enumerate()).find(|(_, e)| e.kind() == Some(kind))
    };
    let Some((i, e)) = section(SectionKind::Meta) else {
        return Err(ArchiveError::Corrupt {
            path: path.to_owned(),
            section: "section table".to_owned(),
            detail: "no metadata section".to_owned(),
        }
        .into());
    };
    let public = meta::meta_from_bytes(&bytes[e.range()]).map_err(|d| corrupt(i, d))?;
    let models: Option<ModelsClaim> = match section(SectionKind::PrivacyModels) {
        Some((i, e)) => Some(meta::from_bytes(&bytes[e.range()]).map_err(|d| corrupt(i, d))?),
        None => None,
    };
    Ok(claim_text(&public, models.as_ref()))
}

/// [`sign_file`] of a file just written (not opened).
pub fn sign_bytes(path: &Path, bytes: &[u8], signer: &Signer) -> crate::Result<Vec<u8>> {
    let container = format::parse(path, bytes)?;
    let claim = claim_of_bytes(path, bytes, &container)?;
    sign_file(path, bytes, &container, &claim, signer)
}

/// [`verify`] of a file's bytes before it is opened (a restore checks its
/// signature before it decodes anything): the header, the `SIGNATURE`
/// section and the claim's sections are read, every section hashed.
pub fn check_bytes(path: &Path, bytes: &[u8], trusted: &[PublicKey]) -> crate::Result<Verified> {
    let container = format::parse(path, bytes)?;
    let found = (container.entries.iter().enumerate())
        .find(|(_, e)| e.kind() == Some(SectionKind::Signature));
    let Some((i, e)) = found else {
        return Err(SignatureError::Unsigned {
            path: path.to_owned(),
        }
        .into());
    };
    let body = format::check_section(path, bytes, i, e, None)?;
    let embedded = parse_section(i, body).map_err(|detail| ArchiveError::Corrupt {
        path: path.to_owned(),
        section: format::section_label(i, e, None),
        detail,
    })?;
    let claim = claim_of_bytes(path, bytes, &container)?;
    verify(&embedded, &container, bytes, &claim, trusted).map_err(|detail| {
        SignatureError::Failed {
            path: path.to_owned(),
            detail,
        }
        .into()
    })
}

/// A detached signature (a `.minisig` file's text) over a whole file's
/// `bytes`, which `minisign -V` checks; its trusted comment states the
/// file's version and `claim`, as the embedded one does.
pub fn detached(
    bytes: &[u8],
    (major, minor): (u16, u16),
    claim: &str,
    signer: &Signer,
) -> Result<String, MinisignError> {
    let comment = trusted_comment(major, minor, signer.time, claim);
    Ok(Minisig::sign(&signer.key, &Prehash::of(bytes), &comment)?.to_text())
}

/// Parses a `SIGNATURE` section's bytes (untrusted: postcard, then the
/// signature's text, each checked); the error is the detail of a corrupt
/// section.
pub fn parse_section(section: usize, body: &[u8]) -> Result<Embedded, String> {
    let parsed: SectionBody = meta::from_bytes(body)?;
    let minisig = Minisig::parse(&parsed.minisig, "the signature").map_err(|e| e.to_string())?;
    // One way of writing it: no byte of the section can change unnoticed
    // (the untrusted comment included, which minisign itself leaves free).
    if minisig.to_text() != parsed.minisig || minisig.untrusted_comment != minisig::UNTRUSTED {
        return Err(format!(
            "the signature's text is not as karc writes it (its untrusted comment must be {:?}, \
             its lines ended by LF)",
            minisig::UNTRUSTED
        ));
    }
    Ok(Embedded {
        section,
        minisig,
        manifest: parsed.manifest,
    })
}

/// What a valid signature by a trusted key says.
#[derive(Debug, Clone, Serialize)]
pub struct Verified {
    /// The key id, as minisign prints it.
    pub key_id: String,
    /// The time the signer states (RFC 3339).
    pub signed_at: String,
    /// The trusted comment as signed.
    pub trusted_comment: String,
    /// Whether the private part was signed and is absent (a published
    /// copy): the public part is covered, the private part is not in hand.
    pub private_absent: bool,
}

/// Checks `embedded` against the keys `trusted`: a signature by one of
/// them, over a manifest that lists exactly the file's sections (`bytes`,
/// `container`) and a trusted comment that states its `claim`. The error
/// says why not (a failed check).
pub fn verify(
    embedded: &Embedded,
    container: &Container,
    bytes: &[u8],
    claim: &str,
    trusted: &[PublicKey],
) -> Result<Verified, String> {
    let sig = &embedded.minisig;
    let Some(key) = trusted.iter().find(|k| k.key_id == sig.key_id) else {
        let given: Vec<String> = trusted.iter().map(PublicKey::id).collect();
        return Err(format!(
            "signed by key id {}, which is none of the keys given ({})",
            sig.key_id_hex(),
            given.join(", ")
        ));
    };
    sig.verify(key, &Prehash::of(&embedded.manifest))
        .map_err(|e| e.to_string())?;
    // From here on the manifest and the comment are the key holder's.
    let signed: Manifest = meta::from_bytes(&embedded.manifest)
        .map_err(|e| format!("the signed manifest does not decode: {e}"))?;
    let found = file_manifest(container, bytes, sig.key_id);
    if signed.context != CONTEXT || signed.key_id != sig.key_id {
        return Err("the signed message is not a karc manifest by this key".to_owned());
    }
    if (signed.major, signed.minor) != (found.major, found.minor) {
        return Err(format!(
            "signed as a format {}.{} file, this file is {}.{}",
            signed.major, signed.minor, found.major, found.minor
        ));
    }
    compare_sections(&signed.sections, &found.sections, container)?;
    let private_absent = match (&signed.private, &found.private) {
        (Some(s), Some(f)) if s == f => false,
        (Some(_), Some(_)) => {
            return Err("the private part is not the one that was signed".to_owned());
        }
        (None, Some(_)) => {
            return Err(
                "the file has a private part that was not signed (the signature is a published \
                 copy's)"
                    .to_owned(),
            );
        }
        (Some(_), None) => true,
        (None, None) => false,
    };
    let time =
        comment_time(&sig.trusted_comment, found.major, found.minor, claim).ok_or_else(|| {
            format!(
                "the trusted comment {:?} does not state this file's claim ({claim})",
                sig.trusted_comment
            )
        })?;
    Ok(Verified {
        key_id: sig.key_id_hex(),
        signed_at: time.to_owned(),
        trusted_comment: sig.trusted_comment.clone(),
        private_absent,
    })
}

/// The file's public sections against the signed ones: the first that
/// differs, named.
fn compare_sections(
    signed: &[SectionDigest],
    found: &[SectionDigest],
    container: &Container,
) -> Result<(), String> {
    let label = |d: &SectionDigest| match container.entries.get(d.index as usize) {
        Some(e) => format::section_label(d.index as usize, e, None),
        None => format!("section {}", d.index),
    };
    for (s, f) in signed.iter().zip(found) {
        if s != f {
            return Err(format!(
                "{} is not the section that was signed (the file was changed after signing, or \
                 the signature is another file's)",
                label(f)
            ));
        }
    }
    if signed.len() != found.len() {
        return Err(format!(
            "the file has {} public sections, the signature lists {} (sections were added or \
             removed, or the signature is another file's)",
            found.len(),
            signed.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trusted_comment_states_the_claim_and_is_read_back() {
        let c = trusted_comment(2, 0, 1_764_300_000, "rows:3 k:2 models:none");
        assert_eq!(
            c,
            "karc format:2.0 signed:2025-11-28T03:20:00Z rows:3 k:2 models:none"
        );
        assert_eq!(
            comment_time(&c, 2, 0, "rows:3 k:2 models:none"),
            Some("2025-11-28T03:20:00Z")
        );
        assert_eq!(comment_time(&c, 2, 0, "rows:3 k:3 models:none"), None);
        assert_eq!(comment_time(&c, 1, 0, "rows:3 k:2 models:none"), None);
        let odd = c.replace("03:20:00Z", "03:20:0xZ");
        assert_eq!(comment_time(&odd, 2, 0, "rows:3 k:2 models:none"), None);
    }
}
