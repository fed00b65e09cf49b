//! The texts of typed Arrow values, and their exact inverses.
//!
//! Every renderer writes into a caller's reused buffer (no allocation per
//! cell), and every parser takes back exactly what its renderer wrote, so a
//! value survives text and back unchanged: integers in decimal, floats in
//! their shortest round-trip form (`ryu`: `1e300`, `NaN`, `inf`; a whole
//! number without `.0`: `67`, `-0`, so that a float column of whole numbers,
//! which pandas makes of an integer column with missing values, reads as
//! integers where a config says so),
//! decimals with their scale's digits, dates and times in ISO 8601 (UTC,
//! with a `Z`, for timestamps that carry a time zone), binary in lowercase
//! hex. No rendering is empty, so an empty text can stand for a null in
//! every type but strings and binary (which keep a list of null rows).

use std::fmt::Write as _;

use arrow_schema::TimeUnit;

use crate::civil::{civil_from_days, days_from_civil};

const SECONDS_PER_DAY: i64 = 86_400;

/// Units of `unit` in a second, and the digits of a fraction of a second.
pub fn per_second(unit: TimeUnit) -> (i64, usize) {
    match unit {
        TimeUnit::Second => (1, 0),
        TimeUnit::Millisecond => (1_000, 3),
        TimeUnit::Microsecond => (1_000_000, 6),
        TimeUnit::Nanosecond => (1_000_000_000, 9),
    }
}

/// Appends an integer's decimal text.
pub fn write_int(buf: &mut String, v: impl itoa::Integer) {
    buf.push_str(itoa::Buffer::new().format(v));
}

/// Appends a double's shortest round-trip text.
pub fn write_f64(buf: &mut String, v: f64) {
    push_float(buf, ryu::Buffer::new().format(v));
}

/// Appends a single's shortest round-trip text.
pub fn write_f32(buf: &mut String, v: f32) {
    push_float(buf, ryu::Buffer::new().format(v));
}

/// A float's shortest text, a whole number's without its `.0`.
fn push_float(buf: &mut String, text: &str) {
    buf.push_str(text.strip_suffix(".0").unwrap_or(text));
}

/// Appends `true` or `false`.
pub fn write_bool(buf: &mut String, v: bool) {
    buf.push_str(if v { "true" } else { "false" });
}

/// Reads `true` or `false` back; anything else is `None`.
pub fn parse_bool(text: &str) -> Option<bool> {
    match text {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// `digits` (an integer's decimal text) as a decimal of `scale`: the
/// point before the last `scale` digits, or `-scale` zeros appended.
pub fn write_decimal(buf: &mut String, digits: &str, scale: i8) {
    let (sign, digits) = match digits.strip_prefix('-') {
        Some(d) => ("-", d),
        None => ("", digits),
    };
    buf.push_str(sign);
    if scale <= 0 {
        buf.push_str(digits);
        if digits != "0" {
            (0..-(scale as i32)).for_each(|_| buf.push('0'));
        }
        return;
    }
    let scale = scale as usize;
    if digits.len() <= scale {
        buf.push_str("0.");
        (digits.len()..scale).for_each(|_| buf.push('0'));
        buf.push_str(digits);
    } else {
        let (int, frac) = digits.split_at(digits.len() - scale);
        buf.push_str(int);
        buf.push('.');
        buf.push_str(frac);
    }
}

/// The unscaled integer's text of a decimal written by [`write_decimal`]
/// (into `out`), or `None` when `text` is not one.
pub fn decimal_digits<'a>(text: &str, scale: i8, out: &'a mut String) -> Option<&'a str> {
    out.clear();
    let (negative, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text),
    };
    if negative {
        out.push('-');
    }
    if scale <= 0 {
        if !body.bytes().all(|b| b.is_ascii_digit()) || body.is_empty() {
            return None;
        }
        let zeros = -(scale as i32) as usize;
        if body == "0" {
            out.push('0');
        } else {
            let digits = body.strip_suffix(&"0".repeat(zeros))?;
            if digits.is_empty() {
                return None;
            }
            out.push_str(digits);
        }
        return Some(out);
    }
    let (int, frac) = body.split_once('.')?;
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int) || !all_digits(frac) || frac.len() != scale as usize {
        return None;
    }
    let digits = format!("{int}{frac}");
    let digits = digits.trim_start_matches('0');
    out.push_str(if digits.is_empty() { "0" } else { digits });
    Some(out)
}

