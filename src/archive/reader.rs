//! Opening an archive: integrity, then the privacy claim, every time
//! (`spec/FORMAT.md` §9); then export, restore, publish and inspection.

// Long: every way of reading an archive (FORMAT.md §9: integrity, claim, then
// export, restore, publish, inspect) on the one Archive type it opens.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::ArchiveError;
use super::ahead::{self, Ahead};
use super::checks::{ColumnChecksMeta, NamedChecks};
use super::digest::{self, PublicDigest, crc32_hex, hex};
use super::format::{self, Container, SectionEntry, SectionKind};
use super::handoff::{self, Handoff};
use super::hierarchies::{self as trees, Whole};
use super::jobs::Jobs;
use super::layout::{Layout, RenderedColumn, Texts};
use super::meta::{
    self, HierarchyRecord, PrivatePart, PrivateParts, PrivateTrailer, PublicMeta, SealedMeta,
    SealedMetrics,
};
use super::models::ModelsClaim;
use super::seal::{self, Key};
use super::signature::{self, Embedded, Signer, Verified};
use crate::Result;
use crate::arrow::{ArrowLayout, ColumnExtras};
use crate::classes::Partition;
use crate::codec::{self, Purpose, QiSchema, ReleasedColumn, ReleasedRows};
use crate::config::{Role, SuppressionPolicy};
use crate::hierarchy::{Hierarchy, Pruned};
use crate::io::Input;
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
        Archive::from_input(path, bytes, check)
    }

    /// Checks bytes already in memory; `path` names the file in messages.
    pub fn from_bytes(path: &Path, bytes: Vec<u8>, check: ClaimCheck) -> Result<Archive> {
        Archive::from_input(path, Input::from(bytes), check)
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
        let Some((sealed, key)) = sealed else {
            let archive = Archive::checked(path, bytes, container, check)?;
            let plain = archive.private_plaintext(key);
            return Ok((archive, plain));
        };
        let mut plain = None;
        let archive = Archive::checked_beside(
            path,
            bytes,
            container,
            check,
            Some(|| seal::unseal(path, &sealed, key)),
            &mut plain,
        )?;
        let plain = plain.expect("unsealed once the row groups were walked");
        Ok((archive, plain.map_err(Into::into)))
    }

    fn from_input(path: &Path, bytes: Input, check: ClaimCheck) -> Result<Archive> {
        let container = format::parse(path, &bytes)?;
        Archive::checked(path, bytes, container, check)
    }

    /// Checks a file whose header and section table `container` holds.
    fn checked(
        path: &Path,
        bytes: Input,
        container: Container,
        check: ClaimCheck,
    ) -> Result<Archive> {
        Archive::checked_beside(path, bytes, container, check, None::<fn()>, &mut None)
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
        // Beside unsealing (to restore), the columns to render.
        let planned = match beside {
            Some(_) => Ahead::plan(&container, &bytes, &meta),
            None => None,
        };
        let (hierarchies, groups) = std::thread::scope(|scope| {
            let walk = || RowGroups::walk(path, &bytes, &container, &kinds, &meta);
            match beside {
                Some(beside) => {
                    let side = scope.spawn(|| {
                        let result = beside();
                        public_digest.get_or_init(|| public_digest_of(&container, &bytes));
                        if let Some(ahead) = &planned {
                            ahead.work();
                        }
                        result
                    });
                    let hierarchies = build();
                    let groups = walk();
                    if let (Some(ahead), Ok(_)) = (&planned, &groups) {
                        ahead.work();
                    }
                    *beside_result = Some(side.join().expect("unsealing does not panic"));
                    (hierarchies, groups)
                }
                None => {
                    let side = scope.spawn(build);
                    let groups = walk();
                    let hierarchies = side.join().expect("building hierarchies does not panic");
                    (hierarchies, groups)
                }
            }
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
        } = groups?;
        if !v1 {
            let tables = groups.iter().map(|g| &g.class_table[..]);
            trees::check_needed(&meta, &hierarchies, tables).map_err(in_hierarchy)?;
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
    /// as its blobs number them), by class.
    fn group_rows(&self, g: usize) -> Vec<ReleasedRows<'_>> {
        let group = &self.groups[g];
        group
            .class_table
            .iter()
            .map(|table| ReleasedRows {
                symbols: &table.symbols,
                // Unset only for a group of one class.
                rows: group.class_rows.get_or_init(|| vec![0; group.rows]),
                class_symbols: Some(&table.rows),
            })
            .collect()
    }

    fn column_blob(&self, group: usize, column: usize) -> &[u8] {
        let i = self.groups[group].column_section[column].expect("released column has a section");
        &self.bytes[self.container.entries[i].range()]
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
    /// (one entry per class, in the order of `Group::class_sizes`).
    fn class_labels(&self, q: usize) -> Result<Column> {
        match &self.groups[..] {
            [one] => self.labels_of(q, &one.class_table[q]),
            groups => self.labels_of(
                q,
                &ReleasedColumn::concat(groups.iter().map(|g| &g.class_table[q])),
            ),
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
        let mut parts = (0..self.groups.len()).map(|g| self.group_plain_column(g, column));
        let first = parts.next().expect("at least one row group")?;
        parts.try_fold(first, |mut all, part| {
            all.append(&part?);
            Ok(all)
        })
    }

    /// Row group `g`'s part of a sensitive or insensitive column.
    fn group_plain_column(&self, g: usize, column: usize) -> Result<Column> {
        codec::decode_plain(
            self.column_blob(g, column),
            &self.meta.columns[column].name,
            self.groups[g].rows,
        )
        .map_err(|e| self.column_corrupt(g, column, e.to_string()).into())
    }

    /// Recomputes the privacy claim from the released QI columns: on the
    /// equivalence classes the file codes, unless l-diversity or a model
    /// beyond k is claimed, which needs every row's sensitive values.
    pub fn check_claim(&self) -> Result<ClaimReport> {
        let claim = &self.meta.claim;
        let by_class = claim.l_diversity.is_none() && self.models.is_none();
        // The sensitive columns before the QIs' rows (as in
        // `release_columns`): the models', then distinct l's if another.
        let mut wanted: Vec<u32> = self
            .models
            .iter()
            .flat_map(|m| m.sensitive.clone())
            .collect();
        if let Some((col, _)) = claim.l_diversity.filter(|(c, _)| !wanted.contains(c)) {
            wanted.push(col);
        }
        let sensitive: Vec<Column> = wanted
            .iter()
            .map(|&c| self.plain_column(c as usize))
            .collect::<Result<_>>()?;
        let column_of = |c: u32| &sensitive[wanted.iter().position(|&w| w == c).expect("read")];
        let labels: Vec<Column> = (0..self.meta.qis.len())
            .map(|q| {
                if by_class {
                    self.class_labels(q)
                } else {
                    self.qi_labels(q)
                }
            })
            .collect::<Result<_>>()?;
        let refs: Vec<&Column> = labels.iter().collect();
        let constraints: Vec<Constraint> = claim
            .constraints
            .iter()
            .map(|c| Constraint {
                qis: c.qis.iter().map(|&q| q as usize).collect(),
                k: c.k as usize,
            })
            .collect();
        if by_class {
            let sizes: Vec<u32> = self
                .groups
                .iter()
                .flat_map(|g| g.class_sizes.iter().copied())
                .collect();
            return Ok(verify_weighted(&refs, &sizes, &constraints, claim.policy));
        }
        let attribute = |c: u32| self.sensitive(c as usize, column_of(c));
        let l = claim
            .l_diversity
            .map(|(c, l)| Ok::<_, crate::Error>((attribute(c)?, l as usize)))
            .transpose()?;
        let mut report = verify_columns(
            &refs,
            &constraints,
            claim.policy,
            l.as_ref().map(|(s, l)| (s, *l)),
        );
        // Distinct l alone (META's claim without PRIVACY_MODELS) is
        // reported as the models report it, so that it has one key.
        let models = self.models.clone().or_else(|| {
            claim.l_diversity.map(|(c, l)| {
                ModelsClaim::new(
                    &[c as usize],
                    &Models {
                        l: Some(l as usize),
                        ..Models::default()
                    },
                    &[self.declared_distance(c as usize)],
                )
            })
        });
        if let Some(m) = &models {
            let exempt = claim.policy == SuppressionPolicy::Mask && report.suppressed_rows > 0;
            let columns: Vec<Sensitive> = m
                .sensitive
                .iter()
                .map(|&c| attribute(c))
                .collect::<Result<_>>()?;
            report.models = Some(models::measure_columns(
                &refs,
                exempt,
                &columns,
                &m.models(),
            ));
        }
        Ok(report)
    }

    /// t-closeness's distance on column `column`, as `META` declares it.
    fn declared_distance(&self, column: usize) -> Distance {
        let m = &self.meta.columns[column];
        Distance::declared(m.value_type, m.hierarchy.is_some())
    }

    /// Released sensitive column `column` (its cells `values`) as the
    /// models read it: its declared type and hierarchy, `META`'s missing
    /// tokens.
    pub fn sensitive<'c>(&self, column: usize, values: &'c Column) -> Result<Sensitive<'c>> {
        let m = &self.meta.columns[column];
        let declared = match self.sensitive_trees.get(column).and_then(Option::as_ref) {
            Some(h) => Declared::Hierarchy(h),
            None if m.value_type.is_numeric() => Declared::Numeric(
                m.value_type,
                NumberFormat::for_delimiter(self.meta.dialect.delimiter),
            ),
            None => Declared::Categorical,
        };
        Ok(Sensitive::new(values, &self.meta.missing, declared)?)
    }

    /// The release's re-identification risk (ARX's prosecutor, journalist
    /// and marketer risk; pyCANON's average and maximum RIR) over the
    /// classes of every QI, the exempt suppressed rows left out: the
    /// models' report's when the claim was re-checked with models, else
    /// from the classes the file codes (`None`: no class).
    pub fn risk(&self) -> Result<Option<Risk>> {
        if let Some(m) = self.claim_report.as_ref().and_then(|r| r.models.as_ref()) {
            return Ok(m.risk.clone());
        }
        let labels: Vec<Column> = (0..self.meta.qis.len())
            .map(|q| self.class_labels(q))
            .collect::<Result<_>>()?;
        let refs: Vec<&Column> = labels.iter().collect();
        let weights: Vec<u32> = self
            .groups
            .iter()
            .flat_map(|g| g.class_sizes.iter().copied())
            .collect();
        let claim = &self.meta.claim;
        let every_qi = Constraint {
            qis: (0..refs.len()).collect(),
            k: claim
                .constraints
                .iter()
                .map(|c| c.k as usize)
                .max()
                .unwrap_or(1),
        };
        let report = verify_weighted(&refs, &weights, &[every_qi], claim.policy);
        let sizes = report.constraints[0]
            .histogram
            .iter()
            .flat_map(|&(size, n)| std::iter::repeat_n(size, n as usize))
            .collect();
        Ok(risk::risk(&Partition {
            class_of: Vec::new(),
            sizes,
        }))
    }

    /// Every released column (identifiers left out), in file order.
    pub fn release_columns(&self) -> Result<Vec<Column>> {
        let released = || {
            (0..self.meta.columns.len()).filter(|&i| self.meta.columns[i].role != Role::Identifier)
        };
        let qi = |i: usize| self.meta.qis.iter().position(|&c| c as usize == i);
        // The other columns first: their blobs hold (or count) every row, so
        // a forged row count fails there before a QI of one class is made
        // row by row.
        let mut columns = released()
            .map(|i| match qi(i) {
                Some(_) => Ok(None),
                None => self.plain_column(i).map(Some),
            })
            .collect::<Result<Vec<Option<Column>>>>()?;
        for (slot, i) in columns.iter_mut().zip(released()) {
            if let Some(q) = qi(i) {
                *slot = Some(self.qi_labels(q)?);
            }
        }
        Ok(columns.into_iter().flatten().collect())
    }

    /// Writes the release as CSV, byte-equal to `karc anonymize`'s output.
    pub fn export_csv(&self, out: &mut dyn std::io::Write) -> Result<()> {
        let columns = self.release_columns()?;
        let d = self.meta.dialect;
        let ending = if d.crlf {
            LineEnding::CrLf
        } else {
            LineEnding::Lf
        };
        write_columns_csv(&columns, self.rows(), d.delimiter, ending, d.header, out)
            .map_err(|e| crate::Error::io(&self.path, e))
    }

    /// The schema of an Arrow input (Parquet, IPC), from `ARROW_SCHEMA`.
    pub fn arrow_schema(&self) -> Option<&SchemaRef> {
        self.arrow_schema.as_ref()
    }

    /// The release as one Arrow record batch: an Arrow input's columns keep
    /// their types where the released texts still parse (the QIs are
    /// strings); a CSV input's are strings.
    pub fn release_batch(&self) -> Result<RecordBatch> {
        let columns = self.release_columns()?;
        let layout = self.arrow_schema.as_ref().map(|schema| {
            let qis: Vec<&str> = self
                .meta
                .qis
                .iter()
                .map(|&c| self.meta.columns[c as usize].name.as_str())
                .collect();
            ArrowLayout {
                schema: schema.clone(),
                extras: None,
            }
            .release(&qis)
        });
        crate::arrow::to_arrow(&columns, layout.as_ref())
    }

    /// The restored original as one Arrow record batch: an Arrow input's
    /// table exactly (schema, types, nulls, values); a CSV input's columns
    /// as strings. `original` is the restored file (`extras` its private
    /// part's Arrow extras, `sealed` its schema with the input's metadata
    /// when the public one left it out).
    fn original_batch(
        &self,
        original: &[u8],
        extras: Option<Vec<ColumnExtras>>,
        sealed: Option<SchemaRef>,
    ) -> Result<RecordBatch> {
        let d = self.meta.dialect;
        let options = CsvOptions {
            delimiter: Some(d.delimiter),
            header: d.header,
            trim: false,
        };
        let table = crate::table::Table::from_bytes(&self.path, original, &options)?;
        let layout = match (sealed.as_ref().or(self.arrow_schema.as_ref()), extras) {
            (Some(schema), Some(extras)) => Some(ArrowLayout {
                schema: schema.clone(),
                extras: Some(extras),
            }),
            _ => None,
        };
        crate::arrow::to_arrow(&table.columns, layout.as_ref())
    }

    /// The restored original as an Arrow record batch
    /// (`Archive::original_batch`) of a file already open.
    pub fn restore_batch(&self, key: Option<&Key>) -> Result<RecordBatch> {
        let mut parts = self.private_parts(key)?;
        let extras = parts.arrow.take();
        let sealed = self.sealed_schema(&parts)?;
        let original = self.restore_from(parts)?;
        self.original_batch(&original, extras, sealed)
    }

    /// [`Archive::from_bytes_and_restore`] to an Arrow record batch
    /// (`Archive::original_batch`): the original is restored and checked
    /// as for a CSV output first.
    pub fn from_bytes_and_restore_batch(
        path: &Path,
        bytes: Vec<u8>,
        check: ClaimCheck,
        key: Option<&Key>,
    ) -> Result<(Archive, RecordBatch)> {
        let (archive, plain) = Archive::unsealing(path, Input::from(bytes), check, key)?;
        let mut parts = archive.private_parts_of(plain?)?;
        let extras = parts.arrow.take();
        let sealed = archive.sealed_schema(&parts)?;
        let original = archive.restore_from(parts)?;
        let batch = archive.original_batch(&original, extras, sealed)?;
        Ok((archive, batch))
    }

    /// An Arrow input's schema with its custom metadata, from the private
    /// part (`None`: the public one is the whole schema).
    fn sealed_schema(&self, parts: &PrivateParts) -> Result<Option<SchemaRef>> {
        let Some(bytes) = parts.sealed.as_ref().map(|s| &s.arrow_schema) else {
            return Ok(None);
        };
        if bytes.is_empty() {
            return Ok(None);
        }
        let schema = ArrowLayout::schema_from_bytes(bytes).map_err(|e| {
            corrupt_in(&self.path)(
                format!("{} (Arrow schema)", self.private_label()),
                e.to_string(),
            )
        })?;
        Ok(Some(SchemaRef::new(schema)))
    }

    /// Whether the file has a private part, and whether it is sealed.
    pub fn private_kind(&self) -> Option<SectionKind> {
        self.private_section
            .and_then(|i| self.container.entries[i].kind())
    }

    fn private_label(&self) -> String {
        let i = self.private_section.unwrap_or(0);
        format::section_label(i, &self.container.entries[i], None)
    }

    /// The private part's plaintext (unsealed with `key` when sealed).
    pub fn private_plaintext(&self, key: Option<&Key>) -> Result<Vec<u8>> {
        let Some(i) = self.private_section else {
            return Err(ArchiveError::NoPrivatePart {
                path: self.path.clone(),
            }
            .into());
        };
        let body = &self.bytes[self.container.entries[i].range()];
        match (self.private_kind(), key) {
            (Some(SectionKind::PrivatePlain), _) => Ok(body.to_vec()),
            (_, Some(key)) => Ok(seal::unseal(&self.path, body, key)?),
            (_, None) => Err(ArchiveError::Key {
                path: self.path.clone(),
                message: "the private part is sealed: give --identity, --passphrase (asked on the terminal), --passphrase-file or --passphrase-env"
                    .to_owned(),
            }
            .into()),
        }
    }

    /// The decoded private part: one [`PrivatePart`] per row group, then
    /// (several groups) the whole file's checksum (`spec/FORMAT.md` §7.4).
    pub fn private_parts(&self, key: Option<&Key>) -> Result<PrivateParts> {
        self.private_parts_of(self.private_plaintext(key)?)
    }

    // Long: reads the private part's parts in their stored order, the public digest checked first
    // before anything is decoded against it
    /// The decoded private part of its plaintext `plain`. The plaintext
    /// ends with the public part's digest, which must be this file's
    /// (checked first: a changed public part is refused before anything is
    /// decoded against it).
    fn private_parts_of(&self, mut plain: Vec<u8>) -> Result<PrivateParts> {
        let corrupt = corrupt_in(&self.path);
        let label = self.private_label();
        let Some(at) = plain.len().checked_sub(32) else {
            return Err(corrupt(
                label,
                format!(
                    "{} bytes, shorter than the public part's digest (32)",
                    plain.len()
                ),
            )
            .into());
        };
        let public_digest: [u8; 32] = plain[at..].try_into().expect("32 bytes");
        plain.truncate(at);
        let found = self.public_digest();
        if public_digest != found {
            return Err(ArchiveError::PublicPartChanged {
                path: self.path.clone(),
                expected: hex(&public_digest),
                found: hex(&found),
            }
            .into());
        }
        // An Arrow input's plaintext ends with its `ArrowExtras` (§7.6),
        // after the part (one row group) or the trailer (several).
        let arrow = self.arrow_schema.is_some();
        let part = |bytes: &[u8]| meta::from_bytes::<PrivatePart>(bytes);
        let extras = |rest: &[u8], what: &str| -> Result<Option<Vec<ColumnExtras>>> {
            if !arrow {
                return Ok(None);
            }
            let extras = meta::arrow_extras_from_bytes(rest)
                .map_err(|e| corrupt(format!("{label} (Arrow extras)"), e))?;
            if extras.len() != self.meta.columns.len() {
                return Err(corrupt(
                    format!("{label} (Arrow extras)"),
                    format!(
                        "{} columns after the {what}, META has {}",
                        extras.len(),
                        self.meta.columns.len()
                    ),
                )
                .into());
            }
            Ok(Some(extras))
        };
        let check_layout = |part: &PrivatePart, g: usize| {
            // Every row of the original but the last ends with at least a
            // byte: checked before the rows are decoded.
            let rows = self.groups[g].rows as u64;
            if rows > part.original_len.saturating_add(1) {
                return Err(corrupt(
                    format!("{label} (row group {g})"),
                    format!("{rows} rows in an original of {} bytes", part.original_len),
                ));
            }
            part.layout
                .validate(self.meta.columns.len(), self.groups[g].rows)
                .map_err(|e| corrupt(format!("{label} (layout of row group {g})"), e))
        };
        // A 2.0 file's part or trailer is followed by its `SealedMeta`
        // (§7.1), then the Arrow extras, if any, and nothing else.
        let v1 = self.container.major == super::compat::MAJOR;
        let tail = |rest: &[u8], what: &str| -> Result<(Option<SealedMeta>, _)> {
            let (sealed, rest) = match v1 {
                true => (None, rest),
                false => meta::split_from_bytes::<SealedMeta>(rest)
                    .map(|(s, r)| (Some(s), r))
                    .map_err(|e| corrupt(format!("{label} (sealed metadata)"), e))?,
            };
            if !arrow && !rest.is_empty() {
                let detail = format!("{} bytes left after the structure", rest.len());
                return Err(corrupt(format!("{label} ({what})"), detail).into());
            }
            Ok((sealed, extras(rest, what)?))
        };
        if !self.framed {
            let (part, rest) = meta::split_from_bytes::<PrivatePart>(&plain)
                .map_err(|e| corrupt(label.clone(), e))?;
            check_layout(&part, 0)?;
            let (sealed, arrow) = tail(rest, "private part")?;
            return Ok(PrivateParts {
                digest: part.digest,
                original_len: part.original_len,
                groups: vec![part],
                public_digest,
                arrow,
                sealed,
            });
        }
        let mut rest = &plain[..];
        let mut groups = Vec::with_capacity(self.groups.len());
        for g in 0..self.groups.len() {
            let frame = meta::take_frame(&mut rest)
                .map_err(|e| corrupt(format!("{label} (row group {g})"), e))?;
            let part = part(frame).map_err(|e| corrupt(format!("{label} (row group {g})"), e))?;
            check_layout(&part, g)?;
            groups.push(part);
        }
        let (trailer, rest) = meta::split_from_bytes::<PrivateTrailer>(rest)
            .map_err(|e| corrupt(format!("{label} (trailer)"), e))?;
        let (sealed, arrow) = tail(rest, "trailer")?;
        Ok(PrivateParts {
            digest: trailer.digest,
            original_len: trailer.original_len,
            groups,
            public_digest,
            arrow,
            sealed,
        })
    }

    /// The digest of this file's public part (`spec/FORMAT.md` §7.5): every
    /// section but the private one, as the file holds it.
    pub fn public_digest(&self) -> [u8; 32] {
        *self
            .public_digest
            .get_or_init(|| public_digest_of(&self.container, &self.bytes))
    }

    /// The bytes to reserve for an original of `original_len` bytes, as
    /// the (unchecked, perhaps forged) private part says: at most 1,024
    /// times this file's bytes (16 MiB at least). A restore past it grows
    /// its buffer as it goes.
    fn reservation(&self, original_len: u64) -> usize {
        let cap = (self.bytes.len() as u64).saturating_mul(1024).max(16 << 20);
        original_len.min(cap) as usize
    }

    /// Restores the original file's bytes, checked against its digest
    /// (and, in a file of several row groups, each group's).
    pub fn restore(&self, key: Option<&Key>) -> Result<Vec<u8>> {
        self.restore_from(self.private_parts(key)?)
    }

    /// [`Archive::restore`] of the decoded private part.
    fn restore_from(&self, parts: PrivateParts) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(self.reservation(parts.original_len));
        self.restore_parts(&parts, &mut |bytes| {
            out.extend_from_slice(bytes);
            Ok(())
        })?;
        Ok(out)
    }

    /// Restores the original as [`Archive::restore`] does, but hands its
    /// bytes to `sink` as they are rendered (a small row group whole, a
    /// large one in pieces of about a MiB), so that the output is never
    /// whole in memory. A row group rendered whole is checked before
    /// `sink` sees it, one rendered in pieces after its last piece, the
    /// whole file at the end: on an error, what `sink` received must be
    /// thrown away (write it to a temporary file, as `karc restore` does).
    /// Returns the length.
    pub fn restore_into(
        &self,
        key: Option<&Key>,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<u64> {
        self.restore_parts(&self.private_parts(key)?, sink)
    }

    /// The row groups of the decoded private part, in order, through `sink`;
    /// returns the length. A file of one row group (not framed) is checked
    /// by its group's digest alone, which is the file's.
    fn restore_parts(
        &self,
        parts: &PrivateParts,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<u64> {
        let whole = self.whole_hierarchies(parts)?;
        if !self.framed {
            return self.restore_group(0, &parts.groups[0], &whole, sink);
        }
        self.restore_groups(parts, &whole, sink)
    }

    /// The whole hierarchies the originals are coded against: a 2.0 file's
    /// from its private part (which must hold the trees its public ones
    /// were pruned from), a 1.0 file's its public ones.
    fn whole_hierarchies(&self, parts: &PrivateParts) -> Result<Whole<'_>> {
        let Some(sealed) = &parts.sealed else {
            return Ok(Whole::same(&self.whole_v1));
        };
        Whole::sealed(&sealed.hierarchies, &self.hierarchies, &self.path).map_err(|e| {
            corrupt_in(&self.path)(format!("{} (hierarchies)", self.private_label()), e).into()
        })
    }

    /// The row groups of a framed private part, in order, through `sink`;
    /// then the whole file's CRC-32 and length checked.
    fn restore_groups(
        &self,
        parts: &PrivateParts,
        whole: &Whole<'_>,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<u64> {
        let mut hasher = crc32fast::Hasher::new();
        let mut len = 0u64;
        for (g, part) in parts.groups.iter().enumerate() {
            self.restore_group(g, part, whole, &mut |bytes| {
                hasher.update(bytes);
                len += bytes.len() as u64;
                sink(bytes)
            })?;
        }
        self.check_restored(len, hasher.finalize(), parts.digest, parts.original_len)?;
        Ok(len)
    }

    fn check_restored(&self, found_len: u64, crc: u32, expected: u32, len: u64) -> Result<()> {
        if crc != expected || found_len != len {
            return Err(ArchiveError::RestoreChecksum {
                path: self.path.clone(),
                expected: crc32_hex(expected),
                found: crc32_hex(crc),
                expected_len: len,
                found_len,
            }
            .into());
        }
        Ok(())
    }

    /// Restores row group `g`'s bytes of the original from its private
    /// part through `sink` (in pieces when rendered on two threads), checked
    /// against the group's digest; returns their length.
    fn restore_group(
        &self,
        g: usize,
        part: &PrivatePart,
        whole: &Whole<'_>,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<u64> {
        if self.groups[g].class_sizes.len() == 1 {
            // One class, whose rows take no bits: the columns of the
            // private part confirm their number before they are made.
            self.other_columns(g, part)?;
        }
        let schemas: Vec<QiSchema<'_>> = self
            .meta
            .qis
            .iter()
            .map(|&c| {
                let c = c as usize;
                QiSchema {
                    name: &self.meta.columns[c].name,
                    value_type: self.meta.columns[c].value_type,
                    hierarchy: (self.meta.columns[c].hierarchy)
                        .map(|h| &whole.hierarchies[h as usize]),
                }
            })
            .collect();
        // The released nodes as the whole hierarchies number them.
        let symbols: Vec<_> = (self.meta.qis.iter())
            .zip(&self.groups[g].class_table)
            .map(|(&c, table)| {
                let h = self.meta.columns[c as usize].hierarchy.map(|h| h as usize);
                whole.symbols(h, &table.symbols)
            })
            .collect();
        let mut released = self.group_rows(g);
        for (rows, symbols) in released.iter_mut().zip(&symbols) {
            rows.symbols = symbols;
        }
        let decoding = codec::OriginalsDecoding::new(&part.originals, &schemas, &released)
            .map_err(|e| self.originals_corrupt(g, e))?;
        let expected_len = self.reservation(part.original_len);
        if decoding.threads() > 1 && Layout::renders_on_two_threads(expected_len) {
            let (len, crc) = self.restore_on_two_threads(g, part, &decoding, expected_len, sink)?;
            self.check_restored(len, crc, part.digest, part.original_len)?;
            return Ok(len);
        }
        decoding.work();
        let originals = decoding
            .columns()
            .map_err(|e| self.originals_corrupt(g, e))?;
        let others = self.other_columns(g, part)?;
        let texts = self.restore_texts(g, &others, &originals)?;
        let (out, crc) = part.layout.render_hashed(&texts, expected_len);
        self.check_restored(out.len() as u64, crc, part.digest, part.original_len)?;
        sink(&out)?;
        Ok(out.len() as u64)
    }

    // Long: one scope holds the second thread's whole life (decoding, then
    // rendering pieces), so that no thread is started between the two
    /// [`Archive::restore_group`] with one second thread. Both threads
    /// decode the QIs' sections, then take the columns as jobs: decode
    /// one (a QI's is taken decoded) and render its values. Then both
    /// render the records in pieces, which this one hands to `sink` in
    /// order ([`Handoff`]; no thread is started between decoding and
    /// rendering: on a machine where the second core had gone idle, the
    /// start took up to 65 us). Returns the length and CRC-32 handed on.
    fn restore_on_two_threads(
        &self,
        g: usize,
        part: &PrivatePart,
        decoding: &codec::OriginalsDecoding<'_>,
        expected_len: usize,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<(u64, u32)> {
        // The columns that are not QIs first, then the QIs (whose jobs
        // wait for every section); an error in listing the columns comes
        // after the QIs' errors.
        let (others, others_error) = match self.other_jobs(g, part) {
            Ok(jobs) => (jobs, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        // The longest blobs first, so that no long one starts last.
        let mut order: Vec<usize> = (0..others.len()).collect();
        order.sort_by_key(|&j| std::cmp::Reverse(others[j].1.len()));
        let columns = self.meta.columns.len();
        let jobs = &Jobs::new(others.len() + self.meta.qis.len());
        let column_job = &|j: usize| -> Result<(Column, RenderedColumn)> {
            let (c, column) = match order.get(j).map(|&j| others[j]) {
                Some((c, bytes)) => (c, self.decode_other(g, c, bytes)?),
                None => {
                    let q = j - others.len();
                    let column = decoding
                        .column(q)
                        .map_err(|e| self.originals_corrupt(g, e))?;
                    (self.meta.qis[q] as usize, column)
                }
            };
            // Its texts are rendered: the dictionary is not read again.
            Ok(part.layout.render_column_owned(c, columns, column))
        };
        // What the second thread renders from, set by this one.
        let decoded = std::sync::OnceLock::new();
        let texts = std::sync::OnceLock::new();
        let handoff = std::sync::OnceLock::new();
        let (pieces_to, pieces) = handoff::channel();
        std::thread::scope(|scope| {
            let (go, ready) = std::sync::mpsc::sync_channel(1);
            let (done, helper_done) = std::sync::mpsc::sync_channel(1);
            let helper = scope.spawn(move || {
                decoding.work();
                jobs.work(column_job);
                // Both `work`s catch their panics: this always gets sent.
                let _ = done.send(());
                // Told to render, or (an error here) not.
                if let Ok(handoff) = ready.recv() {
                    Handoff::<'_, RestoreTexts<'_>>::help(handoff, pieces_to);
                }
            });
            decoding.work();
            jobs.work(column_job);
            let prepared = (|| -> Result<&Handoff<'_, RestoreTexts<'_>>> {
                helper_done
                    .recv()
                    .expect("the helper reports its jobs done");
                let mut results = jobs.results();
                let qis = results.split_off(others.len());
                let originals = qis.into_iter().collect::<Result<Vec<_>>>()?;
                if let Some(e) = others_error {
                    return Err(e);
                }
                // Errors in column order.
                let mut in_order: Vec<Option<Result<(Column, RenderedColumn)>>> =
                    (0..others.len()).map(|_| None).collect();
                for (&j, result) in order.iter().zip(results) {
                    in_order[j] = Some(result);
                }
                let mut rendered: Vec<Option<RenderedColumn>> =
                    (0..columns).map(|_| None).collect();
                let mut by_column: Vec<Option<Column>> = (0..columns).map(|_| None).collect();
                for (&(c, _), result) in others.iter().zip(in_order) {
                    let (column, values) = result.expect("every job done")?;
                    by_column[c] = Some(column);
                    rendered[c] = Some(values);
                }
                let mut qi_columns = Vec::with_capacity(originals.len());
                for (&c, (column, values)) in self.meta.qis.iter().zip(originals) {
                    rendered[c as usize] = Some(values);
                    qi_columns.push(column);
                }
                let (others, originals) = decoded.get_or_init(|| (by_column, qi_columns));
                let prepared = self.restore_texts(g, others, originals)?;
                let texts = texts.get_or_init(|| prepared);
                let rendered = rendered
                    .into_iter()
                    .map(|r| r.expect("every column rendered"))
                    .collect();
                let pieces = part.layout.pieces_of(texts, rendered, expected_len);
                Ok(handoff.get_or_init(|| Handoff::new(pieces)))
            })();
            match prepared {
                Err(e) => {
                    drop(go);
                    helper.join().expect("decoding does not panic");
                    Err(e)
                }
                Ok(handoff) => {
                    go.send(handoff).expect("the helper waits for the pieces");
                    let written = handoff.write(&pieces, sink);
                    // A stopped writer lets a helper waiting to send go.
                    drop(pieces);
                    helper.join().expect("rendering does not panic");
                    written
                }
            }
        })
    }

    fn originals_corrupt(&self, g: usize, e: codec::CodecError) -> crate::Error {
        self.group_corrupt(g, format!("quasi-identifier originals: {e}"))
            .into()
    }

    /// An error in row group `g`'s private part.
    fn group_corrupt(&self, g: usize, detail: String) -> ArchiveError {
        ArchiveError::Corrupt {
            path: self.path.clone(),
            section: if self.groups.len() == 1 {
                self.private_label()
            } else {
                format!("{} (row group {g})", self.private_label())
            },
            detail,
        }
    }

    /// Row group `g`'s columns that are not QIs, as jobs for
    /// [`Archive::decode_other`]: each one's column and bytes (identifiers
    /// from the private part, the others from the release).
    fn other_jobs<'p>(&'p self, g: usize, part: &'p PrivatePart) -> Result<Vec<(usize, &'p [u8])>> {
        let corrupt = |detail: String| self.group_corrupt(g, detail);
        let mut identifiers = part.identifiers.iter();
        let mut jobs = Vec::with_capacity(self.meta.columns.len());
        for (i, c) in self.meta.columns.iter().enumerate() {
            match c.role {
                Role::Quasi => {}
                Role::Identifier => {
                    let id = identifiers
                        .next()
                        .filter(|id| id.column as usize == i)
                        .ok_or_else(|| {
                            corrupt(format!("identifier column {:?} is missing", c.name))
                        })?;
                    jobs.push((i, &id.bytes[..]));
                }
                _ => jobs.push((i, self.column_blob(g, i))),
            }
        }
        if identifiers.next().is_some() {
            return Err(
                corrupt("more identifier columns than the metadata lists".to_owned()).into(),
            );
        }
        Ok(jobs)
    }

    /// Column `column` of row group `g`, not a QI, decoded from `bytes` to
    /// be rendered (or taken as it was decoded while the file was checked).
    fn decode_other(&self, g: usize, column: usize, bytes: &[u8]) -> Result<Column> {
        let c = &self.meta.columns[column];
        let ahead = match (g, self.ahead.get(column)) {
            (0, Some(slot)) => slot.lock().unwrap_or_else(|p| p.into_inner()).take(),
            _ => None,
        };
        let decoded = ahead.unwrap_or_else(|| {
            codec::decode_plain_for(bytes, &c.name, self.groups[g].rows, Purpose::Rendering)
        });
        match c.role {
            Role::Identifier => decoded.map_err(|e| {
                self.group_corrupt(g, format!("identifier column {:?}: {e}", c.name))
                    .into()
            }),
            _ => decoded.map_err(|e| self.column_corrupt(g, column, e.to_string()).into()),
        }
    }

    /// Decoded `jobs` ([`Archive::other_jobs`]) by column (`None` for the
    /// QIs); the first error in column order.
    fn by_column(
        &self,
        jobs: &[(usize, &[u8])],
        decoded: Vec<Result<Column>>,
    ) -> Result<Vec<Option<Column>>> {
        let mut columns: Vec<Option<Column>> = (0..self.meta.columns.len()).map(|_| None).collect();
        for (&(c, _), column) in jobs.iter().zip(decoded) {
            columns[c] = Some(column?);
        }
        Ok(columns)
    }

    /// Row group `g`'s columns that are not QIs, by column (`None` for the
    /// QIs), decoded on this thread.
    fn other_columns(&self, g: usize, part: &PrivatePart) -> Result<Vec<Option<Column>>> {
        let jobs = self.other_jobs(g, part)?;
        let decoded = jobs
            .iter()
            .map(|&(c, bytes)| self.decode_other(g, c, bytes))
            .collect();
        self.by_column(&jobs, decoded)
    }

    /// The texts of row group `g`'s restore: `others` by column, the QIs'
    /// from `originals` (claim order); every column must have the group's
    /// rows.
    fn restore_texts<'a>(
        &'a self,
        g: usize,
        others: &'a [Option<Column>],
        originals: &'a [Column],
    ) -> Result<RestoreTexts<'a>> {
        let rows = self.groups[g].rows;
        let columns: Vec<&Column> = others
            .iter()
            .enumerate()
            .map(|(i, c)| match c {
                Some(c) => c,
                None => {
                    let q = self
                        .meta
                        .qis
                        .iter()
                        .position(|&x| x as usize == i)
                        .expect("QI");
                    &originals[q]
                }
            })
            .collect();
        if let Some((c, col)) = columns
            .iter()
            .enumerate()
            .find(|(_, c)| c.codes.len() != rows)
        {
            return Err(self
                .group_corrupt(
                    g,
                    format!(
                        "column {:?} has {} rows, expected {rows}",
                        self.meta.columns[c].name,
                        col.codes.len(),
                    ),
                )
                .into());
        }
        Ok(RestoreTexts {
            names: self.meta.columns.iter().map(|c| c.name.as_str()).collect(),
            columns,
            rows,
        })
    }

    /// The `SIGNATURE` section, parsed but not checked against a key.
    pub fn signature(&self) -> Option<&Embedded> {
        self.signature.as_ref()
    }

    /// The claim as a signature's trusted comment states it.
    pub fn claim_text(&self) -> String {
        signature::claim_text(&self.meta, self.models.as_ref())
    }

    /// Checks that a valid signature by one of the `trusted` keys covers
    /// every byte of the public part, and of the private part when there is
    /// one (`spec/FORMAT.md` §4.1): unsigned, another key or a changed file
    /// is a failed check.
    pub fn verify_signature(&self, trusted: &[PublicKey]) -> Result<Verified> {
        let Some(embedded) = &self.signature else {
            return Err(signature::SignatureError::Unsigned {
                path: self.path.clone(),
            }
            .into());
        };
        signature::verify(
            embedded,
            &self.container,
            &self.bytes,
            &self.claim_text(),
            trusted,
        )
        .map_err(|detail| {
            signature::SignatureError::Failed {
                path: self.path.clone(),
                detail,
            }
            .into()
        })
    }

    /// The file signed by `signer`, any earlier signature replaced.
    pub fn signed(&self, signer: &Signer) -> Result<Vec<u8>> {
        signature::sign_file(
            &self.path,
            &self.bytes,
            &self.container,
            &self.claim_text(),
            signer,
        )
    }

    /// A detached signature (`.minisig` text) over the file's bytes.
    pub fn detached_signature(&self, signer: &Signer) -> Result<String> {
        let claim = self.claim_text();
        Ok(signature::detached(
            &self.bytes,
            self.version(),
            &claim,
            signer,
        )?)
    }

    /// The same file without its private part (sections copied as they are).
    /// A copy keeps the file's version (a 1.0 file's sections are 1.0's).
    pub fn published(&self) -> Vec<u8> {
        let sections: Vec<(u16, u16, &[u8])> = self
            .container
            .entries
            .iter()
            .filter_map(|e| e.kind().map(|k| (k, e)))
            .filter(|(k, _)| !k.is_private())
            .map(|(k, e)| (k.code(), 0, &self.bytes[e.range()]))
            .collect();
        format::assemble_raw(self.container.major, self.container.minor, &sections)
    }

    // Long: gathers every size and field of the inspection in one place, public sections then the
    // private part when it can be read
    /// Sizes and contents, for `karc inspect`. Private per-column sizes
    /// need the plaintext (`key`, or an unencrypted private part).
    pub fn inspect(&self, key: Option<&Key>) -> Result<Inspection> {
        let entries = &self.container.entries;
        let len = |i: usize| entries[i].length;
        let sections = entries
            .iter()
            .enumerate()
            .map(|(i, e)| SectionInfo {
                index: i,
                kind: e.kind().map_or("unknown", SectionKind::name).to_owned(),
                code: e.code,
                offset: e.offset,
                length: e.length,
                crc: format!("{:08x}", e.crc),
                column: self
                    .groups
                    .iter()
                    .find_map(|g| g.column_section.iter().position(|&s| s == Some(i)))
                    .map(|c| self.meta.columns[c].name.clone()),
            })
            .collect();
        let public_bytes: u64 = entries
            .iter()
            .filter(|e| e.kind().is_some_and(|k| !k.is_private()))
            .map(|e| e.length)
            .sum();
        let private_stored = self.private_section.map_or(0, len);
        let sealed = self.private_kind() == Some(SectionKind::PrivateSealed);
        let part = match (self.private_kind(), key) {
            (Some(SectionKind::PrivatePlain), _) | (Some(_), Some(_)) => {
                Some(self.private_parts(key)?)
            }
            _ => None,
        };

        // The whole hierarchies' node counts, when the private part is read.
        let whole_nodes: Option<Vec<usize>> = match (&part, &self.whole_v1[..]) {
            (
                Some(PrivateParts {
                    sealed: Some(s), ..
                }),
                _,
            ) => Some(
                meta::hierarchies_from_bytes(&s.hierarchies)
                    .map(|records| {
                        let count = |r: &HierarchyRecord| r.levels.iter().map(Vec::len).sum();
                        records.iter().map(count).collect()
                    })
                    .unwrap_or_default(),
            ),
            (_, whole) if self.container.major == super::compat::MAJOR => Some(
                whole
                    .iter()
                    .map(|h| (0..=h.height()).map(|l| h.nodes(l)).sum())
                    .collect(),
            ),
            _ => None,
        };
        let sealed_metrics = match &part {
            Some(PrivateParts {
                sealed: Some(s), ..
            }) => Some(s.metrics),
            _ => self.v1_metrics,
        };
        let private_bytes = match (&part, self.private_section) {
            (Some(_), _) if !sealed => Some(private_stored),
            (_, Some(i)) if sealed => age_plaintext_len(&self.bytes[entries[i].range()]),
            _ => None,
        };
        let columns = self
            .meta
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let q = self.meta.qis.iter().position(|&x| x as usize == i);
                let private = part.as_ref().and_then(|p| {
                    p.groups
                        .iter()
                        .map(|p| match c.role {
                            Role::Identifier => p
                                .identifiers
                                .iter()
                                .find(|id| id.column as usize == i)
                                .map(|id| id.bytes.len() as u64),
                            Role::Quasi => q.and_then(|q| {
                                codec::originals_column_bytes(&p.originals)
                                    .ok()?
                                    .get(q)
                                    .copied()
                            }),
                            _ => Some(0),
                        })
                        .sum::<Option<u64>>()
                });
                let public = self
                    .groups
                    .iter()
                    .map(|g| match (&g.classes_bytes, q) {
                        (Some(b), Some(q)) => b.columns.get(q).copied().unwrap_or(0),
                        _ => g.column_section[i].map_or(0, len),
                    })
                    .sum();
                let h = c.hierarchy.map(|h| h as usize);
                let public_nodes = h
                    .and_then(|h| self.hierarchies.get(h))
                    .map(Pruned::node_count);
                let all_nodes = h.and_then(|h| whole_nodes.as_ref()?.get(h).copied());
                ColumnInfo {
                    name: c.name.clone(),
                    role: c.role,
                    public_bytes: public,
                    private_bytes: private,
                    hierarchy_public_nodes: public_nodes.map(|n| n as u64),
                    hierarchy_sealed_nodes: public_nodes
                        .zip(all_nodes)
                        .map(|(p, a)| a.saturating_sub(p) as u64),
                }
            })
            .collect();
        Ok(Inspection {
            file: self.path.display().to_string(),
            version: format!("{}.{}", self.container.major, self.container.minor),
            rows: self.meta.rows,
            file_bytes: self.bytes.len() as u64,
            container_bytes: (format::HEADER_LEN + format::ENTRY_LEN * entries.len()) as u64,
            public_bytes,
            metadata_bytes: len(0),
            hierarchies_bytes: len(1),
            class_rows_bytes: self
                .groups
                .iter()
                .map(|g| g.classes_bytes.as_ref().map(|b| b.rows))
                .sum(),
            row_groups: self.groups.len(),
            private_bytes,
            sealed_bytes: if sealed { Some(private_stored) } else { None },
            private: match self.private_kind() {
                None => "absent (published copy)",
                Some(SectionKind::PrivatePlain) => "unencrypted",
                Some(_) => "sealed (age)",
            }
            .to_owned(),
            layout_verbatim_bytes: part.as_ref().map(|p| {
                p.groups
                    .iter()
                    .map(|g| g.layout.verbatim_bytes() as u64)
                    .sum()
            }),
            difference_mode: part
                .as_ref()
                .and_then(|p| p.groups[0].originals.first())
                .map(|&id| {
                    codec::DiffMode::from_id(id).map_or(format!("id {id}"), |m| m.to_string())
                }),
            original_bytes: part.as_ref().map(|p| p.original_len),
            original_digest: part.as_ref().map(|p| crc32_hex(p.digest)),
            digest: digest::CHECKSUM,
            public_digest: part.as_ref().map(|p| hex(&p.public_digest)),
            columns,
            sections,
            claim: self.claim_report.clone(),
            meta: self.meta.clone(),
            sealed_metrics,
            models: self.models.clone(),
            column_checks: self.column_checks.as_ref().map(|c| c.named(&self.meta)),
            risk: self.risk()?,
            signature: self.signature.as_ref().map(Embedded::status),
        })
    }
}

