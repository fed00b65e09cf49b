//! The released QI columns of a row group coded together, by equivalence
//! class (`spec/CODING.md` §4.2).
//!
//! A k-anonymous release has few distinct QI tuples (its equivalence
//! classes), each repeated at least k times. Coding each QI column alone
//! pays for every column on every row, and a Huffman code at least one bit
//! per row and column; coding each row's class once, plus the table of the
//! classes' tuples, pays the entropy of the class distribution instead,
//! which is at most the sum of the columns' and usually far below it.

// Long: the class table and the rows' four codings are one section of the format (CODING.md 4.2),
// written and read in one order; the tests of its encoding choices sit beside them.

use crate::classes::Partition;

use super::CodecError;
use super::bytes::{ByteReader, put_coded, put_varint, unzigzag, zigzag};
use super::numbers;
use super::released::{ReleasedColumn, ReleasedSymbol, put_symbol, read_symbol};
use super::row_classes::{self, RowClasses, RowsCoding};
#[cfg(test)]
use super::row_classes::{ROWS_NEXT, ROWS_RUNS, adaptive_wins, next_classes};

/// `values` (each below `alphabet`) renumbered in order of first use: each
/// value's new number, and the values used, in that order (the symbols a
/// table uses, the classes a group's rows meet).
pub fn first_use(values: impl IntoIterator<Item = u32>, alphabet: usize) -> (Vec<u32>, Vec<u32>) {
    let mut number = vec![u32::MAX; alphabet];
    let mut used = Vec::new();
    let renumbered = values
        .into_iter()
        .map(|v| {
            let n = &mut number[v as usize];
            if *n == u32::MAX {
                *n = used.len() as u32;
                used.push(v);
            }
            *n
        })
        .collect();
    (renumbered, used)
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
        // The partition's refinement numbers each class on first sight down
        // the rows, as the format numbers them, one integer pass per QI (a
        // tuple hashed whole, when ten QIs' symbols did not fit one 64-bit
        // key, took 9 s of a 10M-row pack).
        let partition = Partition::of_columns(columns.iter().map(|c| &c.rows[..]), n, None);
        let classes = partition.classes();
        let mut class_tuples: Vec<u32> = Vec::with_capacity(classes * q);
        let mut seen = 0u32;
        for (r, &c) in partition.class_of.iter().enumerate() {
            if c == seen {
                class_tuples.extend(columns.iter().map(|col| col.rows[r]));
                seen += 1;
            }
        }
        let rows = partition.class_of;
        // Renumber each QI's symbols in order of first use by the table, so
        // that unused symbols (a column's symbols always all occur) and the
        // symbol order depend on the table only.
        let mut symbols = Vec::with_capacity(q);
        let mut table = Vec::with_capacity(q);
        for (j, col) in columns.iter().enumerate() {
            let entries = (0..classes).map(|c| class_tuples[c * q + j]);
            let (column, used) = first_use(entries, col.symbols.len());
            symbols.push(
                used.iter()
                    .map(|&s| col.symbols[s as usize].clone())
                    .collect(),
            );
            table.push(column);
        }
        ReleasedClasses {
            symbols,
            table,
            rows,
        }
    }

    /// The rows' classes to code ([`row_classes`]): numbered from 0.
    fn row_classes(&self) -> RowClasses<'_> {
        RowClasses {
            rows: &self.rows,
            classes: self.classes(),
            opened: 0,
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

    /// The columns of rows `rows` (a row group's), one per QI, each's
    /// symbols those the rows use, numbered as a reader numbers the group's
    /// own classes' ([`OwnClasses`]: in order of first use down the rows).
    pub fn group_columns(&self, rows: std::ops::Range<usize>) -> Vec<ReleasedColumn> {
        let columns = (self.table.iter().zip(&self.symbols)).map(|(t, s)| (&t[..], s.len()));
        let own = OwnClasses::of_rows(columns, &self.rows[rows]);
        (own.table.iter().zip(&own.symbols).zip(&self.symbols))
            .map(|((table, used), symbols)| ReleasedColumn {
                symbols: used.iter().map(|&s| symbols[s as usize].clone()).collect(),
                rows: own.rows.iter().map(|&c| table[c as usize]).collect(),
            })
            .collect()
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
/// table column as a coded stream; the rows' classes as
/// the row-classes coding chooses (`spec/CODING.md` 4.2).
pub fn encode_classes(classes: &ReleasedClasses) -> Vec<u8> {
    let mut out = table_blob(classes);
    out.extend_from_slice(&row_classes::encode_rows(classes.row_classes()));
    out
}

/// A QI-classes blob with its rows' classes in `coding`, if that coding
/// can code them (rANS: at most `2^15` classes, at least one row).
pub fn encode_classes_as(classes: &ReleasedClasses, coding: RowsCoding) -> Option<Vec<u8>> {
    let rows = row_classes::rows_coded(classes.row_classes(), coding)?;
    let mut out = table_blob(classes);
    out.extend_from_slice(&rows);
    Some(out)
}

/// The blob up to the rows' classes: the symbols and the class table.
fn table_blob(classes: &ReleasedClasses) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, classes.symbols.len() as u64);
    for symbols in &classes.symbols {
        put_symbols(&mut out, symbols);
    }
    put_varint(&mut out, classes.classes() as u64);
    for (symbols, column) in classes.symbols.iter().zip(&classes.table) {
        put_coded(&mut out, symbols.len(), column);
    }
    out
}

