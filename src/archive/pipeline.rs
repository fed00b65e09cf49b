//! The one pack pipeline's back end: row groups in, a `.karc` file out.
//!
//! `karc pack` ([`super::writer::pack`]: the whole table is one row group)
//! and `karc pack --stream` ([`super::stream_pack::pack_stream`]: a group
//! per block of rows) hand each row group to a [`GroupWriter`]: its bytes of
//! the original file, the table read from them and its released QI columns.
//! The writer codes the group's public sections (QI classes, released
//! columns) and its private part at once, and [`GroupWriter::finish`]
//! writes what needs the whole table: `META`, `HIERARCHIES`, `ROW_GROUPS`
//! (several groups only) and the end of the sealed private part
//! (`spec/FORMAT.md` §4, §7.4).
//!
//! Memory holds one group's coding at a time. The public sections and the
//! sealed private part go to scratch space as each group is coded: memory
//! for a batch pack, which returns the file's bytes, or unnamed temporary
//! files for a stream, whose size is not known in advance. The first
//! group's private part is held back until a second group arrives: a file
//! of one group stores it unframed (§7.1), a file of several frames each
//! group's (§7.4).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::ArchiveError;
use super::checks::ColumnChecksMeta;
use super::digest::PublicDigest;
use super::format::{self, SectionEntry, SectionKind, SectionSummary};
use super::layout::{CaptureError, Layout, Padding};
use super::meta::{
    self, HierarchyRecord, IdentifierColumn, PrivatePart, PrivateTrailer, PublicMeta, SealedMeta,
    SealedMetrics,
};
use super::models::ModelsClaim;
use super::pruning::{PublicHierarchies, UsedNodes};
use super::row_count;
use super::seal::{self, Seal};
use super::signature::{self, Signer};
use super::spool::{PrivateStream, Spool, Summed};
use crate::codec::{self, DiffMode, QiOriginal, ReleasedClasses, ReleasedColumn, RowClasses};
use crate::config::Role;
use crate::io::Output;
use crate::pseudonym::Pseudonyms;
use crate::table::Table;
use crate::{Error, Result};

/// One row group, as the anonymizer hands it over.
pub struct Group<'a> {
    /// The group's bytes of the original file: consecutive whole records
    /// (the first group's also any bytes before its first record, every
    /// group's the blank lines after its last).
    pub bytes: &'a [u8],
    /// The table read from `bytes` (the first group's with the header row,
    /// when the file has one); its columns named as the file's.
    pub table: &'a Table,
    /// The original QI columns of `table`, in claim order.
    pub qis: &'a [QiOriginal<'a>],
    /// The released QI columns, in claim order, symbols numbered in order
    /// of first use by the rows (as a reader decodes them from the classes).
    pub released: &'a [ReleasedColumn],
    /// The rows' classes in the file's class table
    /// ([`GroupWriter::class_table`]: a `ROW_CLASSES` section), or `None`
    /// (a `QI_CLASSES` section of the group's own classes).
    pub classes: Option<RowClasses<'a>>,
}

/// Where the pipeline keeps the file's sections until it is finished.
pub enum Scratch<'a> {
    /// In memory (a batch pack returns the file's bytes).
    Memory,
    /// In unnamed temporary files beside `output` (nothing is left if the
    /// run is killed).
    Beside(&'a Output),
}

