//! The row groups of a batch pack (`spec/FORMAT.md` §2, "Row groups").
//!
//! `karc pack --group-rows N` anonymizes the whole table as one release,
//! then codes it a row group at a time ([`GroupSize`]), so that the
//! coding's memory, and every reader's, is bounded by the group and not by
//! the file. A class of a local recoding (Mondrian) has rows all over the
//! file: the groups share one class table (`CLASS_TABLE`, each group's
//! `ROW_CLASSES` its rows' classes in it), so the public part costs what
//! one group's does. It is not the default: a group's private part codes
//! a class's values without the other groups' rows (an interval's ends
//! held by rows of another group cost their offsets), so 10M rows of
//! adult-stream-gen in ten groups take 66.6 MB against 60.0 MB in one, in
//! four groups 63.2 MB (tools/BENCHMARKS.md).
//! Each group's table is read
//! again from its own bytes of the original (as `karc pack --stream` reads
//! its blocks), so that its columns hold the group's values only (a file
//! read where it lies, `table::CsvFile`, is planned and read again a group
//! at a time, so that the pack holds one group's bytes); its
//! released QI columns are the release's rows of the group, their symbols
//! renumbered in order of first use by the group's rows (as a reader
//! decodes them from the group's classes).

use std::io::Read;
use std::ops::Range;

use crate::table::{CsvFile, CsvOptions, Table};

/// How a batch pack sizes its row groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupSize {
    /// Rows per group at most.
    pub rows: usize,
    /// Bytes of the original per group at most (a group has a row at least).
    pub bytes: usize,
}

/// One group, whatever the table's size (see the module's doc for why).
impl Default for GroupSize {
    fn default() -> GroupSize {
        GroupSize::whole()
    }
}

impl GroupSize {
    /// Groups of `rows` rows (from 1).
    pub fn rows(rows: usize) -> GroupSize {
        GroupSize {
            rows: rows.max(1),
            bytes: usize::MAX,
        }
    }

    /// One group, whatever the table's size.
    pub fn whole() -> GroupSize {
        GroupSize {
            rows: usize::MAX,
            bytes: usize::MAX,
        }
    }

    /// The rows of each group of a table of `rows` rows whose original is
    /// `len` bytes: `rows` cut into groups as even as the limits allow.
    pub fn rows_per_group(self, rows: usize, len: usize) -> usize {
        let per_row = len.div_ceil(rows.max(1)).max(1);
        let by_bytes = (self.bytes / per_row).max(1);
        let most = self.rows.min(by_bytes).max(1);
        let groups = rows.div_ceil(most).max(1);
        rows.div_ceil(groups).max(1)
    }
}

/// One row group of a batch pack: its bytes of the original and its rows
/// of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounds {
    /// Its bytes of the original: consecutive whole records (the first
    /// group's from the file's first byte, header included; every group's
    /// up to the next group's first record).
    pub bytes: Range<usize>,
    /// Its data rows of the table.
    pub rows: Range<usize>,
}

/// The row groups of `table`, read from `original`: `None` when the table
/// is one group (it fits in one, or its records do not split as its rows:
/// then it is coded whole, as it always was).
pub fn plan(original: &[u8], table: &Table, size: GroupSize) -> Option<Vec<Bounds>> {
    let rows = table.rows;
    let per = size.rows_per_group(rows, original.len());
    if per >= rows {
        return None;
    }
    let mut groups = Vec::with_capacity(rows.div_ceil(per));
    let (mut at, mut row) = (0usize, 0usize);
    while row < rows {
        let take = per.min(rows - row);
        let records = take + usize::from(row == 0 && table.header);
        let (end, n) = super::layout::records_end(&original[at..], records, table.delimiter, true);
        if n != records {
            return None;
        }
        groups.push(Bounds {
            bytes: at..at + end,
            rows: row..row + take,
        });
        at += end;
        row += take;
    }
    // The records must end where the file does (blank lines belong to the
    // last group), else the table was not read as the records split.
    (at == original.len()).then_some(groups)
}

