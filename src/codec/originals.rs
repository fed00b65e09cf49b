//! The private part's QI columns: what turns the released QI columns back
//! into the original ones (`spec/CODING.md`, "Original QI columns").
//!
//! Every mode shares the frame (mode id, QI count, one length-prefixed
//! section per QI) and each section starts with the QI's *value table* `V`:
//! the original distinct texts, either the hierarchy's leaves (stored in the
//! public part already, so they cost nothing here) or a dictionary. A row's
//! original is then an index into `V`, coded relative to its released symbol:
//!
//! - [`DiffMode::Paper`]: paper 004's difference coding exactly as
//!   `ALGORITHMS.md` states it, kept for the reproduction of its figures;
//! - [`DiffMode::PerValue`]: no bits for a cell released unchanged, and one
//!   Huffman code per released value over the values it covers;
//! - [`DiffMode::Context`]: no bits for unchanged cells, each other
//!   value range-coded among those its released value covers, conditioned on
//!   the released value and the originals of up to two earlier QIs of the
//!   row. On Adult (k = 5, Datafly or Incognito) it takes 50,953 B against
//!   61,497 B for `paper` and 53,597 B for the order-0 bound H(x | g)
//!   (`tools/src/bin/coding_sizes.rs`), but its adaptive models decode bit
//!   by bit, about three times slower than a lookup a row;
//! - [`DiffMode::PerValueRans`] (default, `per_value_rans`): per-value
//!   mode's alphabets, a static frequency table per released value (and
//!   per context of up to two other columns, original or released, where
//!   it pays: `contexts`) and the rows in rANS: 50,041 B on the same
//!   release, decoded a lookup a coded row, as fast as per-value mode and
//!   ten times context mode.

// Long: the frame and the paper, per-value and context modes share this file's private value-table
// and row types; modes with helpers of their own (per_value_rans, offsets) live in originals/
// already

use bitstream_io::BitWrite;
use rustc_hash::FxHashMap;

use super::CodecError;
use super::bytes::{ByteReader, put_coded, put_varint, unzigzag, zigzag};
use super::parents::{self, CodedRows, ContextKeys};
use super::plain::{canonical_integer, put_dictionary, read_dictionary};
use super::range::{
    Block, Models, RangeDecoder, RangeEncoder, decode_symbol, encode_symbol, width,
};
use super::released::{ReleasedColumn, ReleasedRows, ReleasedSymbol, node_label};
use crate::config::ValueType;
use crate::dictionary::Dictionary;
use crate::hierarchy::Hierarchy;
use crate::huffman::{
    self, BitWindow, Decoder, HuffmanCode, HuffmanError, LOOKUPS_PER_TOP_UP, MISS, TableSet,
};
use crate::table::Column;

pub(super) mod contexts;
mod frequencies;
mod offsets;
mod per_value_rans;
mod widths;

use contexts::Parent;

/// How the original QI columns are coded against the release. The id is
/// stored in the blob, so decoding needs no mode argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DiffMode {
    /// Paper 004's differences (id 0).
    Paper,
    /// A code per released value, nothing for unchanged cells (id 1).
    PerValue,
    /// Nothing for unchanged cells; each other cell's value among those its
    /// released value covers, range-coded under adaptive models conditioned
    /// on the released value and the originals of up to two earlier QIs of
    /// the same row (id 2).
    Context,
    /// Per-value mode's alphabets with a static frequency table per
    /// released value and the rows coded with rANS (id 3): within a table
    /// of the order-0 entropy, decoded a lookup a row.
    #[default]
    PerValueRans,
}

impl DiffMode {
    /// Every mode, in id order.
    pub const ALL: &'static [DiffMode] = &[
        DiffMode::Paper,
        DiffMode::PerValue,
        DiffMode::Context,
        DiffMode::PerValueRans,
    ];
    const KNOWN: &'static str = "0 paper, 1 per-value, 2 context, 3 per-value-rans";

    /// The id stored in the blob.
    pub fn id(self) -> u8 {
        match self {
            DiffMode::Paper => 0,
            DiffMode::PerValue => 1,
            DiffMode::Context => 2,
            DiffMode::PerValueRans => 3,
        }
    }

    /// The mode a blob's id names; a newer id is an error, not a guess.
    pub fn from_id(id: u8) -> Result<DiffMode, CodecError> {
        DiffMode::ALL
            .iter()
            .copied()
            .find(|m| m.id() == id)
            .ok_or(CodecError::UnsupportedMode {
                id,
                known: DiffMode::KNOWN,
            })
    }

    /// The name users pass to `--mode`.
    pub fn name(self) -> &'static str {
        match self {
            DiffMode::Paper => "paper",
            DiffMode::PerValue => "per-value",
            DiffMode::Context => "context",
            DiffMode::PerValueRans => "per-value-rans",
        }
    }
}

impl std::str::FromStr for DiffMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        DiffMode::ALL
            .iter()
            .copied()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                let known: Vec<_> = DiffMode::ALL.iter().map(|m| m.name()).collect();
                format!("expected one of {}, found {s:?}", known.join(", "))
            })
    }
}

impl std::fmt::Display for DiffMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An original QI column with what its coding needs.
#[derive(Debug, Clone, Copy)]
pub struct QiOriginal<'a> {
    /// The column name (for messages and `inspect`).
    pub name: &'a str,
    /// How its values are read.
    pub value_type: ValueType,
    /// Its hierarchy (categorical QIs).
    pub hierarchy: Option<&'a Hierarchy>,
    /// The original column.
    pub column: &'a Column,
}

impl<'a> QiOriginal<'a> {
    /// Every QI of `data`, in QI order, as `encode_originals` takes them.
    pub fn of_dataset(data: &'a crate::dataset::Dataset) -> Vec<QiOriginal<'a>> {
        data.qis
            .iter()
            .map(|qi| QiOriginal {
                name: &qi.name,
                value_type: qi.value_type,
                hierarchy: qi.hierarchy.as_ref(),
                column: &data.table.columns[qi.column],
            })
            .collect()
    }
}

/// What decoding needs of a QI (all of it public).
#[derive(Debug, Clone, Copy)]
pub struct QiSchema<'a> {
    /// The column name (for messages).
    pub name: &'a str,
    /// How its values are read.
    pub value_type: ValueType,
    /// Its hierarchy (categorical QIs).
    pub hierarchy: Option<&'a Hierarchy>,
}

/// The blob and how many of its bytes each QI takes (for `inspect`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedOriginals {
    /// The blob.
    pub bytes: Vec<u8>,
    /// Each QI's name and its share of the blob in bytes.
    pub column_bytes: Vec<(String, u64)>,
}

/// Value-table kind: the hierarchy's leaves, in file order.
const VALUES_LEAVES: u8 = 0;
/// Value-table kind: a dictionary (`put_dictionary`).
const VALUES_DICTIONARY: u8 = 1;
/// Value-table kind of a per-value-rans section that has none: a numeric
/// QI's rows as offsets inside their intervals (`offsets`).
const VALUES_OFFSETS: u8 = 2;

/// Rule of a released symbol: the cell is its original (no delta).
const RULE_UNCHANGED: u8 = 0;
/// Rule: the delta is `x - a` for the interval `[a, b]`.
const RULE_INTERVAL: u8 = 1;
/// Rule: the delta is a rank in the symbol's dictionary.
const RULE_RANK: u8 = 2;
/// Per-value rule: a code over the values the symbol covers.
const RULE_COVERED: u8 = 2;
/// Per-value rule: a code over the whole value table.
const RULE_ANY: u8 = 3;

/// The original distinct texts of one QI and each row's index into them.
struct ValueTable {
    texts: Vec<String>,
    /// Each row's index into `texts`.
    rows: Vec<u32>,
    /// Whether `texts` are the hierarchy's leaves.
    leaves: bool,
}

impl ValueTable {
    /// Builds `V` for an original column and writes it.
    fn build(qi: &QiOriginal<'_>, out: &mut Vec<u8>) -> ValueTable {
        let col = qi.column;
        let leaves: Option<Vec<u32>> = qi
            .hierarchy
            .and_then(|h| col.dict.values().map(|v| h.leaf(v)).collect());
        let (texts, index_of_code): (Vec<String>, Vec<u32>) = match (qi.hierarchy, leaves) {
            (Some(h), Some(leaves)) => {
                out.push(VALUES_LEAVES);
                let texts = (0..h.leaf_count() as u32)
                    .map(|l| h.label(0, l).to_owned())
                    .collect();
                (texts, leaves)
            }
            _ => {
                out.push(VALUES_DICTIONARY);
                // The values rows use; numbers ascending (then text) for a
                // numeric QI, first use otherwise.
                let mut used = vec![false; col.dict.len()];
                for &c in &col.codes {
                    used[c as usize] = true;
                }
                let mut codes: Vec<u32> = (0..col.dict.len() as u32)
                    .filter(|&c| used[c as usize])
                    .collect();
                if qi.value_type.is_numeric() {
                    codes.sort_by(|&a, &b| {
                        let (ta, tb) = (col.dict.value(a), col.dict.value(b));
                        number(ta)
                            .partial_cmp(&number(tb))
                            .unwrap_or(std::cmp::Ordering::Equal)
                            .then_with(|| ta.cmp(tb))
                    });
                }
                let texts_in_order: Vec<&str> = codes.iter().map(|&c| col.dict.value(c)).collect();
                let stored = put_dictionary(out, &texts_in_order, true);
                let mut index_of_code = vec![u32::MAX; col.dict.len()];
                for (pos, &i) in stored.iter().enumerate() {
                    index_of_code[codes[i as usize] as usize] = pos as u32;
                }
                let texts = stored
                    .iter()
                    .map(|&i| texts_in_order[i as usize].to_owned())
                    .collect();
                (texts, index_of_code)
            }
        };
        let rows = col
            .codes
            .iter()
            .map(|&c| index_of_code[c as usize])
            .collect();
        let leaves = out.first() == Some(&VALUES_LEAVES);
        ValueTable {
            texts,
            rows,
            leaves,
        }
    }

