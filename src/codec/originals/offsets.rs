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

use rustc_hash::FxHashMap;

use super::{
    QiOriginal, QiSchema, RULE_ANY, RULE_INTERVAL, RULE_UNCHANGED, ReleasedColumn, ReleasedRows,
};
use crate::codec::CodecError;
use crate::codec::bytes::{ByteReader, put_string, put_varint, unzigzag, zigzag};
use crate::codec::released::{ReleasedSymbol, node_label};
use crate::table::Column;

/// The most decimals a scaled number may have: `10^18` fits an `i64`.
const MAX_DECIMALS: u32 = 18;

/// The widest span (largest less smallest number) a section codes: a
/// truncated binary code of up to 63 bits fits the 64-bit bit reader.
const MAX_SPAN: u64 = (1 << 62) - 1;

/// Decimals of a plain decimal text (`-`? digits (`.` digits)?), `None`
/// for anything else.
fn decimals(text: &str) -> Option<u32> {
    let body = text.strip_prefix('-').unwrap_or(text);
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (body, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(int) || frac.is_some_and(|f| !digits(f)) {
        return None;
    }
    Some(frac.map_or(0, |f| f.len() as u32))
}

/// The integer `text * 10^scale` for a plain decimal text with at most
/// `scale` decimals (any spelling: `+`, leading zeros and trailing zeros
/// are read, not checked).
fn parse_scaled(text: &str, scale: u32) -> Option<i64> {
    let t = text.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty() && frac.is_empty() || frac.len() as u32 > scale {
        return None;
    }
    let mut v: i64 = 0;
    let digits = int.bytes().chain(frac.bytes());
    for b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
    }
    v = v.checked_mul(10i64.checked_pow(scale - frac.len() as u32)?)?;
    Some(if neg { -v } else { v })
}

/// Appends the canonical text of `v / 10^scale`: `-` for a negative
/// number, no leading zeros, exactly `scale` decimals.
fn render(v: i64, scale: u32, out: &mut String) {
    use std::fmt::Write;
    let magnitude = v.unsigned_abs();
    if v < 0 {
        out.push('-');
    }
    if scale == 0 {
        write!(out, "{magnitude}").expect("writing to a string");
    } else {
        let unit = 10u64.pow(scale);
        write!(
            out,
            "{}.{:0width$}",
            magnitude / unit,
            magnitude % unit,
            width = scale as usize
        )
        .expect("writing to a string");
    }
}

/// The scaled integer of `text` when `text` is exactly its canonical
/// rendering at `scale`.
fn canonical(text: &str, scale: u32, buf: &mut String) -> Option<i64> {
    let v = parse_scaled(text, scale)?;
    buf.clear();
    render(v, scale, buf);
    (buf == text).then_some(v)
}

/// `[lo, hi]` of a released symbol, scaled: an interval's ends, or a
/// hierarchy node labelled `a-b` / `a~b`.
fn bounds(symbol: &ReleasedSymbol, schema: &QiSchema<'_>, scale: u32) -> Option<(i64, i64)> {
    let (lo, hi) = match symbol {
        ReleasedSymbol::Interval { lo, hi } => (
            parse_scaled(lo, scale)?,
            parse_scaled(hi, scale)?,
        ),
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

/// Writes `v` in `[0, size)` in truncated binary: `k = floor(log2 size)`
/// bits for the first `2^(k+1) - size` values, `k + 1` for the rest.
fn put_truncated(w: &mut BitWriter, v: u64, size: u64) {
    if size <= 1 {
        return;
    }
    let k = 63 - size.leading_zeros();
    let short = (2u64 << k) - size;
    if v < short {
        w.put(v, k);
    } else {
        w.put(v + short, k + 1);
    }
}

/// A bit writer, most significant bit first (`spec/CODING.md` 1).
struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    bits: u32,
}

impl BitWriter {
    fn put(&mut self, v: u64, n: u32) {
        // At most 63 bits a call: split so the accumulator never overflows.
        if n > 32 {
            self.put(v >> 32, n - 32);
            self.put(v & 0xFFFF_FFFF, 32);
            return;
        }
        self.acc = (self.acc << n) | v;
        self.bits += n;
        while self.bits >= 8 {
            self.bits -= 8;
            self.out.push((self.acc >> self.bits) as u8);
        }
        self.acc &= (1 << self.bits) - 1;
    }

    fn finish(mut self) -> Vec<u8> {
        if self.bits > 0 {
            self.out.push((self.acc << (8 - self.bits)) as u8);
        }
        self.out
    }
}

/// Reads what [`BitWriter`] wrote; past the end it reads zeros and says so
/// in [`BitReader::overrun`].
struct BitReader<'a> {
    bytes: &'a [u8],
    next: usize,
    acc: u64,
    bits: u32,
}

