//! The container: file header, section table and per-section CRC-32
//! (`spec/FORMAT.md` §2–§4).
//!
//! ```text
//! offset  size  field
//! 0       8     magic 89 4B 52 43 0D 0A 1A 0A
//! 8       2     version major (u16 LE)
//! 10      2     version minor (u16 LE)
//! 12      4     header flags (u32 LE), reserved, zero
//! 16      4     section count N (u32 LE)
//! 20      4     table CRC-32 over bytes 0..20 and the N table entries
//! 24      12·N  section table: type u8, flags u8, crc u32, length u48
//! 24+12N  ...   the sections, contiguous and in table order, the last ending at EOF
//!
//! (A 1.0 file's entries are 24 bytes: type u16, flags u16, crc u32,
//! offset u64, length u64: [`EntryLayout`].)
//! ```
//!
//! Parsing checks, in this order: magic (else "not a karc file"), major
//! version (else "unsupported"), table bounds and CRC, each section's flags
//! (0 on a known type) and bounds (naming the section), and each section's CRC.

use std::path::Path;

use super::ArchiveError;

/// The first eight bytes of every karc file.
///
/// As PNG's signature: a non-ASCII first byte (a 7-bit channel or a text
/// sniffer notices), `KRC` readable in a hex dump, CR LF and a lone LF
/// (a line-ending conversion in either direction breaks the magic), and
/// 0x1A (stops `type` on DOS).
pub const MAGIC: [u8; 8] = [0x89, b'K', b'R', b'C', 0x0D, 0x0A, 0x1A, 0x0A];

/// The format version this code writes, and the newest major it reads
/// (it reads 1.0 files too: [`super::compat`]; `spec/FORMAT.md` §10). The major is bumped when a reader of the
/// previous major could misread a file; the minor when sections are added
/// that an older reader of the same major may skip.
pub const VERSION_MAJOR: u16 = 2;
/// The minor version this code writes (sections it adds are skippable).
pub const VERSION_MINOR: u16 = 0;

/// Size of the fixed header.
pub const HEADER_LEN: usize = 24;
/// Size of one section-table entry of this major.
pub const ENTRY_LEN: usize = 12;

/// Where a section-table entry's fields are, in a file of a given major:
/// 2.0's entries are 12 bytes, a 1.0 file's 24 (it stored each section's
/// offset, which the lengths of the sections before it give).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryLayout {
    /// The entry's size in bytes.
    pub len: usize,
    /// Where its CRC-32 (`u32`) is.
    pub crc_at: usize,
    /// Where its length is, and how many bytes wide (6 or 8).
    pub length_at: usize,
    /// The length's width in bytes.
    pub length_width: usize,
    /// Where its offset (`u64`) is: a 1.0 entry only.
    pub offset_at: Option<usize>,
}

impl EntryLayout {
    /// The entries of a file of major `major`.
    pub fn of(major: u16) -> EntryLayout {
        match major == super::compat::MAJOR {
            true => EntryLayout {
                len: 24,
                crc_at: 4,
                length_at: 16,
                length_width: 8,
                offset_at: Some(8),
            },
            false => EntryLayout {
                len: ENTRY_LEN,
                crc_at: 2,
                length_at: 6,
                length_width: 6,
                offset_at: None,
            },
        }
    }

    /// Where entry `i` starts in the file.
    pub fn at(&self, i: usize) -> usize {
        HEADER_LEN + i * self.len
    }

    /// Reads entry `e`'s bytes, its section starting at `offset` (the
    /// table's end, or where the previous section ends; a 1.0 entry states
    /// its own).
    fn read(&self, e: &[u8], offset: u64) -> SectionEntry {
        let length = match self.length_width {
            8 => u64_at(e, self.length_at),
            _ => u48_at(e, self.length_at),
        };
        match self.offset_at {
            Some(at) => SectionEntry {
                code: u16_at(e, 0),
                flags: u16_at(e, 2),
                crc: u32_at(e, self.crc_at),
                offset: u64_at(e, at),
                length,
            },
            None => SectionEntry {
                code: u16::from(e[0]),
                flags: u16::from(e[1]),
                crc: u32_at(e, self.crc_at),
                offset,
                length,
            },
        }
    }
}

/// The most bytes a section of a 2.0 file holds (its length is 48 bits).
pub const MAX_SECTION_LEN: u64 = (1 << 48) - 1;

/// Section flag bit 0: a reader that does not know the section's type may
/// skip it. Bits 1..15 are reserved and must be zero.
pub const FLAG_SKIPPABLE: u16 = 1;

