//! Released QI columns: their symbols, as the QI classes blob stores them
//! (`spec/CODING.md` §4.1), and paper 004's Algorithm 2, which codes one
//! column alone: a column with a single distinct released value as that
//! value and its count, any other as its distinct released symbols and a
//! canonical Huffman code over them. No file holds Algorithm 2's blobs (the
//! QIs are coded together by class, §4.2); `tools/coding_sizes` measures
//! them as the paper's public part.

use rustc_hash::FxHashMap;

use super::CodecError;
use super::bytes::{ByteReader, put_coded, put_string, put_varint};
use crate::cell::{Cell, SUPPRESSED};
use crate::dataset::QuasiIdentifier;
use crate::dictionary::Dictionary;
use crate::hierarchy::NodeLabels;
use crate::release::QiCells;
use crate::table::Column;

/// Layout id of a released column blob: one distinct symbol and its count.
const LAYOUT_SINGLE: u8 = 0;
/// Layout id: the symbol table, then the Huffman-coded rows.
const LAYOUT_HUFFMAN: u8 = 1;

const TAG_VALUE: u8 = 0;
const TAG_NODE: u8 = 1;
const TAG_INTERVAL: u8 = 2;
const TAG_SUPPRESSED: u8 = 3;

/// One distinct released cell, self-contained: the text of a raw value or of
/// an interval's ends, a hierarchy node by level and node number (its label
/// is in the hierarchy, which the public part stores), or `*`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ReleasedSymbol {
    /// A value released as it is.
    Value(String),
    /// A hierarchy node above the leaves.
    Node {
        /// Its level in the hierarchy the public part stores.
        level: u32,
        /// Its index at that level.
        node: u32,
    },
    /// A numeric interval, ends as texts of the column.
    Interval {
        /// The smallest value it covers.
        lo: String,
        /// The largest value it covers.
        hi: String,
    },
    /// `*`: the cell is suppressed.
    Suppressed,
}

impl ReleasedSymbol {
    /// The label the release shows (as [`Cell::label`] prints it).
    pub fn label<'a, H: NodeLabels + ?Sized>(
        &'a self,
        hierarchy: Option<&'a H>,
    ) -> Result<std::borrow::Cow<'a, str>, CodecError> {
        use std::borrow::Cow;
        Ok(match self {
            ReleasedSymbol::Value(v) => Cow::Borrowed(v),
            ReleasedSymbol::Node { level, node } => {
                Cow::Borrowed(node_label(hierarchy, *level, *node)?)
            }
            ReleasedSymbol::Interval { lo, hi } => Cow::Owned(format!("{lo}~{hi}")),
            ReleasedSymbol::Suppressed => Cow::Borrowed(SUPPRESSED),
        })
    }
}

/// The label of a node, checked against the hierarchy (a node strictly
/// between the leaves and the root).
pub(crate) fn node_label<H: NodeLabels + ?Sized>(
    hierarchy: Option<&H>,
    level: u32,
    node: u32,
) -> Result<&str, CodecError> {
    let h = hierarchy.ok_or_else(|| CodecError::Invalid {
        what: "released symbol",
        detail: format!("node (level {level}, node {node}) in a column without a hierarchy"),
    })?;
    if level == 0 || level as usize >= h.height() {
        return Err(CodecError::IndexOutOfRange {
            what: "released node level",
            index: u64::from(level),
            len: h.height() as u64,
        });
    }
    if node as usize >= h.nodes(level as usize) {
        return Err(CodecError::IndexOutOfRange {
            what: "released node",
            index: u64::from(node),
            len: h.nodes(level as usize) as u64,
        });
    }
    Ok(h.label(level as usize, node))
}

/// A QI's released rows as the decoders of the private part read them:
/// its symbols and each row's, given either as a list (a released column)
/// or through the row's class. A `QI_CLASSES` section holds one class per
/// row for every QI; a restore hands the decoders those classes and each
/// QI's column of the class table rather than building a column of
/// symbols per QI (nine passes over the rows on Adult, 0.16 ms on the
/// opening thread).
#[derive(Debug, Clone, Copy)]
pub struct ReleasedRows<'a> {
    /// The distinct released cells.
    pub symbols: &'a [ReleasedSymbol],
    /// Each row's symbol, or its class when `class_symbols` is given.
    pub rows: &'a [u32],
    /// Each class's symbol.
    pub class_symbols: Option<&'a [u32]>,
}

impl ReleasedRows<'_> {
    /// Each row's symbol: the rows themselves, or looked up by class.
    pub fn row_symbols(&self) -> std::borrow::Cow<'_, [u32]> {
        match self.class_symbols {
            None => self.rows.into(),
            Some(of) => self.rows.iter().map(|&c| of[c as usize]).collect(),
        }
    }

    /// The rows as a released column, each row's symbol listed.
    pub fn to_column(&self) -> ReleasedColumn {
        ReleasedColumn {
            symbols: self.symbols.to_vec(),
            rows: self.row_symbols().into_owned(),
        }
    }
}