/// What `karc inspect --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Inspection {
    /// The archive's path.
    pub file: String,
    /// Its format version, `major.minor`.
    pub version: String,
    /// Data rows.
    pub rows: u64,
    /// Size of the file.
    pub file_bytes: u64,
    /// Header and section table.
    pub container_bytes: u64,
    /// The whole public part: metadata, hierarchies, column blobs (code
    /// tables included).
    pub public_bytes: u64,
    /// The `META` section.
    pub metadata_bytes: u64,
    /// The `HIERARCHIES` section.
    pub hierarchies_bytes: u64,
    /// The rows' equivalence classes, shared by the QIs (each QI's symbols
    /// and class-table column count as its public bytes).
    pub class_rows_bytes: Option<u64>,
    /// Row groups (1 unless the file was packed from a stream).
    pub row_groups: usize,
    /// The private part before encryption (`None` for a published copy).
    pub private_bytes: Option<u64>,
    /// The private part after encryption (`None` unless sealed).
    pub sealed_bytes: Option<u64>,
    /// The private part's state: `sealed (age)`, `unencrypted` or `absent (published copy)`.
    pub private: String,
    /// Original bytes kept verbatim by the layout (fields and records that do not re-render).
    pub layout_verbatim_bytes: Option<u64>,
    /// The difference coding of the QI columns.
    pub difference_mode: Option<String>,
    /// Size of the original file.
    pub original_bytes: Option<u64>,
    /// The original's checksum (hex), of the kind `digest` names.
    pub original_digest: Option<String>,
    /// `CRC-32`.
    pub digest: &'static str,
    /// The BLAKE3 hash of the public part that the private part holds
    /// (hex), which matched this file's when it was read.
    pub public_digest: Option<String>,
    /// Each column's share of the file.
    pub columns: Vec<ColumnInfo>,
    /// The section table.
    pub sections: Vec<SectionInfo>,
    /// The privacy claim as checked on open.
    pub claim: Option<ClaimReport>,
    /// The public part's metadata.
    pub meta: PublicMeta,
    /// The metrics measured against the original's domain: a 2.0 file
    /// seals them (`None` without the private part), a 1.0 file shows them.
    pub sealed_metrics: Option<SealedMetrics>,
    /// The models beyond k the file claims (`PRIVACY_MODELS`), if any.
    pub models: Option<ModelsClaim>,
    /// The derived-column check the release passed (`COLUMN_CHECKS`), if any.
    pub column_checks: Option<NamedChecks>,
    /// The release's re-identification risk ([`Archive::risk`]).
    pub risk: Option<Risk>,
    /// The `SIGNATURE` section's key id and trusted comment, not checked
    /// against a key (`None`: unsigned).
    pub signature: Option<signature::Status>,
}

