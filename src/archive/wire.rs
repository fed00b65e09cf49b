//! Postcard, the encoding of every structured section (`spec/FORMAT.md`
//! §5): to bytes, and back with every byte used or the rest returned.

use serde::{Deserialize, Serialize};

/// Serializes with postcard (infallible for these types: no maps with
/// non-string keys, no unsized sequences).
pub fn to_bytes<T: Serialize>(value: &T) -> Vec<u8> {
    postcard::to_allocvec(value).expect("postcard serializes the metadata types")
}

/// Deserializes from the front of `bytes`; returns the bytes after.
pub fn split_from_bytes<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<(T, &'a [u8]), String> {
    postcard::take_from_bytes(bytes).map_err(|e| e.to_string())
}

/// Deserializes and requires every byte to be used.
pub fn from_bytes<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, String> {
    let (value, rest) = postcard::take_from_bytes(bytes).map_err(|e| e.to_string())?;
    if !rest.is_empty() {
        return Err(format!("{} bytes left after the structure", rest.len()));
    }
    Ok(value)
}
