//! Dates and times as integers (`spec/CODING.md` 5.5): `YYYY-MM-DD` as days
//! since 1970-01-01, `YYYY-MM-DD hh:mm:ss` (or with `T`, or RFC 3339's
//! `YYYY-MM-DDThh:mm:ssZ`) as seconds since its midnight, in the proleptic
//! Gregorian calendar, years 0000 to 9999.
//! A numeric column's machinery (exceptions, integer sequences) then codes
//! them: a year of random seconds costs its 25 bits, not 20 bytes of text.

use crate::civil::{civil_from_days, days_from_civil};
use crate::codec::numbers::push_padded;

/// How a column's texts spell its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// Integers and decimals (5.3).
    Decimal,
    /// `YYYY-MM-DD`.
    Date,
    /// `YYYY-MM-DD`, then this separator byte, then `hh:mm:ss`.
    DateTime(u8),
    /// `YYYY-MM-DDThh:mm:ssZ`: RFC 3339's time in UTC, as logs and APIs
    /// write it.
    Zulu,
}

impl Format {
    /// The format id of layout 4 (`None` for decimals, layout 2).
    pub(super) fn id(self) -> Option<u8> {
        match self {
            Format::Decimal => None,
            Format::Date => Some(0),
            Format::DateTime(b' ') => Some(1),
            Format::DateTime(_) => Some(2),
            Format::Zulu => Some(3),
        }
    }

    pub(crate) fn from_id(id: u8) -> Option<Format> {
        match id {
            0 => Some(Format::Date),
            1 => Some(Format::DateTime(b' ')),
            2 => Some(Format::DateTime(b'T')),
            3 => Some(Format::Zulu),
            _ => None,
        }
    }
}

const DAY: i64 = 86_400;
/// Days from 1970-01-01 to 0000-01-01 and to 10000-01-01.
const FIRST_DAY: i64 = -719_528;
const END_DAY: i64 = 2_932_897;

fn digits(b: &[u8]) -> Option<i64> {
    b.iter().try_fold(0i64, |v, &c| {
        c.is_ascii_digit().then(|| v * 10 + i64::from(c - b'0'))
    })
}

/// The value of `s` in `format` when `s` is exactly its rendering.
pub(crate) fn parse(format: Format, s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let (date, time) = match format {
        Format::Decimal => return None,
        Format::Date if b.len() == 10 => (b, None),
        Format::DateTime(sep) if b.len() == 19 && b[10] == sep => (&b[..10], Some(&b[11..])),
        Format::Zulu if b.len() == 20 && b[10] == b'T' && b[19] == b'Z' => {
            (&b[..10], Some(&b[11..19]))
        }
        _ => return None,
    };
    if date[4] != b'-' || date[7] != b'-' {
        return None;
    }
    let (y, m, d) = (
        digits(&date[..4])?,
        digits(&date[5..7])?,
        digits(&date[8..])?,
    );
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&m) || d < 1 || d > month_days[(m - 1) as usize] {
        return None;
    }
    let days = days_from_civil(y, m, d);
    let Some(t) = time else { return Some(days) };
    if t[2] != b':' || t[5] != b':' {
        return None;
    }
    let (hh, mm, ss) = (digits(&t[..2])?, digits(&t[3..5])?, digits(&t[6..])?);
    (hh < 24 && mm < 60 && ss < 60).then_some(days * DAY + hh * 3600 + mm * 60 + ss)
}

/// Whether [`render`] renders `value` in `format`: a day or second of the
/// years 0000 to 9999.
pub(super) fn renders(format: Format, value: i64) -> bool {
    let days = match format {
        Format::Decimal => return false,
        Format::Date => value,
        Format::DateTime(_) | Format::Zulu => value.div_euclid(DAY),
    };
    (FIRST_DAY..END_DAY).contains(&days)
}

/// Appends the text of `value` in `format`; `None` when it is outside the
/// years 0000 to 9999.
pub(crate) fn render(out: &mut String, format: Format, value: i64) -> Option<()> {
    if !renders(format, value) {
        return None;
    }
    let (days, secs) = match format {
        Format::DateTime(_) | Format::Zulu => (value.div_euclid(DAY), Some(value.rem_euclid(DAY))),
        _ => (value, None),
    };
    // Fields in range (years 0000 to 9999): no sign, fixed widths.
    let (y, m, d) = civil_from_days(days);
    let field = |out: &mut String, v: i64, width: usize| push_padded(out, v as u64, width);
    field(out, y, 4);
    out.push('-');
    field(out, m, 2);
    out.push('-');
    field(out, d, 2);
    if let Some(s) = secs {
        out.push(if let Format::DateTime(sep) = format {
            char::from(sep)
        } else {
            'T'
        });
        field(out, s / 3600, 2);
        out.push(':');
        field(out, s / 60 % 60, 2);
        out.push(':');
        field(out, s % 60, 2);
        if format == Format::Zulu {
            out.push('Z');
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn calendar_edges() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(0, 1, 1), FIRST_DAY);
        assert_eq!(days_from_civil(10000, 1, 1), END_DAY);
        assert_eq!(
            parse(Format::Date, "2024-02-29"),
            Some(days_from_civil(2024, 2, 29))
        );
        let t = Format::DateTime(b' ');
        assert_eq!(parse(t, "1970-01-01 00:00:01"), Some(1));
        assert_eq!(parse(t, "1969-12-31 23:59:59"), Some(-1));
        for bad in [
            "2023-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-01-32",
            "2024-1-01",
            "24-01-01",
            "2024/01/01",
            "2024-01-01 24:00:00",
            "2024-01-01 12:60:00",
            "2024-01-01 12:00:60",
            "2024-01-01T12:00:00",
            "",
            "2024-01-01 12:00:0",
            "+024-01-01",
            "2024-01-01 12:00:00Z",
        ] {
            assert_eq!(parse(t, bad), None, "{bad}");
            assert_eq!(parse(Format::Date, bad), None, "{bad}");
            assert_eq!(parse(Format::Zulu, bad), None, "{bad}");
        }
        assert_eq!(parse(Format::Zulu, "1970-01-01T00:00:01Z"), Some(1));
        for bad in [
            "1970-01-01T00:00:01",
            "1970-01-01 00:00:01Z",
            "1970-01-01T00:00:01z",
        ] {
            assert_eq!(parse(Format::Zulu, bad), None, "{bad}");
        }
        let mut s = String::new();
        assert!(render(&mut s, Format::Date, END_DAY).is_none());
        assert!(render(&mut s, t, i64::MIN).is_none());
        assert!(render(&mut s, t, i64::MAX).is_none());
    }

    proptest! {
        #[test]
        fn rendering_inverts_parsing(days in FIRST_DAY..END_DAY, secs in 0i64..DAY, sep in prop::sample::select(vec![b' ', b'T'])) {
            for (format, v) in [(Format::Date, days), (Format::DateTime(sep), days * DAY + secs), (Format::Zulu, days * DAY + secs)] {
                let mut s = String::new();
                render(&mut s, format, v).unwrap();
                prop_assert_eq!(parse(format, &s), Some(v), "{}", s);
            }
        }
    }
}