/// Codes row groups into a `.karc` file (the module's doc says how).
pub struct GroupWriter {
    mode: DiffMode,
    roles: Vec<Role>,
    trim: bool,
    /// Whether a group's pieces are coded at once on several threads.
    overlap: bool,
    /// Named in I/O errors: the output.
    name: PathBuf,
    /// Where scratch files go (`None`: in memory).
    scratch: Option<PathBuf>,
    body: Body,
    private: PrivateStream,
    /// The first group's private part, until a second group comes.
    held: Option<Vec<u8>>,
    group_rows: Vec<u64>,
    /// Learnt from the first group, used by every group.
    padding: Option<Vec<Padding>>,
    /// The whole original's CRC-32 and length.
    checksum: crc32fast::Hasher,
    original_len: u64,
    /// An Arrow input's `ARROW_SCHEMA` section and private extras.
    arrow: Option<ArrowSections>,
    /// The `PRIVACY_MODELS` section, when the release claims models beyond k.
    models: Option<Vec<u8>>,
    /// The `COLUMN_CHECKS` section, when the derived-column check ran.
    checks: Option<Vec<u8>>,
    /// The hierarchy nodes the groups' released QI columns use.
    used: UsedNodes,
    /// The identifier columns released as pseudonyms, and their keys.
    pseudonyms: Pseudonyms,
    /// The `CLASS_TABLE` section, when the groups' rows' classes refer to
    /// one class table.
    class_table: Option<Vec<u8>>,
}

/// What an Arrow input (Parquet, IPC) adds to its file: the `ARROW_SCHEMA`
/// section, and the null rows and NaN bits that end the private part
/// (`spec/FORMAT.md` §7.6).
pub struct ArrowSections {
    /// The Arrow schema as IPC bytes (the `ARROW_SCHEMA` section).
    pub schema: Vec<u8>,
    /// Null rows and NaN bits, appended to the private part.
    pub extras: Vec<u8>,
    /// The schema with its custom metadata, sealed (`SealedMeta`; empty
    /// when it has none).
    pub sealed_schema: Vec<u8>,
}

impl GroupWriter {
    /// A writer of a table whose columns have `roles`, read with `trim`,
    /// its private part coded in `mode` and sealed as `seal` says. With
    /// `overlap`, each group's pieces are coded at once on the machine's
    /// threads: what a batch pack wants of its one large group, not a
    /// stream, whose anonymizer takes the time and whose memory would grow
    /// by the threads' allocator arenas (26 MB at 1M rows).
    pub fn new(
        mode: DiffMode,
        seal: &Seal,
        roles: &[Role],
        trim: bool,
        scratch: Scratch<'_>,
        overlap: bool,
    ) -> Result<GroupWriter> {
        let (name, dir, body, private) = match scratch {
            Scratch::Memory => (
                PathBuf::from("(memory)"),
                None,
                Spool::memory(),
                Spool::memory(),
            ),
            Scratch::Beside(output) => {
                let name = output.name();
                let dir = output.scratch_dir();
                let temp = || Spool::file(&dir).map_err(|e| Error::io(&name, e));
                (name.clone(), Some(dir.clone()), temp()?, temp()?)
            }
        };
        let private = match seal::encryptor(seal)? {
            Some(e) => PrivateStream::Sealed(
                e.wrap_output(Summed::new(private))
                    .map_err(|e| ArchiveError::Seal(e.to_string()))?,
            ),
            None => PrivateStream::Plain(Summed::new(private)),
        };
        Ok(GroupWriter {
            mode,
            roles: roles.to_vec(),
            trim,
            overlap,
            name,
            scratch: dir,
            body: Body {
                spool: body,
                sections: Vec::new(),
                hashes: Vec::new(),
            },
            private,
            held: None,
            group_rows: Vec::new(),
            padding: None,
            checksum: crc32fast::Hasher::new(),
            original_len: 0,
            arrow: None,
            models: None,
            checks: None,
            used: UsedNodes::default(),
            pseudonyms: Pseudonyms::default(),
            class_table: None,
        })
    }

    /// Records an Arrow input's sections, written by [`GroupWriter::finish`].
    pub fn arrow(&mut self, sections: ArrowSections) {
        self.arrow = Some(sections);
    }

    /// Records the models beyond k the release claims (the
    /// `PRIVACY_MODELS` section, written by [`GroupWriter::finish`]).
    pub fn models(&mut self, claim: &ModelsClaim) {
        self.models = Some(meta::to_bytes(claim));
    }