/// The section types of format 1.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionKind {
    /// Public metadata (postcard): schema, claim, algorithm, metrics, dialect.
    Meta,
    /// The hierarchies of the quasi-identifiers (postcard).
    Hierarchies,
    /// One released column (a codec blob, `spec/CODING.md`), in column order.
    Column,
    /// Every released QI column of a row group, coded by equivalence class.
    QiClasses,
    /// The rows of each row group (a file of several).
    RowGroups,
    /// The schema of an Arrow input (Parquet, IPC), as Arrow IPC bytes.
    ArrowSchema,
    /// The models beyond k the release claims (postcard), re-checked on open.
    PrivacyModels,
    /// The derived-column check (postcard): columns, QIs, threshold, allowed pairs.
    ColumnChecks,
    /// The file's class table, shared by its row groups.
    ClassTable,
    /// A row group's rows' classes in the file's class table.
    RowClasses,
    /// The publisher's signature over the other sections (`spec/FORMAT.md` §4.1).
    Signature,
    /// The private part, sealed in an age envelope.
    PrivateSealed,
    /// The private part in clear (written only with `--no-encryption`).
    PrivatePlain,
}

impl SectionKind {
    /// The type code stored in the section table.
    pub const fn code(self) -> u16 {
        match self {
            SectionKind::Meta => 1,
            SectionKind::Hierarchies => 2,
            SectionKind::Column => 3,
            SectionKind::QiClasses => 4,
            SectionKind::RowGroups => 5,
            SectionKind::ArrowSchema => 6,
            SectionKind::PrivacyModels => 7,
            SectionKind::ColumnChecks => 9,
            SectionKind::ClassTable => 10,
            SectionKind::RowClasses => 11,
            SectionKind::Signature => 8,
            SectionKind::PrivateSealed => 16,
            SectionKind::PrivatePlain => 17,
        }
    }

    /// The kind of a stored code; `None` for codes of a newer minor version.
    pub fn from_code(code: u16) -> Option<SectionKind> {
        Some(match code {
            1 => SectionKind::Meta,
            2 => SectionKind::Hierarchies,
            3 => SectionKind::Column,
            4 => SectionKind::QiClasses,
            5 => SectionKind::RowGroups,
            6 => SectionKind::ArrowSchema,
            7 => SectionKind::PrivacyModels,
            9 => SectionKind::ColumnChecks,
            10 => SectionKind::ClassTable,
            11 => SectionKind::RowClasses,
            8 => SectionKind::Signature,
            16 => SectionKind::PrivateSealed,
            17 => SectionKind::PrivatePlain,
            _ => return None,
        })
    }

    /// The name messages and `inspect` use.
    pub fn name(self) -> &'static str {
        match self {
            SectionKind::Meta => "metadata",
            SectionKind::Hierarchies => "hierarchies",
            SectionKind::Column => "column",
            SectionKind::QiClasses => "QI classes",
            SectionKind::RowGroups => "row groups",
            SectionKind::ArrowSchema => "Arrow schema",
            SectionKind::PrivacyModels => "privacy models",
            SectionKind::ColumnChecks => "column checks",
            SectionKind::ClassTable => "class table",
            SectionKind::RowClasses => "row classes",
            SectionKind::Signature => "signature",
            SectionKind::PrivateSealed => "private part (age)",
            SectionKind::PrivatePlain => "private part (unencrypted)",
        }
    }

    /// Whether the section is the private part (left out of a published copy).
    pub fn is_private(self) -> bool {
        matches!(self, SectionKind::PrivateSealed | SectionKind::PrivatePlain)
    }
}

/// One entry of the section table, as read from a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionEntry {
    /// The raw type code (kept for unknown, skipped sections).
    pub code: u16,
    /// Bit 0: the section may be skipped by a reader that does not know it.
    pub flags: u16,
    /// CRC-32 of the section's bytes.
    pub crc: u32,
    /// Byte offset of the section in the file.
    pub offset: u64,
    /// Length of the section in bytes.
    pub length: u64,
}

impl SectionEntry {
    /// The section's kind, if this version knows its code.
    pub fn kind(&self) -> Option<SectionKind> {
        SectionKind::from_code(self.code)
    }

    /// The section's bytes in the file, as a range (checked against the file by the parser).
    pub fn range(&self) -> std::ops::Range<usize> {
        self.offset as usize..(self.offset + self.length) as usize
    }
}

/// The parsed header and section table.
#[derive(Debug, Clone)]
pub struct Container {
    /// Major format version of the file.
    pub major: u16,
    /// Minor format version of the file.
    pub minor: u16,
    /// Every entry of the table, known or not, in file order.
    pub entries: Vec<SectionEntry>,
}