/// The row groups of `table`, read from `file` as [`plan`] reads them from
/// its bytes, holding no more than a group's bytes at a time: each group's
/// records are counted in bytes read as needed, and its end is taken only
/// once the next group's first record is read too (so that the blank
/// lines between them are all its own, as in the whole bytes).
pub fn plan_file(
    file: &CsvFile,
    table: &Table,
    size: GroupSize,
) -> crate::Result<Option<Vec<Bounds>>> {
    let per = size.rows_per_group(table.rows, file.len());
    // A group's bytes are read a piece at a time: an eighth more than a
    // group should hold, so that its records are mostly counted once.
    let group = file.len() / table.rows.div_ceil(per).max(1);
    plan_in_pieces(
        file,
        table,
        size,
        (group + group / 8).clamp(1 << 16, 1 << 30),
    )
}

/// [`plan_file`], reading `piece` bytes at a time.
fn plan_in_pieces(
    file: &CsvFile,
    table: &Table,
    size: GroupSize,
    piece: usize,
) -> crate::Result<Option<Vec<Bounds>>> {
    let rows = table.rows;
    let per = size.rows_per_group(rows, file.len());
    if per >= rows {
        return Ok(None);
    }
    let io = |e| crate::Error::io(file.path(), e);
    let mut reader = file.reader_at(0)?;
    let mut buffer: Vec<u8> = Vec::new();
    let mut ended = false;
    let mut groups = Vec::with_capacity(rows.div_ceil(per));
    let (mut at, mut row) = (0usize, 0usize);
    while row < rows {
        let take = per.min(rows - row);
        let records = take + usize::from(row == 0 && table.header);
        let last = row + take == rows;
        let end = loop {
            if last && ended {
                let (end, n) = super::layout::records_end(&buffer, records, table.delimiter, true);
                match n == records {
                    true => break end,
                    false => return Ok(None),
                }
            }
            if !last {
                // Its records, and the next record read whole: then the
                // blank lines between are all read, and the end is final.
                let (end, n) = super::layout::records_end(&buffer, records, table.delimiter, false);
                let next = || super::layout::records_end(&buffer[end..], 1, table.delimiter, ended);
                if n == records && next().1 == 1 {
                    break end;
                }
                if ended {
                    return Ok(None);
                }
            }
            let read = (&mut reader)
                .take(piece as u64)
                .read_to_end(&mut buffer)
                .map_err(io)?;
            ended = read == 0;
        };
        groups.push(Bounds {
            bytes: at..at + end,
            rows: row..row + take,
        });
        buffer.drain(..end);
        at += end;
        row += take;
    }
    // The records must end where the file does (blank lines belong to the
    // last group), else the table was not read as the records split.
    file.check_unchanged()?;
    Ok((at == file.len() && buffer.is_empty()).then_some(groups))
}

/// Row group `bounds`' table, read from its bytes `bytes` as the whole
/// `table` was (`trim`; the header in the first group only), its columns
/// named as the table's.
pub fn group_table(
    bytes: &[u8],
    table: &Table,
    trim: bool,
    bounds: &Bounds,
) -> crate::Result<Table> {
    let first = bounds.rows.start == 0;
    let options = CsvOptions {
        delimiter: Some(table.delimiter),
        header: first && table.header,
        trim,
    };
    let mut group = Table::from_bytes(&table.source, bytes, &options)?;
    if group.rows != bounds.rows.len() || group.columns.len() != table.columns.len() {
        return Err(crate::Error::Options(format!(
            "{}: rows {} to {}: read as {} rows of {} columns, expected {} rows of {}",
            table.source.display(),
            bounds.rows.start + 1,
            bounds.rows.end,
            group.rows,
            group.columns.len(),
            bounds.rows.len(),
            table.columns.len()
        )));
    }
    for (c, whole) in group.columns.iter_mut().zip(&table.columns) {
        c.name.clone_from(&whole.name);
    }
    group.line_ending = table.line_ending;
    Ok(group)
}

#[cfg(test)]
mod tests {
    use proptest::strategy::Strategy;

    use super::*;

