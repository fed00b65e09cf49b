//! A numeric QI's originals as offsets inside their released intervals
//! (`spec/CODING.md` 6.6, a per-value-rans section whose value-table kind
//! is 2): no table of values at all.
//!
//! Mondrian and the other partitioning methods release a numeric QI as
//! thousands of intervals; a column of near-distinct numbers (weights,
//! amounts, measurements) then gives every interval an alphabet of
//! hundreds of values, whose per-value tables cost more than the column's
//! text and whose covers, materialized, need memory of classes times
//! values. Here every number is a scaled integer (its text with the
//! decimal point removed, at the column's largest count of decimals) and a
//! row stores `x - lo` in truncated binary over the interval's
//! `hi - lo + 1` values: within 0.09 bits of `log2` of the width, with
//! nothing stored per interval or per value. Texts that are not the
//! canonical rendering at that scale (`007`, `1.5` among two-decimal
//! numbers, empty cells, `NA`) are listed as exceptions, so the section is
//! exact for any column.

use super::{
    QiOriginal, QiSchema, RULE_ANY, RULE_INTERVAL, RULE_UNCHANGED, ReleasedColumn, ReleasedRows,
};
use crate::codec::CodecError;
use crate::codec::bytes::{ByteReader, put_string, put_varint, unzigzag, zigzag};
use crate::codec::cells::{ColumnRows, Purpose};
use crate::codec::numbers::{
    self, BitReader, BitWriter, MAX_DECIMALS, canonical, parse_scaled, render,
};
use crate::codec::released::{ReleasedSymbol, node_label};
use crate::table::Column;

/// Rule of an interval whose rows hold both its ends (Mondrian's, Top-down's:
/// each class's smallest and largest value): as [`RULE_INTERVAL`], but
/// the first row holding `lo` and the first holding `hi` are named by their
/// positions among the symbol's rows, and store no offset (`spec/CODING.md`
/// 6.6). On 10 rows of a 100,000-wide interval that is 2 x 17 bits for
/// about 2 x 3.3.
pub(super) const RULE_TIGHT: u8 = 4;

/// The widest span (largest less smallest number) a section codes: a
/// truncated binary code of up to 63 bits fits the 64-bit bit reader.
const MAX_SPAN: u64 = (1 << 62) - 1;

/// `[lo, hi]` of a released symbol, scaled: an interval's ends, or a
/// hierarchy node labelled `a-b` / `a~b`.
fn bounds(symbol: &ReleasedSymbol, schema: &QiSchema<'_>, scale: u32) -> Option<(i64, i64)> {
    let (lo, hi) = match symbol {
        ReleasedSymbol::Interval { lo, hi } => (parse_scaled(lo, scale)?, parse_scaled(hi, scale)?),
        ReleasedSymbol::Node { level, node } => {
            let label = node_label(schema.hierarchy, *level, *node).ok()?.trim();
            // The separator is the first `-` or `~` after the first
            // character (which may be a minus sign).
            let (split, _) = label
                .char_indices()
                .skip(1)
                .find(|&(_, c)| c == '-' || c == '~')?;
            (
                parse_scaled(&label[..split], scale)?,
                parse_scaled(&label[split + 1..], scale)?,
            )
        }
        _ => return None,
    };
    (lo <= hi && hi.checked_sub(lo)?.unsigned_abs() <= MAX_SPAN).then_some((lo, hi))
}