/// Symbol-list kind: each symbol in full (`put_symbol`).
const SYMBOLS_LISTED: u8 = 0;
/// Symbol-list kind: numbers and intervals of numbers, as positions in a
/// sorted list of the numbers they name.
const SYMBOLS_NUMBERS: u8 = 1;

/// A QI's released symbols: their count, then the smaller of the two
/// kinds. A partitioning method releases a numeric QI as thousands of
/// intervals `lo~hi` whose ends, as text, cost more than the rows'
/// classes: as positions among the sorted distinct ends they take a few
/// bytes each.
fn put_symbols(out: &mut Vec<u8>, symbols: &[ReleasedSymbol]) {
    put_varint(out, symbols.len() as u64);
    let mut listed = vec![SYMBOLS_LISTED];
    for s in symbols {
        put_symbol(&mut listed, s);
    }
    match numbered_symbols(symbols) {
        Some(numbered) if numbered.len() < listed.len() => out.extend_from_slice(&numbered),
        _ => out.extend_from_slice(&listed),
    }
}

/// Tags of a numbered symbol (2 bits).
const NUMBERED_VALUE: u64 = 0;
const NUMBERED_LISTED: u64 = 1;
const NUMBERED_INTERVAL: u64 = 2;
const NUMBERED_SUPPRESSED: u64 = 3;

