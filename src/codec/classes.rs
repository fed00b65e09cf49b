//! The released QI columns of a row group coded together, by equivalence
//! class (`spec/CODING.md` §4.2).
//!
//! A k-anonymous release has few distinct QI tuples (its equivalence
//! classes), each repeated at least k times. Coding each QI column alone
//! pays for every column on every row, and a Huffman code at least one bit
//! per row and column; coding each row's class once, plus the table of the
//! classes' tuples, pays the entropy of the class distribution instead,
//! which is at most the sum of the columns' and usually far below it.

use rustc_hash::FxHashMap;

use super::CodecError;
use super::bytes::{ByteReader, put_coded, put_varint};
use super::range::{self, BitModel, RangeDecoder, RangeEncoder};
use super::rans;
use super::released::{ReleasedColumn, ReleasedSymbol, put_symbol, read_symbol};

/// Row-classes coding: a Huffman-coded stream (fast to decode).
const ROWS_HUFFMAN: u8 = 0;
/// Row-classes coding: the adaptive binary range coder (a fraction of a bit
/// per row below Huffman when a few classes hold most rows).
const ROWS_RANGE: u8 = 1;
/// Row-classes coding: static rANS: about the adaptive
/// coder's size once its frequency table is paid, and as fast to decode as
/// Huffman.
const ROWS_RANS: u8 = 2;

/// How the rows' classes of a QI-classes blob are coded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowsCoding {
    Huffman,
    Range,
    Rans,
}

impl RowsCoding {
    fn id(self) -> u8 {
        match self {
            RowsCoding::Huffman => ROWS_HUFFMAN,
            RowsCoding::Range => ROWS_RANGE,
            RowsCoding::Rans => ROWS_RANS,
        }
    }
}

/// Released QI columns as classes: per QI its distinct symbols, the table of
/// the classes' tuples (symbol indices), and each row's class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleasedClasses {
    /// `symbols[q]`: QI `q`'s distinct released symbols, in order of first
    /// appearance in the class table.
    pub symbols: Vec<Vec<ReleasedSymbol>>,
    /// `table[q][c]`: class `c`'s symbol index for QI `q`.
    pub table: Vec<Vec<u32>>,
    /// Each row's class; classes are numbered in order of first appearance.
    pub rows: Vec<u32>,
}

impl ReleasedClasses {
    /// Groups the rows of `columns` (one per QI, equally long) by tuple.
    pub fn from_columns(columns: &[ReleasedColumn]) -> ReleasedClasses {
        let q = columns.len();
        let n = columns.first().map_or(0, |c| c.rows.len());
        let mut class_tuples: Vec<u32> = Vec::new();
        // A row's tuple as one number (mixed radix, each column's largest
        // symbol plus one) when every tuple fits in 64 bits: hashing a word
        // is much cheaper than hashing a vector. Classes are numbered by
        // first appearance either way.
        let radices: Vec<u64> = columns
            .iter()
            .map(|c| c.rows.iter().max().map_or(1, |&s| u64::from(s) + 1))
            .collect();
        let radix_product = radices.iter().try_fold(1u64, |p, &r| p.checked_mul(r));
        let (rows, classes): (Vec<u32>, usize) = if radix_product.is_some() {
            let mut index: FxHashMap<u64, u32> = FxHashMap::default();
            let mut keys = vec![0u64; n];
            for (c, &radix) in columns.iter().zip(&radices) {
                for (k, &s) in keys.iter_mut().zip(&c.rows) {
                    *k = *k * radix + u64::from(s);
                }
            }
            let rows = keys
                .iter()
                .enumerate()
                .map(|(r, &k)| {
                    let next = index.len() as u32;
                    *index.entry(k).or_insert_with(|| {
                        class_tuples.extend(columns.iter().map(|c| c.rows[r]));
                        next
                    })
                })
                .collect();
            (rows, index.len())
        } else {
            let mut index: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
            let mut tuple = Vec::with_capacity(q);
            let rows = (0..n)
                .map(|r| {
                    tuple.clear();
                    tuple.extend(columns.iter().map(|c| c.rows[r]));
                    if let Some(&c) = index.get(&tuple) {
                        return c;
                    }
                    let c = index.len() as u32;
                    class_tuples.extend_from_slice(&tuple);
                    index.insert(tuple.clone(), c);
                    c
                })
                .collect();
            (rows, index.len())
        };
        // Renumber each QI's symbols in order of first use by the table, so
        // that unused symbols (a column's symbols always all occur) and the
        // symbol order depend on the table only.
        let mut symbols = Vec::with_capacity(q);
        let mut table = Vec::with_capacity(q);
        for (j, col) in columns.iter().enumerate() {
            let mut renumber = vec![u32::MAX; col.symbols.len()];
            let mut syms = Vec::new();
            let column: Vec<u32> = (0..classes)
                .map(|c| {
                    let s = class_tuples[c * q + j] as usize;
                    if renumber[s] == u32::MAX {
                        renumber[s] = syms.len() as u32;
                        syms.push(col.symbols[s].clone());
                    }
                    renumber[s]
                })
                .collect();
            symbols.push(syms);
            table.push(column);
        }
        ReleasedClasses {
            symbols,
            table,
            rows,
        }
    }

