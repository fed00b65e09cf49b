//! Opening an archive: integrity, then the privacy claim, every time
//! (`spec/FORMAT.md` §9); then export, restore, publish and inspection.

mod claim;
mod inspect;
mod release;
mod restore;
mod signed;
mod walk;

pub use inspect::{ColumnInfo, Inspection, SectionInfo};
pub use walk::MAX_GROUP_ROWS;
use walk::RowGroups;

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::ArchiveError;
use super::ahead::{self, Ahead, Keep};
use super::checks::{ColumnChecksMeta, NamedChecks};
use super::digest::{self, PublicDigest, crc32_hex, hex};
use super::format::{self, Container, SectionEntry, SectionKind};
use super::handoff::{self, Handoff};
use super::hierarchies::{self as trees, Whole};
use super::layout::{Layout, RenderedColumn, Texts};
use super::meta::{
    self, HierarchyRecord, PrivatePart, PrivateParts, PrivateTrailer, PublicMeta, SealedMeta,
    SealedMetrics,
};
use super::models::ModelsClaim;
use super::row_count;
use super::seal::{self, Key};
use super::signature::{self, Embedded, Signer, Verified};
use crate::Result;
use crate::arrow::{ArrowLayout, ColumnExtras};
use crate::classes::Partition;
use crate::codec::{self, Purpose, QiSchema, ReleasedColumn, ReleasedRows, ReleasedSymbol};
use crate::config::{Role, SuppressionPolicy};
use crate::hierarchy::{Hierarchy, Pruned};
use crate::io::Input;
use crate::jobs::Jobs;
use crate::minisign::PublicKey;
use crate::number::NumberFormat;
use crate::privacy::risk::{self, Risk};
use crate::privacy::{
    ClaimReport, Constraint, Declared, Distance, Models, Sensitive, models, verify_columns,
    verify_weighted,
};
use crate::release::write_columns_csv;
use crate::table::{Column, CsvOptions, LineEnding};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

/// Whether opening re-checks the privacy claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimCheck {
    /// Refuse a file whose release breaks its claim (the default).
    Enforce,
    /// Skip the check: for forensics on a refused file only.
    Skip,
}

/// One row group's public sections, decoded QI columns included.
struct Group {
    rows: usize,
    /// Table-entry index of the QI classes section.
    classes_section: usize,
    /// Table-entry index of each released non-QI column's section, by
    /// column index (`None` for identifiers and QIs).
    column_section: Vec<Option<usize>>,
    /// Where the QI classes section's bytes go (once decoded).
    classes_bytes: Option<codec::ClassesBytes>,
    /// The group's equivalence classes: their released QI tuples (one
    /// column per QI, one entry per class) and their sizes in rows. The
    /// claim check works on these, not on every row.
    class_table: Vec<ReleasedColumn>,
    class_sizes: Vec<u32>,
    /// Each row's class: decoded on open, or for a group of one class
    /// (whose row count its bytes do not bound) made on first use.
    class_rows: std::sync::OnceLock<Vec<u32>>,
}

