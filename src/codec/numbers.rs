//! Numbers as scaled integers, exact to the text (`spec/CODING.md` 1 and
//! 6.6), and the bit fields that code them: truncated binary and
//! Exp-Golomb, most significant bit first.
//!
//! A decimal text `12.50` is the integer 1250 at scale 2; it is stored as
//! that integer only when rendering the integer back gives the same text
//! (its *canonical* spelling), so a reader restores every byte. Texts
//! that are not canonical (`007`, `+4`, `1.5` among two-decimal numbers)
//! are the caller's exceptions.

use super::CodecError;

/// The most decimals a scaled number may have: `10^18` fits an `i64`.
pub(crate) const MAX_DECIMALS: u32 = 18;

/// The flag of a *scale* (a count of decimals, 0 to [`MAX_DECIMALS`]) whose
/// numbers are written with a decimal comma (`1234,56`, as much of Europe
/// writes them) instead of a point: the scale field of a file holds the
/// count of decimals, plus this for a comma (`spec/CODING.md` 6.6).
pub(crate) const COMMA: u32 = 32;

/// The count of decimals of a scale.
pub(crate) fn digits(scale: u32) -> u32 {
    scale & !COMMA
}

/// The decimal mark of a scale.
fn mark(scale: u32) -> char {
    if scale & COMMA == 0 { '.' } else { ',' }
}

/// A scale field as a file stores it, when valid: at most [`MAX_DECIMALS`]
/// decimals, with or without [`COMMA`].
pub(crate) fn scale_field(field: u64) -> Option<u32> {
    let scale = u32::try_from(field).ok()?;
    (scale & !(COMMA | 31) == 0 && digits(scale) <= MAX_DECIMALS).then_some(scale)
}

/// The decimals of a plain decimal text (`-`? digits (`.` or `,` digits)?)
/// and its mark (`None` for an integer), `None` for anything else.
fn decimals(text: &str) -> Option<(u32, Option<char>)> {
    let body = text.strip_prefix('-').unwrap_or(text);
    let (int, frac) = match body.find(['.', ',']) {
        Some(i) => (
            &body[..i],
            Some((&body[i + 1..], body.as_bytes()[i] as char)),
        ),
        None => (body, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(int) || frac.is_some_and(|(f, _)| !digits(f)) {
        return None;
    }
    Some(frac.map_or((0, None), |(f, m)| (f.len() as u32, Some(m))))
}

/// The scale of a column of `texts`: the mark most of its decimal texts use
/// (a point on a tie), with the most decimals among the texts written with
/// it (integers count as 0); `None` when no text is a plain number. Texts
/// of the other mark are then not canonical: their callers' exceptions.
pub(crate) fn scale_of<'t>(texts: impl Iterator<Item = &'t str>) -> Option<u32> {
    // Per mark (point, comma): its texts and their most decimals; integers.
    let (mut point, mut comma, mut integers) = ((0u64, 0u32), (0u64, 0u32), false);
    for t in texts {
        match decimals(t) {
            Some((_, None)) => integers = true,
            Some((d, Some('.'))) => point = (point.0 + 1, point.1.max(d)),
            Some((d, _)) => comma = (comma.0 + 1, comma.1.max(d)),
            None => {}
        }
    }
    match (point.0, comma.0) {
        (0, 0) if !integers => None,
        (p, c) if c > p => Some(COMMA | comma.1),
        _ => Some(point.1),
    }
}

/// The integer `text * 10^digits` for a plain decimal text with at most
/// `scale`'s decimals after its mark (any spelling: `+`, leading zeros and
/// trailing zeros are read, not checked).
pub(crate) fn parse_scaled(text: &str, scale: u32) -> Option<i64> {
    let t = text.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let decimals = digits(scale);
    let (int, frac) = body.split_once(mark(scale)).unwrap_or((body, ""));
    if int.is_empty() && frac.is_empty() || frac.len() as u32 > decimals {
        return None;
    }
    let mut v: i64 = 0;
    for b in int.bytes().chain(frac.bytes()) {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
    }
    v = v.checked_mul(10i64.checked_pow(decimals - frac.len() as u32)?)?;
    Some(if neg { -v } else { v })
}

/// Appends the canonical text of `v / 10^digits`: `-` for a negative
/// number, no leading zeros, exactly `scale`'s decimals after its mark.
/// Digits through `itoa`, not `fmt`: a restore renders every cell of a
/// numeric column, and `write!` took a fifth of it.
pub(crate) fn render(v: i64, scale: u32, out: &mut String) {
    let magnitude = v.unsigned_abs();
    if v < 0 {
        out.push('-');
    }
    let mut text = itoa::Buffer::new();
    let decimals = digits(scale);
    if decimals == 0 {
        out.push_str(text.format(magnitude));
    } else {
        let unit = 10u64.pow(decimals);
        out.push_str(text.format(magnitude / unit));
        out.push(mark(scale));
        push_padded(out, magnitude % unit, decimals as usize);
    }
}

/// Appends `v` in at least `width` digits, zeros in front.
pub(crate) fn push_padded(out: &mut String, v: u64, width: usize) {
    let mut digits = itoa::Buffer::new();
    let text = digits.format(v);
    for _ in text.len()..width {
        out.push('0');
    }
    out.push_str(text);
}

/// The scaled integer of `text` when `text` is exactly its canonical
/// rendering at `scale` (`buf` is scratch space).
pub(crate) fn canonical(text: &str, scale: u32, buf: &mut String) -> Option<i64> {
    let v = parse_scaled(text, scale)?;
    buf.clear();
    render(v, scale, buf);
    (buf == text).then_some(v)
}

/// A bit writer, most significant bit first (`spec/CODING.md` 1), that
/// appends to a byte vector.
pub(crate) struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    bits: u32,
}