/// CRC-32 as crc32fast computes it (IEEE 802.3: reflected polynomial
/// 0xEDB88320, initial value and final XOR 0xFFFFFFFF).
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// Writes a container of this version: header, table, then each section's
/// bytes.
pub fn assemble(sections: &[(SectionKind, &[u8])]) -> Vec<u8> {
    let raw: Vec<(u16, u16, &[u8])> = sections.iter().map(|(k, b)| (k.code(), 0, *b)).collect();
    assemble_raw(VERSION_MAJOR, VERSION_MINOR, &raw)
}

/// One section of a container written piece by piece: its kind, CRC-32
/// and length (its bytes follow the table, in order, written by the caller).
#[derive(Debug, Clone, Copy)]
pub struct SectionSummary {
    /// What the section holds.
    pub kind: SectionKind,
    /// CRC-32 of its bytes.
    pub crc: u32,
    /// Its length in bytes.
    pub length: u64,
}

/// The header and section table of a container of this version whose
/// sections, written after them in this order, are `sections`.
pub fn header_and_table(sections: &[SectionSummary]) -> Vec<u8> {
    let raw: Vec<(u16, u16, u32, u64)> = sections
        .iter()
        .map(|s| (s.kind.code(), 0, s.crc, s.length))
        .collect();
    header_and_table_raw(VERSION_MAJOR, VERSION_MINOR, &raw)
}

/// Header and table for any version and (type, flags, CRC, length) entries.
fn header_and_table_raw(major: u16, minor: u16, sections: &[(u16, u16, u32, u64)]) -> Vec<u8> {
    let layout = EntryLayout::of(major);
    let table_end = HEADER_LEN + layout.len * sections.len();
    let mut out = Vec::with_capacity(table_end);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&major.to_le_bytes());
    out.extend_from_slice(&minor.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(sections.len() as u32).to_le_bytes());
    out.extend_from_slice(&[0; 4]); // table CRC, filled in below
    let mut offset = table_end as u64;
    for &(code, flags, crc, length) in sections {
        if layout.offset_at.is_some() {
            out.extend_from_slice(&code.to_le_bytes());
            out.extend_from_slice(&flags.to_le_bytes());
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&offset.to_le_bytes());
            out.extend_from_slice(&length.to_le_bytes());
        } else {
            out.push(u8::try_from(code).expect("section types of 2.0 fit a byte"));
            out.push(u8::try_from(flags).expect("section flags of 2.0 fit a byte"));
            out.extend_from_slice(&crc.to_le_bytes());
            assert!(
                length <= MAX_SECTION_LEN,
                "a 2.0 section holds less than 2^48 bytes"
            );
            out.extend_from_slice(&length.to_le_bytes()[..6]);
        }
        offset += length;
    }
    let crc = table_crc(&out);
    out[20..24].copy_from_slice(&crc.to_le_bytes());
    out
}

/// Writes a container with any version and any (type, flags, bytes)
/// sections: what a future writer could write (test vectors).
pub fn assemble_raw(major: u16, minor: u16, sections: &[(u16, u16, &[u8])]) -> Vec<u8> {
    let entries: Vec<(u16, u16, u32, u64)> = sections
        .iter()
        .map(|&(code, flags, bytes)| (code, flags, crc32(bytes), bytes.len() as u64))
        .collect();
    let mut out = header_and_table_raw(major, minor, &entries);
    for (_, _, bytes) in sections {
        out.extend_from_slice(bytes);
    }
    out
}

/// Recomputes the table CRC of a container whose header or table was
/// edited (test vectors).
pub fn reseal_table(file: &mut [u8]) {
    let count = u32_at(file, 16) as usize;
    let end = EntryLayout::of(u16_at(file, 8)).at(count);
    let crc = table_crc(&file[..end]);
    file[20..24].copy_from_slice(&crc.to_le_bytes());
}

/// The CRC of the header's first 20 bytes followed by the table entries.
fn table_crc(header_and_table: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&header_and_table[..20]);
    h.update(&header_and_table[HEADER_LEN..]);
    h.finalize()
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}
fn u48_at(b: &[u8], at: usize) -> u64 {
    let mut le = [0u8; 8];
    le[..6].copy_from_slice(&b[at..at + 6]);
    u64::from_le_bytes(le)
}

/// A file's first eight bytes in hex (`89 4b 52 43 ...`), for messages.
pub fn hex_head(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "nothing (the file is empty)".to_owned();
    }
    let hex: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
    hex.join(" ")
}

