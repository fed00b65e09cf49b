//! Text columns kept as they are (sensitive, insensitive, identifier), in
//! the smallest of nine layouts by encoded size: one value; a dictionary of
//! the distinct texts and each row's index into it; numbers as scaled
//! integers (`numbers`); the rows' texts through zstd, LZMA2 or PPMd
//! (`texts`; a long PPMd stream in blocks, `blocks`);
//! dates and times as numbers (`calendar`); texts of one length position by
//! position (`positions`). On a large column, PPMd and LZMA2, slow to
//! decode, must save a sixteenth ([`weight`]).
//!
//! The dictionary is stored as texts, or, when every text is an integer in
//! canonical form, as sorted integers with varint gaps (raw Adult's
//! `fnlwgt`: ~20,000 six-digit numbers in ~3 bytes each instead of ~7). Row
//! indices are Huffman-coded, or written flat in a fixed width when a code
//! table would cost more than it saves (nearly all values distinct). The
//! encoder builds every candidate and keeps the smallest.

mod blocks;
/// Dates and times as integers: layout 4, and hierarchy labels (`archive::meta`).
pub(crate) mod calendar;
mod ints;
mod numbers;
mod positions;
mod previous;
mod texts;

use bitstream_io::{BitRead, BitWrite};

use super::CodecError;
use super::bytes::{ByteReader, put_coded, put_string, put_varint, unzigzag, zigzag};
use super::cells::Purpose;
use crate::dictionary::Dictionary;
use crate::huffman::{self, bit_width};
use crate::table::Column;
use calendar::Format;

pub(crate) const LAYOUT_SINGLE: u8 = 0;
pub(crate) const LAYOUT_DICTIONARY: u8 = 1;
/// Integers and decimals as scaled integers, with exceptions (`numbers`).
const LAYOUT_NUMBERS: u8 = 2;
/// The rows' texts through zstd (`texts`).
const LAYOUT_TEXTS: u8 = 3;
/// Dates and times as integers (`calendar`), coded as numbers.
const LAYOUT_DATES: u8 = 4;
/// The rows' texts through LZMA2 (`texts`).
const LAYOUT_TEXTS_LZMA: u8 = 5;
/// Texts of one byte length, position by position (`positions`).
const LAYOUT_POSITIONS: u8 = 6;
/// The rows' texts through PPMd (`texts`).
const LAYOUT_TEXTS_PPMD: u8 = 7;
/// The rows' texts through PPMd in blocks that decode alone (`blocks`).
const LAYOUT_TEXTS_PPMD_BLOCKS: u8 = 8;

pub(crate) const DICT_TEXTS: u8 = 0;
pub(crate) const DICT_INTEGERS: u8 = 1;

const INDEX_HUFFMAN: u8 = 0;
const INDEX_FLAT: u8 = 1;
/// Each row's index under the previous row's (`previous`).
const INDEX_PREVIOUS: u8 = 2;

/// The integer whose canonical decimal form (Rust's `i64` display: optional
/// `-`, no leading zeros, no `+`) is exactly `s`.
pub(crate) fn canonical_integer(s: &str) -> Option<i64> {
    let v: i64 = s.parse().ok()?;
    let canonical = if let Some(digits) = s.strip_prefix('-') {
        !digits.starts_with('0')
    } else {
        !s.starts_with('+') && (s == "0" || !s.starts_with('0'))
    };
    canonical.then_some(v)
}

/// Writes a dictionary of distinct texts: as integers when all are
/// canonical integers (sorted ascending, returned order), else as texts in
/// the given order. Returns the stored order as indices into `texts`.
pub(crate) fn put_dictionary(out: &mut Vec<u8>, texts: &[&str], allow_integers: bool) -> Vec<u32> {
    let ints: Option<Vec<i64>> = if allow_integers {
        texts.iter().map(|t| canonical_integer(t)).collect()
    } else {
        None
    };
    match ints {
        Some(ints) => {
            let mut order: Vec<u32> = (0..texts.len() as u32).collect();
            order.sort_by_key(|&i| ints[i as usize]);
            out.push(DICT_INTEGERS);
            put_varint(out, texts.len() as u64);
            let mut prev: Option<i64> = None;
            for &i in &order {
                let v = ints[i as usize];
                match prev {
                    None => put_varint(out, zigzag(v)),
                    Some(p) => put_varint(out, (v as i128 - p as i128 - 1) as u64),
                }
                prev = Some(v);
            }
            order
        }
        None => {
            out.push(DICT_TEXTS);
            put_varint(out, texts.len() as u64);
            // Exactly: a near-distinct column's dictionary is all its text,
            // and growing by doubling would hold up to twice that.
            out.reserve_exact(texts.iter().map(|t| t.len() + 10).sum());
            for t in texts {
                put_string(out, t);
            }
            (0..texts.len() as u32).collect()
        }
    }
}