impl BitWriter {
    /// Bits to be appended after the bytes of `out`.
    pub(crate) fn after(out: Vec<u8>) -> Self {
        BitWriter {
            out,
            acc: 0,
            bits: 0,
        }
    }

    /// The `n` low bits of `v`, `n <= 64`.
    pub(crate) fn put(&mut self, v: u64, n: u32) {
        // At most 32 bits at a time: the accumulator keeps fewer than 8.
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

    /// `v` in `[0, size)` in truncated binary: nothing for `size = 1`,
    /// else with `k = floor(log2 size)`, `k` bits for the first
    /// `2^(k+1) - size` values and `k + 1` for the rest.
    pub(crate) fn truncated(&mut self, v: u64, size: u64) {
        if size <= 1 {
            return;
        }
        let k = 63 - size.leading_zeros();
        let short = (2u64 << k) - size;
        if v < short {
            self.put(v, k);
        } else {
            self.put(v + short, k + 1);
        }
    }

    /// `v < 2^63` in order-0 Exp-Golomb: `n` zeros then the `n + 1` bits
    /// of `v + 1`.
    pub(crate) fn exp_golomb(&mut self, v: u64) {
        let n = 63 - (v + 1).leading_zeros();
        self.put(0, n);
        self.put(v + 1, n + 1);
    }

    /// The bytes, the last one padded with zero bits.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        if self.bits > 0 {
            self.out.push((self.acc << (8 - self.bits)) as u8);
        }
        self.out
    }
}

/// Reads what [`BitWriter`] wrote. Past the end it reads zeros, and
/// [`BitReader::finish`] refuses the stream.
pub(crate) struct BitReader<'a> {
    bytes: &'a [u8],
    next: usize,
    acc: u64,
    bits: u32,
}

impl<'a> BitReader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        BitReader {
            bytes,
            next: 0,
            acc: 0,
            bits: 0,
        }
    }

    /// The next `n <= 64` bits.
    #[inline]
    pub(crate) fn get(&mut self, n: u32) -> u64 {
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

    /// A value of [`BitWriter::truncated`] over `size` values.
    #[inline]
    pub(crate) fn truncated(&mut self, size: u64) -> u64 {
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

    /// A value of [`BitWriter::exp_golomb`]; `None` past 63 zeros.
    pub(crate) fn exp_golomb(&mut self) -> Option<u64> {
        let mut n = 0;
        while self.get(1) == 0 {
            n += 1;
            if n > 62 || self.next > self.bytes.len() {
                return None;
            }
        }
        Some(((1u64 << n) | self.get(n)) - 1)
    }

    /// Whether bits past the end of the stream were read.
    pub(crate) fn overrun(&self) -> bool {
        self.next > self.bytes.len()
    }

    /// Refuses a stream read past its end or not to its last byte
    /// (`what` names it).
    pub(crate) fn finish(&self, what: &'static str) -> Result<(), CodecError> {
        if self.next == self.bytes.len() {
            return Ok(());
        }
        Err(CodecError::Invalid {
            what,
            detail: format!(
                "the bit stream takes {} bytes, {} are stored",
                self.next,
                self.bytes.len()
            ),
        })
    }
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
        assert_eq!(decimals("12.345"), Some((3, Some('.'))));
        assert_eq!(decimals("1e5"), None);
    }

    /// A column's scale takes the mark most of its decimal texts use, and
    /// its texts of that mark render back at it; the scale field a file
    /// stores takes only 0 to 18 decimals, with or without the comma.
    #[test]
    fn a_decimal_comma_is_a_scale_of_its_own() {
        let mut buf = String::new();
        let scale = scale_of(["1234,56", "-0,5", "7", "1.5"].into_iter()).unwrap();
        assert_eq!(scale, COMMA | 2);
        assert_eq!(canonical("1234,56", scale, &mut buf), Some(123456));
        assert_eq!(canonical("-0,50", scale, &mut buf), Some(-50));
        assert_eq!(canonical("1.5", scale, &mut buf), None);
        assert_eq!(canonical("7,00", scale, &mut buf), Some(700));
        assert_eq!(scale_of(["1,5", "2.5"].into_iter()), Some(1));
        assert_eq!(scale_of(["12", "x"].into_iter()), Some(0));
        assert_eq!(scale_of(["x", ""].into_iter()), None);
        for (field, scale) in [
            (0, Some(0)),
            (18, Some(18)),
            (32, Some(COMMA)),
            (50, Some(COMMA | 18)),
        ] {
            assert_eq!(scale_field(field), scale);
        }
        for field in [19, 31, 51, 64, 96, 1 << 40] {
            assert_eq!(scale_field(field), None, "{field}");
        }
    }

    #[test]
    fn bit_fields_round_trip_at_every_width() {
        let sizes = [
            1u64,
            2,
            3,
            5,
            7,
            8,
            9,
            1000,
            1 << 20,
            (1 << 33) + 7,
            1 << 62,
        ];
        let mut w = BitWriter::after(vec![0xAB]);
        let mut expected = Vec::new();
        for &size in &sizes {
            for v in [0, 1, size / 2, size.saturating_sub(2), size - 1] {
                let v = v.min(size - 1);
                w.truncated(v, size);
                w.exp_golomb(v);
                expected.push((v, size));
            }
        }
        let bytes = w.finish();
        assert_eq!(bytes[0], 0xAB);
        let mut r = BitReader::new(&bytes[1..]);
        for (v, size) in expected {
            assert_eq!(r.truncated(size), v, "size {size}");
            assert_eq!(r.exp_golomb(), Some(v), "size {size}");
        }
        r.finish("bits").unwrap();
        // Reading on past the end is refused.
        r.get(8);
        assert!(r.finish("bits").is_err());
    }
}
