//! Numeric columns (`spec/CODING.md` 5.3): integers and decimals as scaled
//! integers, each row's text rebuilt exactly from its mantissa and its
//! number of decimals. A text that is not the canonical rendering of a
//! number (`007`, `+5`, `1e5`, `-0`, an empty cell, `NA`) is an exception:
//! its row and text are stored beside, never lost.
//!
//! Each distinct text is parsed once; rows map to their text's number.

use super::super::CodecError;
use super::super::bytes::{ByteReader, put_varint};
use super::super::cells::{ColumnRows, Purpose};
use super::calendar::{self, Format};
use super::ints::{put_integers, put_symbols, read_integers, read_symbols};

use crate::dictionary::Dictionary;

/// At most this many decimals: `10^18` still fits an `i64`, so every
/// mantissa can be scaled to the column's largest count of decimals.
pub(super) const MAX_DECIMALS: u8 = 18;

const SCALE_CONSTANT: u8 = 0;
const SCALE_CODED: u8 = 1;

/// The flag of the largest-decimals byte of a column written with a
/// decimal comma (`spec/CODING.md` 5.3), as in `numbers::COMMA`.
const COMMA: u8 = crate::codec::numbers::COMMA as u8;

/// The mantissa and decimals of `s` when `s` is exactly their canonical
/// rendering ([`render`]) with the decimal mark of `comma`: optional `-`,
/// the integer digits without leading zeros (`0` alone when zero), then
/// the mark and the decimals when there are any. Zero has no sign.
pub(super) fn parse(s: &str, comma: bool) -> Option<(i64, u8)> {
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (int, frac) = match body.split_once(if comma { ',' } else { '.' }) {
        Some((i, f)) => (i, Some(f)),
        None => (body, None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(int) || (int.len() > 1 && int.starts_with('0')) {
        return None;
    }
    let decimals = match frac {
        Some(f) if !digits(f) => return None,
        Some(f) => u8::try_from(f.len()).ok().filter(|&d| d <= MAX_DECIMALS)?,
        None => 0,
    };
    let mut m: i64 = 0;
    for b in int.bytes().chain(frac.unwrap_or("").bytes()) {
        m = m.checked_mul(10)?.checked_sub(i64::from(b - b'0'))?;
    }
    // Accumulated negative: i64::MIN is reachable.
    if negative {
        (m != 0).then_some((m, decimals))
    } else {
        m.checked_neg().map(|m| (m, decimals))
    }
}

/// Appends the canonical text of `mantissa / 10^decimals`, with a decimal
/// comma when `comma`.
pub(super) fn render(out: &mut String, mantissa: i64, decimals: u8, comma: bool) {
    let mark = if comma { COMMA } else { 0 };
    crate::codec::numbers::render(mantissa, u32::from(decimals | mark), out);
}

/// Whether a column's decimal texts mostly use a comma for their mark
/// (`1234,56`): a point wins a tie.
fn comma_column(texts: &[&str]) -> bool {
    let (mut points, mut commas) = (0usize, 0usize);
    for t in texts {
        if parse(t, false).is_some_and(|(_, d)| d > 0) {
            points += 1;
        } else if parse(t, true).is_some_and(|(_, d)| d > 0) {
            commas += 1;
        }
    }
    commas > points
}

/// A numeric column blob's fields after its layout byte, or `None` when
/// more than half the rows would be exceptions. `texts` are the distinct
/// texts, `rows` each row's index into them; `exceptions(texts, rows)`
/// codes the exceptions (their distinct texts and each one's index) as a
/// nested plain blob.
pub(super) fn encode(
    format: Format,
    texts: &[&str],
    rows: &[u32],
    exceptions: impl FnOnce(&[&str], &[u32]) -> Vec<u8>,
) -> Option<Vec<u8>> {
    let comma = format == Format::Decimal && comma_column(texts);
    let parsed: Vec<Option<(i64, u8)>> = texts
        .iter()
        .map(|t| match format {
            Format::Decimal => parse(t, comma),
            _ => calendar::parse(format, t).map(|v| (v, 0)),
        })
        .collect();
    let max = parsed.iter().flatten().map(|&(_, d)| d).max()?;
    // Each text's mantissa at the largest scale: comparable across rows.
    let scaled: Vec<Option<(i64, u8)>> = parsed
        .iter()
        .map(|p| p.and_then(|(m, d)| Some((m.checked_mul(10i64.pow(u32::from(max - d)))?, d))))
        .collect();
    let mut exception_rows: Vec<i64> = Vec::new();
    let mut exception_texts: Vec<&str> = Vec::new();
    let mut exception_indices: Vec<u32> = Vec::new();
    let mut nested_index = vec![u32::MAX; texts.len()];
    let mut mantissas: Vec<i64> = Vec::with_capacity(rows.len());
    let mut decimals: Vec<u32> = Vec::with_capacity(rows.len());
    for (row, &t) in rows.iter().enumerate() {
        match scaled[t as usize] {
            Some((m, d)) => {
                mantissas.push(m);
                decimals.push(u32::from(d));
            }
            None => {
                exception_rows.push(row as i64);
                let slot = &mut nested_index[t as usize];
                if *slot == u32::MAX {
                    *slot = exception_texts.len() as u32;
                    exception_texts.push(texts[t as usize]);
                }
                exception_indices.push(*slot);
            }
        }
    }
    if exception_rows.len() * 2 > rows.len() {
        return None;
    }
    let mut out = Vec::new();
    put_varint(&mut out, exception_rows.len() as u64);
    if !exception_rows.is_empty() {
        put_integers(&mut out, &exception_rows);
        let nested = exceptions(&exception_texts, &exception_indices);
        put_varint(&mut out, nested.len() as u64);
        out.extend_from_slice(&nested);
    }
    out.push(if comma { max | COMMA } else { max });
    if decimals.iter().all(|&d| d == decimals[0]) {
        out.push(SCALE_CONSTANT);
        out.push(decimals[0] as u8);
    } else {
        out.push(SCALE_CODED);
        put_symbols(&mut out, usize::from(max) + 1, &decimals);
    }
    put_integers(&mut out, &mantissas);
    Some(out)
}

/// A decoded row's value: a number (scaled to the column's largest
/// decimals, and its own decimals) or an exception's code.
#[derive(Hash, PartialEq, Eq)]
enum Key {
    Number(i64, u32),
    Exception(u32),
}

// Long: reads the number section in its stored order (decimals coding, dates or times, then each
// row's text), checking all before any is rendered
/// Decodes the fields [`encode`] wrote into `rows` rows of a dictionary's
/// codes; `exceptions(bytes, count)` decodes the nested blob.
pub(super) fn decode(
    r: &mut ByteReader<'_>,
    format: Format,
    rows: usize,
    purpose: Purpose,
    exceptions: impl FnOnce(&[u8], usize) -> Result<(Dictionary, Vec<u32>), CodecError>,
) -> Result<(Dictionary, Vec<u32>), CodecError> {
    let e = r.varint("exception count")?;
    if e > rows as u64 {
        return Err(CodecError::Invalid {
            what: "exception count",
            detail: format!("{e} exceptions in {rows} rows"),
        });
    }
    let e = e as usize;
    let (exception_rows, exception_dict, exception_codes) = if e == 0 {
        (Vec::new(), Dictionary::new(), Vec::new())
    } else {
        let at = read_integers(r, e)?;
        let mut prev: i64 = -1;
        for &row in &at {
            if row <= prev || row >= rows as i64 {
                return Err(CodecError::Invalid {
                    what: "exception rows",
                    detail: format!(
                        "row {row} after row {prev} (rows strictly increase, below {rows})"
                    ),
                });
            }
            prev = row;
        }
        let len = r.varint("exceptions blob length")?;
        let nested = r.take(len, "exceptions blob")?;
        let (dict, codes) = exceptions(nested, e)?;
        (at, dict, codes)
    };
    let field = r.byte("largest decimals")?;
    let (max, comma) = (field & !COMMA, field & COMMA != 0);
    if max > MAX_DECIMALS || comma && format != Format::Decimal {
        return Err(CodecError::Invalid {
            what: "largest decimals",
            detail: format!(
                "{field} (expected at most {MAX_DECIMALS}, plus {COMMA} for a decimal comma)"
            ),
        });
    }
    let m = rows - e;
    let decimals: Vec<u32> = match r.byte("decimals coding")? {
        SCALE_CONSTANT => {
            let d = r.byte("decimals")?;
            if d > max {
                return Err(CodecError::Invalid {
                    what: "decimals",
                    detail: format!("{d} above the largest, {max}"),
                });
            }
            vec![u32::from(d); m]
        }
        SCALE_CODED => read_symbols(r, "row decimals", usize::from(max) + 1, m)?,
        id => {
            return Err(CodecError::UnknownLayout {
                what: "decimals coding",
                id,
                known: "0 constant, 1 coded",
            });
        }
    };
    let mantissas = read_integers(r, m)?;
    if format != Format::Decimal {
        // Every date or time checked before any is rendered.
        if let Some(&v) = mantissas
            .iter()
            .find(|&&v| max > 0 || !calendar::renders(format, v))
        {
            return Err(CodecError::Invalid {
                what: "date or time",
                detail: format!(
                    "value {v} with {max} decimals (expected a day or second of the years 0000 to 9999, no decimals)"
                ),
            });
        }
    }
    // Each distinct number's text is appended once and found again by the
    // number (words to hash, not texts), or (a rendered column of distinct
    // numbers) appended row by row; an exception is never a number's
    // canonical text.
    let mut column = ColumnRows::new(rows, purpose);
    let mut next_exception = exception_rows.iter().zip(&exception_codes).peekable();
    let mut numbers = mantissas.iter().zip(&decimals);
    for row in 0..rows {
        if let Some((_, &code)) = next_exception.next_if(|&(&at, _)| at == row as i64) {
            column.push(Key::Exception(code), |s| {
                s.push_str(exception_dict.value(code));
            });
            continue;
        }
        let (&v, &d) = numbers
            .next()
            .expect("rows less exceptions are the numbers");
        column.push(Key::Number(v, d), |s| {
            if format == Format::Decimal {
                let v = match u32::from(max) - d {
                    0 => v,
                    shift => v / 10i64.pow(shift),
                };
                render(s, v, d as u8, comma);
            } else {
                calendar::render(s, format, v).expect("checked above");
            }
        });
    }
    Ok(column.finish())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn parse_point(s: &str) -> Option<(i64, u8)> {
        parse(s, false)
    }

    /// With a decimal comma the same texts parse with `,` for `.`, and a
    /// point is then not a mark: `1.234,5` (a thousands dot) is an
    /// exception, as `1,000` is among points.
    #[test]
    fn a_comma_column_reads_its_own_mark_only() {
        assert_eq!(parse("-0,5", true), Some((-5, 1)));
        assert_eq!(parse("1234,56", true), Some((123456, 2)));
        assert_eq!(parse("12", true), Some((12, 0)));
        for bad in ["0.5", "1.234,5", "1,", ",5", "-0,0"] {
            assert_eq!(parse(bad, true), None, "{bad:?}");
        }
        assert!(comma_column(&["1,5", "2,25", "3.5", "7"]));
        assert!(!comma_column(&["1,5", "3.5", "7"]));
    }

    #[test]
    fn only_canonical_texts_parse() {
        assert_eq!(parse_point("0"), Some((0, 0)));
        assert_eq!(parse_point("0.10"), Some((10, 2)));
        assert_eq!(parse_point("0.1"), Some((1, 1)));
        assert_eq!(parse_point("-0.5"), Some((-5, 1)));
        assert_eq!(parse_point("-9223372036854775808"), Some((i64::MIN, 0)));
        assert_eq!(parse_point("9223372036854775807"), Some((i64::MAX, 0)));
        for bad in [
            "",
            "-",
            "-0",
            "-0.0",
            "007",
            "+5",
            "1e5",
            "1,000",
            ".5",
            "5.",
            "NA",
            " 1",
            "1 ",
            "9223372036854775808",
            "-9223372036854775809",
            "1.0000000000000000000",
            "0x1F",
            "١",
        ] {
            assert_eq!(parse_point(bad), None, "{bad:?}");
        }
    }

    proptest! {
        #[test]
        fn rendering_inverts_parsing(m in any::<i64>(), d in 0..=MAX_DECIMALS, comma: bool) {
            let mut s = String::new();
            render(&mut s, m, d, comma);
            prop_assert_eq!(parse(&s, comma), Some((m, d)));
        }

        #[test]
        fn parsing_inverts_rendering(s in "-?[0-9]{1,4}(\\.[0-9]{0,3})?") {
            if let Some((m, d)) = parse(&s, false) {
                let mut back = String::new();
                render(&mut back, m, d, false);
                prop_assert_eq!(back, s);
            }
        }
    }
}