    /// Reads `V`: its texts, and whether they are the hierarchy's leaves;
    /// `None` for a section of offsets, which has no value table.
    fn read(
        r: &mut ByteReader<'_>,
        qi: &QiSchema<'_>,
    ) -> Result<Option<(Vec<String>, bool)>, CodecError> {
        Ok(Some(match r.byte("value table kind")? {
            VALUES_LEAVES => {
                let h = qi.hierarchy.ok_or_else(|| CodecError::Invalid {
                    what: "value table",
                    detail: format!(
                        "QI {:?} refers to hierarchy leaves but has no hierarchy",
                        qi.name
                    ),
                })?;
                (
                    (0..h.leaf_count() as u32)
                        .map(|l| h.label(0, l).to_owned())
                        .collect(),
                    true,
                )
            }
            VALUES_DICTIONARY => (read_dictionary(r)?, false),
            VALUES_OFFSETS => return Ok(None),
            id => {
                return Err(CodecError::UnknownLayout {
                    what: "value table kind",
                    id,
                    known: "0 hierarchy leaves, 1 dictionary, 2 offsets",
                });
            }
        }))
    }
}

fn number(t: &str) -> Option<f64> {
    t.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The start `a` of a released symbol read as an integer interval `[a, b]`:
/// an interval cell, or (numeric QI) a hierarchy node labelled `a-b` or
/// `a~b` (ARX's `20-24`, `0~4`).
fn interval_start(
    symbol: &ReleasedSymbol,
    value_type: ValueType,
    hierarchy: Option<&Hierarchy>,
) -> Option<i64> {
    match symbol {
        ReleasedSymbol::Interval { lo, .. } => lo.trim().parse().ok(),
        ReleasedSymbol::Node { level, node } if value_type.is_numeric() => {
            parse_interval_label(node_label(hierarchy, *level, *node).ok()?)
        }
        _ => None,
    }
}

/// `a` of a label `a-b` / `a~b` (each end an optionally negative integer).
pub(super) fn parse_interval_label(label: &str) -> Option<i64> {
    let s = label.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let split = body.find(['-', '~'])?;
    let (a, rest) = body.split_at(split);
    let b = rest[1..].trim();
    let a = a.trim();
    if a.is_empty() || !a.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let b_digits = b.strip_prefix('-').unwrap_or(b);
    if b_digits.is_empty() || !b_digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let a: i64 = a.parse().ok()?;
    Some(if neg { -a } else { a })
}

/// Per released symbol: the original values its rows carry and how many
/// rows carry each, values ascending.
fn value_counts(released: &ReleasedColumn, values: &ValueTable) -> Vec<Vec<(u32, u64)>> {
    let (m, v) = (released.symbols.len(), values.texts.len());
    let pairs = released.rows.iter().zip(&values.rows);
    let dense = (released.rows.len() * 4).max(1 << 16);
    if m.checked_mul(v).is_some_and(|cells| cells <= dense) {
        // A symbols x values count matrix: no hashing per row.
        let mut matrix = vec![0u64; m * v];
        for (&g, &x) in pairs {
            matrix[g as usize * v + x as usize] += 1;
        }
        return (0..m)
            .map(|g| {
                (0..v as u32)
                    .zip(&matrix[g * v..(g + 1) * v])
                    .filter(|&(_, &n)| n > 0)
                    .map(|(x, &n)| (x, n))
                    .collect()
            })
            .collect();
    }
    let mut counts: Vec<FxHashMap<u32, u64>> = vec![FxHashMap::default(); m];
    for (&g, &x) in pairs {
        *counts[g as usize].entry(x).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|c| {
            let mut c: Vec<(u32, u64)> = c.into_iter().collect();
            c.sort_unstable();
            c
        })
        .collect()
}

/// Values by descending count, ties by value-table order (the hierarchy's
/// leaf order, or ascending numbers).
fn ranked(counts: &[(u32, u64)]) -> Vec<u32> {
    let mut v = counts.to_vec();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v.into_iter().map(|(x, _)| x).collect()
}

/// Below this many QI cells, sections are coded on the calling thread
/// (spawning costs more than it saves).
const PARALLEL_CELLS: usize = 1 << 16;

/// The machine's cores, asked once: `available_parallelism` reads the
/// cgroup quota files each time (about 40 us, more than a section of Adult
/// takes to decode).
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// How many threads code the QI sections: one below [`PARALLEL_CELLS`],
/// else the machine's cores, at most one per QI.
fn section_threads(qis: usize, rows: usize) -> usize {
    let cells = qis * rows;
    if cells >= PARALLEL_CELLS {
        cores().min(qis)
    } else {
        1
    }
}

/// A guess at the relative time to code QI `q`'s section (per row), for
/// the order in which threads take the sections. In context mode, measured
/// on Adult: an estimate of a parent candidate costs about a fifth of range
/// coding one bit of every row; QI `q` weighs `1 + q + min(3, q - 1)`
/// candidates and its values take up to `width(|V|)` bits.
fn section_cost(mode: DiffMode, q: usize, values: &ValueTable) -> usize {
    match mode {
        DiffMode::Context => {
            let candidates = 1 + q + q.saturating_sub(1).min(3);
            2 * candidates + 9 * width(values.texts.len() as u32) as usize
        }
        _ => 1,
    }
}

/// The bound on a per-value-rans section's alphabets (the values every
/// released symbol covers, summed), per row: its encoder holds each
/// alphabet with its table, a dozen bytes a value, so thousands of
/// intervals over a column of distinct numbers would take memory of
/// classes times values.
const COVER_PER_ROW: usize = 8;

/// A per-value-rans section (its value table already in `section`): the
/// smaller of the per-value tables (when their alphabets are bounded, see
/// [`COVER_PER_ROW`]) and, for a numeric QI, the offsets inside its
/// intervals; `None` when neither can code the QI.
fn per_value_rans_section(
    qi: &QiOriginal<'_>,
    rel: &ReleasedColumn,
    values: &ValueTable,
    section: &[u8],
) -> Option<Vec<u8>> {
    let schema = QiSchema {
        name: qi.name,
        value_type: qi.value_type,
        hierarchy: qi.hierarchy,
    };
    let offsets = qi
        .value_type
        .is_numeric()
        .then(|| offsets::encode(qi, rel, &schema))
        .flatten()
        .map(|body| [&[VALUES_OFFSETS][..], &body].concat());
    let candidates = Candidates::new(qi.hierarchy, values.leaves, &values.texts);
    let covered: usize = rel.symbols.iter().map(|s| candidates.size(s)).sum();
    let tables = (covered <= COVER_PER_ROW * rel.rows.len() + (1 << 16))
        .then(|| {
            let mut tables = section.to_vec();
            let no_parents = ContextKeys::new(rel.symbols.len(), Vec::new());
            per_value_rans::encode(qi, rel, values, &[], &no_parents, &mut tables).then_some(tables)
        })
        .flatten();
    match (offsets, tables) {
        (Some(o), Some(t)) => Some(if o.len() < t.len() { o } else { t }),
        (o, t) => o.or(t),
    }
}

/// Calls `encode(q, &mut sections[q])` for every `q` of `order`, on
/// `threads` threads (each taking the next of `order`).
fn each_section(
    sections: &mut [Vec<u8>],
    order: &[usize],
    threads: usize,
    encode: impl Fn(usize, &mut Vec<u8>) + Sync,
) {
    if threads <= 1 {
        for &q in order {
            encode(q, &mut sections[q]);
        }
        return;
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<&mut Vec<u8>>> =
        sections.iter_mut().map(std::sync::Mutex::new).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let taken = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&q) = order.get(taken) else {
                        break;
                    };
                    let mut section = slots[q].lock().expect("one worker per section");
                    encode(q, &mut section);
                }
            });
        }
    });
}

