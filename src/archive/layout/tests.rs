use super::*;
use crate::table::{CsvOptions, Table};
use std::path::Path;

use super::render::{PARALLEL_BYTES, Renderer};

fn round_trip(bytes: &[u8], trim: bool) -> Layout {
    let opts = CsvOptions {
        delimiter: None,
        header: true,
        trim,
    };
    let t = Table::from_bytes(Path::new("t.csv"), bytes, &opts).unwrap();
    let layout = Layout::capture(bytes, &t, t.delimiter, true, trim).unwrap();
    let mut out = Vec::new();
    layout.render(&t, &mut out);
    assert_eq!(out, bytes);
    // The expected length only chooses one thread or two and sizes the
    // buffers: a wrong one (a corrupt archive's) renders the file and
    // its CRC-32 all the same.
    for expected in [
        bytes.len(),
        0,
        PARALLEL_BYTES,
        2 * bytes.len() + PARALLEL_BYTES,
    ] {
        let (hashed, crc) = layout.render_hashed(&t, expected);
        assert!(
            hashed == bytes,
            "render_hashed (expecting {expected} bytes) differs from the file"
        );
        assert_eq!(
            crc,
            crc32fast::hash(bytes),
            "CRC-32, expecting {expected} bytes"
        );
    }
    // In pieces rendered last first (each on its own, as either thread
    // of a restore takes them), one buffer reused: the same bytes.
    for expected in [bytes.len(), 0, 64 * bytes.len()] {
        let (pieces, crc) = rendered_in_pieces(&layout, &t, expected);
        assert!(
            pieces.concat() == bytes,
            "{} pieces (expecting {expected} bytes) differ from the file",
            pieces.len()
        );
        assert_eq!(crc, crc32fast::hash(bytes), "CRC-32 of the pieces");
    }
    layout.validate(t.columns.len(), t.rows).unwrap();
    layout
}

/// `t` rendered as [`Pieces`], last piece first, and their CRC-32s
/// combined in order.
fn rendered_in_pieces(layout: &Layout, t: &Table, expected: usize) -> (Vec<Vec<u8>>, u32) {
    let n = t.columns.len();
    let rendered = (0..n)
        .map(|c| layout.render_column(c, n, &t.columns[c]))
        .collect();
    let pieces = layout.pieces_of(t, rendered, expected);
    let mut out = vec![(Vec::new(), crc32fast::Hasher::new()); pieces.count()];
    let mut buf = Vec::new();
    for i in (0..pieces.count()).rev() {
        let (bytes, crc) = pieces.render(i, buf);
        buf = bytes.clone();
        out[i] = (bytes, crc);
    }
    let mut crc = crc32fast::Hasher::new();
    for (_, piece) in &out {
        crc.combine(piece);
    }
    (out.into_iter().map(|(b, _)| b).collect(), crc.finalize())
}

/// Above `PARALLEL_BYTES` two threads render: exceptions on both sides
/// of the split (needless quotes, blank lines, padding, a quote inside a
/// field, fields longer than one copy block) come out byte for byte.
#[test]
fn large_files_render_on_two_threads_byte_for_byte() {
    let mut bytes = b"id, name,city\n".to_vec();
    let mut r = 0u32;
    while bytes.len() < 3 * PARALLEL_BYTES / 2 {
        let line = match r % 97 {
            0 => format!("{r}, \"n{r}\",c\n"),
            1 => format!("{r}, n{r},c\n\n"),
            2 => format!("{r},  n{r},c\n"),
            3 => format!("{r},\"n\"{r},c\n"),
            4 => format!("{r}, a rather long name of row {r},\"x,y\"\n"),
            _ => format!("{r}, n{},c{}\n", r % 13, r % 5),
        };
        bytes.extend_from_slice(line.as_bytes());
        r += 1;
    }
    let layout = round_trip(&bytes, true);
    assert!(!layout.fields.is_empty() && !layout.tails.is_empty());
}