/// An `i256`'s decimal text (arrow's `i256` has no `itoa`).
pub fn write_display(buf: &mut String, v: impl std::fmt::Display) {
    // Writing into a String cannot fail.
    let _ = write!(buf, "{v}");
}

fn write_padded(buf: &mut String, v: i64, width: usize) {
    let mut digits = itoa::Buffer::new();
    let text = digits.format(v);
    (text.len()..width).for_each(|_| buf.push('0'));
    buf.push_str(text);
}

/// `YYYY-MM-DD`; years before 0 or after 9999 with a sign (`-0044`,
/// `+10000`), as ISO 8601's expanded years.
pub fn write_date(buf: &mut String, days: i64) {
    let (y, m, d) = civil_from_days(days);
    if y < 0 {
        buf.push('-');
    } else if y > 9999 {
        buf.push('+');
    }
    write_padded(buf, y.abs(), 4);
    buf.push('-');
    write_padded(buf, m, 2);
    buf.push('-');
    write_padded(buf, d, 2);
}

/// `HH:MM:SS`, then a fraction of `digits` digits without its trailing
/// zeros when it is not zero.
fn write_clock(buf: &mut String, seconds: i64, fraction: i64, digits: usize) {
    write_padded(buf, seconds / 3600, 2);
    buf.push(':');
    write_padded(buf, seconds / 60 % 60, 2);
    buf.push(':');
    write_padded(buf, seconds % 60, 2);
    if fraction != 0 {
        buf.push('.');
        let mut f = itoa::Buffer::new();
        let text = f.format(fraction);
        (text.len()..digits).for_each(|_| buf.push('0'));
        buf.push_str(text.trim_end_matches('0'));
    }
}

/// A timestamp of `unit` since the epoch: `YYYY-MM-DDTHH:MM:SS[.f]`, with a
/// `Z` when `utc` (the column has a time zone: its values are UTC instants).
pub fn write_timestamp(buf: &mut String, v: i64, unit: TimeUnit, utc: bool) {
    let (per, digits) = per_second(unit);
    let seconds = v.div_euclid(per);
    write_date(buf, seconds.div_euclid(SECONDS_PER_DAY));
    buf.push('T');
    write_clock(
        buf,
        seconds.rem_euclid(SECONDS_PER_DAY),
        v.rem_euclid(per),
        digits,
    );
    if utc {
        buf.push('Z');
    }
}

/// A time of day in `unit` since midnight: `HH:MM:SS[.f]`; a value outside
/// one day (which Arrow does not forbid) as its plain integer.
pub fn write_time(buf: &mut String, v: i64, unit: TimeUnit) {
    let (per, digits) = per_second(unit);
    if (0..SECONDS_PER_DAY * per).contains(&v) {
        write_clock(buf, v / per, v % per, digits);
    } else {
        write_int(buf, v);
    }
}