/// A released QI column: its distinct symbols and each row's index into them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleasedColumn {
    /// The distinct released cells, in order of first appearance.
    pub symbols: Vec<ReleasedSymbol>,
    /// Each row's index into `symbols`.
    pub rows: Vec<u32>,
}

impl ReleasedColumn {
    /// The column of `cells` (one per row), symbols in order of first
    /// appearance. `dict` is the QI column's dictionary.
    pub fn from_cells(qi: &QuasiIdentifier, dict: &Dictionary, cells: &[Cell]) -> ReleasedColumn {
        ReleasedColumn::of_rows(qi, dict, cells, (0..cells.len() as u32).collect())
    }

    /// The column of a release's QI cells ([`QiCells`]): each palette
    /// entry's symbol found once.
    pub fn from_palette(
        qi: &QuasiIdentifier,
        dict: &Dictionary,
        cells: &QiCells,
    ) -> ReleasedColumn {
        ReleasedColumn::of_rows(qi, dict, &cells.palette, cells.rows.to_vec())
    }

    /// The column whose row `r` holds `palette[rows[r]]`; `rows` becomes
    /// the symbols' indices in place.
    fn of_rows(
        qi: &QuasiIdentifier,
        dict: &Dictionary,
        palette: &[Cell],
        mut rows: Vec<u32>,
    ) -> ReleasedColumn {
        // Values and hierarchy nodes find their symbol in an array (one
        // slot per dictionary code, then per node of each level below the
        // root, then one for suppressed cells); intervals, in a map. Level
        // `l`'s nodes have the slots `bounds[l] .. bounds[l + 1]`.
        let mut bounds = vec![dict.len()];
        if let Some(h) = &qi.hierarchy {
            for level in 0..h.height() {
                bounds.push(bounds[level] + h.nodes(level));
            }
        }
        let suppressed = bounds[bounds.len() - 1];
        let mut dense = vec![u32::MAX; suppressed + 1];
        let slot = |cell: &Cell| match *cell {
            Cell::Value(c) if (c as usize) < dict.len() => Some(c as usize),
            Cell::Node { level, node } => {
                let end = *bounds.get(level as usize + 1)?;
                let s = bounds[level as usize] + node as usize;
                (s < end).then_some(s)
            }
            Cell::Suppressed => Some(suppressed),
            _ => None,
        };
        let mut index: FxHashMap<Cell, u32> = FxHashMap::default();
        let mut symbols = Vec::new();
        let mut symbol_of = |cell: &Cell| {
            symbols.push(match *cell {
                Cell::Value(c) => ReleasedSymbol::Value(dict.value(c).to_owned()),
                Cell::Node { level, node } => ReleasedSymbol::Node { level, node },
                Cell::Interval { lo, hi } => ReleasedSymbol::Interval {
                    lo: dict.value(lo).to_owned(),
                    hi: dict.value(hi).to_owned(),
                },
                Cell::Suppressed => ReleasedSymbol::Suppressed,
            });
            symbols.len() as u32 - 1
        };
        let mut of_palette = vec![u32::MAX; palette.len()];
        for p in &mut rows {
            let symbol = &mut of_palette[*p as usize];
            if *symbol == u32::MAX {
                let cell = &palette[*p as usize];
                *symbol = match slot(cell) {
                    Some(s) => {
                        if dense[s] == u32::MAX {
                            dense[s] = symbol_of(cell);
                        }
                        dense[s]
                    }
                    None => *index.entry(*cell).or_insert_with(|| symbol_of(cell)),
                };
            }
            *p = *symbol;
        }
        ReleasedColumn { symbols, rows }
    }

    /// The column of labels (as `Release::qi_column` prints them). Fails on
    /// a node the hierarchy does not have (a corrupt or mismatched file).
    pub fn to_column<H: NodeLabels + ?Sized>(
        &self,
        name: &str,
        hierarchy: Option<&H>,
    ) -> Result<Column, CodecError> {
        let mut dict = Dictionary::new();
        let codes_of: Vec<u32> = self
            .symbols
            .iter()
            .map(|s| Ok(dict.intern(&s.label(hierarchy)?)))
            .collect::<Result<_, CodecError>>()?;
        let codes = self
            .rows
            .iter()
            .map(|&r| {
                codes_of
                    .get(r as usize)
                    .copied()
                    .ok_or(CodecError::IndexOutOfRange {
                        what: "released row",
                        index: u64::from(r),
                        len: codes_of.len() as u64,
                    })
            })
            .collect::<Result<_, CodecError>>()?;
        Ok(Column {
            name: name.to_owned(),
            dict,
            codes,
        })
    }