/// The [`SYMBOLS_NUMBERS`] list of `symbols`, when some are numbers or
/// intervals of numbers (canonical at the largest scale among their
/// texts, `numbers::canonical`); the others (`*` aside) are listed in
/// full after them.
fn numbered_symbols(symbols: &[ReleasedSymbol]) -> Option<Vec<u8>> {
    let scale = numbers::scale_of(
        symbols
            .iter()
            .flat_map(|s| match s {
                ReleasedSymbol::Value(v) => [Some(v.as_str()), None],
                ReleasedSymbol::Interval { lo, hi } => [Some(lo.as_str()), Some(hi.as_str())],
                _ => [None, None],
            })
            .flatten(),
    )?;
    // Texts with more decimals than a scale holds are listed.
    let scale = scale & numbers::COMMA | numbers::digits(scale).min(numbers::MAX_DECIMALS);
    let mut buf = String::new();
    // Each symbol's ends when it is numbered.
    let numbered: Vec<Option<(i64, i64)>> = symbols
        .iter()
        .map(|s| {
            let mut at = |t: &str| numbers::canonical(t, scale, &mut buf);
            match s {
                ReleasedSymbol::Value(v) => at(v).map(|v| (v, v)),
                ReleasedSymbol::Interval { lo, hi } => {
                    Some((at(lo)?, at(hi)?)).filter(|(a, b)| a <= b)
                }
                _ => None,
            }
        })
        .collect();
    let mut ends: Vec<i64> = numbered
        .iter()
        .flatten()
        .flat_map(|&(a, b)| [a, b])
        .collect();
    ends.sort_unstable();
    ends.dedup();
    let mut out = vec![SYMBOLS_NUMBERS];
    put_varint(&mut out, u64::from(scale));
    put_varint(&mut out, ends.len() as u64);
    for (i, &v) in ends.iter().enumerate() {
        match i {
            0 => put_varint(&mut out, zigzag(v)),
            _ => put_varint(&mut out, (v - ends[i - 1] - 1) as u64),
        }
    }
    let at = |v: i64| ends.binary_search(&v).expect("every end is listed") as u64;
    let size = ends.len() as u64;
    let mut w = numbers::BitWriter::after(Vec::new());
    let mut listed = Vec::new();
    for (s, numbered) in symbols.iter().zip(&numbered) {
        match (s, numbered) {
            (ReleasedSymbol::Value(_), Some((v, _))) => {
                w.put(NUMBERED_VALUE, 2);
                w.truncated(at(*v), size);
            }
            (ReleasedSymbol::Interval { .. }, Some((a, b))) => {
                let (a, b) = (at(*a), at(*b));
                w.put(NUMBERED_INTERVAL, 2);
                w.truncated(a, size);
                w.exp_golomb(b - a);
            }
            (ReleasedSymbol::Suppressed, _) => w.put(NUMBERED_SUPPRESSED, 2),
            _ => {
                w.put(NUMBERED_LISTED, 2);
                put_symbol(&mut listed, s);
            }
        }
    }
    let bits = w.finish();
    put_varint(&mut out, bits.len() as u64);
    out.extend_from_slice(&bits);
    out.extend_from_slice(&listed);
    Some(out)
}

/// Reads what [`put_symbols`] wrote.
fn read_symbols(r: &mut ByteReader<'_>) -> Result<Vec<ReleasedSymbol>, CodecError> {
    // A symbol takes at least two bits (numbered) or a byte (listed).
    let m = r.varint("released symbol count")?;
    if m > 4 * r.remaining() as u64 {
        return Err(CodecError::Truncated {
            what: "released symbols",
            offset: r.position() as u64,
            needed: m.div_ceil(4),
            available: r.remaining() as u64,
        });
    }
    match r.byte("released symbol list kind")? {
        SYMBOLS_LISTED => (0..m).map(|_| read_symbol(r)).collect(),
        SYMBOLS_NUMBERS => read_numbered(r, m as usize),
        id => Err(CodecError::UnknownLayout {
            what: "released symbol list kind",
            id,
            known: "0 listed, 1 numbers",
        }),
    }
}