/// Reads a dictionary written by [`put_dictionary`].
pub(crate) fn read_dictionary(r: &mut ByteReader<'_>) -> Result<Vec<String>, CodecError> {
    match r.byte("dictionary kind")? {
        DICT_TEXTS => {
            let n = r.count("dictionary size", 1)?;
            (0..n)
                .map(|_| r.string("dictionary text").map(str::to_owned))
                .collect()
        }
        DICT_INTEGERS => {
            let n = r.count("dictionary size", 1)?;
            let mut values = Vec::with_capacity(n);
            let mut prev: Option<i64> = None;
            for _ in 0..n {
                let raw = r.varint("dictionary integer")?;
                let v = match prev {
                    None => unzigzag(raw),
                    Some(p) => {
                        let v = p as i128 + raw as i128 + 1;
                        i64::try_from(v).map_err(|_| CodecError::Invalid {
                            what: "dictionary integer",
                            detail: format!("{p} + {raw} + 1 leaves the 64-bit range"),
                        })?
                    }
                };
                values.push(v.to_string());
                prev = Some(v);
            }
            Ok(values)
        }
        id => Err(CodecError::UnknownLayout {
            what: "dictionary kind",
            id,
            known: "0 texts, 1 integers",
        }),
    }
}

/// Row indices in a fixed width of `bit_width(n - 1)` bits each.
fn put_flat(out: &mut Vec<u8>, n: usize, indices: &[u32]) {
    let width = bit_width(n.saturating_sub(1) as u64);
    let mut w = huffman::writer();
    if width > 0 {
        for &i in indices {
            w.write_var::<u32>(width, i).expect("writing to memory");
        }
    }
    w.byte_align().expect("writing to memory");
    out.extend_from_slice(&w.into_writer());
}

fn read_flat(r: &mut ByteReader<'_>, n: usize, rows: usize) -> Result<Vec<u32>, CodecError> {
    let width = bit_width(n.saturating_sub(1) as u64);
    if width == 0 {
        if n == 0 && rows > 0 {
            return Err(CodecError::CountMismatch {
                what: "plain dictionary size (rows need a value)",
                expected: 1,
                found: 0,
            });
        }
        return Ok(vec![0; rows]);
    }
    let bytes = r.take(
        (rows as u64 * u64::from(width)).div_ceil(8),
        "flat row indices",
    )?;
    let mut br = huffman::reader(bytes);
    (0..rows)
        .map(|_| {
            let i: u32 = br.read_var(width).map_err(|_| CodecError::Truncated {
                what: "flat row indices",
                offset: 0,
                needed: 1,
                available: 0,
            })?;
            if i as usize >= n {
                return Err(CodecError::IndexOutOfRange {
                    what: "flat row index",
                    index: u64::from(i),
                    len: n as u64,
                });
            }
            Ok(i)
        })
        .collect()
}

/// Which layouts a blob may use: the exceptions of a numeric column are
/// coded by the other layouts only, so blobs never nest deeper than one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Nesting {
    Column,
    Exceptions,
}

/// A plain column blob (`spec/CODING.md` 5): the lightest of the layouts
/// that can hold the column, by their encoded size (PPMd and LZMA2 weighed
/// a sixteenth more on a large column).
pub fn encode_plain(col: &Column) -> Vec<u8> {
    // Only the texts rows use, in order of first use.
    let mut remap = vec![u32::MAX; col.dict.len()];
    let mut texts: Vec<&str> = Vec::new();
    let indices: Vec<u32> = col
        .codes
        .iter()
        .map(|&c| {
            let slot = &mut remap[c as usize];
            if *slot == u32::MAX {
                *slot = texts.len() as u32;
                texts.push(col.dict.value(c));
            }
            *slot
        })
        .collect();
    encode_rows(&texts, &indices, Nesting::Column)
}