    #[test]
    fn groups_are_as_even_as_the_limits_allow() {
        let size = GroupSize::rows(4);
        assert_eq!(size.rows_per_group(10, 100), 4);
        assert_eq!(size.rows_per_group(8, 100), 4);
        assert_eq!(size.rows_per_group(3, 100), 3);
        let bytes = GroupSize {
            rows: 100,
            bytes: 25,
        };
        // 10 bytes a row: at most 2 rows a group, 5 groups of 2.
        assert_eq!(bytes.rows_per_group(10, 100), 2);
        // A record above the budget still makes a group.
        assert_eq!(bytes.rows_per_group(2, 1000), 1);
    }

    #[test]
    fn a_table_splits_at_its_records() {
        let csv = b"a,b\n1,x\n2,\"y\ny\"\n3,z\n\n4,w\n5,v";
        let options = CsvOptions {
            delimiter: Some(b','),
            header: true,
            trim: false,
        };
        let table = Table::from_bytes("t.csv".as_ref(), csv, &options).unwrap();
        let groups = plan(csv, &table, GroupSize::rows(2)).unwrap();
        let rows: Vec<_> = groups.iter().map(|g| g.rows.clone()).collect();
        assert_eq!(rows, vec![0..2, 2..4, 4..5]);
        assert_eq!(&csv[groups[0].bytes.clone()], b"a,b\n1,x\n2,\"y\ny\"\n");
        assert_eq!(&csv[groups[1].bytes.clone()], b"3,z\n\n4,w\n");
        assert_eq!(&csv[groups[2].bytes.clone()], b"5,v");
        for g in &groups {
            let t = group_table(&csv[g.bytes.clone()], &table, false, g).unwrap();
            assert_eq!(t.rows, g.rows.len());
            for r in g.rows.clone() {
                for c in 0..2 {
                    assert_eq!(
                        t.columns[c].text(r - g.rows.start),
                        table.columns[c].text(r)
                    );
                }
            }
            assert_eq!(t.columns[1].name, "b");
        }
        assert_eq!(plan(csv, &table, GroupSize::rows(5)), None);
    }

    proptest::proptest! {
        /// A file's groups, planned a few bytes at a time, are the groups
        /// of its bytes: records with quoted line breaks, blank lines, CRLF,
        /// a header or not, a last line ended or not.
        #[test]
        fn a_file_splits_as_its_bytes(
            rows in proptest::collection::vec(
                proptest::collection::vec(proptest::prop_oneof![
                    "[a-z0-9]{0,4}",
                    "[a-z]{1,3}".prop_map(|s| format!("\"{s}\n{s}\"")),
                    "[a-z]{0,2}".prop_map(|s| format!("\"{s},\r\n\"")),
                ], 2),
                1..30,
            ),
            blank in proptest::collection::vec(proptest::bool::weighted(0.2), 30),
            crlf: bool,
            header: bool,
            ended: bool,
            per in 1usize..8,
            piece in 1usize..9,
        ) {
            let ending = if crlf { "\r\n" } else { "\n" };
            let mut text = String::new();
            if header {
                text.push_str("a,b");
                text.push_str(ending);
            }
            for (i, row) in rows.iter().enumerate() {
                text.push_str(&row.join(","));
                if i + 1 < rows.len() || ended {
                    text.push_str(ending);
                }
                if blank[i] && (i + 1 < rows.len() || ended) {
                    text.push_str(ending);
                }
            }
            let options = CsvOptions { delimiter: Some(b','), header, trim: false };
            let Ok(table) = Table::from_bytes("t.csv".as_ref(), text.as_bytes(), &options) else {
                return Ok(());
            };
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("t.csv");
            std::fs::write(&path, &text).unwrap();
            let file = CsvFile::open(&path).unwrap().unwrap();
            let size = GroupSize::rows(per);
            let from_bytes = plan(text.as_bytes(), &table, size);
            let from_file = plan_in_pieces(&file, &table, size, piece).unwrap();
            proptest::prop_assert_eq!(from_file, from_bytes);
        }
    }
}