    /// Records the derived-column check (the `COLUMN_CHECKS` section,
    /// written by [`GroupWriter::finish`]).
    pub fn column_checks(&mut self, checks: &ColumnChecksMeta) {
        self.checks = Some(meta::to_bytes(checks));
    }

    /// Records the file's class table (the `CLASS_TABLE` section, written
    /// by [`GroupWriter::finish`]): every group's [`Group::classes`] are
    /// its rows' classes in it (`spec/FORMAT.md` §4).
    pub fn class_table(&mut self, classes: &ReleasedClasses) {
        self.class_table = Some(codec::encode_class_table(classes));
    }

    /// Records the identifier columns released as pseudonyms: each group's
    /// `COLUMN` section of them, `META`'s flags and the sealed fresh keys.
    pub fn pseudonyms(&mut self, pseudonyms: Pseudonyms) {
        self.pseudonyms = pseudonyms;
    }

    /// Codes `group` and appends it: its public sections to the body, its
    /// private part to the private stream.
    pub fn write_group(&mut self, group: &Group<'_>) -> Result<()> {
        let table = group.table;
        debug_assert!(
            !table.header || self.group_rows.is_empty(),
            "only the first group holds the header"
        );
        let padding = self.padding_of(group).clone();
        let coded = code_group(
            group,
            &self.roles,
            &self.pseudonyms,
            self.mode,
            padding,
            self.overlap,
            &mut self.body,
        )
        .map_err(|e| Error::io(&self.name, e))?;
        let layout = coded.layout.map_err(|e| ArchiveError::Layout {
            path: table.source.clone(),
            detail: e.to_string(),
        })?;
        let originals = coded.originals;
        let part = meta::to_bytes(&PrivatePart {
            digest: coded.crc.clone().finalize(),
            original_len: group.bytes.len() as u64,
            layout,
            originals: originals.bytes,
            identifiers: identifier_columns(table, &self.roles),
        });
        self.private_part(part)?;
        for (q, released) in group.released.iter().enumerate() {
            self.used.add(q, &released.symbols);
        }
        self.checksum.combine(&coded.crc);
        self.original_len += group.bytes.len() as u64;
        self.group_rows.push(table.rows as u64);
        Ok(())
    }

    /// Appends a row group coded elsewhere (a part of a distributed pack,
    /// [`super::parts`]): its public sections as they are (its `QI_CLASSES`
    /// of `qis` QIs with nodes numbered as in the whole hierarchies), its
    /// private part (a `PrivatePart`'s postcard bytes) and that part's
    /// CRC-32, original length and rows.
    pub fn append_coded(
        &mut self,
        sections: &[(SectionKind, &[u8])],
        qis: usize,
        part: Vec<u8>,
        (crc, original_len, rows): (u32, u64, u64),
    ) -> Result<()> {
        for (kind, bytes) in sections {
            if *kind == SectionKind::QiClasses {
                let blob = row_count::split(bytes).1;
                let symbols = codec::classes_symbols(blob, qis).map_err(|e| {
                    Error::Options(format!("{}: QI classes: {e}", self.name.display()))
                })?;
                for (q, symbols) in symbols.iter().enumerate() {
                    self.used.add(q, symbols);
                }
            }
            self.body
                .push(*kind, bytes)
                .map_err(|e| Error::io(&self.name, e))?;
        }
        self.private_part(part)?;
        self.checksum
            .combine(&crc32fast::Hasher::new_with_initial_len(crc, original_len));
        self.original_len += original_len;
        self.group_rows.push(rows);
        Ok(())
    }

    /// The columns' padding, learnt from the first group's first records.
    fn padding_of(&mut self, group: &Group<'_>) -> &Vec<Padding> {
        let (trim, t) = (self.trim, group.table);
        self.padding.get_or_insert_with(|| {
            Layout::learn_padding(group.bytes, t.columns.len(), t.delimiter, t.header, trim)
        })
    }

