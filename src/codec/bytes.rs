//! Byte-level fields of the column blobs: LEB128 varints (as postcard writes
//! them), length-prefixed UTF-8 strings, and Huffman-coded symbol streams.

use bitstream_io::BitWrite;

use super::CodecError;
use crate::huffman::{self, HuffmanCode};

/// Appends `v` as an unsigned LEB128 varint: 7 bits per byte, least
/// significant group first, high bit set on every byte but the last.
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Zigzag mapping of a signed integer (0, -1, 1, -2, ... -> 0, 1, 2, 3, ...).
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

pub fn put_string(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Appends `symbols` (each `< alphabet`) as a Huffman code table followed by
/// the symbols' codes, padded with zero bits to a byte boundary.
pub fn put_coded(out: &mut Vec<u8>, alphabet: usize, symbols: &[u32]) {
    let mut freqs = vec![0u64; alphabet];
    for &s in symbols {
        freqs[s as usize] += 1;
    }
    put_coded_with(out, &HuffmanCode::from_frequencies(&freqs), symbols);
}

/// As [`put_coded`] with a given code.
pub fn put_coded_with(out: &mut Vec<u8>, code: &HuffmanCode, symbols: &[u32]) {
    let mut w = huffman::writer();
    code.write_table(&mut w).expect("writing to memory");
    code.write_symbols(&mut w, symbols.iter().copied())
        .expect("writing to memory");
    w.byte_align().expect("writing to memory");
    out.extend_from_slice(&w.into_writer());
}

/// Reads the fields of a blob in order, naming the field in every error.
pub struct ByteReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        ByteReader { bytes, pos: 0 }
    }

    /// Bytes not read yet (a decoder checks it is 0 at the end).
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn truncated(&self, what: &'static str, needed: u64) -> CodecError {
        CodecError::Truncated {
            what,
            offset: self.pos as u64,
            needed,
            available: self.remaining() as u64,
        }
    }

    /// The next byte; `what` names the field if there is none.
    pub fn byte(&mut self, what: &'static str) -> Result<u8, CodecError> {
        let b = *self
            .bytes
            .get(self.pos)
            .ok_or_else(|| self.truncated(what, 1))?;
        self.pos += 1;
        Ok(b)
    }

    /// The next `n` bytes, borrowed from the blob.
    pub fn take(&mut self, n: u64, what: &'static str) -> Result<&'a [u8], CodecError> {
        if n > self.remaining() as u64 {
            return Err(self.truncated(what, n));
        }
        let s = &self.bytes[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }

    /// An LEB128 varint, refused past 64 bits.
    pub fn varint(&mut self, what: &'static str) -> Result<u64, CodecError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte(what)?;
            let bits = u64::from(b & 0x7f);
            if shift == 63 && bits > 1 {
                return Err(CodecError::VarintOverflow {
                    what,
                    offset: self.pos as u64 - 1,
                });
            }
            v |= bits << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(CodecError::VarintOverflow {
            what,
            offset: self.pos as u64 - 1,
        })
    }

    /// A varint that must equal `expected` (a count the reader already
    /// knows, such as the rows of the table).
    pub fn varint_equal(&mut self, what: &'static str, expected: u64) -> Result<(), CodecError> {
        let found = self.varint(what)?;
        if found != expected {
            return Err(CodecError::CountMismatch {
                what,
                expected,
                found,
            });
        }
        Ok(())
    }

    /// A varint that counts items of at least `min_bytes` bytes each still
    /// to come: refused when the rest of the input cannot hold that many, so
    /// a corrupt count never makes a reader reserve huge memory.
    pub fn count(&mut self, what: &'static str, min_bytes: u64) -> Result<usize, CodecError> {
        let n = self.varint(what)?;
        if n.saturating_mul(min_bytes) > self.remaining() as u64 {
            return Err(CodecError::Truncated {
                what,
                offset: self.pos as u64,
                needed: n.saturating_mul(min_bytes),
                available: self.remaining() as u64,
            });
        }
        Ok(n as usize)
    }

    /// A varint that must be below `len`.
    pub fn index(&mut self, what: &'static str, len: usize) -> Result<u32, CodecError> {
        let i = self.varint(what)?;
        if i >= len as u64 {
            return Err(CodecError::IndexOutOfRange {
                what,
                index: i,
                len: len as u64,
            });
        }
        Ok(i as u32)
    }

    /// A varint length, then that many bytes of UTF-8.
    pub fn string(&mut self, what: &'static str) -> Result<&'a str, CodecError> {
        let len = self.varint(what)?;
        let bytes = self.take(len, what)?;
        std::str::from_utf8(bytes).map_err(|e| CodecError::InvalidUtf8 {
            what,
            offset: (self.pos - bytes.len() + e.valid_up_to()) as u64,
        })
    }

    /// Reads what `put_coded` wrote: `n` symbols over `0..alphabet`.
    pub fn coded(
        &mut self,
        what: &'static str,
        alphabet: usize,
        n: usize,
    ) -> Result<Vec<u32>, CodecError> {
        let mut out = Vec::new();
        self.coded_with(what, alphabet, |decoder, rest, at| {
            decoder.decode(rest, at, n, &mut out)
        })?;
        Ok(out)
    }

    /// As [`ByteReader::coded`], appending `values[s]` to `out` for each
    /// symbol `s` (see [`crate::huffman::Decoder::decode_mapped`]).
    pub fn coded_mapped(
        &mut self,
        what: &'static str,
        alphabet: usize,
        n: usize,
        values: &[u32],
        out: &mut Vec<u32>,
    ) -> Result<(), CodecError> {
        self.coded_with(what, alphabet, |decoder, rest, at| {
            decoder.decode_mapped(rest, at, n, values, out)
        })
    }

    /// Reads a code table over `alphabet` symbols, then the stream after it
    /// with `decode(decoder, bytes, bit offset)`, which returns the bit
    /// position after the stream.
    fn coded_with(
        &mut self,
        what: &'static str,
        alphabet: usize,
        decode: impl FnOnce(&huffman::Decoder, &[u8], u64) -> Result<u64, huffman::HuffmanError>,
    ) -> Result<(), CodecError> {
        let rest = &self.bytes[self.pos..];
        let mut r = huffman::reader(rest);
        let huff = |source| CodecError::Huffman { what, source };
        let code =
            HuffmanCode::read_table(&mut r, alphabet, rest.len() as u64 * 8).map_err(huff)?;
        let table_bits = r.position_in_bits().expect("cursor position");
        let end = decode(&code.decoder(), rest, table_bits).map_err(huff)?;
        self.pos += end.div_ceil(8) as usize;
        Ok(())
    }

    /// Bytes read so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Takes every byte left (a last field that runs to the blob's end).
    pub fn rest(&mut self) -> &'a [u8] {
        let rest = &self.bytes[self.pos..];
        self.pos = self.bytes.len();
        rest
    }

    /// Refuses bytes left over after the last field.
    pub fn finish(&self, what: &'static str) -> Result<(), CodecError> {
        if self.remaining() > 0 {
            return Err(CodecError::TrailingBytes {
                what,
                count: self.remaining() as u64,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn varints_round_trip(v in any::<u64>(), s in any::<i64>()) {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            put_varint(&mut out, zigzag(s));
            let mut r = ByteReader::new(&out);
            prop_assert_eq!(r.varint("v").unwrap(), v);
            prop_assert_eq!(unzigzag(r.varint("s").unwrap()), s);
            prop_assert!(r.finish("end").is_ok());
        }
    }

    #[test]
    fn overlong_varint_is_refused() {
        let bytes = [0xffu8; 11];
        assert!(matches!(
            ByteReader::new(&bytes).varint("v"),
            Err(CodecError::VarintOverflow { .. })
        ));
    }
}