// Long: measures the column (distinct texts, span, exceptions) and writes each symbol's rule and
// offsets; the refusals (not numbers, span, exceptions) sit beside the measures they test
/// Writes the section's body (after its kind byte) for `qi`, or `None`
/// when the column is not numbers: no decimal text at all, a span beyond
/// [`MAX_SPAN`], or more exceptions than one row in eight.
pub(super) fn encode(
    qi: &QiOriginal<'_>,
    rel: &ReleasedColumn,
    schema: &QiSchema<'_>,
) -> Option<Vec<u8>> {
    let col = qi.column;
    let scale = numbers::scale_of(col.dict.values())?;
    if numbers::digits(scale) > MAX_DECIMALS {
        return None;
    }
    // Each distinct text once: its scaled integer when canonical.
    let mut buf = String::new();
    let numbers: Vec<Option<i64>> = col
        .dict
        .values()
        .map(|t| canonical(t, scale, &mut buf))
        .collect();
    let m = rel.symbols.len();
    // Per symbol: whether every row holds its text; the smallest and
    // largest number of its rows.
    let symbol_code: Vec<Option<u32>> = rel
        .symbols
        .iter()
        .map(|s| match s {
            ReleasedSymbol::Value(t) => col.dict.code(t),
            _ => None,
        })
        .collect();
    let mut same = vec![true; m];
    let mut range = vec![(i64::MAX, i64::MIN); m];
    // Rows of each symbol holding a number (not an exception).
    let mut numbered = vec![0u32; m];
    let (mut min, mut max) = (i64::MAX, i64::MIN);
    let mut exceptions = 0usize;
    for (&g, &c) in rel.rows.iter().zip(&col.codes) {
        let g = g as usize;
        same[g] &= symbol_code[g] == Some(c);
        match numbers[c as usize] {
            Some(v) => {
                numbered[g] += 1;
                let r = &mut range[g];
                *r = (r.0.min(v), r.1.max(v));
                (min, max) = (min.min(v), max.max(v));
            }
            None => exceptions += 1,
        }
    }
    if min > max {
        // No number at all: every cell an exception or unchanged.
        (min, max) = (0, 0);
    }
    // A span that leaves 64 bits (numbers near both ends of `i64`) is not
    // coded here either.
    if exceptions > rel.rows.len() / 8 || max.checked_sub(min).is_none_or(|s| s as u64 > MAX_SPAN) {
        return None;
    }
    // Each symbol's rule and the start and size of its rows' offsets.
    let mut rules = Vec::with_capacity(m);
    let mut frames = Vec::with_capacity(m);
    for (g, symbol) in rel.symbols.iter().enumerate() {
        let (lo, hi) = range[g];
        // Unchanged, or inside its interval (read once), or anywhere.
        let interval =
            bounds(symbol, schema, scale).filter(|&(a, b)| a <= lo && hi <= b || lo > hi);
        let (rule, frame) = match interval {
            _ if same[g] && symbol_code[g].is_some() => (RULE_UNCHANGED, (min, 1)),
            // Its ends held by its rows, and naming two of them costs less
            // than their offsets.
            Some((a, b))
                if (a, b) == (lo, hi) && a < b && (b - a) as u64 >= u64::from(numbered[g]) =>
            {
                (RULE_TIGHT, (a, (b - a) as u64 + 1))
            }
            Some((a, b)) => (RULE_INTERVAL, (a, (b - a) as u64 + 1)),
            None => (RULE_ANY, (min, (max - min) as u64 + 1)),
        };
        rules.push(rule);
        frames.push(frame);
    }
    let mut out = Vec::new();
    put_varint(&mut out, u64::from(scale));
    put_varint(&mut out, zigzag(min));
    put_varint(&mut out, (max - min) as u64);
    out.extend_from_slice(&rules);
    // The exceptions: rows of a coded symbol whose text is not a number
    // in canonical form, by the gap from the previous one.
    let coded = |g: u32| rules[g as usize] != RULE_UNCHANGED;
    put_varint(
        &mut out,
        rel.rows
            .iter()
            .zip(&col.codes)
            .filter(|&(&g, &c)| coded(g) && numbers[c as usize].is_none())
            .count() as u64,
    );
    let mut last = 0usize;
    for (r, (&g, &c)) in rel.rows.iter().zip(&col.codes).enumerate() {
        if coded(g) && numbers[c as usize].is_none() {
            put_varint(&mut out, (r - last) as u64);
            put_string(&mut out, col.dict.value(c));
            last = r + 1;
        }
    }
    let ends = tight_ends(rel, &col.codes, &numbers, &rules, &frames);
    let mut w = BitWriter::after(out);
    // Per symbol: its rows with a number so far.
    let mut seen = vec![0u32; m];
    for (&g, &c) in rel.rows.iter().zip(&col.codes) {
        if let (true, Some(v)) = (coded(g), numbers[c as usize]) {
            let g = g as usize;
            let (start, size) = frames[g];
            if rules[g] == RULE_TIGHT {
                let (lo_at, hi_at) = ends[g];
                if seen[g] == 0 {
                    let n = u64::from(numbered[g]);
                    w.truncated(u64::from(lo_at), n);
                    w.truncated(u64::from(hi_at - u32::from(hi_at > lo_at)), n - 1);
                }
                seen[g] += 1;
                if seen[g] - 1 == lo_at || seen[g] - 1 == hi_at {
                    continue;
                }
            }
            w.truncated((v - start) as u64, size);
        }
    }
    Some(w.finish())
}