/// Per-value-rans mode's second pass: chooses context parents for the
/// QIs coded with tables ([`contexts::choose`]) and codes those that
/// have some again, keeping a section only when it is smaller than the
/// one without parents (`prefixes`: each section's value table).
fn with_parents(
    qis: &[QiOriginal<'_>],
    released: &[ReleasedColumn],
    tables: &[ValueTable],
    prefixes: &[Vec<u8>],
    sections: &mut [Vec<u8>],
    threads: usize,
) {
    if qis.len() < 2 {
        return;
    }
    let columns: Vec<contexts::Column<'_>> = (0..qis.len())
        .map(|q| {
            let (qi, rel, values) = (&qis[q], &released[q], &tables[q]);
            let has_table = sections[q].first() != Some(&VALUES_OFFSETS);
            let sizes = match has_table {
                true => {
                    let counts = value_counts(rel, values);
                    let (_, alphabets) = coded_alphabets(qi, rel, values, &counts);
                    alphabets
                        .iter()
                        .map(|a| a.as_ref().map_or(0, |a| a.len() as u32))
                        .collect()
                }
                false => Vec::new(),
            };
            contexts::Column {
                symbols: &rel.rows,
                symbol_count: rel.symbols.len(),
                values: has_table.then(|| (&values.rows[..], values.texts.len())),
                sizes,
            }
        })
        .collect();
    let chosen = contexts::choose(&columns);
    code_with_parents(
        qis, released, tables, prefixes, sections, threads, &chosen, true,
    );
}

/// Codes again the sections of the QIs `chosen` gives parents, replacing
/// each (when `smaller_only`, only by a smaller one). Every original parent
/// must have a section with a value table, and the parents no cycle.
#[allow(clippy::too_many_arguments)]
fn code_with_parents(
    qis: &[QiOriginal<'_>],
    released: &[ReleasedColumn],
    tables: &[ValueTable],
    prefixes: &[Vec<u8>],
    sections: &mut [Vec<u8>],
    threads: usize,
    chosen: &[Vec<Parent>],
    smaller_only: bool,
) {
    let order: Vec<usize> = (0..qis.len()).filter(|&q| !chosen[q].is_empty()).collect();
    each_section(sections, &order, threads, |q, section| {
        let sources: Vec<(&[u32], u64)> = chosen[q]
            .iter()
            .map(|&p| match p {
                Parent::Original(i) => (&tables[i].rows[..], tables[i].texts.len() as u64),
                Parent::Released(i) => (&released[i].rows[..], released[i].symbols.len() as u64),
            })
            .collect();
        let keys = ContextKeys::new(released[q].symbols.len(), sources);
        let rows = released[q].rows.len();
        let fits = keys.space.is_some_and(|space| {
            space <= contexts::context_limit(rows)
                && space.checked_mul(tables[q].texts.len() as u64).is_some()
        });
        if !fits {
            return;
        }
        let mut with = prefixes[q].clone();
        let coded = per_value_rans::encode(
            &qis[q],
            &released[q],
            &tables[q],
            &chosen[q],
            &keys,
            &mut with,
        );
        if coded && (with.len() < section.len() || !smaller_only) {
            *section = with;
        }
    });
}

/// Per-value-rans mode's blob with the given parents (tests: every
/// parent's path, whether the encoder would choose it or not). A QI whose
/// section (or an original parent's) holds offsets keeps its section
/// without parents.
#[cfg(test)]
pub(super) fn encode_with_parents(
    qis: &[QiOriginal<'_>],
    released: &[ReleasedColumn],
    parents: &[Vec<Parent>],
) -> Vec<u8> {
    let mut sections: Vec<Vec<u8>> = vec![Vec::new(); qis.len()];
    let tables: Vec<ValueTable> = qis
        .iter()
        .zip(&mut sections)
        .map(|(qi, section)| ValueTable::build(qi, section))
        .collect();
    let prefixes = sections.clone();
    for (q, section) in sections.iter_mut().enumerate() {
        *section = per_value_rans_section(&qis[q], &released[q], &tables[q], section)
            .expect("codable in per-value-rans mode");
    }
    let table = |q: usize| sections[q].first() != Some(&VALUES_OFFSETS);
    let chosen: Vec<Vec<Parent>> = parents
        .iter()
        .enumerate()
        .map(|(q, ps)| {
            let fit = table(q)
                && ps.iter().all(|&p| match p {
                    Parent::Original(i) => table(i),
                    Parent::Released(_) => true,
                });
            if fit { ps.clone() } else { Vec::new() }
        })
        .collect();
    code_with_parents(
        qis,
        released,
        &tables,
        &prefixes,
        &mut sections,
        1,
        &chosen,
        false,
    );
    let mut bytes = vec![DiffMode::PerValueRans.id()];
    put_varint(&mut bytes, qis.len() as u64);
    for section in &sections {
        put_varint(&mut bytes, section.len() as u64);
        bytes.extend_from_slice(section);
    }
    bytes
}

// Long: value tables first (context and per-value-rans modes read other QIs' tables), then the
// sections coded in parallel and joined in QI order: the why of deterministic bytes in one
// place
/// Encodes the original QI columns against their released columns.
///
/// Panics when `qis` and `released` disagree in length or rows: the caller
/// pairs them, it is not input.
pub fn encode_originals(
    mode: DiffMode,
    qis: &[QiOriginal<'_>],
    released: &[ReleasedColumn],
) -> EncodedOriginals {
    assert_eq!(qis.len(), released.len(), "one released column per QI");
    let mut bytes = vec![mode.id()];
    put_varint(&mut bytes, qis.len() as u64);
    for (qi, rel) in qis.iter().zip(released) {
        assert_eq!(
            qi.column.codes.len(),
            rel.rows.len(),
            "QI {:?}: rows",
            qi.name
        );
    }
    // Every section starts with its value table; the rest of a section
    // depends only on the value tables (context and per-value-rans modes
    // read other QIs' rows from them), so the sections are coded
    // independently, on as many threads as pay, and joined in QI order:
    // the bytes do not depend on the scheduling.
    // Context and per-value-rans modes read other QIs' tables, so they are
    // built first; the other modes build each on the worker that codes its
    // section and drop it there (a row index per row and QI: ten QIs at
    // ten million rows hold 400 MB).
    let mut sections: Vec<Vec<u8>> = vec![Vec::new(); qis.len()];
    let tables: Vec<ValueTable> = match mode {
        DiffMode::Context | DiffMode::PerValueRans => qis
            .iter()
            .zip(&mut sections)
            .map(|(qi, section)| ValueTable::build(qi, section))
            .collect(),
        _ => Vec::new(),
    };
    let prefixes: Vec<Vec<u8>> = match mode {
        DiffMode::PerValueRans => sections.clone(),
        _ => Vec::new(),
    };
    let logs = parents::SharedLogs::new(released.first().map_or(0, |r| r.rows.len()));
    let uncodable = std::sync::atomic::AtomicBool::new(false);
    let encode = |q: usize, section: &mut Vec<u8>| {
        let (qi, rel) = (&qis[q], &released[q]);
        let own;
        let values = match tables.get(q) {
            Some(values) => values,
            None => {
                own = ValueTable::build(qi, section);
                &own
            }
        };
        match mode {
            DiffMode::Paper => paper_encode(qi, rel, values, section),
            DiffMode::PerValue => per_value_encode(qi, rel, values, section),
            DiffMode::Context => context_encode(qi, rel, values, &tables[..q], &logs, section),
            DiffMode::PerValueRans => match per_value_rans_section(qi, rel, values, section) {
                Some(best) => *section = best,
                None => uncodable.store(true, std::sync::atomic::Ordering::Relaxed),
            },
        }
    };
    let threads = section_threads(released.len(), released.first().map_or(0, |r| r.rows.len()));
    // Workers take the costliest sections first (so that no long one
    // starts last).
    let mut order: Vec<usize> = (0..qis.len()).collect();
    order.sort_by_key(|&q| {
        let cost = tables
            .get(q)
            .map_or(1, |values| section_cost(mode, q, values));
        std::cmp::Reverse((cost, q))
    });
    each_section(&mut sections, &order, threads, encode);
    if mode == DiffMode::PerValueRans && !uncodable.load(std::sync::atomic::Ordering::Relaxed) {
        with_parents(qis, released, &tables, &prefixes, &mut sections, threads);
    }
    if uncodable.into_inner() {
        // A QI that is not numbers and whose released values cover more
        // originals than per-value-rans tables hold: paper mode's ranks
        // list only the values each released value's rows hold.
        return encode_originals(DiffMode::Paper, qis, released);
    }
    let mut column_bytes = Vec::with_capacity(qis.len());
    for (qi, section) in qis.iter().zip(&sections) {
        let before = bytes.len();
        put_varint(&mut bytes, section.len() as u64);
        bytes.extend_from_slice(section);
        column_bytes.push((qi.name.to_owned(), (bytes.len() - before) as u64));
    }
    EncodedOriginals {
        bytes,
        column_bytes,
    }
}

/// The bytes of a blob of [`encode_originals`] each QI's section takes
/// (its length varint included), read from the blob's frame alone: what
/// `karc inspect` attributes to each QI, never stored beside the blob.
pub fn originals_column_bytes(bytes: &[u8]) -> Result<Vec<u64>, CodecError> {
    let mut r = ByteReader::new(bytes);
    DiffMode::from_id(r.byte("difference mode")?)?;
    let q = r.count("QI count", 1)?;
    let mut sizes = Vec::with_capacity(q);
    for _ in 0..q {
        let before = r.position();
        let len = r.varint("QI section length")?;
        r.take(len, "QI section")?;
        sizes.push((r.position() - before) as u64);
    }
    r.finish("original QI columns")?;
    Ok(sizes)
}

/// Decodes a blob of [`encode_originals`]: the original QI columns, in
/// `qis` order, with the same text in every row as the originals.
pub fn decode_originals(
    bytes: &[u8],
    qis: &[QiSchema<'_>],
    released: &[ReleasedColumn],
) -> Result<Vec<Column>, CodecError> {
    let views: Vec<ReleasedRows<'_>> = released.iter().map(ReleasedColumn::rows_view).collect();
    decode_originals_of(bytes, qis, &views)
}

/// [`decode_originals`], the released rows given as [`ReleasedRows`]
/// (listed, or by class).
pub fn decode_originals_of(
    bytes: &[u8],
    qis: &[QiSchema<'_>],
    released: &[ReleasedRows<'_>],
) -> Result<Vec<Column>, CodecError> {
    decode_originals_with(bytes, qis, released, PaperRows::PairTable)
}

/// [`decode_originals_of`], paper and per-value modes' rows decoded as
/// `paper_rows` says.
pub(super) fn decode_originals_with(
    bytes: &[u8],
    qis: &[QiSchema<'_>],
    released: &[ReleasedRows<'_>],
    paper_rows: PaperRows,
) -> Result<Vec<Column>, CodecError> {
    let decoding = OriginalsDecoding::with(bytes, qis, released, paper_rows)?;
    match decoding.threads() {
        1 => decoding.work(),
        threads => std::thread::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|| decoding.work());
            }
            decoding.work();
        }),
    }
    decoding.columns()
}

/// A blob of [`encode_originals`] being decoded: its frame read, its
/// sections' rows decoded by whichever threads call
/// [`OriginalsDecoding::work`]. A restore hands its second thread one of
/// these and then the rendering, so that no thread is started between
/// the two.
pub struct OriginalsDecoding<'a> {
    mode: DiffMode,
    paper_rows: PaperRows,
    qis: &'a [QiSchema<'a>],
    released: &'a [ReleasedRows<'a>],
    /// Each section's original parents (decoded first).
    parents_of: Vec<Vec<usize>>,
    /// Each section's parents as stored (per-value-rans mode: original or
    /// released values).
    links: Vec<Vec<Parent>>,
    /// Each section's value-table size: an original parent's radix.
    value_counts: Vec<usize>,
    bytes_of: Vec<u64>,
    /// The sections not taken yet.
    pending: std::sync::Mutex<Vec<Option<Section<'a>>>>,
    /// Notified when a section is decoded.
    changed: std::sync::Condvar,
    /// Sections decoded (changed with `pending` locked).
    decoded: std::sync::atomic::AtomicUsize,
    /// Each section's column once decoded. A context-mode section reads
    /// its parents' while others are decoded; [`OriginalsDecoding::columns`]
    /// takes them all at the end.
    results: Vec<std::sync::RwLock<Option<Result<Column, CodecError>>>>,
    /// A decoder's panic, passed on by [`OriginalsDecoding::columns`] (the
    /// thread waiting there would otherwise wait for its section forever).
    panicked: std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

impl<'a> OriginalsDecoding<'a> {
    /// Reads the frame of `bytes`: each section's value table and (context
    /// mode) parents.
    pub fn new(
        bytes: &'a [u8],
        qis: &'a [QiSchema<'a>],
        released: &'a [ReleasedRows<'a>],
    ) -> Result<Self, CodecError> {
        OriginalsDecoding::with(bytes, qis, released, PaperRows::PairTable)
    }

    // Long: the decoding plan in its order: the frame, then each section's rows once its parents
    // are decoded, on the workers
    fn with(
        bytes: &'a [u8],
        qis: &'a [QiSchema<'a>],
        released: &'a [ReleasedRows<'a>],
        paper_rows: PaperRows,
    ) -> Result<Self, CodecError> {
        let mut r = ByteReader::new(bytes);
        let mode = DiffMode::from_id(r.byte("difference mode")?)?;
        let q = r.varint("QI count")?;
        if q != qis.len() as u64 || released.len() != qis.len() {
            return Err(CodecError::CountMismatch {
                what: "QI columns in the private part",
                expected: qis.len() as u64,
                found: q,
            });
        }
        // First the frame: each section's value table and (context mode) its
        // parents; then the sections' rows, each once its parents are decoded
        // (a section's released symbols checked first, on its worker: a pass
        // over a column of the table).
        let mut sections = Vec::with_capacity(qis.len());
        for (q, qi) in qis.iter().enumerate() {
            let len = r.varint("QI section length")?;
            let mut s = ByteReader::new(r.take(len, "QI section")?);
            let values = ValueTable::read(&mut s, qi)?;
            if values.is_none() && mode != DiffMode::PerValueRans {
                return Err(CodecError::Invalid {
                    what: "value table kind",
                    detail: format!("QI {q}: offsets outside per-value-rans mode"),
                });
            }
            let (texts, leaves, offsets) = match values {
                Some((texts, leaves)) => (texts, leaves, false),
                None => (Vec::new(), false, true),
            };
            let parents = match mode {
                DiffMode::Context => context_parents(&mut s, q)?
                    .into_iter()
                    .map(Parent::Original)
                    .collect(),
                DiffMode::PerValueRans if !offsets => rans_parents(&mut s, q, qis.len())?,
                _ => Vec::new(),
            };
            sections.push(Section {
                reader: s,
                texts,
                leaves,
                offsets,
                parents,
                bytes: len,
            });
        }
        r.finish("original QI columns")?;
        // Original parents: sections with a value table, never a cycle
        // (each section waits for its original parents').
        let mut graph: Vec<Vec<Parent>> = vec![Vec::new(); qis.len()];
        for q in 0..sections.len() {
            for &p in &sections[q].parents {
                let bad = match p {
                    Parent::Original(i) if sections[i].offsets => Some("holds no value table"),
                    _ if contexts::cyclic(&graph, q, p) => Some("closes a cycle"),
                    _ => None,
                };
                if let Some(why) = bad {
                    return Err(CodecError::Invalid {
                        what: "context parent",
                        detail: format!("QI {q}: parent QI {} {why}", p.qi()),
                    });
                }
                graph[q].push(p);
            }
        }
        Ok(OriginalsDecoding {
            mode,
            paper_rows,
            qis,
            released,
            parents_of: sections
                .iter()
                .map(|s| {
                    s.parents
                        .iter()
                        .filter_map(|&p| match p {
                            Parent::Original(i) => Some(i),
                            Parent::Released(_) => None,
                        })
                        .collect()
                })
                .collect(),
            links: sections.iter().map(|s| s.parents.clone()).collect(),
            value_counts: sections.iter().map(|s| s.texts.len()).collect(),
            bytes_of: sections.iter().map(|s| s.bytes).collect(),
            pending: std::sync::Mutex::new(sections.into_iter().map(Some).collect()),
            changed: std::sync::Condvar::new(),
            decoded: std::sync::atomic::AtomicUsize::new(0),
            results: (0..qis.len())
                .map(|_| std::sync::RwLock::new(None))
                .collect(),
            panicked: std::sync::Mutex::new(None),
        })
    }

    /// How many threads pay: one below `PARALLEL_CELLS`, else the
    /// machine's cores, at most one per QI.
    pub fn threads(&self) -> usize {
        section_threads(
            self.qis.len(),
            self.released.first().map_or(0, |r| r.rows.len()),
        )
    }

    /// Decodes sections until none is left to take. A section is ready
    /// when its parents (always earlier QIs) are decoded; a worker takes
    /// the longest ready one (so that no long one starts last: on Adult the
    /// sections take 0.03 to 0.12 ms) and waits while none is. The lowest
    /// section not taken has its parents taken already, so some worker
    /// always makes progress.
    pub fn work(&self) {
        let done = |q: usize| self.results[q].read().expect("no worker panics").is_some();
        let mut board = self.pending.lock().expect("no worker panics");
        loop {
            if board.iter().all(Option::is_none) {
                return;
            }
            let ready = (0..board.len())
                .filter(|&q| board[q].is_some() && self.parents_of[q].iter().all(|&p| done(p)))
                .max_by_key(|&q| (self.bytes_of[q], std::cmp::Reverse(q)));
            let Some(q) = ready else {
                board = self.changed.wait(board).expect("no worker panics");
                continue;
            };
            let section = board[q].take().expect("checked above");
            drop(board);
            let parents: Vec<_> = self.parents_of[q]
                .iter()
                .map(|&p| self.results[p].read().expect("no worker panics"))
                .collect();
            let columns: Option<Vec<&Column>> = parents
                .iter()
                .map(|r| r.as_ref().and_then(|r| r.as_ref().ok()))
                .collect();
            // A parent that failed fails its children too; the parent's
            // error comes first in QI order and is the one reported.
            let result = match columns {
                Some(columns) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    self.decode(q, section, &columns)
                }))
                .unwrap_or_else(|panic| {
                    *self.panicked.lock().unwrap_or_else(|p| p.into_inner()) = Some(panic);
                    Err(CodecError::Invalid {
                        what: "decoder",
                        detail: format!("QI {q}: panicked"),
                    })
                }),
                None => Err(CodecError::Invalid {
                    what: "context parent",
                    detail: format!("QI {q}: a parent section failed to decode"),
                }),
            };
            drop(parents);
            *self.results[q].write().expect("no worker panics") = Some(result);
            board = self.pending.lock().expect("no worker panics");
            self.decoded
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.changed.notify_all();
        }
    }

    /// The decoded columns, in QI order, once every section is (waiting
    /// for those other workers still decode), or the first error in QI
    /// order; a decoder's panic goes on here. Once only: the columns are
    /// taken.
    pub fn columns(&self) -> Result<Vec<Column>, CodecError> {
        (0..self.results.len()).map(|q| self.column(q)).collect()
    }

    /// QI `q`'s decoded column once every section is decoded (a later
    /// section may read it as a parent until then); a decoder's panic goes
    /// on here. Once only per QI, and not with
    /// [`OriginalsDecoding::columns`]: it is taken.
    pub fn column(&self, q: usize) -> Result<Column, CodecError> {
        self.wait_decoded();
        if let Some(panic) = self
            .panicked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            std::panic::resume_unwind(panic);
        }
        self.results[q]
            .write()
            .expect("no worker panics")
            .take()
            .expect("each section taken once")
    }

    /// Waits until every section is decoded.
    fn wait_decoded(&self) {
        let mut board = self.pending.lock().expect("no worker panics");
        while self.decoded.load(std::sync::atomic::Ordering::Relaxed) < self.results.len() {
            board = self.changed.wait(board).expect("no worker panics");
        }
    }

    /// Decodes section `q` (its parents' columns in `parents`).
    fn decode(
        &self,
        q: usize,
        section: Section<'a>,
        parents: &[&Column],
    ) -> Result<Column, CodecError> {
        let (qi, rel) = (&self.qis[q], &self.released[q]);
        let Section {
            reader: mut s,
            texts,
            leaves,
            offsets,
            ..
        } = section;
        // The largest symbol (or class) first (a pass the compiler
        // vectorizes), the first one out of range only when there is one.
        let in_range = |what: &'static str, ids: &[u32], len: usize| {
            let out_of_range = |g: u32| g as usize >= len;
            match ids.iter().copied().max().is_some_and(out_of_range) {
                false => Ok(()),
                true => Err(CodecError::IndexOutOfRange {
                    what,
                    index: u64::from(
                        ids.iter()
                            .copied()
                            .find(|&g| out_of_range(g))
                            .expect("the largest is out of range"),
                    ),
                    len: len as u64,
                }),
            }
        };
        match rel.class_symbols {
            None => in_range("released row", rel.rows, rel.symbols.len())?,
            Some(of) => {
                in_range("released row's class", rel.rows, of.len())?;
                in_range("released class", of, rel.symbols.len())?;
            }
        }
        // Only per-value-rans mode reads the rows by class; the others get
        // each row's symbol.
        let listed;
        let rel = match rel.class_symbols {
            Some(_) if self.mode != DiffMode::PerValueRans => {
                listed = rel.row_symbols();
                &ReleasedRows {
                    symbols: rel.symbols,
                    rows: &listed,
                    class_symbols: None,
                }
            }
            _ => rel,
        };
        let column = match self.mode {
            DiffMode::Paper => paper_decode(qi, rel, texts, &mut s, self.paper_rows)?,
            DiffMode::PerValue => {
                per_value_decode(qi, rel, texts, leaves, &mut s, self.paper_rows)?
            }
            DiffMode::Context => context_decode(qi, rel, texts, leaves, parents, &mut s)?,
            DiffMode::PerValueRans if offsets => offsets::decode(qi, rel, &mut s)?,
            DiffMode::PerValueRans => {
                let sources = self.context_sources(q, parents)?;
                let sources: Vec<(&[u32], u64)> =
                    sources.iter().map(|(v, n)| (&v[..], *n)).collect();
                per_value_rans::decode(qi, rel, texts, leaves, &sources, &mut s)?
            }
        };
        s.finish("QI section")?;
        Ok(column)
    }
}