/// Whether `bytes` starts like a karc file (the magic).
pub fn has_magic(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

// Long: the header and section-table checks in one pass in the order the doc lists (magic, version,
// CRC, flags, contiguity)
/// Parses and checks the header and section table: magic, version, table
/// CRC, header flags, and that the sections are contiguous, in table order,
/// inside the file and ending at its end. Section CRCs are checked by
/// [`check_section`].
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Container, ArchiveError> {
    let path = || path.to_owned();
    if !has_magic(bytes) {
        return Err(ArchiveError::NotKarc {
            path: path(),
            found: hex_head(bytes),
        });
    }
    if bytes.len() < 12 {
        return Err(ArchiveError::Truncated {
            path: path(),
            what: "the header".to_owned(),
            needed: HEADER_LEN as u64,
            file_len: bytes.len() as u64,
        });
    }
    let major = u16_at(bytes, 8);
    let minor = u16_at(bytes, 10);
    if major != VERSION_MAJOR && major != super::compat::MAJOR {
        return Err(ArchiveError::UnsupportedVersion {
            path: path(),
            major,
            minor,
        });
    }
    if bytes.len() < HEADER_LEN {
        return Err(ArchiveError::Truncated {
            path: path(),
            what: "the header".to_owned(),
            needed: HEADER_LEN as u64,
            file_len: bytes.len() as u64,
        });
    }
    let count = u32_at(bytes, 16) as u64;
    let layout = EntryLayout::of(major);
    let table_end = HEADER_LEN as u64 + layout.len as u64 * count;
    if table_end > bytes.len() as u64 {
        return Err(ArchiveError::Truncated {
            path: path(),
            what: format!("the section table ({count} entries)"),
            needed: table_end,
            file_len: bytes.len() as u64,
        });
    }
    let table_end = table_end as usize;
    let stored = u32_at(bytes, 20);
    let computed = table_crc(&bytes[..table_end]);
    if stored != computed {
        return Err(ArchiveError::CrcMismatch {
            path: path(),
            section: "header and section table".to_owned(),
            stored,
            computed,
        });
    }
    let flags = u32_at(bytes, 12);
    if flags != 0 {
        return Err(ArchiveError::Corrupt {
            path: path(),
            section: "header".to_owned(),
            detail: format!("reserved header flags must be zero, found {flags:#010x}"),
        });
    }
    let mut entries = Vec::with_capacity(count as usize);
    let mut expected_offset = table_end as u64;
    for i in 0..count as usize {
        let e = &bytes[layout.at(i)..layout.at(i + 1)];
        let entry = layout.read(e, expected_offset);
        let name = || section_label(i, &entry, None);
        if entry.flags & !FLAG_SKIPPABLE != 0 {
            return Err(ArchiveError::Corrupt {
                path: path(),
                section: name(),
                detail: format!(
                    "reserved section flags must be zero, found {:#06x}",
                    entry.flags
                ),
            });
        }
        if entry.offset != expected_offset {
            return Err(ArchiveError::Corrupt {
                path: path(),
                section: name(),
                detail: format!(
                    "expected to start at byte {expected_offset} (sections are contiguous), found {}",
                    entry.offset
                ),
            });
        }
        let end = entry.offset.checked_add(entry.length);
        match end {
            Some(end) if end <= bytes.len() as u64 => expected_offset = end,
            _ => {
                return Err(ArchiveError::Truncated {
                    path: path(),
                    what: name(),
                    needed: end.unwrap_or(u64::MAX),
                    file_len: bytes.len() as u64,
                });
            }
        }
        match entry.kind() {
            // Only a section this reader may not know can be skippable.
            Some(_) if entry.flags != 0 => {
                return Err(ArchiveError::Corrupt {
                    path: path(),
                    section: name(),
                    detail: format!(
                        "a known section type has flags 0, found {:#06x}",
                        entry.flags
                    ),
                });
            }
            Some(_) => {}
            None if minor > VERSION_MINOR && entry.flags & FLAG_SKIPPABLE != 0 => {}
            None if minor > VERSION_MINOR => {
                return Err(ArchiveError::UnsupportedSection {
                    path: path(),
                    code: entry.code,
                    major,
                    minor,
                });
            }
            None => {
                return Err(ArchiveError::Corrupt {
                    path: path(),
                    section: name(),
                    detail: format!(
                        "unknown section type {} in a version {major}.{minor} file",
                        entry.code
                    ),
                });
            }
        }
        entries.push(entry);
    }
    if expected_offset != bytes.len() as u64 {
        return Err(ArchiveError::Corrupt {
            path: path(),
            section: "end of file".to_owned(),
            detail: format!(
                "{} bytes after the last section (expected the file to end at byte {expected_offset})",
                bytes.len() as u64 - expected_offset
            ),
        });
    }
    Ok(Container {
        major,
        minor,
        entries,
    })
}

/// A section's name in messages: `section 3 (column "age")`.
pub fn section_label(index: usize, entry: &SectionEntry, column: Option<&str>) -> String {
    match (entry.kind(), column) {
        (Some(SectionKind::Column), Some(name)) => format!("section {index} (column {name:?})"),
        (Some(kind), _) => format!("section {index} ({})", kind.name()),
        (None, _) => format!("section {index} (type {})", entry.code),
    }
}

/// Checks a section's CRC and returns its bytes.
pub fn check_section<'a>(
    path: &Path,
    bytes: &'a [u8],
    index: usize,
    entry: &SectionEntry,
    column: Option<&str>,
) -> Result<&'a [u8], ArchiveError> {
    let body = &bytes[entry.range()];
    let computed = crc32(body);
    if computed != entry.crc {
        return Err(ArchiveError::CrcMismatch {
            path: path.to_owned(),
            section: section_label(index, entry, column),
            stored: entry.crc,
            computed,
        });
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_check_value() {
        // The check value of the CRC-32/ISO-HDLC catalogue entry.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn assemble_then_parse() {
        let a = b"meta".as_slice();
        let b = b"".as_slice();
        let c = b"column bytes".as_slice();
        let file = assemble(&[
            (SectionKind::Meta, a),
            (SectionKind::Hierarchies, b),
            (SectionKind::Column, c),
        ]);
        let p = Path::new("x.karc");
        let container = parse(p, &file).unwrap();
        assert_eq!(
            (container.major, container.minor),
            (VERSION_MAJOR, VERSION_MINOR)
        );
        assert_eq!(container.entries.len(), 3);
        let bodies: Vec<&[u8]> = container
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| check_section(p, &file, i, e, None).unwrap())
            .collect();
        assert_eq!(bodies, vec![a, b, c]);
        assert_eq!(container.entries[2].offset, 24 + 3 * 12 + 4);
    }

    /// spec/FORMAT.md §4's vector: a file of one `META` section of the
    /// byte `6d` has the entry `01 00 68 f2 01 e1 01 00 00 00 00 00` (type,
    /// flags, the CRC-32 0xE101F268 little-endian, the length 1 in six
    /// bytes); its section starts at byte 36.
    #[test]
    fn entry_spec_vector() {
        let file = assemble(&[(SectionKind::Meta, b"m".as_slice())]);
        let entry = [0x01, 0x00, 0x68, 0xf2, 0x01, 0xe1, 1, 0, 0, 0, 0, 0];
        assert_eq!(&file[24..36], &entry[..]);
        assert_eq!(file.len(), 37);
        assert_eq!(parse(Path::new("x"), &file).unwrap().entries[0].offset, 36);
    }

    #[test]
    fn rejects_in_order() {
        let p = Path::new("x.karc");
        let file = assemble(&[(SectionKind::Meta, b"m".as_slice())]);
        assert!(matches!(
            parse(p, b"PK\x03\x04"),
            Err(ArchiveError::NotKarc { .. })
        ));
        // Any other major, the development formats 2 to 8 included.
        for other in [0, VERSION_MAJOR + 1, 8, u16::MAX] {
            let mut next = file.clone();
            next[8..10].copy_from_slice(&other.to_le_bytes());
            assert!(matches!(
                parse(p, &next),
                Err(ArchiveError::UnsupportedVersion { major, .. }) if major == other
            ));
        }
        assert!(matches!(
            parse(p, &file[..file.len() - 1]),
            Err(ArchiveError::Truncated { .. })
        ));
        // SKIPPABLE is for types a reader may not know, never a known one.
        let mut flagged = file.clone();
        flagged[HEADER_LEN + 1] = FLAG_SKIPPABLE as u8;
        reseal_table(&mut flagged);
        assert!(matches!(
            parse(p, &flagged),
            Err(ArchiveError::Corrupt { detail, .. }) if detail.contains("flags 0, found 0x0001")
        ));
        let mut bad = file.clone();
        *bad.last_mut().unwrap() ^= 1;
        let c = parse(p, &bad).unwrap();
        assert!(matches!(
            check_section(p, &bad, 0, &c.entries[0], None),
            Err(ArchiveError::CrcMismatch { .. })
        ));
    }
}