impl BitReader<'_> {
    #[inline]
    fn get(&mut self, n: u32) -> u64 {
        if n > 32 {
            let hi = self.get(n - 32);
            return (hi << 32) | self.get(32);
        }
        while self.bits < n {
            let byte = self.bytes.get(self.next).copied().unwrap_or(0);
            self.next += 1;
            self.acc = (self.acc << 8) | u64::from(byte);
            self.bits += 8;
        }
        self.bits -= n;
        let v = (self.acc >> self.bits) & ((1u64 << n) - 1);
        self.acc &= (1u64 << self.bits) - 1;
        v
    }

    #[inline]
    fn truncated(&mut self, size: u64) -> u64 {
        if size <= 1 {
            return 0;
        }
        let k = 63 - size.leading_zeros();
        let short = (2u64 << k) - size;
        let v = self.get(k);
        if v < short {
            v
        } else {
            ((v << 1) | self.get(1)) - short
        }
    }

    fn overrun(&self) -> bool {
        self.next > self.bytes.len()
    }
}

/// Writes the section's body (after its kind byte) for `qi`, or `None`
/// when the column is not numbers: no decimal text at all, a span beyond
/// [`MAX_SPAN`], or more exceptions than one row in eight.
pub(super) fn encode(qi: &QiOriginal<'_>, rel: &ReleasedColumn, schema: &QiSchema<'_>) -> Option<Vec<u8>> {
    let col = qi.column;
    let scale = col.dict.values().filter_map(decimals).max()?;
    if scale > MAX_DECIMALS {
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
    let (mut min, mut max) = (i64::MAX, i64::MIN);
    let mut exceptions = 0usize;
    for (&g, &c) in rel.rows.iter().zip(&col.codes) {
        let g = g as usize;
        same[g] &= symbol_code[g] == Some(c);
        match numbers[c as usize] {
            Some(v) => {
                let r = &mut range[g];
                *r = (r.0.min(v), r.1.max(v));
                (min, max) = (min.min(v), max.max(v));
            }
            None => exceptions += 1,
        }
    }
    if exceptions > rel.rows.len() / 8 || max.checked_sub(min).is_some_and(|s| s as u64 > MAX_SPAN) {
        return None;
    }
    if min > max {
        // No number at all: every cell an exception or unchanged.
        (min, max) = (0, 0);
    }
    // Each symbol's rule and the start and size of its rows' offsets.
    let mut rules = Vec::with_capacity(m);
    let mut frames = Vec::with_capacity(m);
    for (g, symbol) in rel.symbols.iter().enumerate() {
        let (lo, hi) = range[g];
        let rule = if same[g] && symbol_code[g].is_some() {
            RULE_UNCHANGED
        } else {
            match bounds(symbol, schema, scale) {
                Some((a, b)) if a <= lo && hi <= b || lo > hi => RULE_INTERVAL,
                _ => RULE_ANY,
            }
        };
        rules.push(rule);
        frames.push(match rule {
            RULE_INTERVAL => {
                let (a, b) = bounds(symbol, schema, scale).expect("checked above");
                (a, (b - a) as u64 + 1)
            }
            _ => (min, (max - min) as u64 + 1),
        });
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
    let mut w = BitWriter {
        out,
        acc: 0,
        bits: 0,
    };
    for (&g, &c) in rel.rows.iter().zip(&col.codes) {
        if let (true, Some(v)) = (coded(g), numbers[c as usize]) {
            let (start, size) = frames[g as usize];
            put_truncated(&mut w, (v - start) as u64, size);
        }
    }
    Some(w.finish())
}

fn invalid(detail: String) -> CodecError {
    CodecError::Invalid {
        what: "offsets section",
        detail,
    }
}

/// Decodes a section body written by [`encode`].
pub(super) fn decode(
    qi: &QiSchema<'_>,
    rel: &ReleasedRows<'_>,
    s: &mut ByteReader<'_>,
) -> Result<Column, CodecError> {
    let scale = s.varint("offsets scale")?;
    if scale > u64::from(MAX_DECIMALS) {
        return Err(invalid(format!(
            "scale {scale} (expected at most {MAX_DECIMALS} decimals)"
        )));
    }
    let scale = scale as u32;
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
            RULE_INTERVAL => {
                let (a, b) = bounds(symbol, qi, scale).ok_or_else(|| {
                    invalid(format!("released symbol {g} is not an interval of numbers"))
                })?;
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
                    known: "0 unchanged, 1 interval, 3 any",
                });
            }
        });
    }
    let rows = rel.rows.len();
    let symbol_of = |id: u32| rel.class_symbols.map_or(id, |of| of[id as usize]) as usize;
    // Exceptions: each takes at least two bytes, checked before reserving.
    let count = s.count("offsets exceptions", 2)?;
    let mut exceptions: FxHashMap<usize, &str> = FxHashMap::default();
    exceptions.reserve(count);
    let mut next = 0u64;
    for _ in 0..count {
        let row = next
            .checked_add(s.varint("offsets exception gap")?)
            .filter(|&r| r < rows as u64)
            .ok_or_else(|| invalid(format!("an exception past the last of {rows} rows")))?;
        let text = s.string("offsets exception text")?;
        if rules[symbol_of(rel.rows[row as usize])] == RULE_UNCHANGED {
            return Err(invalid(format!("exception at row {row}, released unchanged")));
        }
        exceptions.insert(row as usize, text);
        next = row + 1;
    }
    let mut column = Column::new(qi.name);
    column.codes.reserve(rows);
    let mut unchanged = vec![u32::MAX; m];
    let mut bits = BitReader {
        bytes: s.rest(),
        next: 0,
        acc: 0,
        bits: 0,
    };
    let mut buf = String::new();
    for (r, &id) in rel.rows.iter().enumerate() {
        let g = symbol_of(id);
        let code = if rules[g] == RULE_UNCHANGED {
            if unchanged[g] == u32::MAX {
                let ReleasedSymbol::Value(t) = &rel.symbols[g] else {
                    unreachable!("rules checked above")
                };
                unchanged[g] = column.dict.intern(t);
            }
            unchanged[g]
        } else if let Some(text) = exceptions.get(&r) {
            column.dict.intern(text)
        } else {
            let (start, size) = frames[g];
            let offset = bits.truncated(size);
            if offset >= size {
                return Err(invalid(format!("row {r}: offset {offset} beyond {size} values")));
            }
            buf.clear();
            render(start + offset as i64, scale, &mut buf);
            column.dict.intern(&buf)
        };
        column.codes.push(code);
    }
    // The stream must end in its last byte.
    if bits.overrun() || bits.next != bits.bytes.len() {
        return Err(invalid(format!(
            "the offsets take {} bytes, the section holds {}",
            bits.next,
            bits.bytes.len()
        )));
    }
    Ok(column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_numbers_render_back_only_when_canonical() {
        let mut buf = String::new();
        for (text, scale, v) in [
            ("0", 0, Some(0)),
            ("-12", 0, Some(-12)),
            ("3.50", 2, Some(350)),
            ("-0.05", 2, Some(-5)),
            ("3.5", 2, None),
            ("007", 0, None),
            ("+5", 0, None),
            ("-0", 0, None),
            ("1e5", 0, None),
            ("", 0, None),
            ("1,000", 0, None),
            ("99999999999999999999", 0, None),
        ] {
            assert_eq!(canonical(text, scale, &mut buf), v, "{text:?} at {scale}");
        }
        assert_eq!(parse_scaled("3.5", 2), Some(350));
        assert_eq!(parse_scaled("30", 2), Some(3000));
        assert_eq!(decimals("12.345"), Some(3));
        assert_eq!(decimals("1e5"), None);
    }

    #[test]
    fn truncated_binary_round_trips_at_every_width() {
        let sizes = [1u64, 2, 3, 5, 7, 8, 9, 1000, 1 << 20, (1 << 33) + 7, MAX_SPAN + 1];
        let mut w = BitWriter {
            out: Vec::new(),
            acc: 0,
            bits: 0,
        };
        let mut expected = Vec::new();
        for &size in &sizes {
            for v in [0, 1, size / 2, size.saturating_sub(2), size - 1] {
                let v = v.min(size - 1);
                put_truncated(&mut w, v, size);
                expected.push((v, size));
            }
        }
        let bytes = w.finish();
        let mut r = BitReader {
            bytes: &bytes,
            next: 0,
            acc: 0,
            bits: 0,
        };
        for (v, size) in expected {
            assert_eq!(r.truncated(size), v, "size {size}");
        }
        assert!(!r.overrun());
    }
}