fn fixed_digits(text: &str) -> Option<i64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// The day number of a date written by [`write_date`].
pub fn parse_date(text: &str) -> Option<i64> {
    let (sign, body) = match text.as_bytes().first()? {
        b'-' => (-1, &text[1..]),
        b'+' => (1, &text[1..]),
        _ => (1, text),
    };
    let mut parts = body.splitn(3, '-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if y.len() < 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d) = (sign * fixed_digits(y)?, fixed_digits(m)?, fixed_digits(d)?);
    let days = days_from_civil(y, m, d);
    // The date must exist: its day number names it back.
    (civil_from_days(days) == (y, m, d)).then_some(days)
}

/// Seconds since midnight and the fraction in `unit` of a clock written by
/// `write_clock`.
fn parse_clock(text: &str, unit: TimeUnit) -> Option<(i64, i64)> {
    let (per, digits) = per_second(unit);
    let (clock, fraction) = match text.split_once('.') {
        Some((c, f)) if !f.is_empty() && f.len() <= digits => (c, Some(f)),
        Some(_) => return None,
        None => (text, None),
    };
    let b = clock.as_bytes();
    if b.len() != 8 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let (h, m, s) = (
        fixed_digits(&clock[0..2])?,
        fixed_digits(&clock[3..5])?,
        fixed_digits(&clock[6..8])?,
    );
    if h > 23 || m > 59 || s > 59 {
        return None;
    }
    let fraction = match fraction {
        Some(f) => fixed_digits(f)? * 10i64.pow((digits - f.len()) as u32),
        None => 0,
    };
    debug_assert!(fraction < per);
    Some((h * 3600 + m * 60 + s, fraction))
}

/// A timestamp written by [`write_timestamp`] (a date alone is its
/// midnight), in `unit` since the epoch.
pub fn parse_timestamp(text: &str, unit: TimeUnit) -> Option<i64> {
    let text = text.strip_suffix('Z').unwrap_or(text);
    let (date, clock) = match text.split_once('T') {
        Some((d, c)) => (d, Some(c)),
        None => (text, None),
    };
    let (seconds, fraction) = match clock {
        Some(c) => parse_clock(c, unit)?,
        None => (0, 0),
    };
    let (per, _) = per_second(unit);
    // In i128: the second before `i64::MIN` units is below `i64::MIN`.
    let seconds = i128::from(parse_date(date)?) * i128::from(SECONDS_PER_DAY) + i128::from(seconds);
    i64::try_from(seconds * i128::from(per) + i128::from(fraction)).ok()
}

/// A time of day written by [`write_time`].
pub fn parse_time(text: &str, unit: TimeUnit) -> Option<i64> {
    if !text.contains(':') {
        return text.parse().ok();
    }
    let (per, _) = per_second(unit);
    let (seconds, fraction) = parse_clock(text, unit)?;
    Some(seconds * per + fraction)
}

/// Appends bytes as lowercase hexadecimal: a binary column's text.
pub fn write_hex(buf: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    buf.reserve(bytes.len() * 2);
    for &b in bytes {
        buf.push(HEX[(b >> 4) as usize] as char);
        buf.push(HEX[(b & 15) as usize] as char);
    }
}

/// Reads [`write_hex`]'s text back; `None` unless it is pairs of hex digits.
pub fn parse_hex(text: &str) -> Option<Vec<u8>> {
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let b = text.as_bytes();
    if !b.len().is_multiple_of(2) {
        return None;
    }
    b.chunks_exact(2)
        .map(|p| Some(nibble(p[0])? << 4 | nibble(p[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(write: impl FnOnce(&mut String)) -> String {
        let mut buf = String::new();
        write(&mut buf);
        buf
    }

    #[test]
    fn floats_are_shortest_and_parse_back_bit_exactly() {
        for v in [
            0.0,
            -0.0,
            1.5,
            0.1,
            1e300,
            -1e-300,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            let t = text(|b| write_f64(b, v));
            assert_eq!(t.parse::<f64>().unwrap().to_bits(), v.to_bits(), "{t}");
        }
        assert_eq!(text(|b| write_f64(b, 1e300)), "1e300");
        // Whole numbers read as integers (pandas' integers with nulls).
        assert_eq!(text(|b| write_f64(b, 67.0)), "67");
        assert_eq!(text(|b| write_f64(b, -0.0)), "-0");
        assert_eq!(text(|b| write_f32(b, 2.0)), "2");
        assert_eq!(text(|b| write_f64(b, f64::NAN)), "NaN");
        assert_eq!("NaN".parse::<f64>().unwrap().to_bits(), f64::NAN.to_bits());
        let t = text(|b| write_f32(b, 0.1f32));
        assert_eq!(t, "0.1");
        assert_eq!(t.parse::<f32>().unwrap(), 0.1f32);
    }

    #[test]
    fn decimals_keep_their_scale() {
        let mut out = String::new();
        for (digits, scale, shown) in [
            ("12345", 2, "123.45"),
            ("-5", 3, "-0.005"),
            ("0", 2, "0.00"),
            ("7", 0, "7"),
            ("-12", -3, "-12000"),
            ("0", -2, "0"),
        ] {
            assert_eq!(text(|b| write_decimal(b, digits, scale)), shown);
            assert_eq!(decimal_digits(shown, scale, &mut out), Some(digits));
        }
        assert_eq!(decimal_digits("1.5", 2, &mut out), None);
        assert_eq!(decimal_digits("15", 2, &mut out), None);
        assert_eq!(decimal_digits("150", -2, &mut out), None);
    }

    #[test]
    fn timestamps_dates_and_times_round_trip() {
        for unit in [
            TimeUnit::Second,
            TimeUnit::Millisecond,
            TimeUnit::Microsecond,
            TimeUnit::Nanosecond,
        ] {
            let (per, _) = per_second(unit);
            for v in [
                0,
                1,
                -1,
                per * 86_399 + per - 1,
                1_700_000_000 * per + per / 2,
                -62_135_596_800 * (per.min(1_000_000)),
                i64::MAX,
                i64::MIN,
            ] {
                for utc in [false, true] {
                    let t = text(|b| write_timestamp(b, v, unit, utc));
                    assert_eq!(parse_timestamp(&t, unit), Some(v), "{t}");
                }
                let t = text(|b| write_time(b, v, unit));
                assert_eq!(parse_time(&t, unit), Some(v), "{t}");
            }
        }
        assert_eq!(
            text(|b| write_timestamp(b, 1_500, TimeUnit::Millisecond, true)),
            "1970-01-01T00:00:01.5Z"
        );
        assert_eq!(text(|b| write_date(b, -719_529)), "-0001-12-31");
        for d in [-800_000, -1, 0, 19_000, 3_000_000] {
            assert_eq!(parse_date(&text(|b| write_date(b, d))), Some(d));
        }
        assert_eq!(parse_date("2023-02-29"), None);
        assert_eq!(
            parse_timestamp("2023-01-01T24:00:00", TimeUnit::Second),
            None
        );
        assert_eq!(
            parse_timestamp("2023-01-01T00:00:00.1234", TimeUnit::Millisecond),
            None
        );
    }

    #[test]
    fn hex_round_trips() {
        let bytes = [0u8, 1, 0xab, 0xff];
        let t = text(|b| write_hex(b, &bytes));
        assert_eq!(t, "0001abff");
        assert_eq!(parse_hex(&t).unwrap(), bytes);
        assert_eq!(parse_hex("abc"), None);
        assert_eq!(parse_hex("zz"), None);
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    fn unit() -> impl Strategy<Value = TimeUnit> {
        prop_oneof![
            Just(TimeUnit::Second),
            Just(TimeUnit::Millisecond),
            Just(TimeUnit::Microsecond),
            Just(TimeUnit::Nanosecond),
        ]
    }

    proptest! {
        /// Every f64 and f32 (NaNs aside: their bits are kept apart) parses
        /// back from its text to the same bits.
        #[test]
        fn floats_round_trip(bits in any::<u64>(), bits32 in any::<u32>()) {
            let (v, w) = (f64::from_bits(bits), f32::from_bits(bits32));
            let mut b = String::new();
            write_f64(&mut b, v);
            let back: f64 = b.parse().unwrap();
            prop_assert!(back.to_bits() == bits || (v.is_nan() && back.is_nan()), "{b}");
            b.clear();
            write_f32(&mut b, w);
            let back: f32 = b.parse().unwrap();
            prop_assert!(back.to_bits() == bits32 || (w.is_nan() && back.is_nan()), "{b}");
        }

        #[test]
        fn timestamps_and_times_round_trip(v in any::<i64>(), unit in unit(), utc in any::<bool>()) {
            let mut b = String::new();
            write_timestamp(&mut b, v, unit, utc);
            prop_assert_eq!(parse_timestamp(&b, unit), Some(v), "{}", b);
            b.clear();
            write_time(&mut b, v, unit);
            prop_assert_eq!(parse_time(&b, unit), Some(v), "{}", b);
        }

        #[test]
        fn dates_round_trip(d in any::<i32>()) {
            let mut b = String::new();
            write_date(&mut b, d.into());
            prop_assert_eq!(parse_date(&b), Some(i64::from(d)), "{}", b);
        }

        #[test]
        fn decimals_round_trip(v in any::<i128>(), scale in -10i8..=38) {
            let mut b = String::new();
            let digits = v.to_string();
            write_decimal(&mut b, &digits, scale);
            let mut out = String::new();
            let back = decimal_digits(&b, scale, &mut out).and_then(|d| d.parse::<i128>().ok());
            prop_assert_eq!(back, Some(v), "{}", b);
        }
    }
}