/// A context parent's value per row (borrowed from its decoded column or
/// released symbols) and its radix.
type ParentValues<'c> = (std::borrow::Cow<'c, [u32]>, u64);

impl<'a> OriginalsDecoding<'a> {
    /// The values per row and radix of each parent of section `q`, in
    /// stored order (`originals`: its original parents' decoded columns,
    /// in that order), each value checked below its radix.
    fn context_sources<'c>(
        &'c self,
        q: usize,
        originals: &[&'c Column],
    ) -> Result<Vec<ParentValues<'c>>, CodecError> {
        let mut originals = originals.iter();
        self.links[q]
            .iter()
            .map(|&p| {
                let (values, radix) = match p {
                    Parent::Original(i) => (
                        std::borrow::Cow::Borrowed(
                            &originals
                                .next()
                                .expect("one column per original parent")
                                .codes[..],
                        ),
                        self.value_counts[i],
                    ),
                    Parent::Released(i) => (
                        self.released[i].row_symbols(),
                        self.released[i].symbols.len(),
                    ),
                };
                match values.iter().copied().max() {
                    Some(v) if v as usize >= radix => Err(CodecError::IndexOutOfRange {
                        what: "context parent value",
                        index: u64::from(v),
                        len: radix as u64,
                    }),
                    _ => Ok((values, radix as u64)),
                }
            })
            .collect()
    }
}

