//! A Parquet file's Thrift structures (its footer and its page headers)
//! walked before parquet decodes them. parquet 60 skips a field it does
//! not know one element at a time, and a boolean element of a list (or
//! map) costs it no byte where the compact protocol spends one: a forged
//! list of 2^31 booleans loops 2^31 times over the same byte, and a footer
//! of a few KB holding hundreds of them kept a reader busy for minutes (the
//! fuzz campaign of 2026-11-28, `fuzz/regressions/arrow_table/slow_*`).
//!
//! The walk reads the bytes as parquet will, field by field, with the
//! wire types parquet expects of the fields it knows (parquet.thrift's
//! `FileMetaData`, `PageHeader` and what they hold): a known field of
//! another type is refused, since parquet would read it as its own type
//! and from there see other fields than the walk; a list or map of
//! booleans that parquet would skip is refused when not empty (no writer
//! puts one in a field parquet does not know, and parquet misreads it);
//! every list's length must fit in the bytes left. Then parquet's work is
//! bounded by the bytes it reads.

/// A wire type of the compact protocol, as a field header or a list
/// header names it (both boolean codes are one type here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wire {
    Bool,
    Byte,
    I16,
    I32,
    I64,
    Double,
    Binary,
    List,
    Set,
    Map,
    Struct,
    Uuid,
}

impl Wire {
    fn of(code: u8) -> Option<Wire> {
        Some(match code {
            1 | 2 => Wire::Bool,
            3 => Wire::Byte,
            4 => Wire::I16,
            5 => Wire::I32,
            6 => Wire::I64,
            7 => Wire::Double,
            8 => Wire::Binary,
            9 => Wire::List,
            10 => Wire::Set,
            11 => Wire::Map,
            12 => Wire::Struct,
            13 => Wire::Uuid,
            _ => return None,
        })
    }
}

