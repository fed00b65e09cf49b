//! Render, the second direction of `spec/FORMAT.md` §7: the [`Layout`] and
//! the texts give the original file's bytes, every record rendered
//! canonically but where the layout stores an exception verbatim. Rendering
//! is the hot path of a restore: each column's values are rendered once,
//! runs of columns together, and large files on two threads or in pieces.
//!
//! The exact inverse of `capture`: whatever the capture
//! leaves out is the canonical rendering this module writes. A change to
//! one direction is made with the other.

use super::{Layout, Padding, Texts, render_field};
use crate::table::Column;

/// Each dictionary value of a column rendered canonically once (padding,
/// quotes), each followed by the delimiter, so rendering a row copies one
/// slice per field and never scans texts.
pub(super) struct Rendered {
    /// Value `c` is `bytes[offsets[c]..offsets[c + 1] - 1]`, and the byte
    /// after it the delimiter; or, when `bare`, `bytes[offsets[c]..offsets[c + 1]]`.
    offsets: Vec<u32>,
    /// Ends with [`COPY`] spare bytes, so that every value can be copied
    /// as one fixed-size block.
    bytes: Vec<u8>,
    /// The delimiter, when the values are stored without it
    /// ([`Rendered::taken`]: a dictionary's own buffer, not copied).
    bare: Option<u8>,
}

/// A column's values rendered for records ([`Layout::render_column`]).
pub struct RenderedColumn(Rendered);

/// Fields up to this many bytes (with their delimiter) are copied as one
/// block of this size and the output cut back: one pair of vector moves per
/// field instead of a call to `memcpy` for a few bytes. (32: most runs of
/// adjacent fields, [`Run`], fit too.)
const COPY: usize = 32;

/// Adjacent columns whose values have at most this many combinations are
/// rendered as one field of the combination ([`Run`]): every combination
/// is rendered up front (a few tens of microseconds), and a record then
/// copies one block per run instead of one per column.
const RUN_COMBINATIONS: u64 = 1024;

/// Columns rendered together: the combination of their codes (mixed radix,
/// the first column most significant) indexes `rendered`, which holds each
/// combination's fields with their delimiters.
pub(super) struct Run {
    pub(super) columns: std::ops::Range<usize>,
    /// Each column's dictionary size (the radices), in column order.
    radices: Vec<u32>,
    rendered: Rendered,
}

impl Run {
    /// Splits the columns into runs, left to right, each as long as its
    /// combinations stay within [`RUN_COMBINATIONS`] and below the row
    /// count (which would not repay rendering them all).
    fn plan(rendered: &[Rendered], rows: usize) -> Vec<Run> {
        let limit = RUN_COMBINATIONS.min(rows as u64 / 4);
        let mut runs = Vec::new();
        let mut start = 0;
        while start < rendered.len() {
            let mut end = start + 1;
            let mut combinations = rendered[start].len() as u64;
            while end < rendered.len() {
                let more = combinations.saturating_mul(rendered[end].len() as u64);
                if more > limit {
                    break;
                }
                combinations = more;
                end += 1;
            }
            let radices: Vec<u32> = rendered[start..end]
                .iter()
                .map(|r| r.len() as u32)
                .collect();
            let mut joint = Rendered::empty();
            let mut tuple = vec![0u32; end - start];
            for _ in 0..if end - start > 1 { combinations } else { 0 } {
                joint.push(
                    tuple
                        .iter()
                        .zip(&rendered[start..end])
                        .map(|(&v, r)| r.get_delimited(v)),
                );
                // The next tuple, the last column fastest.
                for (v, &radix) in tuple.iter_mut().zip(&radices).rev() {
                    *v += 1;
                    if *v < radix {
                        break;
                    }
                    *v = 0;
                }
            }
            joint.finish();
            runs.push(Run {
                columns: start..end,
                radices,
                rendered: joint,
            });
            start = end;
        }
        runs
    }

    /// The combination index of each row of `rows`, into `out`.
    fn index_rows(&self, codes: &[&[u32]], rows: std::ops::Range<usize>, out: &mut [u32]) {
        let columns = &codes[self.columns.clone()];
        out.copy_from_slice(&columns[0][rows.clone()]);
        for (column, &radix) in columns.iter().zip(&self.radices).skip(1) {
            for (i, &code) in out.iter_mut().zip(&column[rows.clone()]) {
                *i = *i * radix + code;
            }
        }
    }
}