/// A per-value-rans section's parents: a byte `p` (at most 2), then `p`
/// varints, `2 i` for QI `i`'s original values, `2 i + 1` for its released
/// values; another QI each, no QI twice with the same kind.
fn rans_parents(s: &mut ByteReader<'_>, q: usize, qis: usize) -> Result<Vec<Parent>, CodecError> {
    let p = s.byte("context parent count")?;
    if p > 2 {
        return Err(CodecError::IndexOutOfRange {
            what: "context parent count",
            index: u64::from(p),
            len: 3,
        });
    }
    let mut parents: Vec<Parent> = Vec::with_capacity(p as usize);
    for _ in 0..p {
        let id = s.varint("context parent")?;
        let parent = Parent::from_id(id);
        if parent.qi() >= qis || parent.qi() == q || parents.contains(&parent) {
            return Err(CodecError::Invalid {
                what: "context parent",
                detail: format!("QI {q}: parent {id} is not another QI's (of {qis}), once"),
            });
        }
        parents.push(parent);
    }
    Ok(parents)
}

/// One QI's section, its value table read.
struct Section<'a> {
    reader: ByteReader<'a>,
    texts: Vec<String>,
    leaves: bool,
    /// Whether the section holds offsets (no value table).
    offsets: bool,
    /// Context mode: the parent QIs (earlier ones); per-value-rans mode:
    /// the parents of its contexts.
    parents: Vec<Parent>,
    /// The section's length: its decoding time grows with it.
    bytes: u64,
}

/// Builds the decoded column: each row's text, by value-table index or as
/// an extra text (a paper-mode interval value).
struct ColumnBuilder {
    column: Column,
    codes_of_values: Vec<u32>,
    /// The code of each released symbol's text once a row released
    /// unchanged used it (`u32::MAX` before): interned once per symbol,
    /// not once per row.
    unchanged: Vec<u32>,
    /// The code of each integer a paper-mode interval row decoded to:
    /// formatted and interned once per value, not once per row.
    integers: FxHashMap<i64, u32>,
}

impl ColumnBuilder {
    /// A builder for `rows` rows released as `symbols` distinct symbols.
    fn new(name: &str, texts: &[String], rows: usize, symbols: usize) -> Self {
        let mut dict = Dictionary::new();
        let codes_of_values = texts.iter().map(|t| dict.intern(t)).collect();
        ColumnBuilder {
            column: Column {
                name: name.to_owned(),
                dict,
                codes: Vec::with_capacity(rows),
            },
            codes_of_values,
            unchanged: vec![u32::MAX; symbols],
            integers: FxHashMap::default(),
        }
    }

    /// The code of a row released unchanged as symbol `g` with text `t`.
    fn unchanged_code(&mut self, g: usize, t: &str) -> u32 {
        if self.unchanged[g] == u32::MAX {
            self.unchanged[g] = self.column.dict.intern(t);
        }
        self.unchanged[g]
    }

    /// [`ColumnBuilder::unchanged_code`] of `rel`'s symbol `g`, which the
    /// section's rules checked is a value (only a value is released
    /// unchanged).
    fn unchanged_symbol_code(&mut self, symbols: &[ReleasedSymbol], g: usize) -> u32 {
        let ReleasedSymbol::Value(t) = &symbols[g] else {
            unreachable!("the rules checked that only a value is unchanged")
        };
        self.unchanged_code(g, t)
    }

    fn push_unchanged(&mut self, g: usize, t: &str) {
        let code = self.unchanged_code(g, t);
        self.column.codes.push(code);
    }

    fn push_value(&mut self, v: u32) {
        self.column.codes.push(self.codes_of_values[v as usize]);
    }

    /// The code of integer `x`'s canonical text.
    fn integer_code(&mut self, x: i64) -> u32 {
        let dict = &mut self.column.dict;
        *self
            .integers
            .entry(x)
            .or_insert_with(|| dict.intern(&x.to_string()))
    }
}

// ---------------------------------------------------------------------------
// Paper mode

fn paper_encode(qi: &QiOriginal<'_>, rel: &ReleasedColumn, values: &ValueTable, out: &mut Vec<u8>) {
    let counts = value_counts(rel, values);
    // Per symbol: its rule, and for ranks the rank of each value.
    let mut rank_of: Vec<FxHashMap<u32, u32>> = vec![FxHashMap::default(); rel.symbols.len()];
    let mut rules = vec![RULE_RANK; rel.symbols.len()];
    let mut starts = vec![0i64; rel.symbols.len()];
    for (g, symbol) in rel.symbols.iter().enumerate() {
        let unchanged = match symbol {
            ReleasedSymbol::Value(t) => counts[g]
                .iter()
                .all(|&(x, _)| values.texts[x as usize] == *t),
            _ => false,
        };
        // An interval whose rows' differences all fit 64 bits (numbers near
        // both ends of `i64` are ranked instead).
        let start = interval_start(symbol, qi.value_type, qi.hierarchy).filter(|&a| {
            counts[g].iter().all(|&(x, _)| {
                canonical_integer(&values.texts[x as usize])
                    .is_some_and(|v| v.checked_sub(a).is_some())
            })
        });
        if unchanged {
            rules[g] = RULE_UNCHANGED;
            out.push(RULE_UNCHANGED);
        } else if let Some(a) = start {
            rules[g] = RULE_INTERVAL;
            starts[g] = a;
            out.push(RULE_INTERVAL);
        } else {
            out.push(RULE_RANK);
            let ranking = ranked(&counts[g]);
            put_varint(out, ranking.len() as u64);
            for (rank, &x) in ranking.iter().enumerate() {
                put_varint(out, u64::from(x));
                rank_of[g].insert(x, rank as u32);
            }
        }
    }
    let integers: Vec<Option<i64>> = values.texts.iter().map(|t| canonical_integer(t)).collect();
    let deltas: Vec<i64> = rel
        .rows
        .iter()
        .zip(&values.rows)
        .map(|(&g, &x)| match rules[g as usize] {
            RULE_UNCHANGED => 0,
            RULE_INTERVAL => integers[x as usize].expect("checked") - starts[g as usize],
            _ => i64::from(rank_of[g as usize][&x]),
        })
        .collect();
    // The delta alphabet: distinct deltas ascending, zigzag varints.
    let mut alphabet: Vec<i64> = deltas
        .iter()
        .copied()
        .collect::<rustc_hash::FxHashSet<i64>>()
        .into_iter()
        .collect();
    alphabet.sort_unstable();
    put_varint(out, alphabet.len() as u64);
    for &d in &alphabet {
        put_varint(out, zigzag(d));
    }
    let symbols: Vec<u32> = deltas
        .iter()
        .map(|d| {
            alphabet
                .binary_search(d)
                .expect("every delta is in the alphabet") as u32
        })
        .collect();
    put_coded(out, alphabet.len(), &symbols);
}