/// An opened, checked archive (its bytes in memory).
pub struct Archive {
    path: PathBuf,
    bytes: Input,
    container: Container,
    /// The public part's metadata (columns, claim, algorithm, metrics).
    pub meta: PublicMeta,
    /// One per `HIERARCHIES` record: the nodes the release uses and their
    /// ancestors (a 1.0 file's: every node).
    pub hierarchies: Vec<Pruned>,
    /// A 1.0 file's hierarchies, whole (a 2.0 file's are in its private part).
    whole_v1: Vec<Hierarchy>,
    /// Per column, a sensitive column's hierarchy as a tree the models
    /// measure t-closeness's hierarchical distance on (its public record:
    /// the released values and their ancestors).
    sensitive_trees: Vec<Option<Hierarchy>>,
    /// A 1.0 file's metrics measured against the original's domain, which
    /// its `META` shows (a 2.0 file seals them).
    v1_metrics: Option<SealedMetrics>,
    /// The row groups, in row order (one unless the file was streamed).
    groups: Vec<Group>,
    /// Whether the file has a `ROW_GROUPS` section, and so a private part
    /// framed group by group (`spec/FORMAT.md` §7.4).
    framed: bool,
    /// Table-entry index of the private section.
    private_section: Option<usize>,
    /// The schema of an Arrow input (`ARROW_SCHEMA`).
    arrow_schema: Option<SchemaRef>,
    /// The models beyond k the release claims (`PRIVACY_MODELS`).
    pub models: Option<ModelsClaim>,
    /// The derived-column check the release passed (`COLUMN_CHECKS`).
    pub column_checks: Option<ColumnChecksMeta>,
    /// The `SIGNATURE` section, parsed (not yet checked against a key).
    signature: Option<Embedded>,
    /// The file's class table (`CLASS_TABLE`), when its row groups
    /// share one: the claim check's classes.
    table_wide: Option<walk::FileClasses>,
    /// The labels of the class table's classes, per QI, once an export
    /// needed them.
    class_label_columns: std::sync::OnceLock<Vec<Column>>,
    /// The released QI columns of the whole table, in claim order, built
    /// on first use ([`Archive::released`]).
    released: std::sync::OnceLock<Vec<ReleasedColumn>>,
    /// The claim as re-checked on open (`None` when skipped).
    pub claim_report: Option<ClaimReport>,
    /// [`Archive::public_digest`], once computed (on opening with a key,
    /// by the thread that unseals, which has time to spare).
    public_digest: std::sync::OnceLock<[u8; 32]>,
    /// The released columns decoded while the file was checked, by column,
    /// each taken by the restore that renders it ([`Ahead`]); empty when
    /// nothing was decoded ahead.
    ahead: Vec<std::sync::Mutex<Option<ahead::Decoded>>>,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("path", &self.path)
            .field("version", &self.version())
            .field("rows", &self.meta.rows)
            .field("sections", &self.container.entries.len())
            .finish()
    }
}

impl Archive {
    /// Opens and checks `path`.
    pub fn open(path: &Path, check: ClaimCheck) -> Result<Archive> {
        let bytes = Input::open(path)?;
        Archive::from_input(path, bytes, check, Keep::Verdicts)
    }

    /// Checks bytes already in memory; `path` names the file in messages.
    pub fn from_bytes(path: &Path, bytes: Vec<u8>, check: ClaimCheck) -> Result<Archive> {
        Archive::from_input(path, Input::from(bytes), check, Keep::Verdicts)
    }

    /// [`Archive::from_bytes`] for one export of the release
    /// ([`Archive::export_csv`]): the released columns, decoded on two
    /// threads while the file is checked, are kept for it.
    pub fn from_bytes_to_export(path: &Path, bytes: Vec<u8>, check: ClaimCheck) -> Result<Archive> {
        Archive::from_input(path, Input::from(bytes), check, Keep::Columns)
    }