impl Rendered {
    pub(super) fn build(column: &Column, pad: &Padding, delimiter: u8, alone: bool) -> Rendered {
        let mut offsets = Vec::with_capacity(column.dict.len() + 1);
        let mut bytes = Vec::new();
        offsets.push(0);
        for value in column.dict.values() {
            render_field(&mut bytes, value, Some(pad), delimiter, alone);
            bytes.push(delimiter);
            offsets.push(bytes.len() as u32);
        }
        bytes.extend_from_slice(&[0; COPY]);
        Rendered {
            offsets,
            bytes,
            bare: None,
        }
    }

    /// The values of a column of many values as its dictionary holds them,
    /// without a copy, when every one renders as its bare text (no padding,
    /// no quotes, not a lone column): a restore of a million distinct
    /// numbers copied their texts a second time only to put the delimiter
    /// after each. The column given back otherwise (boxed: the result
    /// stays small).
    fn taken(
        column: Column,
        pad: &Padding,
        delimiter: u8,
        alone: bool,
    ) -> Result<Rendered, Box<Column>> {
        let joined = column.dict.joined().as_bytes();
        let large = column.dict.len() as u64 > RUN_COMBINATIONS;
        let fits = joined.len() + COPY <= u32::MAX as usize;
        if !large || !fits || alone || !pad.lead.is_empty() || !pad.trail.is_empty() {
            return Err(Box::new(column));
        }
        // One pass over every text (no value of it needs quotes), in
        // chunks whose test has no early exit, so that it is vectorized.
        let quoted = joined.chunks(4096).any(|chunk| {
            chunk.iter().fold(false, |q, &b| {
                q | (b == delimiter) | (b == b'"') | (b == b'\r') | (b == b'\n')
            })
        });
        if quoted {
            return Err(Box::new(column));
        }
        let (texts, ends) = column.dict.into_parts();
        let mut offsets = Vec::with_capacity(ends.len() + 1);
        offsets.push(0);
        offsets.extend(ends.iter().map(|&e| e as u32));
        let mut bytes = texts.into_bytes();
        bytes.extend_from_slice(&[0; COPY]);
        Ok(Rendered {
            offsets,
            bytes,
            bare: Some(delimiter),
        })
    }

    fn empty() -> Rendered {
        Rendered {
            offsets: vec![0],
            bytes: Vec::new(),
            bare: None,
        }
    }

    /// Adds a value made of `parts` (each with its delimiter).
    fn push<'b>(&mut self, parts: impl Iterator<Item = &'b [u8]>) {
        for part in parts {
            self.bytes.extend_from_slice(part);
        }
        self.offsets.push(self.bytes.len() as u32);
    }

    /// Adds the spare bytes after the last value.
    fn finish(&mut self) {
        self.bytes.extend_from_slice(&[0; COPY]);
    }

    /// Number of values.
    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Value `code` with its delimiter (not of a [`Rendered::taken`] column).
    pub(super) fn get_delimited(&self, code: u32) -> &[u8] {
        debug_assert!(self.bare.is_none(), "a taken column is never in a run");
        let c = code as usize;
        &self.bytes[self.offsets[c] as usize..self.offsets[c + 1] as usize]
    }

    #[inline]
    pub(super) fn get(&self, code: u32) -> &[u8] {
        let c = code as usize;
        let end = self.offsets[c + 1] as usize - usize::from(self.bare.is_none());
        &self.bytes[self.offsets[c] as usize..end]
    }

    /// Appends value `code`, followed by the delimiter when `delimited`.
    #[inline(always)]
    fn append(&self, code: u32, delimited: bool, out: &mut Sink) {
        let c = code as usize;
        let start = self.offsets[c] as usize;
        let stored = self.offsets[c + 1] as usize - start;
        if let Some(delimiter) = self.bare {
            if stored <= COPY {
                let block: &[u8; COPY] = self.bytes[start..start + COPY]
                    .try_into()
                    .expect("a block of COPY bytes");
                out.put_block(block, stored);
            } else {
                out.put(&self.bytes[start..start + stored]);
            }
            if delimited {
                out.push(delimiter);
            }
            return;
        }
        let len = stored - usize::from(!delimited);
        if len <= COPY {
            let block: &[u8; COPY] = self.bytes[start..start + COPY]
                .try_into()
                .expect("a block of COPY bytes");
            out.put_block(block, len);
        } else {
            out.put(&self.bytes[start..start + len]);
        }
    }
}

