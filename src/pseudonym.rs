//! Pseudonymized identifiers (`spec/FORMAT.md` §2.1, §5; docs/CONFIG.md
//! `pseudonym`): an identifier column released as keyed pseudonyms, never
//! as its values. The pseudonym of a cell is BLAKE3 in keyed mode over the
//! column's name and the cell's text, shown as its first 16 hex digits; the
//! original values stay in the sealed private part, as for any identifier.
//!
//! A key is either a publisher's key file (32 random bytes, `karc keygen
//! --pseudonym`), which gives a person the same pseudonym in every release
//! made with it, or drawn fresh for one pack and kept in the sealed part
//! only (`SealedMeta::pseudonym_keys`), which links nothing across releases.

use std::path::Path;

use crate::config::{Config, Role};
use crate::table::Column;
use crate::{Error, Result};

/// The length of a pseudonym key in bytes (BLAKE3's key).
pub const KEY_LEN: usize = 32;

/// Hex digits a pseudonym shows: 64 bits, so that among 10 million distinct
/// values the odds of any two sharing a pseudonym are about 1 in 370,000
/// (n²/2⁶⁵); a shared one only merges two people's cells in the release.
pub const PSEUDONYM_DIGITS: usize = 16;

/// A pseudonym key: where it came from decides whether the private part
/// keeps it.
#[derive(Clone, PartialEq, Eq)]
pub struct PseudonymKey {
    key: [u8; KEY_LEN],
    /// Drawn for this pack (kept in the sealed part), not read from a file.
    fresh: bool,
}

impl std::fmt::Debug for PseudonymKey {
    /// Never the key itself.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PseudonymKey {{ fresh: {} }}", self.fresh)
    }
}

impl PseudonymKey {
    /// A new random key from the system.
    pub fn fresh() -> Result<PseudonymKey> {
        let mut key = [0u8; KEY_LEN];
        getrandom::fill(&mut key)
            .map_err(|e| Error::Options(format!("drawing a pseudonym key: {e}")))?;
        Ok(PseudonymKey { key, fresh: true })
    }