    /// Opens `path` as [`Archive::open`] does and restores it as
    /// [`Archive::restore_into`] does, unsealing the private part on a
    /// second thread while the file is checked (age's key agreement and
    /// decryption overlap the claim check). The file's errors come first,
    /// then the envelope's, as in the two calls.
    pub fn open_and_restore(
        path: &Path,
        check: ClaimCheck,
        key: Option<&Key>,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<(Archive, u64)> {
        Archive::from_bytes_restoring(path, Input::open(path)?.into_vec(), check, key, sink)
    }

    /// [`Archive::open_and_restore`] of bytes in memory (standard input);
    /// `path` names the file in messages.
    pub fn from_bytes_restoring(
        path: &Path,
        bytes: Vec<u8>,
        check: ClaimCheck,
        key: Option<&Key>,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<(Archive, u64)> {
        let (archive, plain) = Archive::unsealing(path, Input::from(bytes), check, key)?;
        let len = archive.restore_parts(&archive.private_parts_of(plain?)?, sink)?;
        Ok((archive, len))
    }

    /// [`Archive::open_and_restore`] of bytes in memory; returns the
    /// original's bytes.
    pub fn from_bytes_and_restore(
        path: &Path,
        bytes: Vec<u8>,
        check: ClaimCheck,
        key: Option<&Key>,
    ) -> Result<(Archive, Vec<u8>)> {
        let (archive, plain) = Archive::unsealing(path, Input::from(bytes), check, key)?;
        let out = archive.restore_from(archive.private_parts_of(plain?)?)?;
        Ok((archive, out))
    }

    /// Opens the file while a second thread unseals a copy of its sealed
    /// private section (when there is one and a key): the archive, and the
    /// private plaintext or why it could not be had.
    fn unsealing(
        path: &Path,
        bytes: Input,
        check: ClaimCheck,
        key: Option<&Key>,
    ) -> Result<(Archive, Result<Vec<u8>>)> {
        let container = format::parse(path, &bytes)?;
        let sealed = match (container.entries.last(), key) {
            (Some(e), Some(key)) if e.kind() == Some(SectionKind::PrivateSealed) => {
                Some((bytes[e.range()].to_vec(), key))
            }
            _ => None,
        };
        // The second thread unseals, if there is something to unseal, then
        // decodes the columns the restore renders while this one checks.
        let mut unsealed = None;
        let archive = Archive::checked_beside(
            path,
            bytes,
            container,
            check,
            Keep::Columns,
            Some(|| sealed.map(|(sealed, key)| seal::unseal(path, &sealed, key))),
            &mut unsealed,
        )?;
        let plain = match unsealed.expect("run once the row groups were walked") {
            Some(plain) => plain.map_err(Into::into),
            None => archive.private_plaintext(key),
        };
        Ok((archive, plain))
    }

    fn from_input(path: &Path, bytes: Input, check: ClaimCheck, keep: Keep) -> Result<Archive> {
        let container = format::parse(path, &bytes)?;
        Archive::checked_beside(path, bytes, container, check, keep, None::<fn()>, &mut None)
    }

    // Long: the opening checks in their fixed order (metadata, hierarchies, section table,
    // checksums, classes, claim), each failing before the next runs
    /// [`Archive::checked`] with a second thread: it runs `beside`
    /// (unsealing, whose result is needed only after the claim check)
    /// while this one builds the hierarchies and walks the row groups
    /// (section checksums, QI classes); without `beside`, it builds the
    /// hierarchies. (On Adult, unsealing takes about as long as the other
    /// two together.) Errors are reported in the file's order all the same:
    /// metadata, hierarchies, section table, checksums, classes, claim.
    /// `beside`'s result goes to `beside_result`, which stays `None` when
    /// the metadata failed before it ran.
    fn checked_beside<T: Send>(
        path: &Path,
        bytes: Input,
        container: Container,
        check: ClaimCheck,
        keep: Keep,
        beside: Option<impl FnOnce() -> T + Send>,
        beside_result: &mut Option<T>,
    ) -> Result<Archive> {
        let corrupt = corrupt_in(path);
        let entries = &container.entries;
        let kinds: Vec<Option<SectionKind>> = entries.iter().map(SectionEntry::kind).collect();
        if kinds.first() != Some(&Some(SectionKind::Meta))
            || kinds.get(1) != Some(&Some(SectionKind::Hierarchies))
        {
            return Err(corrupt(
                "section table".to_owned(),
                "expected the metadata section first and the hierarchies second".to_owned(),
            )
            .into());
        }
        let meta_body = format::check_section(path, &bytes, 0, &entries[0], None)?;
        let v1 = container.major == super::compat::MAJOR;
        let (meta, v1_metrics) = match v1 {
            true => super::compat::meta_from_bytes(meta_body).map(|(m, x)| (m, Some(x))),
            false => meta::meta_from_bytes(meta_body).map(|m| (m, None)),
        }
        .map_err(|e| corrupt(format::section_label(0, &entries[0], None), e))?;
        validate_meta(&meta)
            .map_err(|e| corrupt(format::section_label(0, &entries[0], None), e))?;
        let h_body = format::check_section(path, &bytes, 1, &entries[1], None)?;
        let in_hierarchy = |(i, e): (usize, String)| {
            let label = format::section_label(1, &entries[1], None);
            corrupt(format!("{label} (hierarchy {i})"), e)
        };
        let build = || {
            let records: Vec<HierarchyRecord> = meta::hierarchies_from_bytes(h_body)
                .map_err(|e| corrupt(format::section_label(1, &entries[1], None), e))?;
            trees::public(records, container.major, path).map_err(in_hierarchy)
        };
        let public_digest = std::sync::OnceLock::new();
        // The released columns, decoded on both threads (kept to be
        // rendered, or only checked).
        let planned = Ahead::plan(&container, &bytes, &meta, keep);
        let (hierarchies, groups) = std::thread::scope(|scope| {
            let deferred = planned.as_ref().map_or(&[][..], Ahead::blobs);
            let walk = || RowGroups::walk(path, &bytes, &container, &kinds, &meta, deferred);
            let unsealing = beside.is_some();
            let side = scope.spawn(|| {
                // Unsealing, or else building the hierarchies.
                let unsealed = beside.map(|beside| {
                    let result = beside();
                    public_digest.get_or_init(|| public_digest_of(&container, &bytes));
                    result
                });
                let built = unsealed.is_none().then(build);
                if let Some(ahead) = &planned {
                    ahead.work();
                }
                (unsealed, built)
            });
            let built_here = unsealing.then(build);
            let groups = walk();
            if let (Some(ahead), Ok(_)) = (&planned, &groups) {
                ahead.work();
            }
            let (unsealed, built) = side.join().expect("the second thread does not panic");
            *beside_result = unsealed;
            let hierarchies = built_here.or(built).expect("built on one thread");
            (hierarchies, groups)
        });
        let ahead = planned.map_or_else(Vec::new, |a| a.finish(meta.columns.len()));
        let (hierarchies, whole_v1) = hierarchies?;
        if let Some(c) = meta
            .columns
            .iter()
            .find(|c| c.hierarchy.is_some_and(|h| h as usize >= hierarchies.len()))
        {
            return Err(corrupt(
                format::section_label(0, &entries[0], None),
                format!(
                    "column {:?} names hierarchy {:?}, the file has {}",
                    c.name,
                    c.hierarchy,
                    hierarchies.len()
                ),
            )
            .into());
        }
        let RowGroups {
            groups,
            framed,
            private_section,
            arrow_schema,
            models,
            column_checks,
            signature,
            table_wide,
        } = groups?;
        // The released columns decoded ahead: the walk's check that each
        // codes its group's rows (FORMAT §9, step 6), in column order.
        if let Some((c, e)) = ahead::first_error(&ahead) {
            return Err(
                column_corrupt_in(path, &container.entries, &groups[0], &meta, c, e).into(),
            );
        }
        if !v1 {
            match &table_wide {
                Some(wide) => {
                    let tables = std::iter::once(&wide.columns[..]);
                    trees::check_needed(&meta, &hierarchies, tables)
                }
                None => {
                    let tables = groups.iter().map(|g| &g.class_table[..]);
                    trees::check_needed(&meta, &hierarchies, tables)
                }
            }
            .map_err(in_hierarchy)?;
        }
        let sensitive_trees = sensitive_trees(path, &meta, &hierarchies)
            .map_err(|e| corrupt(format::section_label(1, &container.entries[1], None), e))?;
        let mut archive = Archive {
            path: path.to_owned(),
            bytes,
            container,
            meta,
            hierarchies,
            whole_v1,
            sensitive_trees,
            v1_metrics,
            groups,
            framed,
            private_section,
            arrow_schema,
            models,
            column_checks,
            signature,
            table_wide,
            class_label_columns: std::sync::OnceLock::new(),
            released: std::sync::OnceLock::new(),
            claim_report: None,
            public_digest,
            ahead,
        };
        if check == ClaimCheck::Enforce {
            let report = archive.check_claim()?;
            let over_budget = report.suppressed_rows as u64 > archive.meta.claim.suppression_budget;
            if !report.holds() || over_budget {
                let mut failures = report.failures();
                if over_budget {
                    failures.push(format!(
                        "{} rows suppressed, the claim allows {}",
                        report.suppressed_rows, archive.meta.claim.suppression_budget
                    ));
                }
                return Err(ArchiveError::ClaimBroken {
                    path: archive.path.clone(),
                    failures: failures.join("; "),
                }
                .into());
            }
            archive.claim_report = Some(report);
        }
        Ok(archive)
    }

    /// The file it was opened from, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Data rows of the release (and of the original).
    pub fn rows(&self) -> usize {
        self.meta.rows as usize
    }

    /// The format version (major, minor) the file was written in.
    pub fn version(&self) -> (u16, u16) {
        (self.container.major, self.container.minor)
    }

    /// The released QI columns of the whole table, in claim order (each
    /// row's symbol). Built on first use from the classes: a restore reads
    /// the rows by class instead (`Archive::group_rows`).
    pub fn released(&self) -> &[ReleasedColumn] {
        self.released.get_or_init(|| {
            let columns_of = |g: usize| -> Vec<ReleasedColumn> {
                self.group_rows(g)
                    .iter()
                    .map(ReleasedRows::to_column)
                    .collect()
            };
            match self.groups.len() {
                1 => columns_of(0),
                groups => {
                    let parts: Vec<Vec<ReleasedColumn>> = (0..groups).map(columns_of).collect();
                    (0..self.meta.qis.len())
                        .map(|q| ReleasedColumn::concat(parts.iter().map(|p| &p[q])))
                        .collect()
                }
            }
        })
    }

    /// Row group `g`'s released QI rows as the decoders read them (symbols
    /// as its blobs number them, or as the file's class table does), by
    /// class.
    fn group_rows(&self, g: usize) -> Vec<ReleasedRows<'_>> {
        let group = &self.groups[g];
        let table = match &self.table_wide {
            Some(wide) => &wide.columns,
            None => &group.class_table,
        };
        table
            .iter()
            .map(|table| ReleasedRows {
                symbols: &table.symbols,
                // Unset only for a group of one class.
                rows: group.class_rows.get_or_init(|| vec![0; group.rows]),
                class_symbols: Some(&table.rows),
            })
            .collect()
    }

    /// Row group `g`'s own classes when the file has a class table (the
    /// classes its rows meet and their symbols, numbered down its rows:
    /// what its private part was coded against, `spec/CODING.md` 4.4);
    /// `None` for a group with its own `QI_CLASSES`.
    fn own_classes(&self, g: usize) -> Option<codec::OwnClasses> {
        let wide = self.table_wide.as_ref()?;
        if wide.sizes.len() == 1 {
            // One class, every row's (made now: its rows take no bits).
            return Some(codec::OwnClasses {
                symbols: (wide.columns.iter())
                    .map(|c| (0..c.symbols.len() as u32).collect())
                    .collect(),
                table: wide.columns.iter().map(|c| c.rows.clone()).collect(),
                rows: vec![0; self.groups[g].rows],
            });
        }
        let rows = self.groups[g]
            .class_rows
            .get()
            .expect("rows decoded on open");
        Some(codec::OwnClasses::of_group(&wide.columns, rows))
    }

    /// The symbols of `own` (a group's own classes), copied from the class
    /// table: for a restore without a [`SymbolPool`].
    fn own_symbols(&self, own: &codec::OwnClasses) -> Vec<Vec<ReleasedSymbol>> {
        let Some(wide) = &self.table_wide else {
            return Vec::new();
        };
        (own.symbols.iter().zip(&wide.columns))
            .map(|(numbers, c)| {
                (numbers.iter())
                    .map(|&s| c.symbols[s as usize].clone())
                    .collect()
            })
            .collect()
    }

    /// The class table's symbols, per QI, for a restore to lend to each
    /// group in turn ([`SymbolPool`]); `None` without a class table.
    fn symbol_pool(&self) -> Option<SymbolPool> {
        let wide = self.table_wide.as_ref()?;
        Some(SymbolPool(
            wide.columns.iter().map(|c| c.symbols.clone()).collect(),
        ))
    }

    fn column_blob(&self, group: usize, column: usize) -> &[u8] {
        let i = self.groups[group].column_section[column].expect("released column has a section");
        row_count::blob(
            &self.bytes[self.container.entries[i].range()],
            self.container.major,
        )
    }

    fn column_corrupt(&self, group: usize, column: usize, detail: String) -> ArchiveError {
        column_corrupt_in(
            &self.path,
            &self.container.entries,
            &self.groups[group],
            &self.meta,
            column,
            detail,
        )
    }

    fn hierarchy_of(&self, column: usize) -> Option<&Pruned> {
        self.meta.columns[column]
            .hierarchy
            .map(|h| &self.hierarchies[h as usize])
    }

    /// Released QI `q` (claim order) as a column of labels.
    pub fn qi_labels(&self, q: usize) -> Result<Column> {
        self.labels_of(q, &self.released()[q])
    }

    /// The labels of QI `q` over the equivalence classes of every row group
    /// (one entry per class, in the order of [`Archive::class_sizes`]).
    fn class_labels(&self, q: usize) -> Result<Column> {
        if let Some(wide) = &self.table_wide {
            return self.labels_of(q, &wide.columns[q]);
        }
        match &self.groups[..] {
            [one] => self.labels_of(q, &one.class_table[q]),
            groups => self.labels_of(
                q,
                &ReleasedColumn::concat(groups.iter().map(|g| &g.class_table[q])),
            ),
        }
    }

    /// The rows of each class of [`Archive::class_labels`]: the file's
    /// classes, or each row group's in turn.
    fn class_sizes(&self) -> Vec<u32> {
        match &self.table_wide {
            Some(wide) => wide.sizes.clone(),
            None => (self.groups.iter())
                .flat_map(|g| g.class_sizes.iter().copied())
                .collect(),
        }
    }

    /// `released`, QI `q`'s symbols, as a column of labels.
    fn labels_of(&self, q: usize, released: &ReleasedColumn) -> Result<Column> {
        let c = self.meta.qis[q] as usize;
        released
            .to_column(&self.meta.columns[c].name, self.hierarchy_of(c))
            .map_err(|e| self.column_corrupt(0, c, e.to_string()).into())
    }

    /// A sensitive or insensitive column's texts, over every row group.
    pub fn plain_column(&self, column: usize) -> Result<Column> {
        let mut parts =
            (0..self.groups.len()).map(|g| self.group_plain_column(g, column, Purpose::Values));
        let first = parts.next().expect("at least one row group")?;
        parts.try_fold(first, |mut all, part| {
            all.append(&part?);
            Ok(all)
        })
    }

    /// Row group `g`'s part of a sensitive or insensitive column, decoded
    /// for `purpose`; to be rendered, as it was decoded while the file was
    /// checked when kept for this ([`Archive::from_bytes_to_export`]).
    fn group_plain_column(&self, g: usize, column: usize, purpose: Purpose) -> Result<Column> {
        if purpose == Purpose::Rendering
            && let Some(decoded) = self.decoded_ahead(g, column)
        {
            return Ok(decoded);
        }
        codec::decode_plain_for(
            self.column_blob(g, column),
            &self.meta.columns[column].name,
            self.groups[g].rows,
            purpose,
        )
        .map_err(|e| self.column_corrupt(g, column, e.to_string()).into())
    }
}

/// The symbols of a file's class table, owned by one restore: each group
/// takes the symbols its own classes use, numbered as its private part
/// numbers them, and gives them back, so that no group copies them (at
/// 10M rows in ten groups a copy of each group's interval symbols was a
/// fifth of the restore).
struct SymbolPool(Vec<Vec<ReleasedSymbol>>);

impl SymbolPool {
    /// The symbols of `own`, per QI in its numbering, moved out of the pool.
    fn take(&mut self, own: &codec::OwnClasses) -> Vec<Vec<ReleasedSymbol>> {
        (self.0.iter_mut().zip(&own.symbols))
            .map(|(pool, numbers)| {
                (numbers.iter())
                    .map(|&s| std::mem::replace(&mut pool[s as usize], ReleasedSymbol::Suppressed))
                    .collect()
            })
            .collect()
    }