/// The bytes being rendered. A field of up to [`COPY`] bytes is appended
/// as one whole block and the output cut back to its length: a fixed-size
/// copy, no `memcpy` call for a few bytes. A `Vec` with its capacity
/// reserved, not a zero-filled buffer written by index: filling Adult's
/// 2.5 MB with zeros (and again when the helper's share outgrew its half)
/// took a third of the time rendering them did.
struct Sink {
    buf: Vec<u8>,
    /// The CRC-32 of the bytes up to the given length, when checksummed:
    /// [`Renderer::records`] adds each block's bytes while they are in the
    /// cache (a pass over a finished half took twice as long).
    checksum: Option<(crc32fast::Hasher, usize)>,
}

impl Sink {
    fn with_capacity(bytes: usize, checksummed: bool) -> Sink {
        Sink {
            buf: Vec::with_capacity(bytes + COPY),
            checksum: checksummed.then(|| (crc32fast::Hasher::new(), 0)),
        }
    }

    /// Adds the bytes written since the last call to the checksum.
    fn checksum_written(&mut self) {
        if let Some((h, done)) = &mut self.checksum {
            h.update(&self.buf[*done..]);
            *done = self.buf.len();
        }
    }

    /// The checksum of every byte written.
    fn checksum(&mut self) -> Option<crc32fast::Hasher> {
        self.checksum_written();
        self.checksum.as_ref().map(|(h, _)| h.clone())
    }

    /// Appends the first `len` bytes of `block` (`len <= COPY`).
    #[inline(always)]
    fn put_block(&mut self, block: &[u8; COPY], len: usize) {
        self.buf.extend_from_slice(block);
        self.buf.truncate(self.buf.len() - (COPY - len));
    }

    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    #[inline]
    fn push(&mut self, byte: u8) {
        self.buf.push(byte);
    }

    fn written(&self) -> &[u8] {
        &self.buf
    }

    fn into_vec(self) -> Vec<u8> {
        self.buf
    }
}

/// From this many expected bytes on, [`Layout::render_hashed`] renders on
/// two threads.
pub(super) const PARALLEL_BYTES: usize = 1 << 20;

/// The records the calling thread renders on two threads, as a fraction:
/// half. It also copies the helper's records into the output (60 us on
/// Adult) and prepares the renderer while the helper starts; on Adult the
/// render took 0.97-1.01 ms at 50 %, 1.03-1.08 ms at 46 % and
/// 1.09-1.12 ms at 60 % (medians of 300 restores, development format 7), and 47 % is
/// no better since the helper's start overlaps the preparation.
const CALLER_SHARE: (usize, usize) = (50, 100);

/// The bytes of a piece of a restore's output ([`Pieces`]): large enough
/// that handing a piece on costs nothing beside rendering it, small enough
/// to stay in the second-level cache until it is written.
const PIECE_BYTES: usize = 1 << 20;

/// Records rendered per block of [`Renderer::records`]: its indices (4
/// bytes per run and row) stay in the first-level cache.
const BLOCK: usize = 256;

/// The runs' combination indices of a block of rows: run `k`'s for row
/// `first_row + i` at `indices[k * BLOCK + i]`.
struct Block {
    first_row: usize,
    indices: Vec<u32>,
}

/// Where rendering stands in the layout's exception lists.
struct Cursor {
    field: usize,
    record: usize,
    tail: usize,
}

/// What rendering records needs, prepared once: each column's values
/// rendered canonically, the runs of columns rendered together, and the
/// codes.
pub(super) struct Renderer<'a, T: Texts> {
    layout: &'a Layout,
    texts: &'a T,
    rendered: Vec<Rendered>,
    pub(super) runs: Vec<Run>,
    codes: Vec<&'a [u32]>,
    records: usize,
    /// The layout's terminator in a copy block.
    terminator: [u8; COPY],
}

impl<'a, T: Texts> Renderer<'a, T> {
    pub(super) fn new(layout: &'a Layout, texts: &'a T) -> Self {
        let rendered: Vec<Rendered> = (0..texts.columns())
            .map(|c| layout.render_column(c, texts.columns(), texts.column(c)).0)
            .collect();
        Renderer::with(layout, texts, rendered)
    }