    /// Appends a group's private part (postcard bytes): the first is held
    /// until a second shows that the parts are framed.
    fn private_part(&mut self, part: Vec<u8>) -> Result<()> {
        if self.group_rows.is_empty() {
            self.held = Some(part);
            return Ok(());
        }
        if let Some(first) = self.held.take() {
            self.frame(&first)?;
        }
        self.frame(&part)
    }

    fn frame(&mut self, part: &[u8]) -> Result<()> {
        let mut length = Vec::with_capacity(10);
        codec::put_varint(&mut length, part.len() as u64);
        let io = |e| Error::io(&self.name, e);
        self.private.write_all(&length).map_err(io)?;
        self.private.write_all(part).map_err(io)
    }

    // Long: the end of the file in the order it is written (prune and renumber, the head sections,
    // the public digest, the private part's tail), which the digest and the tail depend on
    /// Ends the file: `public` (whose `rows` the groups must add up to) and
    /// the QIs' hierarchies, pruned to the nodes the groups use (`whole`:
    /// the hierarchies `public.columns` index, whole), head it; the
    /// groups' classes are renumbered to the pruned hierarchies; the
    /// private part ends with the whole file's checksum (several groups),
    /// the whole hierarchies and `metrics` ([`SealedMeta`]) and the public
    /// part's digest.
    pub fn finish(
        mut self,
        public: &PublicMeta,
        whole: &[HierarchyRecord],
        metrics: SealedMetrics,
    ) -> Result<Packed> {
        assert!(!self.group_rows.is_empty(), "a file has a row group");
        assert_eq!(
            public.rows,
            self.group_rows.iter().sum::<u64>(),
            "META.rows is the rows of the groups written"
        );
        let mut public = public.clone();
        for (c, _) in &self.pseudonyms.keys {
            public.columns[*c].pseudonym = true;
        }
        let public = &public;
        let too_large = |e| Error::Options(format!("{}: {e}", self.name.display()));
        let hierarchies = PublicHierarchies::prune(public, whole, &self.used).map_err(too_large)?;
        if hierarchies.renumbered() {
            let body = std::mem::replace(&mut self.body, Body::empty());
            self.body = body
                .renumbered(self.scratch.as_deref(), public.qis.len(), &hierarchies)
                .map_err(|e| Error::io(&self.name, e))?;
        }
        let arrow = self.arrow.take();
        let sealed = meta::to_bytes(&SealedMeta {
            hierarchies: meta::hierarchies_to_bytes(whole).map_err(too_large)?,
            metrics,
            arrow_schema: arrow
                .as_ref()
                .map_or_else(Vec::new, |a| a.sealed_schema.clone()),
            pseudonym_keys: self.pseudonyms.sealed(),
        });
        let mut head = vec![
            (
                SectionKind::Meta,
                meta::meta_to_bytes(public).map_err(too_large)?,
            ),
            (
                SectionKind::Hierarchies,
                meta::hierarchies_to_bytes(&hierarchies.records).map_err(too_large)?,
            ),
        ];
        let extras = arrow.map(|a| {
            head.push((SectionKind::ArrowSchema, a.schema));
            a.extras
        });
        if let Some(models) = self.models.take() {
            head.push((SectionKind::PrivacyModels, models));
        }
        if let Some(checks) = self.checks.take() {
            head.push((SectionKind::ColumnChecks, checks));
        }
        if self.group_rows.len() > 1 {
            head.push((SectionKind::RowGroups, meta::to_bytes(&self.group_rows)));
        }
        if let Some(table) = self.class_table.take() {
            let table = match hierarchies.renumbered() {
                true => codec::renumber_classes(&table, public.qis.len(), &mut |q, level, node| {
                    hierarchies.number(q, level, node)
                })
                .map_err(|e| too_large(e.to_string()))?,
                false => table,
            };
            head.push((SectionKind::ClassTable, table));
        }
        // The public part's digest (§7.5), now that every section is known.
        let mut digest = PublicDigest::new(format::VERSION_MAJOR, format::VERSION_MINOR);
        for (kind, bytes) in &head {
            digest.section(kind.code(), 0, bytes);
        }
        for (s, hash) in self.body.sections.iter().zip(&self.body.hashes) {
            digest.hashed_section(s.kind.code(), 0, s.length, *hash);
        }
        let io = |e| Error::io(&self.name, e);
        match self.held.take() {
            Some(part) => self.private.write_all(&part).map_err(io)?,
            None => {
                let trailer = meta::to_bytes(&PrivateTrailer {
                    digest: self.checksum.clone().finalize(),
                    original_len: self.original_len,
                });
                self.private.write_all(&trailer).map_err(io)?;
            }
        }
        self.private.write_all(&sealed).map_err(io)?;
        if let Some(extras) = &extras {
            self.private.write_all(extras).map_err(io)?;
        }
        self.private.write_all(&digest.finish()).map_err(io)?;
        let (private_summary, private, private_hash) = self.private.finish().map_err(io)?;
        let mut summaries: Vec<SectionSummary> = head
            .iter()
            .map(|(kind, bytes)| SectionSummary {
                kind: *kind,
                crc: format::crc32(bytes),
                length: bytes.len() as u64,
            })
            .collect();
        let mut hashes: Vec<[u8; 32]> = (head.iter())
            .map(|(_, bytes)| blake3::hash(bytes).into())
            .collect();
        summaries.extend_from_slice(&self.body.sections);
        hashes.extend_from_slice(&self.body.hashes);
        summaries.push(private_summary);
        hashes.push(private_hash);
        let models: Option<ModelsClaim> = head
            .iter()
            .find(|(kind, _)| *kind == SectionKind::PrivacyModels)
            .and_then(|(_, bytes)| meta::from_bytes(bytes).ok());
        Ok(Packed {
            summaries,
            hashes,
            claim: signature::claim_text(public, models.as_ref()),
            signature: None,
            head: head.into_iter().map(|(_, b)| b).collect(),
            body: self.body.spool,
            private,
            original_len: self.original_len,
            groups: self.group_rows.len(),
            name: self.name,
        })
    }
}

