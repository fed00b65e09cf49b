//! The rows' classes: each row's equivalence class, coded in one of the
//! five row-classes codings (`spec/CODING.md` 4.2), for a `QI_CLASSES`
//! blob (the group's own class table) or a `ROW_CLASSES` blob (the file's
//! table-wide class table, 4.4).
//!
//! Classes are numbered in order of first appearance down the rows. A row
//! group of a file with a table-wide class table starts where the groups
//! before it left: `opened` classes are already open, and its first new
//! class is number `opened`.

use super::CodecError;
use super::bytes::{ByteReader, put_coded, put_varint};
use super::numbers::{BitReader, BitWriter};
use super::range::{self, BitModel, RangeDecoder, RangeEncoder};
use super::rans;
use super::runs::Runs;

/// Row-classes coding: a Huffman-coded stream (fast to decode).
pub(super) const ROWS_HUFFMAN: u8 = 0;
/// Row-classes coding: the adaptive binary range coder (a fraction of a bit
/// per row below Huffman when a few classes hold most rows).
const ROWS_RANGE: u8 = 1;
/// Row-classes coding: static rANS: about the adaptive
/// coder's size once its frequency table is paid, and as fast to decode as
/// Huffman.
const ROWS_RANS: u8 = 2;
/// Row-classes coding: runs, for rows sorted or grouped by their QIs (an
/// export ordered by its columns): per row a bit for "the previous row's
/// class" and one for "the next class not seen yet", else the class as in
/// [`ROWS_RANGE`]; a sorted table's rows then cost a few bits a run.
pub(super) const ROWS_RUNS: u8 = 3;
/// Row-classes coding: Huffman codes over the classes and one more symbol,
/// "the next class not seen yet": a row that opens a class costs a few
/// bits instead of a class number, as in [`ROWS_RUNS`], at Huffman's
/// decoding speed.
pub(super) const ROWS_NEXT: u8 = 4;
/// Row-classes coding: each row's class in truncated binary over the
/// classes open before it and the next one: no table and no model, as
/// many bits as the open classes need. Rows that name classes about
/// evenly, as a local recoding's rows do once its classes are open (a
/// late row group of a file's class table), cost about the entropy of
/// their classes, and decode at a few cycles a row.
pub(super) const ROWS_FLAT: u8 = 5;

/// How the rows' classes of a QI-classes blob are coded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowsCoding {
    /// Static Huffman codes of the classes.
    Huffman,
    /// Adaptive binary range coding.
    Range,
    /// Static rANS under the classes' frequency table.
    Rans,
    /// Runs of one class, and classes in their order of first appearance,
    /// under adaptive binary range coding.
    Runs,
    /// Static Huffman codes of the classes and of "the next class".
    Next,
    /// Truncated binary over the open classes and the next one.
    Flat,
}

impl RowsCoding {
    /// Every coding, in the order of their ids.
    pub const ALL: [RowsCoding; 6] = [
        RowsCoding::Huffman,
        RowsCoding::Range,
        RowsCoding::Rans,
        RowsCoding::Runs,
        RowsCoding::Next,
        RowsCoding::Flat,
    ];

    fn id(self) -> u8 {
        match self {
            RowsCoding::Huffman => ROWS_HUFFMAN,
            RowsCoding::Range => ROWS_RANGE,
            RowsCoding::Rans => ROWS_RANS,
            RowsCoding::Runs => ROWS_RUNS,
            RowsCoding::Next => ROWS_NEXT,
            RowsCoding::Flat => ROWS_FLAT,
        }
    }
}

/// Rows' classes to code: `rows[r]` below `classes`, numbered in order of
/// first appearance from `opened` (the classes open before the first row).
#[derive(Debug, Clone, Copy)]
pub struct RowClasses<'a> {
    /// Each row's class.
    pub rows: &'a [u32],
    /// The number of classes (the alphabet).
    pub classes: usize,
    /// The classes opened before the first row.
    pub opened: u32,
}

/// Rows from which [`encode_rows`] codes the rows' classes two ways at
/// once.
const PARALLEL_ROWS: usize = 1 << 20;