/// The smallest blob of rows `indices` into the distinct `texts`, a slow
/// layout's weighed as [`weight`] says.
fn encode_rows(texts: &[&str], indices: &[u32], nesting: Nesting) -> Vec<u8> {
    let mut best = encode_dictionary(texts, indices);
    if texts.len() == 1 {
        let mut single = vec![LAYOUT_SINGLE];
        put_string(&mut single, texts[0]);
        put_varint(&mut single, indices.len() as u64);
        if single.len() <= best.len() {
            best = single;
        }
    }
    let mut best = Best {
        weight: best.len(),
        blob: best,
        rows: indices.len(),
    };
    if nesting == Nesting::Column {
        for format in formats(texts) {
            let nested = |t: &[&str], rows: &[u32]| encode_rows(t, rows, Nesting::Exceptions);
            if let Some(fields) = numbers::encode(format, texts, indices, nested) {
                match format.id() {
                    None => best.keep(LAYOUT_NUMBERS, fields),
                    Some(id) => best.keep(LAYOUT_DATES, [&[id][..], &fields].concat()),
                }
            }
        }
    }
    // PPMd before zstd: where it wins (free text), zstd's sample then
    // tells it cannot, and zstd is not run on the whole column.
    if !texts.is_empty() && ppmd_may_win(texts, indices, best.weight) {
        // In blocks when the stream is long enough for two.
        match blocks::encode(texts, indices, blocks::BLOCK) {
            Some(fields) => best.keep(LAYOUT_TEXTS_PPMD_BLOCKS, fields),
            None => {
                if let Some(fields) = texts::encode_ppmd(texts, indices) {
                    best.keep(LAYOUT_TEXTS_PPMD, fields);
                }
            }
        }
    }
    if !texts.is_empty() && texts_may_win(texts, indices, best.blob.len()) {
        best.keep(LAYOUT_TEXTS, texts::encode(texts, indices));
    }
    if !texts.is_empty() && lzma_may_win(texts, indices, best.weight) {
        best.keep(LAYOUT_TEXTS_LZMA, texts::encode_lzma(texts, indices));
    }
    if let Some(fields) = positions::encode(texts, indices) {
        best.keep(LAYOUT_POSITIONS, fields);
    }
    best.blob.shrink_to_fit();
    best.blob
}

/// The lightest blob so far of a column of `rows` rows.
struct Best {
    blob: Vec<u8>,
    weight: usize,
    rows: usize,
}

impl Best {
    /// Keeps the blob of `layout` and `fields` when it is lighter. A new
    /// blob each time: one written over the old would keep the old one's
    /// room (a near-distinct column's dictionary, all its text) for as
    /// long as the pack keeps the blob.
    fn keep(&mut self, layout: u8, fields: Vec<u8>) {
        let weight = weight(layout, fields.len() + 1, self.rows);
        if weight < self.weight {
            self.blob = [&[layout][..], &fields].concat();
            self.weight = weight;
        }
    }
}

/// A blob's weight in the choice of a layout: its length, and on a column
/// of more than `2 SAMPLE_ROWS` rows a sixteenth more for PPMd and LZMA2,
/// which decode several times slower than the other layouts (PPMd at
/// 60 to 90 MB/s of text): a restore waits for its slowest column, and a
/// large column is given to them only when they save more than that.
fn weight(layout: u8, len: usize, rows: usize) -> usize {
    let slow = matches!(
        layout,
        LAYOUT_TEXTS_PPMD | LAYOUT_TEXTS_PPMD_BLOCKS | LAYOUT_TEXTS_LZMA
    );
    match slow && rows > 2 * SAMPLE_ROWS {
        true => len + len / 16,
        false => len,
    }
}

/// Rows of the sample on which a large column's LZMA2 is measured first.
const LZMA_SAMPLE_ROWS: usize = 1 << 14;

/// Whether LZMA2 is worth trying on the whole column: always on a small
/// one; on one of more than `2 LZMA_SAMPLE_ROWS` rows, when LZMA2 of its
/// first [`LZMA_SAMPLE_ROWS`] rows (or of as many as hold
/// [`LZMA_SAMPLE_BYTES`]), scaled to all rows and [`weight`]ed, is
/// lighter than the best blob so far (LZMA2 encodes at a few MB/s: a numeric column, or
/// one zstd already codes as well, is not given to it whole).
fn lzma_may_win(texts: &[&str], indices: &[u32], best: usize) -> bool {
    if indices.len() <= 2 * LZMA_SAMPLE_ROWS {
        return true;
    }
    // At most LZMA_SAMPLE_BYTES of text: long texts (free text, 55 bytes a
    // row) would make the sample itself take a second.
    let mut bytes = 0;
    let rows = indices[..LZMA_SAMPLE_ROWS]
        .iter()
        .take_while(|&&i| {
            bytes += texts[i as usize].len() + 1;
            bytes <= LZMA_SAMPLE_BYTES
        })
        .count()
        .max(1);
    let sample = texts::encode_lzma(texts, &indices[..rows]).len() as f64;
    let scaled = sample * (indices.len() as f64 / rows as f64);
    weight(LAYOUT_TEXTS_LZMA, scaled as usize, indices.len()) < best
}