    /// Number of classes.
    pub fn classes(&self) -> usize {
        self.table.first().map_or(0, Vec::len)
    }

    /// The class table as columns, one per QI, with one entry per class
    /// instead of per row: what the claim check needs (with [`Self::sizes`]).
    pub fn table_columns(&self) -> Vec<ReleasedColumn> {
        self.columns(|table| table.to_vec())
    }

    /// How many rows each class holds.
    pub fn sizes(&self) -> Vec<u32> {
        let mut sizes = vec![0u32; self.classes()];
        for &c in &self.rows {
            sizes[c as usize] += 1;
        }
        sizes
    }

    /// The QI columns again, one per QI (symbols as in `self.symbols`).
    pub fn to_columns(&self) -> Vec<ReleasedColumn> {
        self.columns(|table| self.rows.iter().map(|&c| table[c as usize]).collect())
    }

    /// One column per QI, its symbols and the entries `entries` makes of
    /// its table column.
    fn columns(&self, entries: impl Fn(&[u32]) -> Vec<u32>) -> Vec<ReleasedColumn> {
        self.symbols
            .iter()
            .zip(&self.table)
            .map(|(symbols, table)| ReleasedColumn {
                symbols: symbols.clone(),
                rows: entries(table),
            })
            .collect()
    }
}

/// A QI-classes blob: `q`; per QI its symbols; the class count; per QI the
/// table column as a coded stream; the rows' classes in the coding
/// [`choose_rows_coding`] picks.
pub fn encode_classes(classes: &ReleasedClasses) -> Vec<u8> {
    let codings = [RowsCoding::Huffman, RowsCoding::Rans, RowsCoding::Range]
        .map(|coding| rows_coded(classes, coding));
    let lengths = codings.each_ref().map(|c| c.as_ref().map(Vec::len));
    let chosen = choose_rows_coding(
        lengths[0].expect("Huffman codes any rows"),
        lengths[1],
        lengths[2].expect("the range coder codes any rows"),
    );
    let rows = codings
        .into_iter()
        .flatten()
        .find(|bytes| bytes[0] == chosen.id())
        .expect("the chosen coding coded the rows");
    let mut out = table_blob(classes);
    out.extend_from_slice(&rows);
    out
}

/// The coding of the rows' classes an encoder writes, given each coding's
/// length: the smaller of the two that decode a row in a few cycles
/// (Huffman, rANS; ties Huffman), unless the adaptive range coder, which
/// spends a dozen cycles per *bit*, saves more than 1/32 of it. Every reader
/// decodes the rows on open, so a few percent of their bytes buy most of
/// the opening time.
fn choose_rows_coding(huffman: usize, rans: Option<usize>, range: usize) -> RowsCoding {
    let (fast, fast_len) = match rans {
        Some(r) if r < huffman => (RowsCoding::Rans, r),
        _ => (RowsCoding::Huffman, huffman),
    };
    if range + fast_len / 32 < fast_len {
        RowsCoding::Range
    } else {
        fast
    }
}