/// The row groups' public sections, in file order, as they are written.
struct Body {
    spool: Spool,
    sections: Vec<SectionSummary>,
    /// The BLAKE3 hash of each section in `sections` (the public digest).
    hashes: Vec<[u8; 32]>,
}

impl Body {
    fn empty() -> Body {
        Body {
            spool: Spool::memory(),
            sections: Vec::new(),
            hashes: Vec::new(),
        }
    }

    /// The same sections, each `QI_CLASSES` (of `qis` QIs) with its nodes
    /// renumbered as `hierarchies` numbers them, in a new spool beside
    /// `scratch` (memory when `None`). One section at a time is in memory.
    fn renumbered(
        self,
        scratch: Option<&Path>,
        qis: usize,
        hierarchies: &PublicHierarchies,
    ) -> std::io::Result<Body> {
        let mut out = Body {
            spool: match scratch {
                Some(dir) => Spool::file(dir)?,
                None => Spool::memory(),
            },
            sections: Vec::with_capacity(self.sections.len()),
            hashes: Vec::with_capacity(self.sections.len()),
        };
        let mut reader = self.spool.into_reader()?;
        let mut bytes = Vec::new();
        for s in &self.sections {
            bytes.clear();
            (&mut reader).take(s.length).read_to_end(&mut bytes)?;
            if s.kind != SectionKind::QiClasses {
                out.push(s.kind, &bytes)?;
                continue;
            }
            let (count, blob) = row_count::split(&bytes);
            let renumbered = codec::renumber_classes(blob, qis, &mut |q, level, node| {
                hierarchies.number(q, level, node)
            })
            .map_err(std::io::Error::other)?;
            out.push(s.kind, &[count, &renumbered[..]].concat())?;
        }
        Ok(out)
    }

