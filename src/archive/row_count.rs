//! The row count that opens every public blob of a row group (format 2.0,
//! `spec/FORMAT.md` §5): its `QI_CLASSES` blob and each `COLUMN` blob.
//!
//! A blob's streams end in padding bits, and a Huffman or range-coded
//! stream asked for one row more can decode that padding as a row. So the
//! row count of a group is never taken from `META` or `ROW_GROUPS` alone:
//! each blob states how many rows it codes, and a reader refuses the file
//! unless every blob of the group agrees with the group's count. An edit of
//! one count (CRCs recomputed) is refused; a public part rewritten in every
//! place is another file, which only a signature tells from the publisher's
//! (`docs/SIGNING.md`). 1.0 files have no such count.

use crate::codec::{ByteReader, put_varint};

/// `blob` opened by its row count, as the writer stores it.
pub fn counted(rows: usize, blob: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(blob.len() + 5);
    put_varint(&mut out, rows as u64);
    out.extend_from_slice(&blob);
    out
}

/// The blob inside `body`, whose opening count must be `rows` (a file of
/// format `major`; 1.0 bodies are the blob itself).
pub fn checked(body: &[u8], rows: usize, major: u16) -> Result<&[u8], String> {
    if major == super::compat::MAJOR {
        return Ok(body);
    }
    let mut r = ByteReader::new(body);
    let found = r
        .varint("row count")
        .map_err(|e| format!("its row count: {e}"))?;
    if found != rows as u64 {
        return Err(format!(
            "codes {found} rows, where its row group holds {rows}"
        ));
    }
    Ok(&body[r.position()..])
}

/// The blob inside `body` once [`checked`] accepted it: its count skipped
/// without a second check (a body it would refuse is returned whole, and
/// its decoder then fails).
pub fn blob(body: &[u8], major: u16) -> &[u8] {
    match major == super::compat::MAJOR {
        true => body,
        false => split(body).1,
    }
}

/// A 2.0 `body` as its count's bytes and the blob after them (the whole
/// body as the blob when it opens with no count).
pub fn split(body: &[u8]) -> (&[u8], &[u8]) {
    let mut r = ByteReader::new(body);
    match r.varint("row count") {
        Ok(_) => body.split_at(r.position()),
        Err(_) => (&[], body),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_round_trips_and_a_wrong_one_is_refused() {
        let body = counted(300, vec![7, 8, 9]);
        assert_eq!(body, [0xAC, 0x02, 7, 8, 9]);
        assert_eq!(checked(&body, 300, 2), Ok(&[7u8, 8, 9][..]));
        assert_eq!(blob(&body, 2), [7, 8, 9]);
        let err = checked(&body, 301, 2).unwrap_err();
        assert!(
            err.contains("codes 300 rows") && err.contains("holds 301"),
            "{err}"
        );
        assert!(
            checked(&[0x80], 1, 2)
                .unwrap_err()
                .starts_with("its row count")
        );
        assert_eq!(checked(&body, 9, 1), Ok(&body[..]));
    }
}