fn read_numbered(r: &mut ByteReader<'_>, m: usize) -> Result<Vec<ReleasedSymbol>, CodecError> {
    let invalid = |detail: String| CodecError::Invalid {
        what: "numbered released symbols",
        detail,
    };
    let field = r.varint("numbered symbols scale")?;
    let scale = numbers::scale_field(field).ok_or_else(|| {
        invalid(format!(
            "scale {field} above {} (plus 32 for a comma)",
            numbers::MAX_DECIMALS
        ))
    })?;
    let count = r.count("numbered symbols ends", 1)?;
    let mut ends: Vec<i64> = Vec::with_capacity(count);
    for i in 0..count {
        let raw = r.varint("numbered symbols end")?;
        let v = match i {
            0 => Some(unzigzag(raw)),
            _ => i64::try_from(raw)
                .ok()
                .and_then(|gap| ends[i - 1].checked_add(gap)?.checked_add(1)),
        };
        ends.push(v.ok_or_else(|| invalid(format!("end {i} leaves the 64-bit range")))?);
    }
    let texts: Vec<String> = ends
        .iter()
        .map(|&v| {
            let mut t = String::new();
            numbers::render(v, scale, &mut t);
            t
        })
        .collect();
    let len = r.varint("numbered symbols bits")?;
    let mut bits = numbers::BitReader::new(r.take(len, "numbered symbols bits")?);
    let size = ends.len() as u64;
    let mut symbols = Vec::with_capacity(m);
    for g in 0..m {
        let tag = bits.get(2);
        let symbol = match tag {
            NUMBERED_SUPPRESSED => ReleasedSymbol::Suppressed,
            // Read after the bit stream, below.
            NUMBERED_LISTED => ReleasedSymbol::Suppressed,
            tag @ (NUMBERED_VALUE | NUMBERED_INTERVAL) if size > 0 => {
                let a = bits.truncated(size);
                if tag == NUMBERED_VALUE {
                    ReleasedSymbol::Value(
                        texts
                            .get(a as usize)
                            .cloned()
                            .ok_or_else(|| invalid(format!("symbol {g}: end {a} of {size}")))?,
                    )
                } else {
                    let b = bits
                        .exp_golomb()
                        .and_then(|w| a.checked_add(w))
                        .filter(|&b| b < size)
                        .ok_or_else(|| invalid(format!("symbol {g}: an interval past the ends")))?;
                    ReleasedSymbol::Interval {
                        lo: texts[a as usize].clone(),
                        hi: texts[b as usize].clone(),
                    }
                }
            }
            tag => return Err(invalid(format!("symbol {g}: tag {tag}"))),
        };
        symbols.push((tag == NUMBERED_LISTED, symbol));
    }
    bits.finish("numbered released symbols")?;
    symbols
        .into_iter()
        .map(|(listed, symbol)| if listed { read_symbol(r) } else { Ok(symbol) })
        .collect()
}

/// Each QI's released symbols in a classes blob of `qis` QIs (its head,
/// before the class table: what a writer reads to learn the hierarchy
/// nodes a row group uses).
pub fn classes_symbols(bytes: &[u8], qis: usize) -> Result<Vec<Vec<ReleasedSymbol>>, CodecError> {
    let mut r = ByteReader::new(bytes);
    r.varint_equal("QIs in the classes blob", qis as u64)?;
    (0..qis).map(|_| read_symbols(&mut r)).collect()
}

/// A classes blob of `qis` QIs with every hierarchy node renumbered:
/// QI `q`'s node `(level, node)` becomes `renumber(q, level, node)` (`None`:
/// the node has no number there, an error). Only the symbol lists are
/// coded again; the class table and the rows' classes, which number
/// symbols, not nodes, are copied as they are (`spec/FORMAT.md` §6: a
/// file's public nodes are numbered once every row group is known).
pub fn renumber_classes(
    bytes: &[u8],
    qis: usize,
    renumber: &mut dyn FnMut(usize, u32, u32) -> Option<u32>,
) -> Result<Vec<u8>, CodecError> {
    let mut r = ByteReader::new(bytes);
    r.varint_equal("QIs in the classes blob", qis as u64)?;
    let mut out = Vec::with_capacity(bytes.len());
    put_varint(&mut out, qis as u64);
    for q in 0..qis {
        let mut symbols = read_symbols(&mut r)?;
        for s in &mut symbols {
            if let ReleasedSymbol::Node { level, node } = s {
                *node = renumber(q, *level, *node).ok_or_else(|| CodecError::Invalid {
                    what: "released symbol",
                    detail: format!("node (level {level}, node {node}) has no public number"),
                })?;
            }
        }
        put_symbols(&mut out, &symbols);
    }
    out.extend_from_slice(&bytes[r.position()..]);
    Ok(out)
}