    fn push(&mut self, kind: SectionKind, bytes: &[u8]) -> std::io::Result<()> {
        self.spool.write_all(bytes)?;
        self.sections.push(SectionSummary {
            kind,
            crc: format::crc32(bytes),
            length: bytes.len() as u64,
        });
        self.hashes.push(blake3::hash(bytes).into());
        Ok(())
    }
}

/// A row group's private pieces, coded.
struct Coded {
    originals: codec::EncodedOriginals,
    layout: std::result::Result<Layout, CaptureError>,
    crc: crc32fast::Hasher,
}

/// Codes `group` in three pieces: its public sections (appended to
/// `body`), its original QI columns (which `encode_originals` spreads over
/// threads itself), and its layout and CRC-32 (the bytes and the table
/// only). With `overlap` the pieces run at once on the machine's threads;
/// without, one after another, each public section written as soon as it
/// is coded (a group's sections are never all in memory beside its
/// originals).
fn code_group(
    group: &Group<'_>,
    roles: &[Role],
    pseudonyms: &Pseudonyms,
    mode: DiffMode,
    padding: Vec<Padding>,
    overlap: bool,
    body: &mut Body,
) -> std::io::Result<Coded> {
    let t = group.table;
    let side = || {
        let mut crc = crc32fast::Hasher::new();
        crc.update(group.bytes);
        let layout = Layout::capture_with_padding(group.bytes, t, t.delimiter, t.header, padding);
        (layout, crc)
    };
    // The private part codes against the QI columns as a reader decodes
    // them from the classes.
    let originals = || codec::encode_originals(mode, group.qis, group.released);
    if !overlap {
        public_sections(group, roles, pseudonyms, &mut |kind, bytes| {
            body.push(kind, &bytes)
        })?;
        let (layout, crc) = side();
        let originals = originals();
        return Ok(Coded {
            originals,
            layout,
            crc,
        });
    }
    let (public, originals, (layout, crc)) = std::thread::scope(|scope| {
        let side = scope.spawn(side);
        let public = scope.spawn(|| {
            let mut public = Vec::new();
            let mut keep = |kind, bytes| {
                public.push((kind, bytes));
                Ok(())
            };
            public_sections(group, roles, pseudonyms, &mut keep).map(|()| public)
        });
        let originals = originals();
        let public = public
            .join()
            .expect("coding the public part does not panic");
        let side = side.join().expect("capturing the layout does not panic");
        (public, originals, side)
    });
    for (kind, bytes) in public? {
        body.push(kind, &bytes)?;
    }
    Ok(Coded {
        originals,
        layout,
        crc,
    })
}

