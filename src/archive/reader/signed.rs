//! A file's signature (`spec/FORMAT.md` §4.1, docs/SIGNING.md) and its
//! published copy.

use super::*;

impl Archive {
    /// The `SIGNATURE` section, parsed but not checked against a key.
    pub fn signature(&self) -> Option<&Embedded> {
        self.signature.as_ref()
    }

    /// The claim as a signature's trusted comment states it.
    pub fn claim_text(&self) -> String {
        signature::claim_text(&self.meta, self.models.as_ref())
    }

    /// Checks that a valid signature by one of the `trusted` keys covers
    /// every byte of the public part, and of the private part when there is
    /// one (`spec/FORMAT.md` §4.1): unsigned, another key or a changed file
    /// is a failed check.
    pub fn verify_signature(&self, trusted: &[PublicKey]) -> Result<Verified> {
        let Some(embedded) = &self.signature else {
            return Err(signature::SignatureError::Unsigned {
                path: self.path.clone(),
            }
            .into());
        };
        signature::verify(
            embedded,
            &self.container,
            &self.bytes,
            &self.claim_text(),
            trusted,
        )
        .map_err(|detail| {
            signature::SignatureError::Failed {
                path: self.path.clone(),
                detail,
            }
            .into()
        })
    }

    /// The file signed by `signer`, any earlier signature replaced.
    pub fn signed(&self, signer: &Signer) -> Result<Vec<u8>> {
        signature::sign_file(
            &self.path,
            &self.bytes,
            &self.container,
            &self.claim_text(),
            signer,
        )
    }

    /// A detached signature (`.minisig` text) over the file's bytes.
    pub fn detached_signature(&self, signer: &Signer) -> Result<String> {
        let claim = self.claim_text();
        Ok(signature::detached(
            &self.bytes,
            self.version(),
            &claim,
            signer,
        )?)
    }

    /// The same file without its private part (sections copied as they are).
    /// A copy keeps the file's version (a 1.0 file's sections are 1.0's).
    pub fn published(&self) -> Vec<u8> {
        let sections: Vec<(u16, u16, &[u8])> = self
            .container
            .entries
            .iter()
            .filter_map(|e| e.kind().map(|k| (k, e)))
            .filter(|(k, _)| !k.is_private())
            .map(|(k, e)| (k.code(), 0, &self.bytes[e.range()]))
            .collect();
        format::assemble_raw(self.container.major, self.container.minor, &sections)
    }
}