    /// Puts back what [`SymbolPool::take`] took for `own`.
    fn give_back(&mut self, own: &codec::OwnClasses, taken: Vec<Vec<ReleasedSymbol>>) {
        for ((pool, numbers), symbols) in self.0.iter_mut().zip(&own.symbols).zip(taken) {
            for (&s, symbol) in numbers.iter().zip(symbols) {
                pool[s as usize] = symbol;
            }
        }
    }
}

/// The digest of the public part of the file `bytes` whose section table
/// is `container` (`spec/FORMAT.md` §7.5): every section but the private
/// one and `SIGNATURE` (a file signed after it was packed restores as
/// before).
fn public_digest_of(container: &Container, bytes: &[u8]) -> [u8; 32] {
    let mut d = PublicDigest::new(container.major, container.minor);
    for e in &container.entries {
        if signature::is_signed_public(e) {
            d.section(e.code, e.flags, &bytes[e.range()]);
        }
    }
    d.finish()
}

/// A section's error in the file at `path`.
fn corrupt_in(path: &Path) -> impl Fn(String, String) -> ArchiveError + '_ {
    move |section, detail| ArchiveError::Corrupt {
        path: path.to_owned(),
        section,
        detail,
    }
}

/// An error in released column `column` of row group `group`, labelled
/// with the column's name (its section, or the group's classes section).
fn column_corrupt_in(
    path: &Path,
    entries: &[SectionEntry],
    group: &Group,
    meta: &PublicMeta,
    column: usize,
    detail: String,
) -> ArchiveError {
    let i = group.column_section[column].unwrap_or(group.classes_section);
    corrupt_in(path)(
        format::section_label(i, &entries[i], Some(&meta.columns[column].name)),
        detail,
    )
}