/// A QI-classes blob with its rows' classes in `coding`, if that coding
/// can code them (rANS: at most `2^15` classes, at least one row).
pub fn encode_classes_as(classes: &ReleasedClasses, coding: RowsCoding) -> Option<Vec<u8>> {
    let rows = rows_coded(classes, coding)?;
    let mut out = table_blob(classes);
    out.extend_from_slice(&rows);
    Some(out)
}

/// The blob up to the rows' classes: the symbols and the class table.
fn table_blob(classes: &ReleasedClasses) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, classes.symbols.len() as u64);
    for symbols in &classes.symbols {
        put_varint(&mut out, symbols.len() as u64);
        for s in symbols {
            put_symbol(&mut out, s);
        }
    }
    put_varint(&mut out, classes.classes() as u64);
    for (symbols, column) in classes.symbols.iter().zip(&classes.table) {
        put_coded(&mut out, symbols.len(), column);
    }
    out
}

/// The rows' classes in `coding`, its id byte first.
fn rows_coded(classes: &ReleasedClasses, coding: RowsCoding) -> Option<Vec<u8>> {
    let mut out = vec![coding.id()];
    match coding {
        RowsCoding::Huffman => put_coded(&mut out, classes.classes(), &classes.rows),
        RowsCoding::Rans => rans::encode(&classes.rows, classes.classes(), &mut out)?,
        RowsCoding::Range => {
            // Each row's class as a symbol of `0..classes` under one
            // adaptive context (`spec/CODING.md` 6.4's symbol coding,
            // context `(0, 0, 0)`).
            let size = classes.classes() as u32;
            let mut enc = RangeEncoder::default();
            let mut models = vec![BitModel::default(); 1 << range::width(size)];
            for &c in &classes.rows {
                range::encode_symbol(&mut enc, &mut models[..], c, size);
            }
            out.extend_from_slice(&enc.finish());
        }
    }
    Some(out)
}

/// Where a classes blob's bytes go (for `karc inspect`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassesBytes {
    /// Per QI: its symbols and its column of the class table.
    pub columns: Vec<u64>,
    /// The rows' classes (shared by every QI).
    pub rows: u64,
}