/// Hands a group's public sections to `sink` as they are coded: its QI
/// classes, then each released column that is not a QI, in column order
/// (a pseudonymized identifier as its pseudonyms), each opened by the
/// group's row count (`row_count`).
fn public_sections(
    group: &Group<'_>,
    roles: &[Role],
    pseudonyms: &Pseudonyms,
    sink: &mut dyn FnMut(SectionKind, Vec<u8>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let rows = group.table.rows;
    let mut sink = |kind, blob| sink(kind, row_count::counted(rows, blob));
    match group.classes {
        Some(rows) => sink(SectionKind::RowClasses, codec::encode_row_classes(rows))?,
        None => {
            let classes = ReleasedClasses::from_columns(group.released);
            debug_assert!(
                classes.to_columns() == group.released,
                "symbols in first-use order"
            );
            sink(SectionKind::QiClasses, codec::encode_classes(&classes))?;
        }
    }
    for (i, (column, role)) in group.table.columns.iter().zip(roles).enumerate() {
        match (role, pseudonyms.key(i)) {
            (Role::Quasi, _) | (Role::Identifier, None) => {}
            (Role::Identifier, Some(key)) => {
                let shown = key.pseudonymize(column, &pseudonyms.missing);
                sink(SectionKind::Column, codec::encode_plain(&shown))?;
            }
            _ => sink(SectionKind::Column, codec::encode_plain(column))?,
        }
    }
    Ok(())
}

/// The identifier columns of `table` (never released), as the private part
/// stores them.
fn identifier_columns(table: &Table, roles: &[Role]) -> Vec<IdentifierColumn> {
    table
        .columns
        .iter()
        .zip(roles)
        .enumerate()
        .filter(|(_, (_, r))| **r == Role::Identifier)
        .map(|(i, (c, _))| IdentifierColumn {
            column: i as u32,
            bytes: codec::encode_plain(c),
        })
        .collect()
}

/// A finished file, its sections still in scratch space.
pub struct Packed {
    /// Every section's type, CRC-32 and length, in file order (the
    /// private one last; the signature not among them).
    summaries: Vec<SectionSummary>,
    /// The BLAKE3 hash of each section of `summaries`.
    hashes: Vec<[u8; 32]>,
    /// The claim as a signature's trusted comment states it.
    claim: String,
    /// The `SIGNATURE` section, once signed ([`Packed::sign`]).
    signature: Option<Vec<u8>>,
    /// `META`, `HIERARCHIES` and any `ROW_GROUPS`.
    head: Vec<Vec<u8>>,
    body: Spool,
    private: Spool,
    /// The original file's length.
    pub original_len: u64,
    /// The row groups written.
    pub groups: usize,
    name: PathBuf,
}

impl Packed {
    /// The file's length in bytes.
    pub fn file_len(&self) -> u64 {
        let head: usize = self.head.iter().map(Vec::len).sum();
        let signature = self.signature.as_ref().map_or(0, Vec::len);
        (self.table().len() + head + signature) as u64 + self.body.len() + self.private.len()
    }

    /// Signs the file with `signer` (`spec/FORMAT.md` §4.1): its
    /// `SIGNATURE` section goes before the private one.
    pub fn sign(&mut self, signer: &Signer) -> Result<()> {
        let private = self.summaries.len() - 1;
        let entries: Vec<SectionEntry> = (self.summaries.iter())
            .map(|s| SectionEntry {
                code: s.kind.code(),
                flags: 0,
                crc: s.crc,
                offset: 0,
                length: s.length,
            })
            .collect();
        let manifest = signature::manifest_of_hashed(
            (format::VERSION_MAJOR, format::VERSION_MINOR),
            entries
                .iter()
                .zip(&self.hashes)
                .enumerate()
                .map(|(i, (e, h))| {
                    let index = if i < private { i } else { i + 1 };
                    (index, e, *h)
                }),
            signer.key.key_id(),
        );
        self.signature = Some(signature::section_bytes(signer, &manifest, &self.claim)?);
        Ok(())
    }

    /// The header and section table.
    fn table(&self) -> Vec<u8> {
        let mut summaries = self.summaries.clone();
        if let Some(bytes) = &self.signature {
            let summary = SectionSummary {
                kind: SectionKind::Signature,
                crc: format::crc32(bytes),
                length: bytes.len() as u64,
            };
            summaries.insert(summaries.len() - 1, summary);
        }
        format::header_and_table(&summaries)
    }

    /// Writes the file to `w`.
    pub fn write_to(self, w: &mut dyn Write) -> Result<()> {
        let io = |e| Error::io(&self.name, e);
        w.write_all(&self.table()).map_err(io)?;
        for bytes in &self.head {
            w.write_all(bytes).map_err(io)?;
        }
        self.body.copy_to(w).map_err(io)?;
        if let Some(bytes) = &self.signature {
            w.write_all(bytes).map_err(io)?;
        }
        self.private.copy_to(w).map_err(io)
    }

    /// The file's bytes.
    pub fn into_bytes(self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(self.file_len() as usize);
        self.write_to(&mut out)?;
        Ok(out)
    }
}