/// Per symbol of [`RULE_TIGHT`]: the positions, among its rows holding a
/// number, of the first holding its interval's `lo` and the first holding
/// its `hi` (`(0, 0)` for other symbols).
fn tight_ends(
    rel: &ReleasedColumn,
    codes: &[u32],
    numbers: &[Option<i64>],
    rules: &[u8],
    frames: &[(i64, u64)],
) -> Vec<(u32, u32)> {
    let m = rules.len();
    let mut ends = vec![(u32::MAX, u32::MAX); m];
    let mut seen = vec![0u32; m];
    for (&g, &c) in rel.rows.iter().zip(codes) {
        let g = g as usize;
        if let (RULE_TIGHT, Some(v)) = (rules[g], numbers[c as usize]) {
            let (lo, size) = frames[g];
            let e = &mut ends[g];
            if v == lo && e.0 == u32::MAX {
                e.0 = seen[g];
            }
            if v == lo + (size - 1) as i64 && e.1 == u32::MAX {
                e.1 = seen[g];
            }
            seen[g] += 1;
        }
    }
    ends.iter()
        .zip(rules)
        .map(|(&e, &rule)| if rule == RULE_TIGHT { e } else { (0, 0) })
        .collect()
}

/// The decoder's side of [`RULE_TIGHT`]: per symbol, its rows holding a
/// number, how many were read, and where its ends are (read at its first).
struct TightEnds {
    /// Per symbol: (rows with a number, rows read, `lo`'s position, `hi`'s);
    /// empty when no symbol has the rule.
    symbols: Vec<(u64, u64, u64, u64)>,
    /// Whether each symbol has the rule.
    tight: Vec<bool>,
}

impl TightEnds {
    /// Counts each tight symbol's rows less its exceptions (`rows_of` gives
    /// a row's symbol); such a symbol needs two of them.
    fn new(
        rules: &[u8],
        rel: &ReleasedRows<'_>,
        exceptions: &[(usize, &str)],
        symbol_of: impl Fn(u32) -> usize,
    ) -> Result<TightEnds, CodecError> {
        let tight: Vec<bool> = rules.iter().map(|&r| r == RULE_TIGHT).collect();
        if !tight.contains(&true) {
            return Ok(TightEnds {
                symbols: Vec::new(),
                tight,
            });
        }
        let mut symbols = vec![(0u64, 0u64, 0u64, 0u64); rules.len()];
        for &id in rel.rows {
            symbols[symbol_of(id)].0 += 1;
        }
        for &(row, _) in exceptions {
            symbols[symbol_of(rel.rows[row])].0 -= 1;
        }
        if let Some(g) = (0..rules.len()).find(|&g| tight[g] && symbols[g].0 < 2) {
            return Err(invalid(format!(
                "released symbol {g} holds its two ends in fewer than two rows"
            )));
        }
        Ok(TightEnds { symbols, tight })
    }

    /// The offset of row `r`, of symbol `g` whose interval has `size`
    /// values, when its symbol names it as an end (reading the ends'
    /// positions at the symbol's first row); `None` when the row stores its
    /// offset.
    #[inline]
    fn at(
        &mut self,
        g: usize,
        size: u64,
        bits: &mut BitReader<'_>,
        r: usize,
    ) -> Result<Option<u64>, CodecError> {
        if self.symbols.is_empty() || !self.tight[g] {
            return Ok(None);
        }
        let (n, read, lo_at, hi_at) = &mut self.symbols[g];
        if *read == 0 {
            *lo_at = bits.truncated(*n);
            let hi = bits.truncated(*n - 1);
            *hi_at = hi + u64::from(hi >= *lo_at);
            if *lo_at >= *n || *hi_at >= *n {
                return Err(invalid(format!(
                    "row {r}: an end's position beyond the {n} rows of its interval"
                )));
            }
        }
        *read += 1;
        Ok(match *read - 1 {
            p if p == *lo_at => Some(0),
            p if p == *hi_at => Some(size - 1),
            _ => None,
        })
    }
}

/// A decoded row's value: a number (scaled) or a text (an exception's, or
/// an unchanged symbol's).
#[derive(Hash, PartialEq, Eq)]
enum Key<'t> {
    Number(i64),
    Text(&'t str),
}

fn invalid(detail: String) -> CodecError {
    CodecError::Invalid {
        what: "offsets section",
        detail,
    }
}