/// How paper mode turns decoded deltas into rows, and how per-value mode
/// decodes its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PaperRows {
    /// Paper mode: the decoder writes the codes itself when one symbol is
    /// released and ranked; else through a table of each (released symbol,
    /// delta symbol) pair's code when it has at most
    /// `max(rows, PAIR_TABLE_MIN)` cells (by released symbol alone when
    /// there is one delta), else row by row. Per-value mode: by released
    /// symbol alone when every one is unchanged; one stream decoded at
    /// once when one symbol is released; else one table lookup a row
    /// yielding its code.
    PairTable,
    /// Every row on its own, one Huffman step and one mapping at a time
    /// (the tests' reference for the tables).
    #[cfg(test)]
    RowByRow,
}

/// Pair tables up to this many cells are used whatever the row count.
const PAIR_TABLE_MIN: usize = 1 << 12;

// Long: one match over paper 004's difference rules (unchanged, interval, rank) kept literal as
// ALGORITHMS.md states them, for the reproduction
fn paper_decode(
    qi: &QiSchema<'_>,
    rel: &ReleasedRows<'_>,
    texts: Vec<String>,
    s: &mut ByteReader<'_>,
    paper_rows: PaperRows,
) -> Result<Column, CodecError> {
    let m = rel.symbols.len();
    let mut rules = Vec::with_capacity(m);
    let mut starts = vec![0i64; m];
    let mut dictionaries: Vec<Vec<u32>> = vec![Vec::new(); m];
    for (g, symbol) in rel.symbols.iter().enumerate() {
        let rule = s.byte("difference rule")?;
        match rule {
            RULE_UNCHANGED => {
                if !matches!(symbol, ReleasedSymbol::Value(_)) {
                    return Err(CodecError::Invalid {
                        what: "difference rule",
                        detail: format!("released symbol {g} is generalized but marked unchanged"),
                    });
                }
            }
            RULE_INTERVAL => {
                starts[g] = interval_start(symbol, qi.value_type, qi.hierarchy).ok_or_else(
                    || CodecError::Invalid {
                        what: "difference rule",
                        detail: format!(
                            "released symbol {g} is marked as an interval but does not read as one"
                        ),
                    },
                )?;
            }
            RULE_RANK => {
                let c = s.count("rank dictionary size", 1)?;
                dictionaries[g] = (0..c)
                    .map(|_| s.index("rank dictionary value", texts.len()))
                    .collect::<Result<_, _>>()?;
            }
            id => {
                return Err(CodecError::UnknownLayout {
                    what: "difference rule",
                    id,
                    known: "0 unchanged, 1 interval, 2 rank",
                });
            }
        }
        rules.push(rule);
    }
    let d = s.count("delta alphabet size", 1)?;
    let alphabet: Vec<i64> = (0..d)
        .map(|_| s.varint("delta").map(unzigzag))
        .collect::<Result<_, _>>()?;
    let n = rel.rows.len();
    let mut b = ColumnBuilder::new(qi.name, &texts, n, m);
    // The code of a row released as symbol `g` with delta symbol `sym`
    // (formatting and interning a text at its first use).
    let code_of = |b: &mut ColumnBuilder, g: usize, sym: u32| {
        let delta = alphabet[sym as usize];
        match rules[g] {
            RULE_UNCHANGED => {
                if delta != 0 {
                    return Err(CodecError::Invalid {
                        what: "delta",
                        detail: format!("delta {delta} for a cell released unchanged (expected 0)"),
                    });
                }
                Ok(b.unchanged_symbol_code(rel.symbols, g))
            }
            RULE_INTERVAL => {
                let x = starts[g]
                    .checked_add(delta)
                    .ok_or_else(|| CodecError::Invalid {
                        what: "delta",
                        detail: format!("{} + {delta} leaves the 64-bit range", starts[g]),
                    })?;
                Ok(b.integer_code(x))
            }
            _ => {
                let dict = &dictionaries[g];
                let v = usize::try_from(delta)
                    .ok()
                    .and_then(|r| dict.get(r))
                    .ok_or(CodecError::IndexOutOfRange {
                        what: "rank",
                        index: delta as u64,
                        len: dict.len() as u64,
                    })?;
                Ok(b.codes_of_values[*v as usize])
            }
        }
    };
    if paper_rows == PaperRows::PairTable && rules[..] == [RULE_RANK] {
        // One released symbol, ranked: each delta symbol stands for one
        // code, worked out for all of them first (a rank names a value of
        // the table, interned already: nothing is interned out of order),
        // and the decoder writes the codes directly. A delta symbol whose
        // rank errs leaves it to the rows below, which meet the error at
        // its first row.
        let values: Result<Vec<u32>, _> =
            (0..d as u32).map(|sym| code_of(&mut b, 0, sym)).collect();
        if let Ok(values) = values {
            s.coded_mapped("deltas", d, n, &values, &mut b.column.codes)?;
            return Ok(b.column);
        }
    }
    let pairs = m.checked_mul(d).filter(|&cells| {
        paper_rows == PaperRows::PairTable && cells <= rel.rows.len().max(PAIR_TABLE_MIN)
    });
    let symbols = s.coded("deltas", d, n)?;
    if d == 1 && pairs.is_some() {
        // One delta: a row's code depends on its released symbol only.
        b.column.codes = codes_by_symbol(rel.rows, m, |g| code_of(&mut b, g, 0))?;
        return Ok(b.column);
    }
    if let Some(cells) = pairs {
        // A row's code depends on its pair (released symbol, delta symbol)
        // only: worked out at the pair's first row, it is one lookup for
        // the others. Texts are interned, and errors met, at the same row
        // as row by row (a pair errs at its first row).
        let mut table = vec![u32::MAX; cells];
        let mut codes = std::mem::take(&mut b.column.codes);
        codes.resize(n, 0);
        let mut done = 0;
        loop {
            done += map_known_pairs(
                &table,
                d,
                &rel.rows[done..],
                &symbols[done..],
                &mut codes[done..],
            );
            if done == n {
                break;
            }
            let (g, sym) = (rel.rows[done] as usize, symbols[done]);
            let code = code_of(&mut b, g, sym)?;
            table[g * d + sym as usize] = code;
            codes[done] = code;
            done += 1;
        }
        b.column.codes = codes;
    } else {
        for (&g, &sym) in rel.rows.iter().zip(&symbols) {
            let code = code_of(&mut b, g as usize, sym)?;
            b.column.codes.push(code);
        }
    }
    Ok(b.column)
}

/// Writes the code of each row whose pair (released symbol `g`, delta
/// symbol) has one in `table` (`table[g * d + symbol]`, `u32::MAX` for a
/// pair not met yet) to `out`, up to the first row whose pair has none;
/// returns how many rows it wrote. The hot loop of paper mode: a load and a
/// compare per row, the first use of a pair left to the caller.
fn map_known_pairs(
    table: &[u32],
    d: usize,
    rows: &[u32],
    symbols: &[u32],
    out: &mut [u32],
) -> usize {
    for (i, ((o, &g), &sym)) in out.iter_mut().zip(rows).zip(symbols).enumerate() {
        let code = table[g as usize * d + sym as usize];
        if code == u32::MAX {
            return i;
        }
        *o = code;
    }
    out.len()
}

/// Each row's code when it depends on the row's released symbol only
/// (`rows` below `m`): `code_of(g)` is called once per symbol, in the order
/// of their first rows, so texts are interned, and errors met, as row by
/// row; then one lookup a row.
fn codes_by_symbol(
    rows: &[u32],
    m: usize,
    mut code_of: impl FnMut(usize) -> Result<u32, CodecError>,
) -> Result<Vec<u32>, CodecError> {
    let mut codes = vec![u32::MAX; m];
    let mut unseen = m;
    for &g in rows {
        if unseen == 0 {
            break;
        }
        let slot = &mut codes[g as usize];
        if *slot == u32::MAX {
            *slot = code_of(g as usize)?;
            unseen -= 1;
        }
    }
    Ok(rows.iter().map(|&g| codes[g as usize]).collect())
}

// ---------------------------------------------------------------------------
// Per-value mode

