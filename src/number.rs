//! Reading a numeric cell as a number, as the file spells it.
//!
//! A European CSV separates its fields with `;` (or a tab) because its
//! numbers use a decimal comma: `1234,56`, `-0,5`. Where the delimiter is
//! not a comma, a cell is therefore also read with a decimal comma; the text
//! itself is never rewritten (a release shows it, a restore gives it back
//! byte for byte).
//!
//! Choices made here (`docs/CONFIG.md`, "Numbers"):
//! - A cell that reads as a number with a decimal point reads so in every
//!   file: `1.5`, `1e3`. So `1.234` is one point two three four, never one
//!   thousand two hundred thirty-four: without a comma, a dot is a decimal
//!   point.
//! - With a decimal comma, dots may group the thousands, in groups of
//!   exactly three digits: `1.234,56` and `12.345.678,9`; `1.23,4` or
//!   `1234.567,8` are not numbers.
//! - A decimal comma needs digits on both sides, without exponent:
//!   `1234,56`, `-0,5`, `+3,0`; not `,5`, `5,` or `1,5e3`.
//! - Integers are plain (`-12`): a column of type `integer` takes no comma
//!   and no grouping dot.

/// How the numbers of a file are spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NumberFormat {
    /// Whether `1234,56` is a number (the delimiter is not a comma).
    pub decimal_comma: bool,
}

impl NumberFormat {
    /// The format of a file whose fields `delimiter` separates: a decimal
    /// comma wherever a comma cannot be the delimiter.
    pub fn for_delimiter(delimiter: u8) -> NumberFormat {
        NumberFormat {
            decimal_comma: delimiter != b',',
        }
    }

    /// `text` as a finite decimal number, when it is one.
    pub fn decimal(self, text: &str) -> Option<f64> {
        if let Ok(x) = text.parse::<f64>() {
            return x.is_finite().then_some(x);
        }
        if self.decimal_comma {
            comma_decimal(text)
        } else {
            None
        }
    }

    /// `text` as a number of `value_type` (integer or decimal).
    pub fn number(self, text: &str, value_type: crate::table::ValueType) -> Option<f64> {
        match value_type {
            crate::table::ValueType::Integer => text.parse::<i64>().ok().map(|v| v as f64),
            _ => self.decimal(text),
        }
    }
}

/// `[sign] whole , fraction` with the whole part's thousands optionally
/// grouped by dots; `None` otherwise.
fn comma_decimal(text: &str) -> Option<f64> {
    let (sign, unsigned) = match text.as_bytes().first()? {
        b'-' => ("-", &text[1..]),
        b'+' => ("", &text[1..]),
        _ => ("", text),
    };
    let (whole, fraction) = unsigned.split_once(',')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(fraction) {
        return None;
    }
    let mut groups = whole.split('.');
    let first = groups.next()?;
    let grouped = whole.contains('.');
    if !digits(first) || (grouped && first.len() > 3) {
        return None;
    }
    let mut plain = String::with_capacity(text.len());
    plain.push_str(sign);
    plain.push_str(first);
    for g in groups {
        if g.len() != 3 || !digits(g) {
            return None;
        }
        plain.push_str(g);
    }
    plain.push('.');
    plain.push_str(fraction);
    plain.parse::<f64>().ok().filter(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::ValueType;

    #[test]
    fn decimal_commas_read_only_where_the_delimiter_is_not_a_comma() {
        let semicolon = NumberFormat::for_delimiter(b';');
        let comma = NumberFormat::for_delimiter(b',');
        for (text, x) in [
            ("1234,56", 1234.56),
            ("-0,5", -0.5),
            ("+3,0", 3.0),
            ("1.234,56", 1234.56),
            ("12.345.678,9", 12_345_678.9),
            ("-1.000,25", -1000.25),
            ("0,000001", 0.000001),
        ] {
            assert_eq!(semicolon.decimal(text), Some(x), "{text}");
            assert_eq!(comma.decimal(text), None, "{text}");
        }
        // A dot without a comma is a decimal point in every file.
        for (text, x) in [
            ("1.234", 1.234),
            ("-0.5", -0.5),
            ("1e3", 1000.0),
            ("7", 7.0),
        ] {
            assert_eq!(semicolon.decimal(text), Some(x), "{text}");
            assert_eq!(comma.decimal(text), Some(x), "{text}");
        }
        for text in [
            "",
            ",5",
            "5,",
            "1,5e3",
            "1,2,3",
            "1.23,4",
            "1234.567,8",
            "1..234,5",
            ".234,5",
            "-",
            "-,5",
            "1.234.5,6",
            "a,5",
            "1,5 ",
            "inf",
            "NaN",
            "1,-5",
        ] {
            assert_eq!(semicolon.decimal(text), None, "{text:?}");
        }
    }

    #[test]
    fn integers_take_no_comma_and_no_grouping_dot() {
        let f = NumberFormat::for_delimiter(b';');
        assert_eq!(f.number("-12", ValueType::Integer), Some(-12.0));
        assert_eq!(f.number("1234,0", ValueType::Integer), None);
        assert_eq!(f.number("1.234", ValueType::Integer), None);
        assert_eq!(f.number("1234,5", ValueType::Decimal), Some(1234.5));
    }
}
