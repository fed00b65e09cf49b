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
}

impl RowsCoding {
    fn id(self) -> u8 {
        match self {
            RowsCoding::Huffman => ROWS_HUFFMAN,
            RowsCoding::Range => ROWS_RANGE,
            RowsCoding::Rans => ROWS_RANS,
            RowsCoding::Runs => ROWS_RUNS,
            RowsCoding::Next => ROWS_NEXT,
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
/// few cycles (Huffman, rANS, next; ties: the lower number), unless an
/// adaptive one (range, runs) saves more than 1/32 of it.
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
        smaller(fast, rows_coded(rows, RowsCoding::Next)).expect("Huffman codes any rows")
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
        id => {
            return Err(CodecError::UnknownLayout {
                what: "row classes coding",
                id,
                known: "0 Huffman, 1 range, 2 rANS, 3 runs, 4 next",
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
    let opened = r.varint("classes opened before the row group")?;
    if opened > classes as u64 {
        return Err(CodecError::Invalid {
            what: "classes opened before the row group",
            detail: format!("{opened} of {classes} classes"),
        });
    }
    let opened = opened as u32;
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