/// The rows' classes in the smallest of the codings that decode a row in a
/// few cycles (Huffman, rANS, next, flat; ties: the lower number), unless
/// an adaptive one (range, runs) saves more than 1/32 of it.
pub fn encode_rows(rows: RowClasses<'_>) -> Vec<u8> {
    // The smaller of each pair only is kept while the next is coded: at
    // 10M rows each coding of the rows is tens of megabytes.
    let smaller = |a: Option<Vec<u8>>, b: Option<Vec<u8>>| match (a, b) {
        (Some(a), Some(b)) if b.len() < a.len() => Some(b),
        (Some(a), _) => Some(a),
        (None, b) => b,
    };
    let fast = || {
        let fast = smaller(
            rows_coded(rows, RowsCoding::Huffman),
            rows_coded(rows, RowsCoding::Rans),
        );
        let fast = smaller(fast, rows_coded(rows, RowsCoding::Next));
        smaller(fast, rows_coded(rows, RowsCoding::Flat)).expect("Huffman codes any rows")
    };
    let adaptive = || {
        smaller(
            rows_coded(rows, RowsCoding::Range),
            rows_coded(rows, RowsCoding::Runs),
        )
        .expect("the range coder codes any rows")
    };
    // The adaptive codings spend a dozen cycles a bit: on many rows the
    // two kinds are coded at once (10M rows, 750K classes: 5 s alone at
    // the end of a pack).
    let (fast, adaptive) = match rows.rows.len() >= PARALLEL_ROWS && crate::jobs::cores() > 1 {
        true => std::thread::scope(|scope| {
            let side = scope.spawn(adaptive);
            let fast = fast();
            (
                fast,
                side.join()
                    .expect("coding the rows' classes does not panic"),
            )
        }),
        false => (fast(), adaptive()),
    };
    match adaptive_wins(fast.len(), adaptive.len()) {
        true => adaptive,
        false => fast,
    }
}

/// Whether the smaller adaptive coding of the rows' classes (range, runs),
/// which spends a dozen cycles per *bit*, is written instead of the
/// smallest fast one: only when it saves more than 1/32 of it. Every
/// reader decodes the rows on open, so a few percent of their bytes buy
/// most of the opening time.
pub(super) fn adaptive_wins(fast: usize, adaptive: usize) -> bool {
    adaptive + fast / 32 < fast
}

/// The rows' classes in `coding`, its id byte first; `None` when the
/// coding cannot code them (rANS: at most `2^15` classes, a row at least).
pub fn rows_coded(rows: RowClasses<'_>, coding: RowsCoding) -> Option<Vec<u8>> {
    let mut out = vec![coding.id()];
    let size = rows.classes as u32;
    match coding {
        RowsCoding::Huffman => put_coded(&mut out, rows.classes, rows.rows),
        RowsCoding::Rans => rans::encode(rows.rows, rows.classes, &mut out)?,
        RowsCoding::Range => {
            // Each row's class as a symbol of `0..classes` under one
            // adaptive context (`spec/CODING.md` 6.4's symbol coding,
            // context `(0, 0, 0)`).
            let mut enc = RangeEncoder::default();
            let mut models = vec![BitModel::default(); 1 << range::width(size)];
            for &c in rows.rows {
                range::encode_symbol(&mut enc, &mut models[..], c, size);
            }
            out.extend_from_slice(&enc.finish());
        }
        RowsCoding::Runs => {
            let mut enc = RangeEncoder::default();
            let mut runs = Runs::opened(size, rows.opened);
            for &c in rows.rows {
                runs.encode(&mut enc, c);
            }
            out.extend_from_slice(&enc.finish());
        }
        RowsCoding::Next => {
            let mut unseen = rows.opened;
            let symbols: Vec<u32> = (rows.rows.iter())
                .map(|&c| match c == unseen {
                    true => {
                        unseen += 1;
                        size
                    }
                    false => c,
                })
                .collect();
            put_coded(&mut out, rows.classes + 1, &symbols);
        }
        RowsCoding::Flat => {
            let mut bits = BitWriter::after(out);
            let mut open = rows.opened;
            for &c in rows.rows {
                bits.truncated(u64::from(c), (u64::from(open) + 1).min(u64::from(size)));
                open += u32::from(c == open);
            }
            return Some(bits.finish());
        }
    }
    Some(out)
}