/// Adjacent columns with few combinations render as one block each
/// record: every combination of codes comes out as its fields would,
/// quoted values and combinations longer than a copy block included.
#[test]
fn runs_of_columns_render_as_their_fields() {
    let mut bytes = b"s;a;q;long;n\n".to_vec();
    for r in 0..3000u32 {
        let long = if r % 7 == 0 {
            "a value much longer than one copy block of bytes"
        } else {
            "short"
        };
        let q = ["x", "\"y;z\"", "w"][(r % 3) as usize];
        let line = format!("{};{};{q};{long};{}\n", r % 2, (r / 2) % 4, r % 50);
        bytes.extend_from_slice(line.as_bytes());
    }
    let layout = round_trip(&bytes, false);
    assert_eq!(layout.verbatim_bytes(), 0);
    let opts = CsvOptions {
        delimiter: None,
        header: true,
        trim: false,
    };
    let t = Table::from_bytes(Path::new("t.csv"), &bytes, &opts).unwrap();
    let r = Renderer::new(&layout, &t);
    let spans: Vec<_> = r.runs.iter().map(|run| run.columns.clone()).collect();
    assert_eq!(spans, [0..4, 4..5], "2 x 4 x 3 x 2 combinations, then 50");
}

#[test]
fn canonical_files_need_no_exception() {
    let l = round_trip(b"a;b\r\n1;\"x;y\"\r\n2;\"say \"\"hi\"\"\"\r\n", false);
    assert_eq!(l.terminator, b"\r\n");
    assert!(l.final_terminator);
    assert_eq!(l.verbatim_bytes(), 0);
    let l = round_trip(b"a,b\n1,\"two\nlines\"\n3,", false);
    assert!(!l.final_terminator);
    assert_eq!(l.verbatim_bytes(), 0);
}

#[test]
fn padding_per_column_then_exceptions() {
    let bytes = b"age,workclass,x\n39, State-gov,1\n50, Self-emp,2\n38,  Private,3\n";
    let l = round_trip(bytes, true);
    assert_eq!(l.padding[0], Padding::default());
    assert_eq!(l.padding[1].lead, b" ");
    assert!(!l.header_padded);
    assert_eq!(l.fields.len(), 1);
    assert_eq!(l.fields[0].raw, b"  Private");
    assert_eq!(l.fields[0].record, 3);
}

#[test]
fn quoted_columns_need_no_exception() {
    // An export quoting every text: the quotes are the column's padding,
    // the texts that need them (quotes, delimiters) quoted once, an empty
    // cell as `""`, and an unquoted field of that column an exception.
    let bytes = b"id,name,n\n1,\"Smith Field\",5\n2,\"say \"\"hi\"\", a\",6\n3,\"\",7\n4,bare,8\n";
    for trim in [false, true] {
        let l = round_trip(bytes, trim);
        assert!(l.padding[1].is_quoted(), "trim {trim}");
        assert!(!l.padding[0].is_quoted() && !l.padding[2].is_quoted());
        assert!(!l.header_padded);
        assert_eq!(l.fields.len(), 1, "trim {trim}");
        assert_eq!(l.fields[0].raw, b"bare");
    }
    // A quoted header is padded too; a column quoted in half its rows is not.
    let l = round_trip(b"\"a\",\"b\"\n\"1\",\"x\"\n\"2\",y\n", false);
    assert!(l.header_padded && l.padding[0].is_quoted() && !l.padding[1].is_quoted());
    assert_eq!(
        l.verbatim_bytes(),
        6,
        "column b's `\"x\"` and header `\"b\"`"
    );
    // Free text quoted only where it must be, in most rows: not a quoted
    // column, no exception.
    let l = round_trip(
        b"n,t\n1,\"a, b\"\n2,\"c \"\"d\"\"\"\n3,e\n4,\"f,\"\n",
        false,
    );
    assert!(!l.padding[1].is_quoted());
    assert_eq!(l.verbatim_bytes(), 0);
    // A column of one field, quoted: an empty text is `""` either way.
    round_trip(b"\"a\"\n\"\"\n\"x\"\n\"\"\n", false);
}

#[test]
fn odd_bytes_are_kept() {
    // Needless quotes, blank lines, a lone CR, a BOM, trailing blank lines.
    round_trip(b"\xef\xbb\xbfa,b\n\"1\",2\n\n\n3,4\r5,6\n\n", false);
    round_trip(b"\na,b\n1,2", false);
    round_trip(b"a\n\"\"\nx\n", false);
    round_trip(b"a,b\n\"x\"y,2\n", false);
    round_trip(b"a, b\n \"q\" , \"r\" \n1,  2\n", true);
}