/// What parquet reads a known field as.
#[derive(Clone, Copy)]
enum Expect {
    /// One value of this wire type.
    Scalar(Wire),
    /// A struct (or union) whose known fields these are.
    Struct(&'static [(i16, Expect)]),
    /// A list of these.
    List(&'static Expect),
}

use Expect::{List, Scalar, Struct};
use Wire::{Binary, Bool, Byte, Double, I16, I32, I64};

const EMPTY: &[(i16, Expect)] = &[];
const KEY_VALUE: &[(i16, Expect)] = &[(1, Scalar(Binary)), (2, Scalar(Binary))];
const TIME_UNIT: &[(i16, Expect)] = &[(1, Struct(EMPTY)), (2, Struct(EMPTY)), (3, Struct(EMPTY))];
const TIME_TYPE: &[(i16, Expect)] = &[(1, Scalar(Bool)), (2, Struct(TIME_UNIT))];
const LOGICAL_TYPE: &[(i16, Expect)] = &[
    (1, Struct(EMPTY)),
    (2, Struct(EMPTY)),
    (3, Struct(EMPTY)),
    (4, Struct(EMPTY)),
    (5, Struct(&[(1, Scalar(I32)), (2, Scalar(I32))])),
    (6, Struct(EMPTY)),
    (7, Struct(TIME_TYPE)),
    (8, Struct(TIME_TYPE)),
    (10, Struct(&[(1, Scalar(Byte)), (2, Scalar(Bool))])),
    (11, Struct(EMPTY)),
    (12, Struct(EMPTY)),
    (13, Struct(EMPTY)),
    (14, Struct(EMPTY)),
    (15, Struct(EMPTY)),
    (16, Struct(&[(1, Scalar(Byte))])),
    (17, Struct(&[(1, Scalar(Binary))])),
    (18, Struct(&[(1, Scalar(Binary)), (2, Scalar(I32))])),
];
const SCHEMA_ELEMENT: &[(i16, Expect)] = &[
    (1, Scalar(I32)),
    (2, Scalar(I32)),
    (3, Scalar(I32)),
    (4, Scalar(Binary)),
    (5, Scalar(I32)),
    (6, Scalar(I32)),
    (7, Scalar(I32)),
    (8, Scalar(I32)),
    (9, Scalar(I32)),
    (10, Struct(LOGICAL_TYPE)),
];
const STATISTICS: &[(i16, Expect)] = &[
    (1, Scalar(Binary)),
    (2, Scalar(Binary)),
    (3, Scalar(I64)),
    (4, Scalar(I64)),
    (5, Scalar(Binary)),
    (6, Scalar(Binary)),
    (7, Scalar(Bool)),
    (8, Scalar(Bool)),
];
const BOUNDING_BOX: &[(i16, Expect)] = &[
    (1, Scalar(Double)),
    (2, Scalar(Double)),
    (3, Scalar(Double)),
    (4, Scalar(Double)),
    (5, Scalar(Double)),
    (6, Scalar(Double)),
    (7, Scalar(Double)),
    (8, Scalar(Double)),
];
const COLUMN_META_DATA: &[(i16, Expect)] = &[
    (1, Scalar(I32)),
    (2, List(&Scalar(I32))),
    (3, List(&Scalar(Binary))),
    (4, Scalar(I32)),
    (5, Scalar(I64)),
    (6, Scalar(I64)),
    (7, Scalar(I64)),
    (8, List(&Struct(KEY_VALUE))),
    (9, Scalar(I64)),
    (10, Scalar(I64)),
    (11, Scalar(I64)),
    (12, Struct(STATISTICS)),
    (
        13,
        List(&Struct(&[
            (1, Scalar(I32)),
            (2, Scalar(I32)),
            (3, Scalar(I32)),
        ])),
    ),
    (14, Scalar(I64)),
    (15, Scalar(I32)),
    (
        16,
        Struct(&[
            (1, Scalar(I64)),
            (2, List(&Scalar(I64))),
            (3, List(&Scalar(I64))),
        ]),
    ),
    (
        17,
        Struct(&[(1, Struct(BOUNDING_BOX)), (2, List(&Scalar(I32)))]),
    ),
];
const COLUMN_CRYPTO: &[(i16, Expect)] = &[
    (1, Struct(EMPTY)),
    (
        2,
        Struct(&[(1, List(&Scalar(Binary))), (2, Scalar(Binary))]),
    ),
];
const COLUMN_CHUNK: &[(i16, Expect)] = &[
    (1, Scalar(Binary)),
    (2, Scalar(I64)),
    (3, Struct(COLUMN_META_DATA)),
    (4, Scalar(I64)),
    (5, Scalar(I32)),
    (6, Scalar(I64)),
    (7, Scalar(I32)),
    (8, Struct(COLUMN_CRYPTO)),
    (9, Scalar(Binary)),
];
const ROW_GROUP: &[(i16, Expect)] = &[
    (1, List(&Struct(COLUMN_CHUNK))),
    (2, Scalar(I64)),
    (3, Scalar(I64)),
    (
        4,
        List(&Struct(&[
            (1, Scalar(I32)),
            (2, Scalar(Bool)),
            (3, Scalar(Bool)),
        ])),
    ),
    (5, Scalar(I64)),
    (6, Scalar(I64)),
    (7, Scalar(I16)),
];
const AES: &[(i16, Expect)] = &[(1, Scalar(Binary)), (2, Scalar(Binary)), (3, Scalar(Bool))];

/// parquet.thrift's `FileMetaData`: a Parquet file's footer.
const FILE_META_DATA: &[(i16, Expect)] = &[
    (1, Scalar(I32)),
    (2, List(&Struct(SCHEMA_ELEMENT))),
    (3, Scalar(I64)),
    (4, List(&Struct(ROW_GROUP))),
    (5, List(&Struct(KEY_VALUE))),
    (6, Scalar(Binary)),
    (7, List(&Struct(&[(1, Struct(EMPTY))]))),
    (8, Struct(&[(1, Struct(AES)), (2, Struct(AES))])),
    (9, Scalar(Binary)),
];

/// parquet.thrift's `PageHeader`, before each page of a column chunk.
const PAGE_HEADER: &[(i16, Expect)] = &[
    (1, Scalar(I32)),
    (2, Scalar(I32)),
    (3, Scalar(I32)),
    (4, Scalar(I32)),
    (
        5,
        Struct(&[
            (1, Scalar(I32)),
            (2, Scalar(I32)),
            (3, Scalar(I32)),
            (4, Scalar(I32)),
            (5, Struct(STATISTICS)),
        ]),
    ),
    (6, Struct(EMPTY)),
    (
        7,
        Struct(&[(1, Scalar(I32)), (2, Scalar(I32)), (3, Scalar(Bool))]),
    ),
    (
        8,
        Struct(&[
            (1, Scalar(I32)),
            (2, Scalar(I32)),
            (3, Scalar(I32)),
            (4, Scalar(I32)),
            (5, Scalar(I32)),
            (6, Scalar(I32)),
            (7, Scalar(Bool)),
            (8, Struct(STATISTICS)),
        ]),
    ),
];

/// Nesting parquet's skip allows (its `DEFAULT_SKIP_DEPTH`).
const MAX_DEPTH: u32 = 64;

/// Why a walk stopped.
#[derive(Debug, PartialEq, Eq)]
pub enum Stop {
    /// The bytes end inside the structure (a page header may need more).
    Short,
    /// The structure is one parquet would misread; the reason.
    Refused(String),
}

/// Walks `bytes` as a Parquet footer (`FileMetaData`).
pub fn check_footer(bytes: &[u8]) -> Result<(), Stop> {
    let mut walk = Walk { bytes, at: 0 };
    walk.fields(Some(FILE_META_DATA), 0, &mut None)
}

/// Walks the page header at the start of `bytes`: its length and its
/// `compressed_page_size`.
pub fn check_page_header(bytes: &[u8]) -> Result<(usize, i64), Stop> {
    let mut walk = Walk { bytes, at: 0 };
    let mut size = None;
    walk.fields(Some(PAGE_HEADER), 0, &mut size)?;
    Ok((walk.at, size.unwrap_or(0)))
}

/// A position in the bytes walked.
struct Walk<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Walk<'_> {
    fn byte(&mut self) -> Result<u8, Stop> {
        let b = *self.bytes.get(self.at).ok_or(Stop::Short)?;
        self.at += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, Stop> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(refused("a varint longer than 10 bytes"))
    }

    fn skip_bytes(&mut self, n: u64) -> Result<(), Stop> {
        let left = (self.bytes.len() - self.at) as u64;
        if n > left {
            return Err(Stop::Short);
        }
        self.at += n as usize;
        Ok(())
    }

    /// A struct's fields up to its stop byte; `known`: the fields parquet
    /// reads (`None`: it skips the struct). A top-level field 3 of type
    /// i32 is kept in `size` (a page header's `compressed_page_size`).
    fn fields(
        &mut self,
        known: Option<&'static [(i16, Expect)]>,
        depth: u32,
        size: &mut Option<i64>,
    ) -> Result<(), Stop> {
        if depth >= MAX_DEPTH {
            return Err(refused("structures nested deeper than 64"));
        }
        let mut last = 0i16;
        loop {
            let header = self.byte()?;
            if header & 0x0f == 0 {
                return Ok(());
            }
            let wire = Wire::of(header & 0x0f)
                .ok_or_else(|| refused(format!("field type {}", header & 0x0f)))?;
            let delta = i16::from(header >> 4);
            let id = if delta != 0 {
                last.saturating_add(delta)
            } else {
                let z = self.varint()?;
                ((z >> 1) as i64 ^ -((z & 1) as i64)) as i16
            };
            let expect = known.and_then(|k| k.iter().find(|(i, _)| *i == id).map(|(_, e)| *e));
            match expect {
                Some(e) => {
                    let start = self.at;
                    self.expected(e, wire, id, depth)?;
                    if depth == 0 && id == 3 && wire == I32 && size.is_none() {
                        let z = Walk {
                            bytes: self.bytes,
                            at: start,
                        }
                        .varint()?;
                        *size = Some((z >> 1) as i64 ^ -((z & 1) as i64));
                    }
                }
                None => self.skip(wire, depth)?,
            }
            last = id;
        }
    }

    /// A known field (or list element) that parquet reads as `e`.
    fn expected(&mut self, e: Expect, wire: Wire, id: i16, depth: u32) -> Result<(), Stop> {
        match e {
            Scalar(w) if w == wire => self.skip(wire, depth),
            Struct(known) if wire == Wire::Struct => self.fields(Some(known), depth + 1, &mut None),
            List(element) if wire == Wire::List => {
                let (size, element_wire) = self.list_header()?;
                for _ in 0..size {
                    self.expected(*element, element_wire, id, depth + 1)?;
                }
                Ok(())
            }
            _ => Err(refused(format!(
                "field {id} is a {wire:?} where parquet reads another type"
            ))),
        }
    }

    /// A list's or set's header: its length (at most the bytes left, each
    /// element taking at least one) and element type.
    fn list_header(&mut self) -> Result<(u64, Wire), Stop> {
        let header = self.byte()?;
        if header == 0 {
            return Ok((0, Byte));
        }
        let wire = Wire::of(header & 0x0f)
            .ok_or_else(|| refused(format!("list element type {}", header & 0x0f)))?;
        let size = match header >> 4 {
            15 => self.varint()?,
            n => u64::from(n),
        };
        if size > (self.bytes.len() - self.at) as u64 {
            return Err(refused(format!(
                "a list of {size} elements in {} bytes",
                self.bytes.len() - self.at
            )));
        }
        Ok((size, wire))
    }

    /// A field parquet skips, as parquet's skip reads it.
    fn skip(&mut self, wire: Wire, depth: u32) -> Result<(), Stop> {
        match wire {
            Bool => Ok(()),
            Byte => self.skip_bytes(1),
            I16 | I32 | I64 => self.varint().map(drop),
            Double => self.skip_bytes(8),
            Wire::Uuid => self.skip_bytes(16),
            Binary => {
                let n = self.varint()?;
                self.skip_bytes(n)
            }
            Wire::Struct => self.fields(None, depth + 1, &mut None),
            Wire::List | Wire::Set => {
                let (size, element) = self.list_header()?;
                if element == Bool && size > 0 {
                    return Err(refused(format!(
                        "a list of {size} booleans in a field parquet skips"
                    )));
                }
                for _ in 0..size {
                    self.skip(element, depth + 1)?;
                }
                Ok(())
            }
            Wire::Map => self.skip_map(depth),
        }
    }

    fn skip_map(&mut self, depth: u32) -> Result<(), Stop> {
        let size = self.varint()?;
        if size == 0 {
            return Ok(());
        }
        let types = self.byte()?;
        let (key, value) = (Wire::of(types >> 4), Wire::of(types & 0x0f));
        let (Some(key), Some(value)) = (key, value) else {
            return Err(refused(format!("map types {types:#04x}")));
        };
        if key == Bool || value == Bool || size > (self.bytes.len() - self.at) as u64 {
            return Err(refused(format!(
                "a map of {size} {key:?} to {value:?} in {} bytes",
                self.bytes.len() - self.at
            )));
        }
        for _ in 0..size {
            self.skip(key, depth + 1)?;
            self.skip(value, depth + 1)?;
        }
        Ok(())
    }
}

fn refused(reason: impl Into<String>) -> Stop {
    Stop::Refused(reason.into())
}