// Long: one arm per coding of the rows, each bounded by the bytes it reads before it allocates
/// Reads the rows' classes of `n` rows over `classes` classes, `opened`
/// of them open before the first row (what [`rows_coded`] wrote: the
/// coding byte, then the stream, which runs to the end of `r`).
pub fn decode_rows(
    r: &mut ByteReader<'_>,
    classes: usize,
    n: usize,
    opened: u32,
) -> Result<Vec<u32>, CodecError> {
    let size = classes as u32;
    let rows = match r.byte("row classes coding")? {
        ROWS_HUFFMAN => {
            let rows = r.coded("row classes", classes, n)?;
            r.finish("QI classes")?;
            rows
        }
        ROWS_RANGE => {
            let rest = r.rest();
            let mut dec = RangeDecoder::new(rest);
            let mut models = vec![BitModel::default(); 1 << range::width(size)];
            let mut out = Vec::with_capacity(n.min(rest.len() * 8));
            for _ in 0..n {
                if dec.overrun() {
                    break;
                }
                out.push(range::decode_symbol(&mut dec, &mut models[..], size));
            }
            dec.finish("row classes")?;
            out
        }
        ROWS_RANS => rans::decode(r, classes, n)?,
        ROWS_NEXT => {
            let mut rows = r.coded("row classes", classes + 1, n)?;
            r.finish("QI classes")?;
            next_classes(&mut rows, size, opened)?;
            rows
        }
        ROWS_RUNS => {
            let rest = r.rest();
            let mut dec = RangeDecoder::new(rest);
            let mut runs = Runs::opened(size, opened);
            let mut out = Vec::with_capacity(n.min(rest.len() * 8));
            for _ in 0..n {
                if dec.overrun() {
                    break;
                }
                out.push(runs.decode(&mut dec));
            }
            dec.finish("row classes")?;
            out
        }
        ROWS_FLAT => {
            let rest = r.rest();
            let mut bits = BitReader::new(rest);
            // Every row but a first one that opens class 0 takes a bit.
            let mut out = Vec::with_capacity(n.min(rest.len() * 8 + 1));
            let mut open = opened;
            for _ in 0..n {
                if bits.overrun() {
                    break;
                }
                let c = bits.truncated((u64::from(open) + 1).min(u64::from(size))) as u32;
                open += u32::from(c == open);
                out.push(c);
            }
            bits.finish("row classes")?;
            out
        }
        id => {
            return Err(CodecError::UnknownLayout {
                what: "row classes coding",
                id,
                known: "0 Huffman, 1 range, 2 rANS, 3 runs, 4 next, 5 flat",
            });
        }
    };
    if rows.len() != n {
        return Err(CodecError::CountMismatch {
            what: "row classes",
            expected: n as u64,
            found: rows.len() as u64,
        });
    }
    Ok(rows)
}

/// Coding 4's symbols made classes: `next` (the class count) is the class
/// after the largest so far (`opened` before the first row), any other
/// symbol a class already seen.
pub(super) fn next_classes(symbols: &mut [u32], next: u32, opened: u32) -> Result<(), CodecError> {
    let mut unseen = opened;
    for (row, s) in symbols.iter_mut().enumerate() {
        if *s == next && unseen < next {
            *s = unseen;
            unseen += 1;
        } else if *s >= unseen {
            let detail = match *s == next {
                true => format!("row {row} opens a class after all {next} were seen"),
                false => format!("row {row} names class {s} before it was opened"),
            };
            return Err(CodecError::Invalid {
                what: "row classes",
                detail,
            });
        }
    }
    Ok(())
}

/// A `ROW_CLASSES` blob (`spec/CODING.md` 4.4): the classes opened before
/// the group's first row, then its rows' classes.
pub fn encode_row_classes(rows: RowClasses<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, u64::from(rows.opened));
    out.extend_from_slice(&encode_rows(rows));
    out
}

/// A row group's rows' classes read from its `ROW_CLASSES` blob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupClasses {
    /// Each row's class (empty for a table of one class, whose rows take
    /// no bits: every row is class 0).
    pub rows: Vec<u32>,
    /// The classes the groups before it opened, as the blob states.
    pub opened_before: u32,
    /// The classes open after its last row.
    pub opened_after: u32,
}