/// The value-table entries each released symbol of a section may stand
/// for, in value-table order: known to encoder and decoder alike, so only
/// code lengths or frequencies are stored.
struct Candidates<'a> {
    hierarchy: Option<&'a Hierarchy>,
    leaves: bool,
    texts: &'a [String],
    /// The value table's numbers with their indices, ascending, parsed
    /// once a section: a release of thousands of intervals (Mondrian) would
    /// otherwise parse the whole table once per interval.
    numbers: std::cell::OnceCell<Vec<(f64, u32)>>,
}

impl<'a> Candidates<'a> {
    fn new(hierarchy: Option<&'a Hierarchy>, leaves: bool, texts: &'a [String]) -> Self {
        Candidates {
            hierarchy,
            leaves,
            texts,
            numbers: std::cell::OnceCell::new(),
        }
    }

    /// How many values [`Candidates::of`] lists, without listing them.
    fn size(&self, symbol: &ReleasedSymbol) -> usize {
        match symbol {
            ReleasedSymbol::Value(_) => 1,
            ReleasedSymbol::Interval { lo, hi } => match (number(lo), number(hi)) {
                (Some(a), Some(b)) => {
                    let numbers = self.numbers();
                    let from = numbers.partition_point(|&(x, _)| x < a);
                    numbers.partition_point(|&(x, _)| x <= b).max(from) - from
                }
                _ => self.texts.len(),
            },
            ReleasedSymbol::Node { level, node } if self.leaves => match self.hierarchy {
                Some(h)
                    if (*level as usize) < h.height()
                        && (*node as usize) < h.nodes(*level as usize) =>
                {
                    h.leaves_of(*level as usize, *node).count()
                }
                _ => self.texts.len(),
            },
            _ => self.texts.len(),
        }
    }

    /// The value table's numbers with their indices, ascending.
    fn numbers(&self) -> &[(f64, u32)] {
        self.numbers.get_or_init(|| {
            let mut n: Vec<(f64, u32)> = (0..self.texts.len() as u32)
                .filter_map(|i| Some((number(&self.texts[i as usize])?, i)))
                .collect();
            n.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
            n
        })
    }

    fn of(&self, symbol: &ReleasedSymbol) -> Vec<u32> {
        let all = || (0..self.texts.len() as u32).collect();
        match symbol {
            ReleasedSymbol::Node { level, node } if self.leaves => match self.hierarchy {
                Some(h)
                    if (*level as usize) < h.height()
                        && (*node as usize) < h.nodes(*level as usize) =>
                {
                    h.leaves_of(*level as usize, *node).collect()
                }
                _ => all(),
            },
            ReleasedSymbol::Interval { lo, hi } => match (number(lo), number(hi)) {
                (Some(a), Some(b)) => {
                    let numbers = self.numbers();
                    // The values x with a <= x <= b.
                    let from = numbers.partition_point(|&(x, _)| x < a);
                    let to = numbers.partition_point(|&(x, _)| x <= b).max(from);
                    let mut covered: Vec<u32> = numbers[from..to].iter().map(|&(_, i)| i).collect();
                    covered.sort_unstable();
                    covered
                }
                _ => all(),
            },
            _ => all(),
        }
    }
}

/// The rule of each released symbol in the modes that code a value among
/// those its symbol covers (per-value, context and per-value-rans): rule 0
/// when every row of the symbol holds its text (`None`: nothing coded),
/// else rule 2 and the symbol's cover, or rule 3 and all of `V` when some
/// row's value lies outside the cover (a release that does not cover its
/// originals).
fn coded_alphabets(
    qi: &QiOriginal<'_>,
    rel: &ReleasedColumn,
    values: &ValueTable,
    counts: &[Vec<(u32, u64)>],
) -> (Vec<u8>, Vec<Option<Vec<u32>>>) {
    let candidates = Candidates::new(qi.hierarchy, values.leaves, &values.texts);
    rel.symbols
        .iter()
        .enumerate()
        .map(|(g, symbol)| {
            let unchanged = match symbol {
                ReleasedSymbol::Value(t) => counts[g]
                    .iter()
                    .all(|&(x, _)| values.texts[x as usize] == *t),
                _ => false,
            };
            if unchanged {
                return (RULE_UNCHANGED, None);
            }
            let cands = candidates.of(symbol);
            if counts[g]
                .iter()
                .all(|(x, _)| cands.binary_search(x).is_ok())
            {
                (RULE_COVERED, Some(cands))
            } else {
                (RULE_ANY, Some((0..values.texts.len() as u32).collect()))
            }
        })
        .unzip()
}

/// Reads a section's rule byte per released symbol (per-value, context
/// and per-value-rans modes; `what` names them in errors): per symbol, `None`
/// for unchanged, else its alphabet (cover or all of `V`).
fn symbol_alphabets(
    what: &'static str,
    s: &mut ByteReader<'_>,
    symbols: &[ReleasedSymbol],
    hierarchy: Option<&Hierarchy>,
    leaves: bool,
    texts: &[String],
) -> Result<Vec<Option<Vec<u32>>>, CodecError> {
    let rules = s.take(symbols.len() as u64, what)?;
    let candidates = Candidates::new(hierarchy, leaves, texts);
    symbols
        .iter()
        .zip(rules)
        .enumerate()
        .map(|(g, (symbol, &rule))| match rule {
            RULE_UNCHANGED => {
                if matches!(symbol, ReleasedSymbol::Value(_)) {
                    Ok(None)
                } else {
                    Err(CodecError::Invalid {
                        what,
                        detail: format!("released symbol {g} is generalized but marked unchanged"),
                    })
                }
            }
            RULE_COVERED => Ok(Some(candidates.of(symbol))),
            RULE_ANY => Ok(Some((0..texts.len() as u32).collect())),
            id => Err(CodecError::UnknownLayout {
                what,
                id,
                known: "0 unchanged, 2 covered values, 3 any value",
            }),
        })
        .collect()
}

fn per_value_encode(
    qi: &QiOriginal<'_>,
    rel: &ReleasedColumn,
    values: &ValueTable,
    out: &mut Vec<u8>,
) {
    let counts = value_counts(rel, values);
    let (rules, alphabets) = coded_alphabets(qi, rel, values, &counts);
    out.extend_from_slice(&rules);
    let mut codes: Vec<Option<(HuffmanCode, FxHashMap<u32, u32>)>> =
        Vec::with_capacity(rel.symbols.len());
    let mut w = huffman::writer();
    for (g, cands) in alphabets.into_iter().enumerate() {
        let Some(cands) = cands else {
            codes.push(None);
            continue;
        };
        let freqs: Vec<u64> = cands
            .iter()
            .map(|x| {
                counts[g]
                    .binary_search_by_key(x, |&(y, _)| y)
                    .map_or(0, |i| counts[g][i].1)
            })
            .collect();
        let code = HuffmanCode::from_frequencies(&freqs);
        code.write_table(&mut w).expect("writing to memory");
        let index = cands
            .iter()
            .enumerate()
            .map(|(i, &x)| (x, i as u32))
            .collect();
        codes.push(Some((code, index)));
    }
    for (&g, &x) in rel.rows.iter().zip(&values.rows) {
        if let Some((code, index)) = &codes[g as usize] {
            code.write_symbols(&mut w, [index[&x]])
                .expect("writing to memory");
        }
    }
    w.byte_align().expect("writing to memory");
    out.extend_from_slice(&w.into_writer());
}

// Long: the general row-by-row decode with its fast paths beside it (every symbol unchanged, one
// coded symbol, table lookups), so one reads which input takes which path
fn per_value_decode(
    qi: &QiSchema<'_>,
    rel: &ReleasedRows<'_>,
    texts: Vec<String>,
    leaves: bool,
    s: &mut ByteReader<'_>,
    paper_rows: PaperRows,
) -> Result<Column, CodecError> {
    let m = rel.symbols.len();
    let alphabets = symbol_alphabets(
        "per-value rules",
        s,
        rel.symbols,
        qi.hierarchy,
        leaves,
        &texts,
    )?;
    let rest = s.take(s.remaining() as u64, "per-value codes")?;
    let available = rest.len() as u64 * 8;
    let mut r = huffman::reader(rest);
    let huff = |source| CodecError::Huffman {
        what: "per-value codes",
        source,
    };
    let mut b = ColumnBuilder::new(qi.name, &texts, rel.rows.len(), m);
    // Per symbol: the codes of its candidates and the decoder of its code.
    let mut decoders: Vec<Option<(Vec<u32>, Decoder)>> = Vec::with_capacity(m);
    for cands in alphabets {
        let Some(cands) = cands else {
            decoders.push(None);
            continue;
        };
        let code = HuffmanCode::read_table(&mut r, cands.len(), available).map_err(huff)?;
        let codes = cands
            .iter()
            .map(|&v| b.codes_of_values[v as usize])
            .collect();
        decoders.push(Some((codes, code.decoder())));
    }
    let start = r.position_in_bits().expect("cursor position");
    #[cfg(test)]
    if paper_rows == PaperRows::RowByRow {
        return per_value_rows(rel, &decoders, b, rest, start);
    }
    let _ = paper_rows;
    if decoders.iter().all(Option::is_none) {
        // Every symbol released unchanged: no bits, a row's code is its
        // symbol's.
        let codes = codes_by_symbol(rel.rows, m, |g| Ok(b.unchanged_symbol_code(rel.symbols, g)))?;
        per_value_end(&BitWindow::new(rest, start), rest)?;
        b.column.codes = codes;
        return Ok(b.column);
    }
    if let [Some((codes, decoder))] = &decoders[..] {
        // One released symbol, coded: the rows are one stream of one code,
        // which the decoder takes several symbols a lookup. A stream that
        // fails goes the row-by-row way below, which names the row's error.
        let end = decoder.decode_mapped(rest, start, rel.rows.len(), codes, &mut b.column.codes);
        if end.is_ok_and(|end| end.div_ceil(8) == rest.len() as u64) {
            return Ok(b.column);
        }
        b.column.codes.clear();
    }
    // Table `g` yields the column code of a row released as `g` in one
    // lookup; a miss (a code longer than the table, an empty code, or the
    // first row of an unchanged symbol, whose text is interned then) goes
    // the long way, as row by row would.
    let mut tables = TableSet::default();
    for entry in &decoders {
        match entry {
            None => tables.push_fixed(MISS),
            Some((codes, decoder)) => tables.push_code(decoder, |s| codes[s as usize]),
        };
    }
    let mut w = BitWindow::new(rest, start);
    let mut codes = std::mem::take(&mut b.column.codes);
    codes.resize(rel.rows.len(), 0);
    for (i, (out, &g)) in codes.iter_mut().zip(rel.rows).enumerate() {
        if i % LOOKUPS_PER_TOP_UP == 0 {
            w.top_up();
        }
        let mut code = tables.lookup_topped(g as usize, &mut w);
        if code == MISS {
            code = per_value_row(&mut b, rel, &decoders, g as usize, &mut w)?;
            if decoders[g as usize].is_none() {
                tables.set_fixed(g as usize, code);
            }
            // The long way may have taken up to 32 bits.
            w.top_up();
        }
        *out = code;
        per_value_within(&w, available)?;
    }
    per_value_end(&w, rest)?;
    b.column.codes = codes;
    Ok(b.column)
}