/// Decodes a blob of [`encode_classes`] holding `qis` QIs over `rows` rows.
/// Every symbol must be used by the table and every class by a row, so that
/// one release has one coding (and no class hides from the claim check).
pub fn decode_classes(
    bytes: &[u8],
    qis: usize,
    rows: usize,
) -> Result<(ReleasedClasses, ClassesBytes), CodecError> {
    let mut r = ByteReader::new(bytes);
    r.varint_equal("QIs in the classes blob", qis as u64)?;
    let mut column_bytes = Vec::with_capacity(qis);
    let symbols = (0..qis)
        .map(|_| {
            let start = r.position();
            let m = r.count("released symbol count", 1)?;
            let symbols = (0..m).map(|_| read_symbol(&mut r)).collect();
            column_bytes.push((r.position() - start) as u64);
            symbols
        })
        .collect::<Result<Vec<Vec<ReleasedSymbol>>, CodecError>>()?;
    let classes = r.count("class count", 0)?;
    if (classes == 0) != (rows == 0) || classes > rows {
        return Err(CodecError::Invalid {
            what: "class count",
            detail: format!("{classes} classes for {rows} rows"),
        });
    }
    let mut table = Vec::with_capacity(qis);
    for (s, bytes) in symbols.iter().zip(&mut column_bytes) {
        let start = r.position();
        let column = r.coded("class table", s.len(), classes)?;
        *bytes += (r.position() - start) as u64;
        require_all_used(&column, s.len(), "released symbol")?;
        table.push(column);
    }
    let rows_start = r.position();
    let row_classes = match r.byte("row classes coding")? {
        ROWS_HUFFMAN => {
            let rows = r.coded("row classes", classes, rows)?;
            r.finish("QI classes")?;
            rows
        }
        ROWS_RANGE => {
            let mut dec = RangeDecoder::new(r.rest());
            let size = classes as u32;
            let mut models = vec![BitModel::default(); 1 << range::width(size)];
            let mut out = Vec::with_capacity(rows.min(bytes.len() * 8));
            for _ in 0..rows {
                if dec.overrun() {
                    break;
                }
                out.push(range::decode_symbol(&mut dec, &mut models[..], size));
            }
            dec.finish("row classes")?;
            out
        }
        ROWS_RANS => rans::decode(&mut r, classes, rows)?,
        id => {
            return Err(CodecError::UnknownLayout {
                what: "row classes coding",
                id,
                known: "0 Huffman, 1 range, 2 rANS",
            });
        }
    };
    require_all_used(&row_classes, classes, "class")?;
    if row_classes.len() != rows {
        return Err(CodecError::CountMismatch {
            what: "row classes",
            expected: rows as u64,
            found: row_classes.len() as u64,
        });
    }
    Ok((
        ReleasedClasses {
            symbols,
            table,
            rows: row_classes,
        },
        ClassesBytes {
            columns: column_bytes,
            rows: (bytes.len() - rows_start) as u64,
        },
    ))
}

fn require_all_used(values: &[u32], alphabet: usize, what: &'static str) -> Result<(), CodecError> {
    let mut used = vec![false; alphabet];
    for &v in values {
        used[v as usize] = true;
    }
    match used.iter().position(|&u| !u) {
        Some(unused) => Err(CodecError::Invalid {
            what,
            detail: format!("entry {unused} of {alphabet} is never used"),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The faster codings win unless range coding saves more than 1/32 of
    /// the smaller of them; between Huffman and rANS the smaller (ties:
    /// Huffman).
    #[test]
    fn rows_coding_prefers_the_fast_codings() {
        use RowsCoding::*;
        assert_eq!(choose_rows_coding(1000, Some(990), 970), Rans);
        assert_eq!(choose_rows_coding(1000, Some(990), 950), Range);
        assert_eq!(choose_rows_coding(1000, Some(1000), 990), Huffman);
        assert_eq!(choose_rows_coding(1000, None, 968), Range);
        assert_eq!(choose_rows_coding(1000, None, 969), Huffman);
    }

    /// Tuples packed in one word and tuples hashed whole (symbols too many
    /// for 64 bits) give the classes of a direct count.
    #[test]
    fn classes_are_tuples_in_first_appearance_order() {
        for symbols in [5u32, 100_000] {
            let columns: Vec<ReleasedColumn> = (0..4u32)
                .map(|j| {
                    let rows: Vec<u32> = (0..500u32)
                        .map(|r| (r * (j + 3) % 7) * (symbols / 7) + (r % 2) * (symbols - 1) / 2)
                        .map(|s| s % symbols)
                        .collect();
                    ReleasedColumn {
                        symbols: (0..symbols).map(|_| ReleasedSymbol::Suppressed).collect(),
                        rows,
                    }
                })
                .collect();
            let classes = ReleasedClasses::from_columns(&columns);
            let mut seen: Vec<Vec<u32>> = Vec::new();
            for r in 0..500 {
                let tuple: Vec<u32> = columns.iter().map(|c| c.rows[r]).collect();
                let c = seen.iter().position(|t| *t == tuple).unwrap_or_else(|| {
                    seen.push(tuple);
                    seen.len() - 1
                });
                assert_eq!(classes.rows[r] as usize, c, "symbols {symbols}, row {r}");
            }
            assert_eq!(classes.classes(), seen.len());
        }
    }
}