    /// The renderer of `texts` whose columns' values are `rendered`
    /// already (the texts' dictionaries are not read).
    fn with(layout: &'a Layout, texts: &'a T, rendered: Vec<Rendered>) -> Self {
        let runs = Run::plan(&rendered, texts.rows());
        let codes = (0..texts.columns())
            .map(|c| &texts.column(c).codes[..])
            .collect();
        let mut terminator = [0; COPY];
        let end = layout.terminator.len().min(COPY);
        terminator[..end].copy_from_slice(&layout.terminator[..end]);
        Renderer {
            layout,
            texts,
            rendered,
            runs,
            codes,
            records: texts.rows() + usize::from(layout.header),
            terminator,
        }
    }

    /// Where the exception lists stand when record `r` is next.
    fn cursor_at(&self, r: usize) -> Cursor {
        let l = self.layout;
        let r = r as u64;
        Cursor {
            field: l.fields.partition_point(|e| e.record < r),
            record: l.records.partition_point(|e| e.record < r),
            tail: l.tails.partition_point(|e| e.record < r),
        }
    }

    /// Appends records `from..to`. The exception cursor is found for
    /// `from`, so the records before it may be rendered elsewhere. Records
    /// go [`BLOCK`] at a time: first each run's combination indices for
    /// the block, column by column (loops the compiler vectorizes), then
    /// the records from them, one table lookup and block copy per run.
    fn records(&self, from: usize, to: usize, out: &mut Sink) {
        let mut at = self.cursor_at(from);
        let header = usize::from(self.layout.header);
        let tables: Vec<&Rendered> = self
            .runs
            .iter()
            .map(|run| match run.columns.len() {
                1 => &self.rendered[run.columns.start],
                _ => &run.rendered,
            })
            .collect();
        let mut block = Block {
            first_row: 0,
            indices: vec![0; BLOCK * self.runs.len()],
        };
        let mut r = from;
        while r < to {
            let end = (r + BLOCK).min(to);
            let rows = r.max(header) - header..end.max(header) - header;
            block.first_row = rows.start;
            for (run, indices) in self.runs.iter().zip(block.indices.chunks_exact_mut(BLOCK)) {
                run.index_rows(&self.codes, rows.clone(), &mut indices[..rows.len()]);
            }
            for rec in r..end {
                self.record(rec, &mut at, &tables, &block, out);
            }
            out.checksum_written();
            r = end;
        }
    }

    /// Appends record `r` (the records before it rendered with `at`; its
    /// runs' indices in `block`, drawn from `tables`).
    #[inline]
    fn record(
        &self,
        r: usize,
        at: &mut Cursor,
        tables: &[&Rendered],
        block: &Block,
        out: &mut Sink,
    ) {
        let l = self.layout;
        let rec = r as u64;
        if l.records.get(at.record).is_some_and(|e| e.record == rec) {
            out.put(&l.records[at.record].raw);
            at.record += 1;
            return;
        }
        let is_header = l.header && r == 0;
        let row = r.wrapping_sub(usize::from(l.header));
        if !is_header && l.fields.get(at.field).is_none_or(|e| e.record != rec) {
            // The common case: every field canonical, a block per run.
            let i = row - block.first_row;
            let last = tables.len().saturating_sub(1);
            for (k, table) in tables.iter().enumerate() {
                table.append(block.indices[k * BLOCK + i], k != last, out);
            }
        } else {
            for c in 0..self.codes.len() {
                if c > 0 {
                    out.push(l.delimiter);
                }
                match l.fields.get(at.field) {
                    Some(e) if e.record == rec && e.column == c as u32 => {
                        out.put(&e.raw);
                        at.field += 1;
                    }
                    _ if is_header => {
                        let mut field = Vec::new();
                        l.render_header_field(&mut field, self.texts, c);
                        out.put(&field);
                    }
                    _ => self.rendered[c].append(self.codes[c][row], false, out),
                }
            }
        }
        if l.tails.get(at.tail).is_some_and(|e| e.record == rec) {
            out.put(&l.tails[at.tail].raw);
            at.tail += 1;
        } else {
            // The terminator (or nothing after the last record) as a
            // block copy, not a `memcpy` call for a byte or two.
            let tail = l.default_tail(r, self.records);
            out.put_block(&self.terminator, tail.len());
        }
    }
}

/// A render split at a record into two halves, each rendered on its own
/// thread ([`Layout::halves`]).
pub struct Halves<'a, T: Texts> {
    renderer: Renderer<'a, T>,
    /// The first record of the tail.
    split: usize,
    expected_len: usize,
}