    /// The key a key file holds: exactly [`KEY_LEN`] bytes.
    pub fn read(path: &Path) -> Result<PseudonymKey> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let key: [u8; KEY_LEN] = bytes.as_slice().try_into().map_err(|_| {
            Error::Options(format!(
                "{}: not a pseudonym key (as `karc keygen --pseudonym` writes one): expected \
                 {KEY_LEN} bytes, found {}",
                path.display(),
                bytes.len()
            ))
        })?;
        Ok(PseudonymKey { key, fresh: false })
    }

    /// The key of these bytes (as the sealed part keeps a drawn one).
    pub fn from_bytes(key: [u8; KEY_LEN]) -> PseudonymKey {
        PseudonymKey { key, fresh: false }
    }

    /// The key's bytes (a key file's content).
    pub fn bytes(&self) -> &[u8; KEY_LEN] {
        &self.key
    }

    /// The pseudonym of `value` in the column named `column`: the name and
    /// the value each preceded by its length, so that no two (name, value)
    /// pairs hash the same bytes.
    pub fn pseudonym(&self, column: &str, value: &str) -> String {
        let mut hasher = blake3::Hasher::new_keyed(&self.key);
        for part in [column, value] {
            hasher.update(&(part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
        let hash = hasher.finalize();
        let mut text = hash.to_hex().to_string();
        text.truncate(PSEUDONYM_DIGITS);
        text
    }

    /// `column` with each value replaced by its pseudonym, a missing one
    /// (a token of `missing`, as `META.missing` lists them) left as it is.
    pub fn pseudonymize(&self, column: &Column, missing: &[String]) -> Column {
        let mut out = Column::new(column.name.clone());
        let codes: Vec<u32> = column
            .dict
            .values()
            .map(|v| match missing.iter().any(|m| m == v) {
                true => out.dict.intern(v),
                false => out.dict.intern(&self.pseudonym(&column.name, v)),
            })
            .collect();
        out.codes = column.codes.iter().map(|&c| codes[c as usize]).collect();
        out
    }
}

/// The pseudonymized columns of one pack: each one's index and key.
#[derive(Debug, Clone, Default)]
pub struct Pseudonyms {
    /// (column index, key), ascending.
    pub keys: Vec<(usize, PseudonymKey)>,
    /// The tokens that stand for a missing value (kept as they are).
    pub missing: Vec<String>,
}

impl Pseudonyms {
    /// The keys `config` asks for, for a table whose columns are `names`:
    /// a column's `pseudonym_key`, else the config's, else a fresh key
    /// (shared by the columns without a file). `shared`: the pack is one
    /// part of several, which must agree on the pseudonyms, so a key file
    /// is required.
    pub fn of_config(config: &Config, names: &[String], shared: bool) -> Result<Pseudonyms> {
        let default = match &config.pseudonym_key {
            Some(file) => Some(PseudonymKey::read(&config.base_dir().join(file))?),
            None => None,
        };
        let mut fresh = None;
        let mut keys = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let Some(c) = config.columns.iter().find(|c| &c.name == name) else {
                continue;
            };
            if !c.pseudonym || c.role != Some(Role::Identifier) {
                continue;
            }
            let key = match (&c.pseudonym_key, &default) {
                (Some(file), _) => PseudonymKey::read(&config.base_dir().join(file))?,
                (None, Some(key)) => key.clone(),
                (None, None) if shared => {
                    return Err(Error::Options(format!(
                        "{}: column {name:?}: the parts of a distributed pack must share its \
                         pseudonyms: expected a pseudonym_key file, found none",
                        config.path.display()
                    )));
                }
                (None, None) => match &fresh {
                    Some(key) => PseudonymKey::clone(key),
                    None => fresh.insert(PseudonymKey::fresh()?).clone(),
                },
            };
            keys.push((i, key));
        }
        Ok(Pseudonyms {
            keys,
            missing: config.input.missing.clone(),
        })
    }

    /// The key of column `column`, if it is pseudonymized.
    pub fn key(&self, column: usize) -> Option<&PseudonymKey> {
        self.keys.iter().find(|(c, _)| *c == column).map(|(_, k)| k)
    }

    /// The keys drawn for this pack, as the sealed part keeps them.
    pub fn sealed(&self) -> Vec<(u32, [u8; KEY_LEN])> {
        (self.keys.iter())
            .filter(|(_, k)| k.fresh)
            .map(|(c, k)| (*c as u32, k.key))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(byte: u8, fresh: bool) -> PseudonymKey {
        PseudonymKey {
            key: [byte; KEY_LEN],
            fresh,
        }
    }

    #[test]
    fn a_pseudonym_is_the_keyed_hash_of_name_and_value() {
        let k = key(7, false);
        let p = k.pseudonym("id", "A-1001");
        // An independent reference: BLAKE3's keyed hash of the framed bytes.
        let mut framed = Vec::new();
        framed.extend_from_slice(&2u64.to_le_bytes());
        framed.extend_from_slice(b"id");
        framed.extend_from_slice(&6u64.to_le_bytes());
        framed.extend_from_slice(b"A-1001");
        let reference = blake3::keyed_hash(&[7; KEY_LEN], &framed).to_hex();
        assert_eq!(p, reference[..PSEUDONYM_DIGITS]);
        assert_eq!(p.len(), PSEUDONYM_DIGITS);
        assert_eq!(p, k.pseudonym("id", "A-1001"), "same key, same pseudonym");
        assert_ne!(p, key(8, false).pseudonym("id", "A-1001"), "another key");
        assert_ne!(p, k.pseudonym("email", "A-1001"), "another column");
        assert_ne!(k.pseudonym("ab", "c"), k.pseudonym("a", "bc"), "framed");
    }

    #[test]
    fn missing_cells_stay_missing_and_rows_keep_their_values() {
        let mut column = Column::new("id");
        for v in ["x", "", "y", "x", "?"] {
            let c = column.dict.intern(v);
            column.codes.push(c);
        }
        let k = key(1, true);
        let out = k.pseudonymize(&column, &[String::new(), "?".to_owned()]);
        let texts: Vec<&str> = (0..5).map(|r| out.text(r)).collect();
        assert_eq!(texts[1], "");
        assert_eq!(texts[4], "?");
        assert_eq!(texts[0], texts[3]);
        assert_eq!(texts[0], k.pseudonym("id", "x"));
        assert_ne!(texts[0], texts[2]);
        let pseudonyms = Pseudonyms {
            keys: vec![(0, k), (2, key(2, false))],
            missing: Vec::new(),
        };
        assert_eq!(pseudonyms.sealed(), vec![(0, [1; KEY_LEN])]);
    }
}
