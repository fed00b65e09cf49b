//! Decoding a blob of [`encode_originals`](super::encode_originals): its
//! frame read once, then its sections decoded by whichever threads take
//! them, each original parent's column before its children's.

use super::{
    ByteReader, CodecError, Column, Dictionary, DiffMode, FxHashMap, PaperRows, Parent, QiSchema,
    ReleasedRows, ReleasedSymbol, ValueTable, context_decode, context_parents, contexts, offsets,
    paper_decode, per_value_decode, per_value_rans, section_threads,
};

/// A blob of [`encode_originals`](super::encode_originals) being decoded: its frame read, its
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
    pub(super) fn with(
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
pub(super) struct ColumnBuilder {
    pub(super) column: Column,
    pub(super) codes_of_values: Vec<u32>,
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
    pub(super) fn new(name: &str, texts: &[String], rows: usize, symbols: usize) -> Self {
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
    pub(super) fn unchanged_symbol_code(&mut self, symbols: &[ReleasedSymbol], g: usize) -> u32 {
        let ReleasedSymbol::Value(t) = &symbols[g] else {
            unreachable!("the rules checked that only a value is unchanged")
        };
        self.unchanged_code(g, t)
    }

    pub(super) fn push_unchanged(&mut self, g: usize, t: &str) {
        let code = self.unchanged_code(g, t);
        self.column.codes.push(code);
    }

    pub(super) fn push_value(&mut self, v: u32) {
        self.column.codes.push(self.codes_of_values[v as usize]);
    }

    /// The code of integer `x`'s canonical text.
    pub(super) fn integer_code(&mut self, x: i64) -> u32 {
        let dict = &mut self.column.dict;
        *self
            .integers
            .entry(x)
            .or_insert_with(|| dict.intern(&x.to_string()))
    }
}