/// The code of a row released as symbol `g`, decoded on its own: the long
/// way of the tables, and the whole of row by row.
fn per_value_row(
    b: &mut ColumnBuilder,
    rel: &ReleasedRows<'_>,
    decoders: &[Option<(Vec<u32>, Decoder)>],
    g: usize,
    w: &mut BitWindow<'_>,
) -> Result<u32, CodecError> {
    Ok(match &decoders[g] {
        None => b.unchanged_symbol_code(rel.symbols, g),
        Some((codes, decoder)) => {
            let s = decoder.next(w).map_err(|source| CodecError::Huffman {
                what: "per-value codes",
                source,
            })?;
            codes[s as usize]
        }
    })
}

/// Refuses a row whose code ran past the end of per-value mode's stream.
#[inline]
fn per_value_within(w: &BitWindow<'_>, available: u64) -> Result<(), CodecError> {
    if w.position() > available {
        return Err(CodecError::Huffman {
            what: "per-value codes",
            source: HuffmanError::Truncated {
                needed: w.position(),
                available,
            },
        });
    }
    Ok(())
}

/// Refuses whole bytes left after per-value mode's last code.
fn per_value_end(w: &BitWindow<'_>, rest: &[u8]) -> Result<(), CodecError> {
    if w.position().div_ceil(8) != rest.len() as u64 {
        return Err(CodecError::TrailingBytes {
            what: "per-value codes",
            count: rest.len() as u64 - w.position().div_ceil(8),
        });
    }
    Ok(())
}

/// Per-value mode's rows one at a time: the reference of the tables.
#[cfg(test)]
fn per_value_rows(
    rel: &ReleasedRows<'_>,
    decoders: &[Option<(Vec<u32>, Decoder)>],
    mut b: ColumnBuilder,
    rest: &[u8],
    start: u64,
) -> Result<Column, CodecError> {
    let available = rest.len() as u64 * 8;
    let mut w = BitWindow::new(rest, start);
    for &g in rel.rows {
        let code = per_value_row(&mut b, rel, decoders, g as usize, &mut w)?;
        b.column.codes.push(code);
        per_value_within(&w, available)?;
    }
    per_value_end(&w, rest)?;
    Ok(b.column)
}

// ---------------------------------------------------------------------------
// Context mode

/// The range-coded rows of one QI under the given parents.
#[inline(never)]
fn context_stream(coded: &CodedRows, keys: &ContextKeys<'_>) -> Vec<u8> {
    let mut enc = RangeEncoder::default();
    let mut models = Models::new(keys.space.unwrap_or(u64::MAX));
    let widths: Vec<u32> = coded.sizes.iter().map(|&n| width(n)).collect();
    keys.each_key(coded, |i, key| {
        let (g, s) = (coded.symbols[i] as usize, coded.positions[i]);
        let size = coded.sizes[g];
        // A dense block is coded by the slice's own (monomorphic) loop.
        match models.block(key, widths[g]) {
            Block::Dense(block) => encode_symbol(&mut enc, block, s, size),
            mut wide => encode_symbol(&mut enc, &mut wide, s, size),
        }
    });
    enc.finish()
}

fn context_encode(
    qi: &QiOriginal<'_>,
    rel: &ReleasedColumn,
    values: &ValueTable,
    earlier: &[ValueTable],
    logs: &parents::SharedLogs,
    out: &mut Vec<u8>,
) {
    let counts = value_counts(rel, values);
    let (rules, alphabets) = coded_alphabets(qi, rel, values, &counts);
    // Per symbol: each value's position in its alphabet (dense over `V`).
    let mut positions: Vec<Option<Vec<u32>>> = Vec::with_capacity(rel.symbols.len());
    let mut sizes = Vec::with_capacity(rel.symbols.len());
    for cands in alphabets {
        let Some(cands) = cands else {
            positions.push(None);
            sizes.push(0);
            continue;
        };
        let mut index = vec![u32::MAX; values.texts.len()];
        for (i, &x) in cands.iter().enumerate() {
            index[x as usize] = i as u32;
        }
        sizes.push(cands.len() as u32);
        positions.push(Some(index));
    }
    let mut coded = CodedRows {
        rows: Vec::new(),
        symbols: Vec::new(),
        positions: Vec::new(),
        sizes,
    };
    for (row, (&g, &x)) in rel.rows.iter().zip(&values.rows).enumerate() {
        if let Some(index) = &positions[g as usize] {
            coded.rows.push(row as u32);
            coded.symbols.push(g);
            coded.positions.push(index[x as usize]);
        }
    }
    let parent = |p: u32| {
        (
            &earlier[p as usize].rows[..],
            earlier[p as usize].texts.len() as u64,
        )
    };
    let chosen = parents::choose(
        logs,
        &coded,
        rel.symbols.len(),
        earlier.len() as u32,
        &parent,
    );
    let keys = ContextKeys::new(
        rel.symbols.len(),
        chosen.iter().map(|&p| parent(p)).collect(),
    );
    out.push(chosen.len() as u8);
    for &p in &chosen {
        put_varint(out, u64::from(p));
    }
    out.extend_from_slice(&rules);
    out.extend_from_slice(&context_stream(&coded, &keys));
}

/// The parents a context section of QI `q` names.
fn context_parents(s: &mut ByteReader<'_>, q: usize) -> Result<Vec<usize>, CodecError> {
    let p = s.byte("context parent count")?;
    if p > 2 {
        return Err(CodecError::IndexOutOfRange {
            what: "context parent count",
            index: u64::from(p),
            len: 3,
        });
    }
    (0..p)
        .map(|_| s.index("context parent", q).map(|i| i as usize))
        .collect()
}

fn context_decode(
    qi: &QiSchema<'_>,
    rel: &ReleasedRows<'_>,
    texts: Vec<String>,
    leaves: bool,
    parents: &[&Column],
    s: &mut ByteReader<'_>,
) -> Result<Column, CodecError> {
    // A decoded column's codes are below its dictionary's size: that is
    // the radix (the encoder's is |V|; any injective numbering of the
    // contexts names the same models).
    let parents: Vec<(&[u32], u64)> = parents
        .iter()
        .map(|c| (&c.codes[..], c.dict.len() as u64))
        .collect();
    let keys = ContextKeys::new(rel.symbols.len(), parents);
    let alphabets = symbol_alphabets(
        "context rules",
        s,
        rel.symbols,
        qi.hierarchy,
        leaves,
        &texts,
    )?;
    let widths: Vec<u32> = alphabets
        .iter()
        .map(|a| a.as_ref().map_or(0, |c| width(c.len() as u32)))
        .collect();
    let stream = s.take(s.remaining() as u64, "context stream")?;
    let mut dec = RangeDecoder::new(stream);
    let mut models = Models::new(keys.space.unwrap_or(u64::MAX));
    let mut b = ColumnBuilder::new(qi.name, &texts, rel.rows.len(), rel.symbols.len());
    for (row, &g) in rel.rows.iter().enumerate() {
        match &alphabets[g as usize] {
            None => {
                let ReleasedSymbol::Value(t) = &rel.symbols[g as usize] else {
                    unreachable!("checked by symbol_alphabets")
                };
                b.push_unchanged(g as usize, t);
            }
            Some(cands) => {
                if cands.is_empty() {
                    return Err(CodecError::Invalid {
                        what: "context stream",
                        detail: format!("released symbol {g} covers no value"),
                    });
                }
                let size = cands.len() as u32;
                // Dense blocks through the slice path (one dispatch per
                // value, not per bit).
                let i = match models.block(keys.key(g, row), widths[g as usize]) {
                    Block::Dense(block) => decode_symbol(&mut dec, block, size),
                    mut wide => decode_symbol(&mut dec, &mut wide, size),
                };
                b.push_value(cands[i as usize]);
            }
        }
    }
    dec.finish("context stream")?;
    Ok(b.column)
}