/// One half of a render, with the CRC-32 of its bytes.
pub struct Half {
    sink: Sink,
    checksum: crc32fast::Hasher,
}

impl<T: Texts> Halves<'_, T> {
    /// The first records, into a buffer for the whole output: to be
    /// rendered on the thread that then joins the halves.
    pub fn head(&self) -> Half {
        let mut sink = Sink::with_capacity(self.expected_len, true);
        sink.put(&self.renderer.layout.prefix);
        self.renderer.records(0, self.split, &mut sink);
        Half {
            checksum: sink.checksum().expect("checksummed"),
            sink,
        }
    }

    /// The other records, into a buffer this thread allocates (from its
    /// own glibc arena: allocated on the joining thread beside the output,
    /// it came as fresh pages to every restore of a loop, about 1,650 page
    /// faults per restore of Adult), with room for records longer than the
    /// average.
    pub fn tail(&self) -> Half {
        let (share, of) = CALLER_SHARE;
        let len = self.expected_len;
        let mut sink = Sink::with_capacity(len - len / of * share + len / 16, true);
        self.renderer
            .records(self.split, self.renderer.records, &mut sink);
        Half {
            checksum: sink.checksum().expect("checksummed"),
            sink,
        }
    }

    /// The whole output and its CRC-32: the tail's bytes after the head's,
    /// their CRC-32s combined.
    pub fn join(&self, head: Half, tail: Half) -> (Vec<u8>, u32) {
        let mut checksum = head.checksum;
        checksum.combine(&tail.checksum);
        let mut out = head.sink;
        // The checksum is whole: the tail's bytes join unchecksummed.
        out.checksum = None;
        out.put(tail.sink.written());
        (out.into_vec(), checksum.finalize())
    }
}

/// A render cut at records into pieces of about `PIECE_BYTES` (1 MiB), each
/// rendered on its own into a buffer that is then reused
/// ([`Layout::pieces_of`]): a restore hands each piece on while the next
/// ones are rendered, instead of rendering the whole output into fresh
/// memory first (84 MB of page faults on a 1M-row table) and writing it
/// after, one thread idle.
pub struct Pieces<'a, T: Texts> {
    renderer: Renderer<'a, T>,
    /// Records per piece (the last may have fewer).
    per_piece: usize,
    /// The bytes a piece is expected to take.
    piece_len: usize,
}

impl<T: Texts> Pieces<'_, T> {
    /// The number of pieces (at least one).
    pub fn count(&self) -> usize {
        self.renderer.records.div_ceil(self.per_piece).max(1)
    }

    /// Renders piece `i` into `buf` (emptied first, its capacity reused):
    /// the bytes and their CRC-32, taken as they are rendered.
    pub fn render(&self, i: usize, buf: Vec<u8>) -> (Vec<u8>, crc32fast::Hasher) {
        let mut sink = Sink {
            buf,
            checksum: Some((crc32fast::Hasher::new(), 0)),
        };
        sink.buf.clear();
        sink.buf.reserve(self.piece_len + COPY);
        if i == 0 {
            sink.put(&self.renderer.layout.prefix);
        }
        let records = self.renderer.records;
        let from = (i * self.per_piece).min(records);
        let to = (from + self.per_piece).min(records);
        self.renderer.records(from, to, &mut sink);
        let checksum = sink.checksum().expect("checksummed");
        (sink.into_vec(), checksum)
    }
}

impl Layout {
    /// Writes the original file's bytes from the texts.
    pub fn render<T: Texts>(&self, texts: &T, out: &mut Vec<u8>) {
        let r = Renderer::new(self, texts);
        let mut sink = Sink {
            buf: std::mem::take(out),
            checksum: None,
        };
        sink.put(&self.prefix);
        r.records(0, r.records, &mut sink);
        *out = sink.into_vec();
    }

    /// Renders as [`Layout::render`] and returns the bytes with their
    /// CRC-32. From `PARALLEL_BYTES` expected bytes on (the length the
    /// caller expects; the output is right whatever it is), a second thread
    /// renders the last `CALLER_SHARE` of the records into its own buffer
    /// while this one renders the first into the output; each takes the
    /// checksum of its own bytes as it renders them, and the two combine.
    pub fn render_hashed<T: Texts + Sync>(&self, texts: &T, expected_len: usize) -> (Vec<u8>, u32) {
        if Layout::renders_on_two_threads(expected_len) {
            return self.render_split(texts, expected_len);
        }
        let mut head = Sink::with_capacity(expected_len, false);
        head.put(&self.prefix);
        let r = Renderer::new(self, texts);
        r.records(0, r.records, &mut head);
        let out = head.into_vec();
        let crc = crc32fast::hash(&out);
        (out, crc)
    }