/// One column of [`Inspection`].
#[derive(Debug, Clone, Serialize)]
pub struct ColumnInfo {
    /// The column's name.
    pub name: String,
    /// Its role.
    pub role: Role,
    /// Bytes in the public part (its blob, or its share of the classes).
    pub public_bytes: u64,
    /// Bytes in the private part (needs the key when sealed).
    pub private_bytes: Option<u64>,
    /// A QI with a hierarchy: the nodes its public part holds (those the
    /// release uses and their ancestors).
    pub hierarchy_public_nodes: Option<u64>,
    /// A QI with a hierarchy: the nodes only its private part holds
    /// (`None` when the private part was not read).
    pub hierarchy_sealed_nodes: Option<u64>,
}

/// One section-table entry of [`Inspection`].
#[derive(Debug, Clone, Serialize)]
pub struct SectionInfo {
    /// Position in the table.
    pub index: usize,
    /// What it holds (`unknown` for a skipped newer section).
    pub kind: String,
    /// Its type code.
    pub code: u16,
    /// Byte offset in the file.
    pub offset: u64,
    /// Length in bytes.
    pub length: u64,
    /// CRC-32, hex.
    pub crc: String,
    /// The column a `COLUMN` section holds.
    pub column: Option<String>,
}

/// The most rows a row group may hold (`spec/FORMAT.md` §4): class sizes
/// and row indices are 32-bit. Checked before anything is decoded, so that
/// a forged row count cannot make a reader reserve more than the format
/// allows.
pub const MAX_GROUP_ROWS: u64 = u32::MAX as u64;