// Long: reads the section in the order encode writes it (exceptions, rows, value texts, class
// frames), each bound checked before reserving
/// Decodes a section body written by [`encode`].
pub(super) fn decode(
    qi: &QiSchema<'_>,
    rel: &ReleasedRows<'_>,
    s: &mut ByteReader<'_>,
) -> Result<Column, CodecError> {
    let field = s.varint("offsets scale")?;
    let scale = numbers::scale_field(field).ok_or_else(|| {
        invalid(format!(
            "scale {field} (expected at most {MAX_DECIMALS} decimals, plus 32 for a comma)"
        ))
    })?;
    let min = unzigzag(s.varint("offsets smallest number")?);
    let span = s.varint("offsets span")?;
    if span > MAX_SPAN || min.checked_add(span as i64).is_none() {
        return Err(invalid(format!("span {span} from {min}")));
    }
    let m = rel.symbols.len();
    let rules = s.take(m as u64, "offsets rules")?;
    let mut frames = Vec::with_capacity(m);
    for (g, (&rule, symbol)) in rules.iter().zip(rel.symbols).enumerate() {
        frames.push(match rule {
            RULE_UNCHANGED if matches!(symbol, ReleasedSymbol::Value(_)) => (0, 0),
            RULE_INTERVAL | RULE_TIGHT => {
                let (a, b) = bounds(symbol, qi, scale).ok_or_else(|| {
                    invalid(format!("released symbol {g} is not an interval of numbers"))
                })?;
                if rule == RULE_TIGHT && a == b {
                    return Err(invalid(format!(
                        "released symbol {g}: a single value cannot hold two ends"
                    )));
                }
                (a, (b - a) as u64 + 1)
            }
            RULE_ANY => (min, span + 1),
            RULE_UNCHANGED => {
                return Err(invalid(format!(
                    "released symbol {g} is generalized but marked unchanged"
                )));
            }
            id => {
                return Err(CodecError::UnknownLayout {
                    what: "offsets rule",
                    id,
                    known: "0 unchanged, 1 interval, 3 any, 4 interval holding its ends",
                });
            }
        });
    }
    let rows = rel.rows.len();
    let symbol_of = |id: u32| rel.class_symbols.map_or(id, |of| of[id as usize]) as usize;
    // Exceptions: each takes at least two bytes, checked before reserving.
    let count = s.count("offsets exceptions", 2)?;
    // Rows ascending (each gap counts from the row after the last).
    let mut exceptions: Vec<(usize, &str)> = Vec::with_capacity(count);
    let mut next = 0u64;
    for _ in 0..count {
        let row = next
            .checked_add(s.varint("offsets exception gap")?)
            .filter(|&r| r < rows as u64)
            .ok_or_else(|| invalid(format!("an exception past the last of {rows} rows")))?;
        let text = s.string("offsets exception text")?;
        if rules[symbol_of(rel.rows[row as usize])] == RULE_UNCHANGED {
            return Err(invalid(format!(
                "exception at row {row}, released unchanged"
            )));
        }
        exceptions.push((row as usize, text));
        next = row + 1;
    }
    // Each distinct value's text is appended once and found again by its
    // number or text, or (distinct numbers) appended row by row: the
    // column is only rendered.
    let mut ends = TightEnds::new(rules, rel, &exceptions, symbol_of)?;
    let mut column = ColumnRows::new(rows, Purpose::Rendering);
    let mut bits = BitReader::new(s.rest());
    let mut exceptions = exceptions.into_iter().peekable();
    // Each class's frame (size 0: unchanged), so that a row reads one
    // table entry, not its class's symbol and then the symbol's frame (two
    // cache misses a row on a million rows of 100,000 classes).
    let frames: Vec<(i64, u64)> = match rel.class_symbols {
        Some(of) => of.iter().map(|&g| frames[g as usize]).collect(),
        None => frames,
    };
    for (r, &id) in rel.rows.iter().enumerate() {
        let (start, size) = frames[id as usize];
        if size == 0 {
            let g = symbol_of(id);
            let ReleasedSymbol::Value(t) = &rel.symbols[g] else {
                unreachable!("rules checked above")
            };
            column.push(Key::Text(t), |s| s.push_str(t));
        } else if let Some((_, text)) = exceptions.next_if(|&(row, _)| row == r) {
            column.push(Key::Text(text), |s| s.push_str(text));
        } else {
            let offset = match ends.at(symbol_of(id), size, &mut bits, r)? {
                Some(offset) => offset,
                None => bits.truncated(size),
            };
            if offset >= size {
                return Err(invalid(format!(
                    "row {r}: offset {offset} beyond {size} values"
                )));
            }
            let v = start + offset as i64;
            column.push(Key::Number(v), |s| render(v, scale, s));
        }
    }
    // The stream must end in its last byte.
    bits.finish("offsets")?;
    let (dict, codes) = column.finish();
    Ok(Column {
        name: qi.name.to_owned(),
        dict,
        codes,
    })
}