/// The structural rules of `META` (`spec/FORMAT.md` §5).
fn validate_meta(m: &PublicMeta) -> std::result::Result<(), String> {
    let n = m.columns.len();
    if n == 0 {
        return Err("no columns".to_owned());
    }
    let quasi: Vec<u32> = (0..n as u32)
        .filter(|&i| m.columns[i as usize].role == Role::Quasi)
        .collect();
    let mut listed = m.qis.clone();
    listed.sort_unstable();
    if listed != quasi {
        return Err(format!(
            "the QI list {:?} does not match the quasi columns {:?}",
            m.qis, quasi
        ));
    }
    if let Some(c) = m
        .columns
        .iter()
        .find(|c| c.hierarchy.is_some() && !matches!(c.role, Role::Quasi | Role::Sensitive))
    {
        return Err(format!(
            "column {:?} has a hierarchy but is neither a QI nor sensitive",
            c.name
        ));
    }
    if let Some(c) = (m.columns.iter()).find(|c| c.pseudonym && c.role != Role::Identifier) {
        return Err(format!(
            "column {:?} is flagged as pseudonyms but is not an identifier",
            c.name
        ));
    }
    if m.claim.constraints.is_empty() {
        return Err("the claim has no constraint".to_owned());
    }
    for (i, c) in m.claim.constraints.iter().enumerate() {
        if c.k == 0 {
            return Err(format!("constraint {}: k = 0", i + 1));
        }
        if c.qis.is_empty()
            || c.qis.windows(2).any(|w| w[0] >= w[1])
            || c.qis.iter().any(|&q| q as usize >= m.qis.len())
        {
            return Err(format!(
                "constraint {}: QI positions {:?} are empty, unsorted or out of range ({} QIs)",
                i + 1,
                c.qis,
                m.qis.len()
            ));
        }
    }
    if let Some((col, l)) = m.claim.l_diversity {
        let ok = (col as usize) < n
            && matches!(
                m.columns[col as usize].role,
                Role::Sensitive | Role::Insensitive
            );
        if !ok || l == 0 {
            return Err(format!(
                "l-diversity names column {col} with l = {l}: expected a released non-QI column and l >= 1"
            ));
        }
    }
    Ok(())
}

/// [`Archive::sensitive_trees`]: each sensitive column's public record as
/// a tree, or why it is not one.
fn sensitive_trees(
    path: &Path,
    meta: &PublicMeta,
    hierarchies: &[Pruned],
) -> std::result::Result<Vec<Option<Hierarchy>>, String> {
    (meta.columns.iter())
        .map(|c| match (c.role, c.hierarchy) {
            (Role::Sensitive, Some(h)) => {
                let (levels, parents) = hierarchies[h as usize].to_tree();
                Hierarchy::from_tree(path, levels, &parents)
                    .map(Some)
                    .map_err(|e| format!("the hierarchy of sensitive column {:?}: {e}", c.name))
            }
            _ => Ok(None),
        })
        .collect()
}