    /// [`Layout::render_hashed`] on two threads.
    fn render_split<T: Texts + Sync>(&self, texts: &T, expected_len: usize) -> (Vec<u8>, u32) {
        // The helper is started first and waits for the renderer this
        // thread prepares meanwhile (its start and the preparation take
        // about 40 us each on Adult).
        let halves = std::sync::OnceLock::new();
        std::thread::scope(|scope| {
            let (go, ready) = std::sync::mpsc::sync_channel(1);
            let helper = scope.spawn(move || {
                let halves: &Halves<'_, T> = ready.recv().expect("the caller prepares the halves");
                halves.tail()
            });
            let halves = halves.get_or_init(|| self.halves(texts, expected_len));
            go.send(halves).expect("the helper waits for the halves");
            let head = halves.head();
            halves.join(head, helper.join().expect("rendering does not panic"))
        })
    }

    /// [`Layout::render_hashed`]'s work on two threads as steps, for a
    /// caller that keeps its own second thread (a restore first gives it
    /// sections to decode): [`Halves::head`] on the calling thread,
    /// [`Halves::tail`] on the other, then [`Halves::join`]. For expected
    /// lengths from `PARALLEL_BYTES` on ([`Layout::renders_on_two_threads`]).
    pub fn halves<'a, T: Texts>(&'a self, texts: &'a T, expected_len: usize) -> Halves<'a, T> {
        Layout::split(Renderer::new(self, texts), expected_len)
    }

    /// [`Pieces`] of columns whose values each thread rendered with
    /// [`Layout::render_column`] as it decoded them: `rendered[c]` for
    /// `texts.column(c)`, whose dictionary is not read again (it may be
    /// dropped). `expected_len` sizes the pieces (the output is right
    /// whatever its length).
    pub fn pieces_of<'a, T: Texts>(
        &'a self,
        texts: &'a T,
        rendered: Vec<RenderedColumn>,
        expected_len: usize,
    ) -> Pieces<'a, T> {
        let rendered = rendered.into_iter().map(|r| r.0).collect();
        let renderer = Renderer::with(self, texts, rendered);
        let per_record = (expected_len / renderer.records.max(1)).max(1);
        let per_piece = (PIECE_BYTES / per_record).max(BLOCK);
        Pieces {
            renderer,
            per_piece,
            piece_len: per_piece.saturating_mul(per_record).min(PIECE_BYTES * 2),
        }
    }

    /// Column `c` of `columns`' values rendered as records show them
    /// (padding, quotes, the delimiter after), for [`Layout::pieces_of`].
    pub fn render_column(&self, c: usize, columns: usize, column: &Column) -> RenderedColumn {
        RenderedColumn(Rendered::build(
            column,
            &self.padding[c],
            self.delimiter,
            columns == 1,
        ))
    }

    /// [`Layout::render_column`] of a column not read again: its codes
    /// (a column with an empty dictionary) and its values rendered, taking
    /// the dictionary's buffer as it is where that renders the same bytes
    /// (`Rendered::taken`).
    pub fn render_column_owned(
        &self,
        c: usize,
        columns: usize,
        mut column: Column,
    ) -> (Column, RenderedColumn) {
        // Rendering reads the dictionary alone.
        let name = std::mem::take(&mut column.name);
        let codes = std::mem::take(&mut column.codes);
        let rendered = match Rendered::taken(column, &self.padding[c], self.delimiter, columns == 1)
        {
            Ok(rendered) => rendered,
            Err(column) => self.render_column(c, columns, &column).0,
        };
        let codes = Column {
            name,
            dict: crate::dictionary::Dictionary::new(),
            codes,
        };
        (codes, RenderedColumn(rendered))
    }

    fn split<T: Texts>(renderer: Renderer<'_, T>, expected_len: usize) -> Halves<'_, T> {
        let (share, of) = CALLER_SHARE;
        Halves {
            split: renderer.records * share / of,
            renderer,
            expected_len,
        }
    }

    /// Whether [`Layout::render_hashed`] renders `expected_len` bytes on
    /// two threads.
    pub fn renders_on_two_threads(expected_len: usize) -> bool {
        expected_len >= PARALLEL_BYTES
    }
}