/// Reads a `ROW_CLASSES` blob of `n` rows over the `classes` classes of
/// the table-wide class table: the classes opened before it, as it states
/// them (the caller checks them against the groups before), and its rows'
/// classes, each at most one above the largest before it, counting from
/// that. With one class the rows are not held, and its stream is checked
/// as the stream of one row (which is the same bytes).
pub fn decode_row_classes(
    bytes: &[u8],
    classes: usize,
    n: usize,
) -> Result<GroupClasses, CodecError> {
    let mut r = ByteReader::new(bytes);
    // At most every class: an index below one more.
    let opened = r.index("classes opened before the row group", classes + 1)?;
    let one = classes == 1;
    let rows = decode_rows(&mut r, classes, if one { n.min(1) } else { n }, opened)?;
    let mut open = opened;
    for (row, &c) in rows.iter().enumerate() {
        if c > open {
            return Err(CodecError::Invalid {
                what: "row classes",
                detail: format!(
                    "row {row} names class {c} before it was opened ({open} classes open)"
                ),
            });
        }
        open += u32::from(c == open);
    }
    Ok(GroupClasses {
        rows: if one { Vec::new() } else { rows },
        opened_before: opened,
        opened_after: open,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of `classes` classes in order of first appearance from
    /// `opened`, drawn from a fixed generator.
    fn rows(n: usize, classes: u32, opened: u32, seed: u64) -> Vec<u32> {
        let mut state = seed;
        let mut open = opened;
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let c = ((state >> 33) as u32) % (open + 1).min(classes);
                open += u32::from(c == open);
                c
            })
            .collect()
    }

    /// spec/CODING.md 4.2's vector of coding 5: rows `0 1 0` of two
    /// classes are the bits `1 0` (row 0 takes none).
    #[test]
    fn flat_spec_vector() {
        let rows = RowClasses {
            rows: &[0, 1, 0],
            classes: 2,
            opened: 0,
        };
        let blob = rows_coded(rows, RowsCoding::Flat).expect("codes");
        assert_eq!(blob, [0x05, 0x80], "{blob:02x?}");
        let back = decode_rows(&mut ByteReader::new(&blob), 2, 3, 0).expect("decodes");
        assert_eq!(back, [0, 1, 0]);
    }

    /// Every coding, from a group that starts with classes already open,
    /// decodes to its rows; a `ROW_CLASSES` blob states the classes opened
    /// before it and after it.
    #[test]
    fn every_coding_starts_where_the_groups_before_left_off() {
        let (classes, opened) = (3_000u32, 1_200u32);
        let rows = rows(5_000, classes, opened, 11);
        let after = 1 + *rows.iter().max().expect("rows");
        let group = RowClasses {
            rows: &rows,
            classes: classes as usize,
            opened,
        };
        for coding in RowsCoding::ALL {
            // rANS codes only the classes the rows use.
            let Some(blob) = rows_coded(group, coding) else {
                assert_eq!(coding, RowsCoding::Rans);
                continue;
            };
            let mut r = ByteReader::new(&blob);
            let back = decode_rows(&mut r, classes as usize, rows.len(), opened);
            assert_eq!(back.as_deref(), Ok(&rows[..]), "{coding:?}");
        }
        let blob = encode_row_classes(group);
        let read = decode_row_classes(&blob, classes as usize, rows.len()).expect("decodes");
        assert_eq!(read.rows, rows);
        assert_eq!((read.opened_before, read.opened_after), (opened, after));
    }

    /// Flat codes evenly spread rows at about log2 of the open classes
    /// (truncated binary: at most 0.09 bits more), below Huffman, whose
    /// table lists every class.
    #[test]
    fn flat_codes_even_rows_without_a_table() {
        let classes = 50_000u32;
        let rows = rows(60_000, classes, classes, 5);
        let group = RowClasses {
            rows: &rows,
            classes: classes as usize,
            opened: classes,
        };
        let flat = rows_coded(group, RowsCoding::Flat).expect("codes");
        let huffman = rows_coded(group, RowsCoding::Huffman).expect("codes");
        let bits = (f64::from(classes)).log2() * rows.len() as f64;
        assert!((flat.len() as f64) < bits / 8.0 * 1.01, "{}", flat.len());
        assert!(
            flat.len() < huffman.len(),
            "{} {}",
            flat.len(),
            huffman.len()
        );
        assert_eq!(encode_rows(group)[0], ROWS_FLAT);
    }

    /// A flat stream asked for more rows than its bits hold, or that
    /// names a class before it was opened, is refused.
    #[test]
    fn flat_refuses_a_forged_stream() {
        let blob = [ROWS_FLAT, 0xff];
        let r = decode_rows(&mut ByteReader::new(&blob), 2, 1_000_000, 0);
        assert!(r.is_err(), "{r:?}");
        // Opened 0, class 1 named by row 1 after row 0 opened class 0: fine;
        // a ROW_CLASSES blob saying 5 classes were open of 3 is not.
        let blob = [5, ROWS_FLAT, 0x80];
        assert!(decode_row_classes(&blob, 3, 2).is_err());
    }
}