/// The row groups of a file, walked from its section table: each group's
/// sections, the sections' checksums, and the released QI columns decoded.
struct RowGroups {
    groups: Vec<Group>,
    framed: bool,
    private_section: Option<usize>,
    arrow_schema: Option<SchemaRef>,
    models: Option<ModelsClaim>,
    column_checks: Option<ColumnChecksMeta>,
    signature: Option<Embedded>,
}

impl RowGroups {
    // Long: walks the sections once in the order FORMAT.md §3 fixes; split by section kind it would
    // hide that order
    /// Walks the sections after the hierarchies (`spec/FORMAT.md` §3):
    /// section table errors first, then checksums, then the QI classes.
    fn walk(
        path: &Path,
        bytes: &[u8],
        container: &Container,
        kinds: &[Option<SectionKind>],
        meta: &PublicMeta,
    ) -> Result<RowGroups> {
        let corrupt = corrupt_in(path);
        let entries = &container.entries;
        // The row groups third when there are several. Each row group: its
        // QI classes, then a column section per released non-QI column; then
        // at most one private section, last; unknown skippable sections
        // anywhere.
        let released_columns: Vec<usize> = (0..meta.columns.len())
            .filter(|&i| !matches!(meta.columns[i].role, Role::Identifier | Role::Quasi))
            .collect();
        let known: Vec<usize> = (2..kinds.len()).filter(|&i| kinds[i].is_some()).collect();
        let mut walk = known.iter().copied().peekable();
        // An Arrow input's schema, third: its columns are META's.
        let arrow_schema = match walk.next_if(|&i| kinds[i] == Some(SectionKind::ArrowSchema)) {
            Some(i) => {
                let body = format::check_section(path, bytes, i, &entries[i], None)?;
                let label = || format::section_label(i, &entries[i], None);
                let schema = ArrowLayout::schema_from_bytes(body)
                    .map_err(|e| corrupt(label(), e.to_string()))?;
                let names = schema.fields().iter().map(|f| f.name());
                if !names.eq(meta.columns.iter().map(|c| &c.name)) {
                    return Err(corrupt(
                        label(),
                        "its fields are not the columns of the metadata".to_owned(),
                    )
                    .into());
                }
                Some(SchemaRef::new(schema))
            }
            None => None,
        };
        // The models beyond k the release claims, after the schema.
        let models = match walk.next_if(|&i| kinds[i] == Some(SectionKind::PrivacyModels)) {
            Some(i) => {
                let body = format::check_section(path, bytes, i, &entries[i], None)?;
                let label = || format::section_label(i, &entries[i], None);
                let claim = match container.major == super::compat::MAJOR {
                    true => super::compat::models_from_bytes(body, meta),
                    false => meta::from_bytes::<ModelsClaim>(body),
                }
                .map_err(|e| corrupt(label(), e))?;
                claim.validate(meta).map_err(|e| corrupt(label(), e))?;
                Some(claim)
            }
            None => None,
        };
        super::models::check_sensitive_hierarchies(meta, models.as_ref())
            .map_err(|e| corrupt(format::section_label(0, &entries[0], None), e))?;
        // The derived-column check, after the models.
        let column_checks = match walk.next_if(|&i| kinds[i] == Some(SectionKind::ColumnChecks)) {
            Some(i) => {
                let body = format::check_section(path, bytes, i, &entries[i], None)?;
                let label = || format::section_label(i, &entries[i], None);
                let checks: ColumnChecksMeta =
                    meta::from_bytes(body).map_err(|e| corrupt(label(), e))?;
                checks.validate(meta).map_err(|e| corrupt(label(), e))?;
                Some(checks)
            }
            None => None,
        };
        let framed = walk
            .peek()
            .is_some_and(|&i| kinds[i] == Some(SectionKind::RowGroups));
        let group_rows: Vec<u64> = match walk.peek() {
            Some(&i) if kinds[i] == Some(SectionKind::RowGroups) => {
                walk.next();
                let body = format::check_section(path, bytes, i, &entries[i], None)?;
                let label = || format::section_label(i, &entries[i], None);
                let rows: Vec<u64> = meta::from_bytes(body).map_err(|e| corrupt(label(), e))?;
                if rows.is_empty()
                    || rows.contains(&0)
                    || rows.iter().try_fold(0u64, |a, &r| a.checked_add(r)) != Some(meta.rows)
                {
                    return Err(corrupt(
                        label(),
                        format!(
                            "row groups {rows:?} do not split the {} rows into non-empty groups",
                            meta.rows
                        ),
                    )
                    .into());
                }
                rows
            }
            _ => vec![meta.rows],
        };
        if let Some((g, &rows)) = group_rows
            .iter()
            .enumerate()
            .find(|&(_, &r)| r > MAX_GROUP_ROWS)
        {
            let (i, what) = match framed {
                true => (
                    known[usize::from(arrow_schema.is_some())
                        + usize::from(models.is_some())
                        + usize::from(column_checks.is_some())],
                    format!("row group {g} holds"),
                ),
                false => (0, "META.rows is".to_owned()),
            };
            return Err(corrupt(
                format::section_label(i, &entries[i], None),
                format!("{what} {rows} rows, above the limit of {MAX_GROUP_ROWS} rows a row group"),
            )
            .into());
        }
        let mut groups = Vec::with_capacity(group_rows.len());
        for (g, &rows) in group_rows.iter().enumerate() {
            let classes_section = match walk.next() {
                Some(i) if kinds[i] == Some(SectionKind::QiClasses) => i,
                found => {
                    return Err(corrupt(
                        "section table".to_owned(),
                        format!(
                            "expected the QI classes section{}, found {}",
                            if group_rows.len() == 1 {
                                " third".to_owned()
                            } else {
                                format!(" of row group {g}")
                            },
                            found.map_or("the end".to_owned(), |i| format::section_label(
                                i,
                                &entries[i],
                                None
                            ))
                        ),
                    )
                    .into());
                }
            };
            let mut column_section = vec![None; meta.columns.len()];
            for (n, &col) in released_columns.iter().enumerate() {
                match walk.next() {
                    Some(i) if kinds[i] == Some(SectionKind::Column) => {
                        column_section[col] = Some(i);
                    }
                    _ => {
                        return Err(corrupt(
                            "section table".to_owned(),
                            format!(
                                "expected {} column sections in row group {g}, found {n}",
                                released_columns.len()
                            ),
                        )
                        .into());
                    }
                }
            }
            groups.push(Group {
                rows: rows as usize,
                classes_section,
                column_section,
                classes_bytes: None,
                class_table: Vec::new(),
                class_sizes: Vec::new(),
                class_rows: std::sync::OnceLock::new(),
            });
        }
        // The signature after the public sections, before the private one.
        let signature_section = walk.next_if(|&i| kinds[i] == Some(SectionKind::Signature));
        let private_section = match walk.next() {
            Some(i) if kinds[i].is_some_and(SectionKind::is_private) => Some(i),
            None => None,
            Some(i) => {
                return Err(corrupt(
                    format::section_label(i, &entries[i], None),
                    format!(
                        "unexpected after the {} row group(s){}",
                        groups.len(),
                        if kinds[i] == Some(SectionKind::Column) {
                            ": more column sections than the released columns"
                        } else {
                            ""
                        }
                    ),
                )
                .into());
            }
        };
        if let Some(i) = walk.next() {
            return Err(corrupt(
                format::section_label(i, &entries[i], None),
                "a section after the private part".to_owned(),
            )
            .into());
        }
        for (i, e) in entries.iter().enumerate().skip(2) {
            let column = groups
                .iter()
                .find_map(|g| g.column_section.iter().position(|&s| s == Some(i)))
                .map(|c| meta.columns[c].name.as_str());
            format::check_section(path, bytes, i, e, column)?;
        }
        let signature = signature_section
            .map(|i| {
                signature::parse_section(i, &bytes[entries[i].range()])
                    .map_err(|e| corrupt(format::section_label(i, &entries[i], None), e))
            })
            .transpose()?;

        for group in &mut groups {
            let i = group.classes_section;
            let (classes, classes_bytes) = codec::decode_classes_lazily(
                &bytes[entries[i].range()],
                meta.qis.len(),
                group.rows,
            )
            .map_err(|e| corrupt(format::section_label(i, &entries[i], None), e.to_string()))?;
            group.class_table = classes.table_columns();
            if classes.rows.is_empty() && group.rows > 0 {
                // One class, whose rows take no bits: the group's first
                // released column, whose blob holds or counts each row,
                // confirms their number (at most MAX_GROUP_ROWS).
                if let Some((c, i)) = group
                    .column_section
                    .iter()
                    .enumerate()
                    .find_map(|(c, s)| Some((c, (*s)?)))
                {
                    codec::decode_plain(
                        &bytes[entries[i].range()],
                        &meta.columns[c].name,
                        group.rows,
                    )
                    .map_err(|e| column_corrupt_in(path, entries, group, meta, c, e.to_string()))?;
                }
                group.class_sizes = vec![group.rows as u32];
            } else {
                group.class_sizes = classes.sizes();
                group.class_rows = classes.rows.into();
            }
            group.classes_bytes = Some(classes_bytes);
        }
        Ok(RowGroups {
            groups,
            framed,
            private_section,
            arrow_schema,
            models,
            column_checks,
            signature,
        })
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

/// The plaintext length of a binary age file, from its framing: the header
/// ends with the `---` MAC line, a 16-byte nonce follows, then chunks of up
/// to 64 KiB each with a 16-byte tag.
fn age_plaintext_len(sealed: &[u8]) -> Option<u64> {
    let mac = sealed.windows(4).position(|w| w == b"\n---")?;
    let header_end = mac + 1 + sealed[mac + 1..].iter().position(|&b| b == b'\n')? + 1;
    let payload = sealed.len().checked_sub(header_end + 16)? as u64;
    const CHUNK: u64 = 64 * 1024 + 16;
    let chunks = payload.div_ceil(CHUNK).max(1);
    payload.checked_sub(16 * chunks)
}

/// The restore's view of the columns: names from the metadata.
struct RestoreTexts<'a> {
    names: Vec<&'a str>,
    columns: Vec<&'a Column>,
    rows: usize,
}

impl Texts for RestoreTexts<'_> {
    fn columns(&self) -> usize {
        self.columns.len()
    }
    fn rows(&self) -> usize {
        self.rows
    }
    fn name(&self, column: usize) -> &str {
        self.names[column]
    }
    fn column(&self, column: usize) -> &Column {
        self.columns[column]
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn age_framing_gives_the_plaintext_length() {
        for len in [0usize, 1, 65_536, 65_537, 200_000] {
            let plain = vec![7u8; len];
            let id = age::x25519::Identity::generate();
            let sealed = seal::seal(&plain, &seal::Seal::Recipients(vec![id.to_public()]))
                .unwrap()
                .unwrap();
            assert_eq!(age_plaintext_len(&sealed), Some(len as u64), "{len}");
        }
    }
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
