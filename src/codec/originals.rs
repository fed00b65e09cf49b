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

use crate::jobs::cores;
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

mod context;
pub(super) mod contexts;
mod decoding;
mod frequencies;
mod offsets;
mod paper;
mod per_value;
mod per_value_rans;
mod value_table;
mod widths;

use context::{context_decode, context_encode, context_parents};
use contexts::Parent;
use decoding::ColumnBuilder;
pub use decoding::OriginalsDecoding;
pub(super) use paper::PaperRows;
use paper::{codes_by_symbol, paper_decode, paper_encode};
use per_value::{
    Candidates, coded_alphabets, per_value_decode, per_value_encode, symbol_alphabets,
};
#[cfg(test)]
pub(super) use value_table::parse_interval_label;
use value_table::{VALUES_OFFSETS, ValueTable, interval_start, number, ranked, value_counts};

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

/// Below this many QI cells, sections are coded on the calling thread
/// (spawning costs more than it saves).
const PARALLEL_CELLS: usize = 1 << 16;

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

// ---------------------------------------------------------------------------
// Paper mode
// ---------------------------------------------------------------------------
// Per-value mode
// ---------------------------------------------------------------------------
// Context mode