    /// The column as the decoders read it.
    pub fn rows_view(&self) -> ReleasedRows<'_> {
        ReleasedRows {
            symbols: &self.symbols,
            rows: &self.rows,
            class_symbols: None,
        }
    }

    /// The rows of `parts` one after the other, symbols merged (in order
    /// of first appearance).
    pub fn concat<'a>(parts: impl Iterator<Item = &'a ReleasedColumn>) -> ReleasedColumn {
        let mut index: FxHashMap<&'a ReleasedSymbol, u32> = FxHashMap::default();
        let mut all = ReleasedColumn {
            symbols: Vec::new(),
            rows: Vec::new(),
        };
        for part in parts {
            let map: Vec<u32> = part
                .symbols
                .iter()
                .map(|s| {
                    *index.entry(s).or_insert_with(|| {
                        all.symbols.push(s.clone());
                        all.symbols.len() as u32 - 1
                    })
                })
                .collect();
            all.rows.extend(part.rows.iter().map(|&r| map[r as usize]));
        }
        all
    }

    /// How many rows carry each symbol.
    pub fn counts(&self) -> Vec<u64> {
        let mut c = vec![0u64; self.symbols.len()];
        for &r in &self.rows {
            c[r as usize] += 1;
        }
        c
    }
}

pub(super) fn put_symbol(out: &mut Vec<u8>, s: &ReleasedSymbol) {
    match s {
        ReleasedSymbol::Value(v) => {
            out.push(TAG_VALUE);
            put_string(out, v);
        }
        ReleasedSymbol::Node { level, node } => {
            out.push(TAG_NODE);
            put_varint(out, u64::from(*level));
            put_varint(out, u64::from(*node));
        }
        ReleasedSymbol::Interval { lo, hi } => {
            out.push(TAG_INTERVAL);
            put_string(out, lo);
            put_string(out, hi);
        }
        ReleasedSymbol::Suppressed => out.push(TAG_SUPPRESSED),
    }
}

pub(super) fn read_symbol(r: &mut ByteReader<'_>) -> Result<ReleasedSymbol, CodecError> {
    let what = "released symbol";
    Ok(match r.byte(what)? {
        TAG_VALUE => ReleasedSymbol::Value(r.string("released value")?.to_owned()),
        TAG_NODE => {
            let level = r.varint("released node level")?;
            let node = r.varint("released node")?;
            ReleasedSymbol::Node {
                level: u32::try_from(level).map_err(|_| CodecError::IndexOutOfRange {
                    what: "released node level",
                    index: level,
                    len: u64::from(u32::MAX),
                })?,
                node: u32::try_from(node).map_err(|_| CodecError::IndexOutOfRange {
                    what: "released node",
                    index: node,
                    len: u64::from(u32::MAX),
                })?,
            }
        }
        TAG_INTERVAL => ReleasedSymbol::Interval {
            lo: r.string("interval start")?.to_owned(),
            hi: r.string("interval end")?.to_owned(),
        },
        TAG_SUPPRESSED => ReleasedSymbol::Suppressed,
        id => {
            return Err(CodecError::UnknownLayout {
                what,
                id,
                known: "0 value, 1 node, 2 interval, 3 suppressed",
            });
        }
    })
}

/// Paper 004's Algorithm 2 blob of one released column (`spec/CODING.md`
/// §4.1, informative).
pub fn encode_released(col: &ReleasedColumn) -> Vec<u8> {
    let mut out = Vec::new();
    if col.symbols.len() == 1 {
        out.push(LAYOUT_SINGLE);
        put_symbol(&mut out, &col.symbols[0]);
        put_varint(&mut out, col.rows.len() as u64);
        return out;
    }
    out.push(LAYOUT_HUFFMAN);
    put_varint(&mut out, col.symbols.len() as u64);
    for s in &col.symbols {
        put_symbol(&mut out, s);
    }
    put_coded(&mut out, col.symbols.len(), &col.rows);
    out
}

/// Decodes a blob of [`encode_released`] holding `rows` rows.
pub fn decode_released(bytes: &[u8], rows: usize) -> Result<ReleasedColumn, CodecError> {
    let mut r = ByteReader::new(bytes);
    let col = match r.byte("released column layout")? {
        LAYOUT_SINGLE => {
            let symbol = read_symbol(&mut r)?;
            r.varint_equal("released value count (rows)", rows as u64)?;
            ReleasedColumn {
                symbols: vec![symbol],
                rows: vec![0; rows],
            }
        }
        LAYOUT_HUFFMAN => {
            let m = r.count("released symbol count", 1)?;
            let symbols = (0..m)
                .map(|_| read_symbol(&mut r))
                .collect::<Result<Vec<_>, _>>()?;
            let rows = r.coded("released rows", m, rows)?;
            ReleasedColumn { symbols, rows }
        }
        id => {
            return Err(CodecError::UnknownLayout {
                what: "released column layout",
                id,
                known: "0 single value, 1 Huffman",
            });
        }
    };
    r.finish("released column")?;
    Ok(col)
}