/// The most text LZMA2's sample of a large column holds.
const LZMA_SAMPLE_BYTES: usize = 1 << 18;

/// Whether PPMd is worth running on the whole column: always on one of at
/// most `2 SAMPLE_ROWS` rows; else when PPMd of its first [`SAMPLE_ROWS`]
/// rows, scaled to all rows and [`weight`]ed, is lighter than the best
/// blob so far (PPMd
/// codes at about 40 MB/s: a numeric column is not given to it whole).
fn ppmd_may_win(texts: &[&str], indices: &[u32], best: usize) -> bool {
    if indices.len() <= 2 * SAMPLE_ROWS {
        return true;
    }
    let sample = texts::ppmd_size(texts, &indices[..SAMPLE_ROWS]) as f64;
    let scaled = sample * (indices.len() as f64 / SAMPLE_ROWS as f64);
    weight(LAYOUT_TEXTS_PPMD, scaled as usize, indices.len()) < best
}

/// The formats worth trying: decimals, and each date or time format that
/// one of the first distinct texts has.
fn formats(texts: &[&str]) -> Vec<Format> {
    let mut formats = vec![Format::Decimal];
    for f in [
        Format::Date,
        Format::DateTime(b' '),
        Format::DateTime(b'T'),
        Format::Zulu,
    ] {
        if texts
            .iter()
            .take(16)
            .any(|t| calendar::parse(f, t).is_some())
        {
            formats.push(f);
        }
    }
    formats
}

/// Rows compressed per row on a sample of the first [`SAMPLE_ROWS`]: zstd
/// compresses a whole column at least as well as its start, so a column
/// whose sample takes a quarter more than the best blob so far (scaled to
/// all rows) is not compressed whole. zstd is the slowest candidate: this
/// saves its time on numeric columns.
const SAMPLE_ROWS: usize = 1 << 16;

fn texts_may_win(texts: &[&str], indices: &[u32], best: usize) -> bool {
    if indices.len() <= 2 * SAMPLE_ROWS {
        return true;
    }
    let sample = texts::encode(texts, &indices[..SAMPLE_ROWS]).len() as f64;
    sample * (indices.len() as f64 / SAMPLE_ROWS as f64) < best as f64 * 1.25
}

/// The smallest dictionary blob (layout 1): both dictionary kinds, both
/// index codings.
fn encode_dictionary(texts: &[&str], indices: &[u32]) -> Vec<u8> {
    // The dictionary (`head`) and the row indices (`tail`) are built apart
    // and joined once: the dictionary of a near-distinct column holds all
    // its text, and a copy of it per candidate doubled a pack's peak.
    let mut best: Option<(Vec<u8>, Vec<u8>)> = None;
    for allow_integers in [false, true] {
        let mut head = vec![LAYOUT_DICTIONARY];
        let order = put_dictionary(&mut head, texts, allow_integers);
        if allow_integers && head[1] != DICT_INTEGERS {
            continue;
        }
        let mut position = vec![0u32; texts.len()];
        for (p, &i) in order.iter().enumerate() {
            position[i as usize] = p as u32;
        }
        let stored: Vec<u32> = indices.iter().map(|&i| position[i as usize]).collect();
        let previous = (2..=previous::MAX_TEXTS).contains(&texts.len());
        let tail = [INDEX_HUFFMAN, INDEX_FLAT, INDEX_PREVIOUS]
            .into_iter()
            .filter(|&coding| coding != INDEX_PREVIOUS || previous)
            .map(|index_coding| {
                let mut tail = vec![index_coding];
                match index_coding {
                    INDEX_HUFFMAN => put_coded(&mut tail, texts.len(), &stored),
                    INDEX_FLAT => put_flat(&mut tail, texts.len(), &stored),
                    _ => tail.extend_from_slice(&previous::encode(texts.len(), &stored)),
                }
                tail
            })
            .min_by_key(Vec::len)
            .expect("at least two index codings");
        let size = head.len() + tail.len();
        if best.as_ref().is_none_or(|(h, t)| size < h.len() + t.len()) {
            best = Some((head, tail));
        }
    }
    let (mut head, tail) = best.expect("at least one candidate");
    head.extend_from_slice(&tail);
    head
}

/// The relative work of decoding a plain column blob, to start the
/// longest decodings first when columns are shared between threads: its
/// length, times 8 for the context-modelling layouts (PPMd and LZMA2
/// decode at 10 to 40 MB/s of text, the others at hundreds).
pub fn decode_cost(blob: &[u8]) -> u64 {
    let weight = match blob.first() {
        Some(&LAYOUT_TEXTS_PPMD | &LAYOUT_TEXTS_PPMD_BLOCKS | &LAYOUT_TEXTS_LZMA) => 8,
        _ => 1,
    };
    blob.len() as u64 * weight
}