/// Reads the symbols and the class table of a classes blob (or of a
/// `CLASS_TABLE` section) of `qis` QIs over `rows` rows: a table without
/// rows' classes, and the bytes of each QI's part.
fn read_table(
    r: &mut ByteReader<'_>,
    qis: usize,
    rows: usize,
) -> Result<(ReleasedClasses, Vec<u64>), CodecError> {
    r.varint_equal("QIs in the classes blob", qis as u64)?;
    let mut column_bytes = Vec::with_capacity(qis);
    let symbols = (0..qis)
        .map(|_| {
            let start = r.position();
            let symbols = read_symbols(r);
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
    let table = ReleasedClasses {
        symbols,
        table,
        rows: Vec::new(),
    };
    Ok((table, column_bytes))
}

/// A `CLASS_TABLE` section (`spec/CODING.md` 4.4): the file's classes,
/// numbered in order of first appearance down the rows of every row
/// group, and each QI's symbols, in a classes blob's order, without rows.
pub fn encode_class_table(classes: &ReleasedClasses) -> Vec<u8> {
    table_blob(classes)
}

/// Reads a `CLASS_TABLE` section of `qis` QIs for a file of `rows` rows:
/// the table (its `rows` empty) and where its bytes go (`rows`: 0).
pub fn decode_class_table(
    bytes: &[u8],
    qis: usize,
    rows: usize,
) -> Result<(ReleasedClasses, ClassesBytes), CodecError> {
    let mut r = ByteReader::new(bytes);
    let (table, columns) = read_table(&mut r, qis, rows)?;
    r.finish("class table")?;
    Ok((table, ClassesBytes { columns, rows: 0 }))
}

/// A row group's own classes, from the file's class table: the classes its
/// rows meet and their symbols, numbered in order of first appearance down
/// the group's rows, as the group's released columns are numbered
/// (`spec/CODING.md` 4.4), each symbol given by its number in the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnClasses {
    /// `symbols[q][s]`: the table's number of the group's symbol `s` of QI `q`.
    pub symbols: Vec<Vec<u32>>,
    /// `table[q][c]`: the group's class `c`'s symbol for QI `q`.
    pub table: Vec<Vec<u32>>,
    /// Each row's class, numbered down the group's rows.
    pub rows: Vec<u32>,
}

impl OwnClasses {
    /// The own classes of a group whose rows' classes are `rows`, numbers
    /// of the file's class table `table` (one column per QI, one entry per
    /// class).
    pub fn of_group(table: &[ReleasedColumn], rows: &[u32]) -> OwnClasses {
        let columns = table.iter().map(|c| (&c.rows[..], c.symbols.len()));
        OwnClasses::of_rows(columns, rows)
    }

    /// [`OwnClasses::of_group`] of a class table given per QI as each
    /// class's symbol number and the count of symbols.
    fn of_rows<'a>(
        columns: impl Iterator<Item = (&'a [u32], usize)> + Clone,
        rows: &[u32],
    ) -> OwnClasses {
        let classes = columns.clone().next().map_or(0, |(t, _)| t.len());
        let (rows, met) = first_use(rows.iter().copied(), classes);
        let (table, symbols) = columns
            .map(|(column, symbols)| {
                let entries = met.iter().map(|&c| column[c as usize]);
                first_use(entries, symbols)
            })
            .unzip();
        OwnClasses {
            symbols,
            table,
            rows,
        }
    }
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
    let (mut classes, sizes) = decode_classes_lazily(bytes, qis, rows)?;
    if classes.rows.is_empty() {
        // One class (or no row).
        classes.rows = vec![0; rows];
    }
    Ok((classes, sizes))
}

// Long: reads the class section's fields in stored order, checking each bound before anything is
// allocated per row
/// [`decode_classes`], except that a blob of one class leaves
/// `ReleasedClasses::rows` empty (every row's class is 0). Every coding
/// codes the rows of a single class in no bits, so the blob's bytes do not
/// bound `rows`: a reader that needs only the class sizes (the claim
/// check) then holds nothing per row, and a forged row count costs nothing
/// until something asks for the rows.
pub fn decode_classes_lazily(
    bytes: &[u8],
    qis: usize,
    rows: usize,
) -> Result<(ReleasedClasses, ClassesBytes), CodecError> {
    let mut r = ByteReader::new(bytes);
    let (table, column_bytes) = read_table(&mut r, qis, rows)?;
    let classes = table.classes();
    let ReleasedClasses { symbols, table, .. } = table;
    // One class: its stream is the same for any row count (no bits per
    // row), so it is checked as the stream of one row.
    let rows = if classes == 1 { 1 } else { rows };
    let rows_start = r.position();
    let row_classes = row_classes::decode_rows(&mut r, classes, rows, 0)?;
    require_all_used(&row_classes, classes, "class")?;
    Ok((
        ReleasedClasses {
            symbols,
            table,
            rows: if classes == 1 {
                Vec::new()
            } else {
                row_classes
            },
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

    #[test]
    fn a_groups_columns_number_their_symbols_by_first_use() {
        let symbol = |s: &str| ReleasedSymbol::Value(s.to_owned());
        let columns = [
            ReleasedColumn {
                symbols: vec![symbol("a"), symbol("b"), symbol("c")],
                rows: vec![0, 1, 2, 2, 0, 1],
            },
            ReleasedColumn {
                symbols: vec![symbol("x"), symbol("y")],
                rows: vec![0, 0, 1, 1, 1, 0],
            },
        ];
        let classes = ReleasedClasses::from_columns(&columns);
        let part = classes.group_columns(2..5);
        assert_eq!(part[0].symbols, vec![symbol("c"), symbol("a")]);
        assert_eq!(part[0].rows, vec![0, 0, 1]);
        assert_eq!(part[1].symbols, vec![symbol("y")]);
        assert_eq!(part[1].rows, vec![0, 0, 0]);
        let parts = [classes.group_columns(0..3), classes.group_columns(3..6)];
        for (q, column) in columns.iter().enumerate() {
            let whole = ReleasedColumn::concat(parts.iter().map(|p| &p[q]));
            assert_eq!(&whole, column);
        }
    }

    /// The fast codings win unless an adaptive one saves more than 1/32
    /// of the smallest of them.
    #[test]
    fn rows_coding_prefers_the_fast_codings() {
        assert!(!adaptive_wins(990, 970));
        assert!(adaptive_wins(990, 950));
        assert!(adaptive_wins(1000, 968));
        assert!(!adaptive_wins(1000, 969));
    }

    /// spec/CODING.md 4.2's vector of coding 4: rows `0 1 0` of two
    /// classes code the symbols `2 2 0` over three.
    #[test]
    fn next_spec_vector() {
        let classes = ReleasedClasses {
            symbols: vec![vec![
                ReleasedSymbol::Suppressed,
                ReleasedSymbol::Value("a".into()),
            ]],
            table: vec![vec![0, 1]],
            rows: vec![0, 1, 0],
        };
        let blob = encode_classes_as(&classes, RowsCoding::Next).expect("codes");
        let rows = &blob[table_blob(&classes).len()..];
        assert_eq!(rows, [0x04, 0x37, 0x00], "{rows:02x?}");
        let (back, _) = decode_classes(&blob, 1, 3).expect("decodes");
        assert_eq!(back, classes);
    }

    /// Rows in random order over many classes: coding 4 (next) is smaller
    /// than Huffman by the opening rows' class numbers, and decodes to the
    /// rows; a forged symbol is refused.
    #[test]
    fn next_codes_opening_rows_in_a_few_bits() {
        let mut state = 7u64;
        let mut rows: Vec<u32> = (0..20_000)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 33) as u32 % 2_000
            })
            .collect();
        // Classes in order of first appearance.
        let mut number = vec![u32::MAX; 2_000];
        let mut next = 0;
        for r in &mut rows {
            if number[*r as usize] == u32::MAX {
                number[*r as usize] = next;
                next += 1;
            }
            *r = number[*r as usize];
        }
        let classes = ReleasedClasses {
            symbols: vec![vec![ReleasedSymbol::Suppressed]],
            table: vec![vec![0; next as usize]],
            rows,
        };
        let blob = encode_classes_as(&classes, RowsCoding::Next).expect("codes");
        let huffman = encode_classes_as(&classes, RowsCoding::Huffman).expect("codes");
        assert_eq!(blob[table_blob(&classes).len()], ROWS_NEXT);
        // 2,000 of the 20,000 rows open a class: each pays the next
        // class's code (3 bits) instead of a class's (11 bits).
        assert!(
            blob.len() + 1_500 < huffman.len(),
            "{} {}",
            blob.len(),
            huffman.len()
        );
        let (decoded, _) = decode_classes(&blob, 1, classes.rows.len()).expect("decodes");
        assert_eq!(decoded.rows, classes.rows);
        let mut symbols = vec![next, 0, next, 5];
        assert!(
            next_classes(&mut symbols, next, 0).is_err(),
            "class 5 before it opened"
        );
        let mut symbols = vec![next, 0, next, 1];
        next_classes(&mut symbols, next, 0).expect("valid");
        assert_eq!(symbols, [0, 0, 1, 1]);
        let mut symbols = vec![next, next];
        assert!(
            next_classes(&mut symbols, 1, 0).is_err(),
            "opens a class past the last"
        );
    }

    /// Rows sorted by class (an export ordered by its columns) take coding
    /// 3, runs, at a few bits a run where rANS pays the classes' entropy on
    /// every row; the same rows shuffled do not; both decode to their rows.
    #[test]
    fn sorted_rows_are_coded_as_runs() {
        let column = |rows: Vec<u32>, symbols: u32| ReleasedColumn {
            symbols: (0..symbols)
                .map(|s| ReleasedSymbol::Value(s.to_string()))
                .collect(),
            rows,
        };
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut rows: Vec<u32> = (0..20_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 300) as u32
            })
            .collect();
        let shuffled = ReleasedClasses::from_columns(&[column(rows.clone(), 300)]);
        rows.sort_unstable();
        let sorted = ReleasedClasses::from_columns(&[column(rows, 300)]);
        let (a, b) = (encode_classes(&sorted), encode_classes(&shuffled));
        let coding = |bytes: &[u8], c: &ReleasedClasses| bytes[table_blob(c).len()];
        assert_eq!(coding(&a, &sorted), ROWS_RUNS);
        assert_ne!(coding(&b, &shuffled), ROWS_RUNS);
        assert!(
            a.len() * 4 < b.len(),
            "sorted {} B, shuffled {} B",
            a.len(),
            b.len()
        );
        assert_eq!(decode_classes(&a, 1, 20_000).unwrap().0, sorted);
        assert_eq!(decode_classes(&b, 1, 20_000).unwrap().0, shuffled);
        // Cut anywhere, refused.
        for cut in table_blob(&sorted).len()..a.len() {
            assert!(
                decode_classes(&a[..cut], 1, 20_000).is_err(),
                "cut at {cut}"
            );
        }
    }

    /// Intervals of numbers, numbers and `*` are stored as positions among
    /// their sorted ends, in fewer bytes than as text, and read back as the
    /// same symbols, the others (a non-canonical `1.5` among two-decimal
    /// numbers, an empty value, a node, an interval whose ends are
    /// reversed) listed after them; a list without a number is listed.
    #[test]
    fn numeric_symbols_are_numbered_and_read_back() {
        let interval = |lo: &str, hi: &str| ReleasedSymbol::Interval {
            lo: lo.into(),
            hi: hi.into(),
        };
        let numbered: Vec<ReleasedSymbol> = (0..300i64)
            .map(|i| match i % 7 {
                0 => ReleasedSymbol::Suppressed,
                1 => ReleasedSymbol::Value(format!("{}.{:02}", i - 150, i % 100)),
                _ => interval(
                    &format!("-{}.{:02}", i, i % 100),
                    &format!("{}.{:02}", 1000 + i * 3, (i * 7) % 100),
                ),
            })
            .collect();
        let mut odd = numbered.clone();
        odd.push(ReleasedSymbol::Value("1.5".into()));
        odd.push(ReleasedSymbol::Value(String::new()));
        odd.push(ReleasedSymbol::Node { level: 1, node: 0 });
        odd.push(interval("-3.00", "-4.00"));
        let words: Vec<ReleasedSymbol> = ["a", "", "b"]
            .map(|t| ReleasedSymbol::Value(t.into()))
            .to_vec();
        for (symbols, kind) in [
            (&numbered, SYMBOLS_NUMBERS),
            (&odd, SYMBOLS_NUMBERS),
            (&words, SYMBOLS_LISTED),
        ] {
            let mut out = Vec::new();
            put_symbols(&mut out, symbols);
            let mut r = ByteReader::new(&out);
            assert_eq!(read_symbols(&mut r).unwrap(), *symbols);
            r.finish("symbols").unwrap();
            let mut head = ByteReader::new(&out);
            head.varint("count").unwrap();
            assert_eq!(head.byte("kind").unwrap(), kind);
            if kind == SYMBOLS_NUMBERS {
                let mut listed = Vec::new();
                for s in symbols.iter() {
                    put_symbol(&mut listed, s);
                }
                assert!(
                    out.len() * 2 < listed.len(),
                    "{} vs {}",
                    out.len(),
                    listed.len()
                );
            }
        }
        // Every truncation of a numbered list is an error, never a panic.
        let mut out = Vec::new();
        put_symbols(&mut out, &numbered);
        for cut in 0..out.len() {
            assert!(
                read_symbols(&mut ByteReader::new(&out[..cut])).is_err(),
                "cut {cut}"
            );
        }
    }

    /// One class codes its rows in no bits in every coding: read lazily,
    /// any row count decodes without a row held (2^31 here), the same blob
    /// read eagerly gives every row class 0, and two classes over rows the
    /// stream cannot back are refused.
    #[test]
    fn one_class_is_read_without_its_rows() {
        let symbol = ReleasedSymbol::Value("x".into());
        let column = |rows: Vec<u32>, symbols: usize| ReleasedColumn {
            symbols: vec![symbol.clone(); symbols],
            rows,
        };
        let one = ReleasedClasses::from_columns(&[column(vec![0; 6], 1)]);
        // Coding 4 spends a bit a row on one class (the next class, then
        // class 0): the writer never picks it there.
        for coding in RowsCoding::ALL
            .into_iter()
            .filter(|&c| c != RowsCoding::Next)
        {
            let bytes = encode_classes_as(&one, coding).unwrap();
            let (lazy, _) = decode_classes_lazily(&bytes, 1, 1 << 31).unwrap();
            assert!(lazy.rows.is_empty() && lazy.classes() == 1, "{coding:?}");
            assert_eq!(decode_classes(&bytes, 1, 6).unwrap().0, one, "{coding:?}");
        }
        let two = ReleasedClasses::from_columns(&[column(vec![0, 1, 0, 1, 0, 1], 2)]);
        for coding in RowsCoding::ALL {
            let bytes = encode_classes_as(&two, coding).unwrap();
            assert!(
                decode_classes_lazily(&bytes, 1, 1 << 31).is_err(),
                "{coding:?}"
            );
        }
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