/// Decodes a blob of [`encode_plain`] holding `rows` rows, each distinct
/// text once in the column's dictionary.
pub fn decode_plain(bytes: &[u8], name: &str, rows: usize) -> Result<Column, CodecError> {
    decode_plain_for(bytes, name, rows, Purpose::Values)
}

/// [`decode_plain`] for `purpose`: a column decoded for rendering may
/// hold each row's text (near-distinct numbers and texts, not hashed).
pub fn decode_plain_for(
    bytes: &[u8],
    name: &str,
    rows: usize,
    purpose: Purpose,
) -> Result<Column, CodecError> {
    let (dict, codes) = decode_rows(bytes, rows, Nesting::Column, purpose)?;
    Ok(Column {
        name: name.to_owned(),
        dict,
        codes,
    })
}

fn decode_rows(
    bytes: &[u8],
    rows: usize,
    nesting: Nesting,
    purpose: Purpose,
) -> Result<(Dictionary, Vec<u32>), CodecError> {
    let mut r = ByteReader::new(bytes);
    let nested = |nested: &[u8], n: usize| decode_rows(nested, n, Nesting::Exceptions, purpose);
    let (dict, codes) = match r.byte("plain column layout")? {
        LAYOUT_SINGLE => {
            let text = r.string("plain value")?;
            r.varint_equal("plain value count (rows)", rows as u64)?;
            let mut dict = Dictionary::new();
            let code = dict.push_new(text);
            (dict, vec![code; rows])
        }
        LAYOUT_DICTIONARY => {
            let texts = read_dictionary(&mut r)?;
            let indices = match r.byte("plain index coding")? {
                INDEX_HUFFMAN => r.coded("plain rows", texts.len(), rows)?,
                INDEX_FLAT => read_flat(&mut r, texts.len(), rows)?,
                INDEX_PREVIOUS => previous::decode(&mut r, texts.len(), rows)?,
                id => {
                    return Err(CodecError::UnknownLayout {
                        what: "plain index coding",
                        id,
                        known: "0 Huffman, 1 flat, 2 previous row",
                    });
                }
            };
            // The stored texts are distinct unless the file was forged:
            // only a column of values pays for making sure.
            let mut dict = Dictionary::new();
            dict.reserve(texts.len(), texts.iter().map(String::len).sum());
            let codes_of: Vec<u32> = match purpose {
                Purpose::Values => texts.iter().map(|t| dict.intern(t)).collect(),
                Purpose::Rendering => texts.iter().map(|t| dict.push_new(t)).collect(),
            };
            (
                dict,
                indices.iter().map(|&i| codes_of[i as usize]).collect(),
            )
        }
        LAYOUT_NUMBERS if nesting == Nesting::Column => {
            numbers::decode(&mut r, Format::Decimal, rows, purpose, nested)?
        }
        LAYOUT_DATES if nesting == Nesting::Column => {
            let id = r.byte("date format")?;
            let format = Format::from_id(id).ok_or(CodecError::UnknownLayout {
                what: "date format",
                id,
                known: "0 date, 1 date and time, 2 date T time, 3 date T time Z",
            })?;
            numbers::decode(&mut r, format, rows, purpose, nested)?
        }
        LAYOUT_TEXTS => texts::decode(&mut r, rows, purpose)?,
        LAYOUT_TEXTS_LZMA => texts::decode_lzma(&mut r, rows, purpose)?,
        LAYOUT_POSITIONS => positions::decode(&mut r, rows, purpose)?,
        LAYOUT_TEXTS_PPMD => texts::decode_ppmd(&mut r, rows, purpose)?,
        LAYOUT_TEXTS_PPMD_BLOCKS => blocks::decode(&mut r, rows, purpose)?,
        id => {
            return Err(CodecError::UnknownLayout {
                what: "plain column layout",
                id,
                known: if nesting == Nesting::Column {
                    "0 single value, 1 dictionary, 2 numbers, 3 texts, 4 dates, 5 texts (LZMA2), 6 fixed-width texts, 7 texts (PPMd), 8 texts (PPMd blocks)"
                } else {
                    "0 single value, 1 dictionary, 3 texts, 5 texts (LZMA2), 6 fixed-width texts, 7 texts (PPMd), 8 texts (PPMd blocks) (in a numeric column's exceptions)"
                },
            });
        }
    };
    r.finish("plain column")?;
    Ok((dict, codes))
}

#[cfg(test)]
mod tests;
