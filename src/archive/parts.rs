//! A distributed pack (`karc.spark.pack`): workers code parts, one process
//! merges them into one `.karc` file of several row groups.
//!
//! A **part** is a complete one-group `.karc` file of one fragment of the
//! table ([`encode_part`]): its rows anonymized on their own, its public
//! sections coded, its private part sealed for a one-off X25519 key that
//! the merging process made and holds in memory only, so that a part left
//! on shared storage is as sealed as the final file. [`merge`] takes the
//! parts in order: it copies each part's row-group sections as they are,
//! opens each private part with the one-off key and frames it into the
//! final envelope, sealed for the real recipients (`spec/FORMAT.md` §7.4),
//! and writes `META` for the whole table. Memory holds one part at a time;
//! the file is an ordinary 1.0 file that `verify`, `export` and `restore`
//! read like any other (restore renders the row groups in part order).

use std::path::{Path, PathBuf};

use super::ArchiveError;
use super::checks::ColumnChecksMeta;
use super::digest::PublicDigest;
use super::format::{self, SectionKind};
use super::layout::Layout;
use super::meta::{self, HierarchyRecord, PrivatePart, PublicMeta, SealedMeta, SealedMetrics};
use super::models::ModelsClaim;
use super::pipeline::{GroupWriter, Scratch};
use super::seal::{self, Key, Seal};
use super::writer::{self, Anonymization, PackOptions};
use crate::anonymize::{Algorithm, Outcome};
use crate::codec::DiffMode;
use crate::config::{Config, Role};
use crate::dataset::Dataset;
use crate::hierarchy::{Hierarchy, Pruned};
use crate::io::Output;
use crate::metrics::Metrics;
use crate::privacy::PrivacyModel;
pub use crate::privacy::sensitive::Reference;
use crate::report::Report;
use crate::table::Table;
use crate::{Error, Result};

/// A numeric QI's range over the whole table (not just the fragment), so
/// that a part's NCP is normalized as a single-process run's would be.
#[derive(Debug, Clone)]
pub struct Domain {
    /// The numeric QI.
    pub qi: String,
    /// Its smallest value in the whole table.
    pub min: f64,
    /// Its largest value in the whole table.
    pub max: f64,
}

/// What a fragment is told of the whole table, so that it is anonymized
/// and measured as the whole would be: each numeric QI's range, and each
/// sensitive column's distribution (which t-closeness, δ-disclosure and
/// β-likeness compare a class with).
#[derive(Debug, Clone, Default)]
pub struct Whole {
    /// The numeric QIs' ranges over the whole table.
    pub domains: Vec<Domain>,
    /// The sensitive columns' distributions over the whole table, by name
    /// (none: each measured on the fragment's own rows).
    pub sensitive: Vec<(String, Reference)>,
}

/// Anonymizes one fragment (`table`, read from an Arrow batch with
/// `config`'s Arrow dialect) and codes it as a part: a one-group `.karc`
/// whose original is the fragment's canonical CSV (§7.6), with its header
/// row only when `first`. Its models and metrics are measured against `whole`.
pub fn encode_part(
    config: &Config,
    table: Table,
    first: bool,
    whole: &Whole,
    mode: DiffMode,
    seal: &Seal,
) -> Result<(Vec<u8>, Report)> {
    encode_with(config, table, first, mode, seal, |table| {
        anonymize_fragment(config, table, whole)
    })
}

/// Codes one fragment as a part (as [`encode_part`]) released by `release`
/// instead of anonymized on its own: a global recoding chosen on the whole
/// table (`crate::api::global`), whose `table_rows` the claim's k is
/// checked against. Its metrics are measured against `domains`.
#[allow(clippy::too_many_arguments)]
pub fn encode_released_part(
    config: &Config,
    table: Table,
    first: bool,
    domains: &[Domain],
    mode: DiffMode,
    seal: &Seal,
    table_rows: usize,
    release: impl FnOnce(&Dataset) -> Result<Outcome>,
) -> Result<(Vec<u8>, Report)> {
    encode_with(config, table, first, mode, seal, |table| {
        let mut data = Dataset::bind(config, table)?;
        widen_domains(&mut data, domains);
        let model = PrivacyModel::from_config_rows(config, &data, table_rows)?;
        let outcome = release(&data)?;
        let algorithm = Algorithm::from_name(&config.algorithm.name)?;
        let report = Report::new(
            algorithm,
            config.algorithm.seed,
            &data,
            &model,
            &outcome,
            0.0,
        );
        Ok((data, model, outcome, report))
    })
}

/// The coding shared by both kinds of part: the fragment's canonical CSV
/// (its header row only when `first`) and its release by `anonymize`.
fn encode_with(
    config: &Config,
    mut table: Table,
    first: bool,
    mode: DiffMode,
    seal: &Seal,
    anonymize: impl FnOnce(Table) -> Result<(Dataset, PrivacyModel, Outcome, Report)>,
) -> Result<(Vec<u8>, Report)> {
    table.header = first;
    let mut layout = Layout::canonical(table.columns.len());
    layout.header = first;
    let mut csv = Vec::new();
    layout.render(&table, &mut csv);
    let (data, model, outcome, report) = anonymize(table)?;
    let released = writer::released_columns(&data, &outcome);
    drop(outcome);
    let a = Anonymization {
        classes: None,
        config,
        data: &data,
        model: &model,
        released: &released,
        report: &report,
    };
    let bytes = writer::pack_part(
        &a,
        &csv,
        &PackOptions {
            mode,
            seal,
            groups: Default::default(),
        },
    )?;
    Ok((bytes, report))
}

/// Anonymizes one fragment as the whole table would be: each numeric QI's
/// span (which Mondrian and its kin normalize widths by, and the metrics
/// NCP by) is the whole table's range, from `whole`, not the fragment's,
/// and the models beyond k compare a class with the whole table's
/// sensitive distribution.
pub fn anonymize_fragment(
    config: &Config,
    table: Table,
    whole: &Whole,
) -> Result<(Dataset, PrivacyModel, Outcome, Report)> {
    let mut data = Dataset::bind(config, table)?;
    widen_domains(&mut data, &whole.domains);
    refer_sensitive(&mut data, &whole.sensitive)?;
    let model = PrivacyModel::from_config(config, &data)?;
    let (outcome, report) = Report::anonymize_checked(config, &data, &model)?;
    Ok((data, model, outcome, report))
}

/// Adds the whole table's bounds to each numeric QI's numbers: its
/// `domain()`, which the metrics normalize by, becomes the table's. The
/// added numbers come after every dictionary code: no row has them, so no
/// released cell refers to them (a cell's bounds are its rows' values).
fn widen_domains(data: &mut Dataset, domains: &[Domain]) {
    for qi in data.qis.iter_mut().filter(|q| q.value_type.is_numeric()) {
        if let Some(d) = domains.iter().find(|d| d.qi == qi.name) {
            qi.numbers.push(Some(d.min));
            qi.numbers.push(Some(d.max));
        }
    }
}

/// Gives each sensitive column its whole-table distribution (checked:
/// every value of the fragment's column is in it; a name that is no
/// sensitive column of the config is refused).
fn refer_sensitive(data: &mut Dataset, references: &[(String, Reference)]) -> Result<()> {
    for (name, reference) in references {
        let column = (data.table.column_index(name))
            .filter(|&c| data.roles[c] == Role::Sensitive)
            .ok_or_else(|| {
                Error::Options(format!(
                    "the whole table's distribution of {name:?}: no sensitive column has that name"
                ))
            })?;
        data.sensitive_reference.push((column, reference.clone()));
        // Checks the fragment's values against it now, in one line.
        crate::privacy::sensitive::of_dataset_checked(data, column)?;
    }
    Ok(())
}

/// One part to merge, with what its report said of it (its `META` holds
/// neither count).
#[derive(Debug, Clone)]
pub struct PartFile {
    /// The part archive.
    pub path: PathBuf,
    /// Rows the part's anonymization suppressed.
    pub suppressed: u64,
    /// Its classes, suppressed rows left out.
    pub classes: u64,
}

/// The whole table's figures of a global recoding, counted on its
/// frequency set (`crate::api::global`): a class of a global recoding
/// spans parts, so the parts' own counts do not add up to them.
#[derive(Debug, Clone, Copy)]
pub struct Totals {
    /// Rows the algorithm may suppress on the whole table.
    pub suppression_budget: u64,
    /// Rows that count as suppressed (none when the `*` rows stand as a
    /// class of at least max k).
    pub suppressed: u64,
    /// Equivalence classes, suppressed rows left out.
    pub classes: u64,
    /// Σ |E|² over those classes (the discernibility metric's first term).
    pub squares: f64,
}

/// What a merge wrote.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Merged {
    /// Rows of the merged release.
    pub rows: u64,
    /// Row groups written (one or more per part).
    pub groups: usize,
    /// Rows suppressed over all parts.
    pub suppressed: u64,
    /// Rows the whole table's budget allows to suppress.
    pub suppression_budget: u64,
    /// Equivalence classes over all parts.
    pub classes: u64,
    /// Bytes of the original table.
    pub original_len: u64,
    /// Bytes of the archive written.
    pub file_bytes: u64,
    /// Utility of the merged release.
    pub metrics: Metrics,
}

/// Merges `parts`, in order, into `output`: their private parts opened
/// with `key` (the one-off key they were sealed for) and sealed as `seal`
/// says; `params` is the `META.algorithm.params` of the whole (how it was
/// distributed); `totals` replaces the parts' sums where a class spans parts.
/// Reads one part file at a time ([`Merger`]).
pub fn merge(
    parts: &[PartFile],
    key: Key,
    seal: Seal,
    output: Output,
    params: &str,
    totals: Option<&Totals>,
) -> Result<Merged> {
    let mut merger = Merger::new(key, seal, output, params);
    for part in parts {
        let bytes = std::fs::read(&part.path).map_err(|e| Error::io(&part.path, e))?;
        merger.add(&part.path, &bytes, part.suppressed, part.classes)?;
    }
    merger.finish(totals)
}

/// A merge fed one part at a time, wherever the parts come from (files, or
/// bytes streamed from the workers by Spark): it holds the part being added
/// and the merged file's writer (whose sections spool to scratch files
/// beside the output), never two parts.
pub struct Merger {
    key: Key,
    /// The final seal, until the first part starts the writer.
    seal: Option<Seal>,
    output: Output,
    params: String,
    writer: Option<GroupWriter>,
    head: Option<Head>,
    first: Option<PathBuf>,
    sum: MetricSums,
}

impl Merger {
    /// A merge into `output` of parts sealed for `key`, sealed as `seal`
    /// says, `params` being the whole's `META.algorithm.params`.
    pub fn new(key: Key, seal: Seal, output: Output, params: &str) -> Merger {
        Merger {
            key,
            seal: Some(seal),
            output,
            params: params.to_owned(),
            writer: None,
            head: None,
            first: None,
            sum: MetricSums::default(),
        }
    }

    /// Adds the next part (`bytes`, named `name` in messages), whose report
    /// gave `suppressed` rows and `classes`.
    pub fn add(&mut self, name: &Path, bytes: &[u8], suppressed: u64, classes: u64) -> Result<()> {
        let opened = open_part(name, bytes, &self.key)?;
        match (&self.head, self.seal.take()) {
            (None, Some(seal)) => {
                let (w, h) = start(name, &opened, &seal, &self.output)?;
                self.writer = Some(w);
                self.head = Some(h);
                self.first = Some(name.to_owned());
            }
            (Some((meta0, hierarchies0, models0)), _) => {
                same_table(name, meta0, hierarchies0, models0.as_deref(), &opened)?
            }
            (None, None) => {
                return Err(Error::Options(
                    "merge: a part failed to start it".to_owned(),
                ));
            }
        }
        self.sum
            .add(&opened.meta, &opened.sealed.metrics, suppressed, classes);
        let whole = whole_hierarchies(name, &opened.sealed)?;
        let numbered = whole_numbered(name, &opened, &whole)?;
        let mut sections = opened.sections.clone();
        sections[0].1 = &numbered;
        let w = self.writer.as_mut().expect("made with the first part");
        w.append_coded(
            &sections,
            opened.meta.qis.len(),
            opened.private.to_vec(),
            (opened.crc, opened.original_len, opened.meta.rows),
        )
    }

    /// Writes the merged file; `totals` replaces the parts' sums where a
    /// class spans parts (a global recoding).
    pub fn finish(mut self, totals: Option<&Totals>) -> Result<Merged> {
        let (Some(writer), Some((meta0, hierarchies, _)), Some(first)) =
            (self.writer, self.head, self.first)
        else {
            return Err(Error::Options("merge: no part to merge".to_owned()));
        };
        if let Some(t) = totals {
            self.sum.replace(t);
        }
        let hierarchies = meta::hierarchies_from_bytes(&hierarchies)
            .map_err(|e| not_a_part(&first, &format!("sealed hierarchies: {e}")))?;
        let (public, metrics) = self.sum.public_meta(meta0, &self.params);
        let packed = writer.finish(&public, &hierarchies, SealedMetrics::from(&metrics))?;
        let (groups, original_len, file_bytes) =
            (packed.groups, packed.original_len, packed.file_len());
        self.output.write(|w| packed.write_to(w))?;
        Ok(Merged {
            rows: public.rows,
            groups,
            suppressed: self.sum.suppressed,
            suppression_budget: public.claim.suppression_budget,
            classes: self.sum.classes,
            original_len,
            file_bytes,
            metrics,
        })
    }
}

/// What every later part must share with the first: its `META`, its whole
/// hierarchies (the sealed Brotli stream) and its `PRIVACY_MODELS` (bytes).
type Head = (PublicMeta, Vec<u8>, Option<Vec<u8>>);

/// The merged file's writer and [`Head`], from the first part (the one with
/// the header row). Its claim beyond k, if any, is the whole's: each part
/// holds distinct l class by class, so the union does, and every reader
/// re-checks it.
fn start(
    path: &Path,
    opened: &OpenedPart<'_>,
    seal: &Seal,
    output: &Output,
) -> Result<(GroupWriter, Head)> {
    if !opened.meta.dialect.header {
        return Err(not_a_part(path, "the first part has no header row"));
    }
    let roles: Vec<Role> = opened.meta.columns.iter().map(|c| c.role).collect();
    let scratch = Scratch::Beside(output);
    let mut writer = GroupWriter::new(DiffMode::default(), seal, &roles, false, scratch, false)?;
    if let Some(bytes) = opened.models {
        let claim: ModelsClaim = meta::from_bytes(bytes)
            .map_err(|e| not_a_part(path, &format!("PRIVACY_MODELS: {e}")))?;
        writer.models(&claim);
    }
    if let Some(bytes) = opened.checks {
        let checks: ColumnChecksMeta = meta::from_bytes(bytes)
            .map_err(|e| not_a_part(path, &format!("COLUMN_CHECKS: {e}")))?;
        writer.column_checks(&checks);
    }
    let head = (
        opened.meta.clone(),
        opened.sealed.hierarchies.clone(),
        opened.models.map(<[u8]>::to_vec),
    );
    Ok((writer, head))
}

/// A part, checked and opened.
struct OpenedPart<'a> {
    meta: PublicMeta,
    hierarchies: &'a [u8],
    /// Its `PRIVACY_MODELS` section, when its claim goes beyond k.
    models: Option<&'a [u8]>,
    /// Its `COLUMN_CHECKS` section, when the derived-column check ran (the
    /// same in every part: the same columns, QIs and config).
    checks: Option<&'a [u8]>,
    /// Its row group's sections: `QI_CLASSES`, then the `COLUMN`s.
    sections: Vec<(SectionKind, &'a [u8])>,
    /// Its private part's `PrivatePart` bytes (a frame of §7.4).
    private: Vec<u8>,
    /// What its private part holds beside: the whole hierarchies, the
    /// sealed metrics.
    sealed: SealedMeta,
    crc: u32,
    original_len: u64,
}

fn not_a_part(path: &Path, detail: &str) -> Error {
    Error::Options(format!("{}: not a karc part: {detail}", path.display()))
}

/// Checks a part's sections (CRCs, the one-group layout of §4), opens its
/// private part with `key` and checks that it was made for this public part.
fn open_part<'a>(path: &Path, bytes: &'a [u8], key: &Key) -> Result<OpenedPart<'a>> {
    let container = format::parse(path, bytes)?;
    let mut bodies = Vec::with_capacity(container.entries.len());
    for (i, entry) in container.entries.iter().enumerate() {
        let kind = entry
            .kind()
            .ok_or_else(|| not_a_part(path, &format!("unknown section type {}", entry.code)))?;
        bodies.push((kind, format::check_section(path, bytes, i, entry, None)?));
    }
    let kinds: Vec<SectionKind> = bodies.iter().map(|(k, _)| *k).collect();
    // PRIVACY_MODELS and COLUMN_CHECKS, when present, sit between
    // HIERARCHIES and the group, in this order.
    let at = |i: usize, kind| (kinds.get(i) == Some(&kind)).then_some(i);
    let models = at(2, SectionKind::PrivacyModels);
    let checks = at(2 + usize::from(models.is_some()), SectionKind::ColumnChecks);
    let group = 2 + usize::from(models.is_some()) + usize::from(checks.is_some());
    let layout_ok = kinds.len() >= group + 2
        && kinds[0] == SectionKind::Meta
        && kinds[1] == SectionKind::Hierarchies
        && kinds[group] == SectionKind::QiClasses
        && kinds[kinds.len() - 1] == SectionKind::PrivateSealed
        && kinds[group + 1..kinds.len() - 1]
            .iter()
            .all(|k| *k == SectionKind::Column);
    if !layout_ok {
        return Err(not_a_part(
            path,
            "expected META, HIERARCHIES, [PRIVACY_MODELS,] [COLUMN_CHECKS,] QI_CLASSES, COLUMN..., PRIVATE_SEALED (one row group, sealed)",
        ));
    }
    let meta: PublicMeta =
        meta::meta_from_bytes(bodies[0].1).map_err(|e| not_a_part(path, &format!("META: {e}")))?;
    let mut digest = PublicDigest::new(container.major, container.minor);
    for (kind, body) in &bodies[..bodies.len() - 1] {
        digest.section(kind.code(), 0, body);
    }
    let plain = seal::unseal(path, bodies[bodies.len() - 1].1, key)?;
    let Some(split) = plain.len().checked_sub(32) else {
        return Err(not_a_part(path, "private part shorter than its digest"));
    };
    let found = digest.finish();
    if plain[split..] != found {
        return Err(ArchiveError::PublicPartChanged {
            path: path.to_owned(),
            expected: super::digest::hex(&plain[split..]),
            found: super::digest::hex(&found),
        }
        .into());
    }
    let (part, rest) = meta::split_from_bytes::<PrivatePart>(&plain[..split])
        .map_err(|e| not_a_part(path, &format!("private part: {e}")))?;
    let sealed: SealedMeta = meta::from_bytes(rest)
        .map_err(|e| not_a_part(path, &format!("private part's sealed metadata: {e}")))?;
    let private = plain[..split - rest.len()].to_vec();
    Ok(OpenedPart {
        meta,
        hierarchies: bodies[1].1,
        models: models.map(|i| bodies[i].1),
        checks: checks.map(|i| bodies[i].1),
        sections: bodies[group..bodies.len() - 1].to_vec(),
        private,
        sealed,
        crc: part.digest,
        original_len: part.original_len,
    })
}

/// A part's whole hierarchies, from its private part.
fn whole_hierarchies(path: &Path, sealed: &SealedMeta) -> Result<Vec<Hierarchy>> {
    let records = meta::hierarchies_from_bytes(&sealed.hierarchies)
        .map_err(|e| not_a_part(path, &format!("sealed hierarchies: {e}")))?;
    records
        .into_iter()
        .map(|r| r.into_hierarchy(path))
        .collect::<std::result::Result<_, String>>()
        .map_err(|e| not_a_part(path, &format!("sealed hierarchies: {e}")))
}

/// A part's `QI_CLASSES` with its nodes numbered as in the whole
/// hierarchies (`whole`) rather than its own pruned ones: the merged file
/// prunes them again to the nodes every part uses.
fn whole_numbered(path: &Path, part: &OpenedPart<'_>, whole: &[Hierarchy]) -> Result<Vec<u8>> {
    let bad = |e: String| not_a_part(path, &e);
    let records = meta::hierarchies_from_bytes(part.hierarchies).map_err(bad)?;
    if records.len() != whole.len() {
        return Err(bad(format!(
            "{} public hierarchies, {} sealed",
            records.len(),
            whole.len()
        )));
    }
    let numbers: Vec<Vec<Vec<u32>>> = records
        .into_iter()
        .zip(whole)
        .map(|(HierarchyRecord { levels, parents }, h)| {
            Pruned::from_tree(levels, parents)?.full_numbers(h)
        })
        .collect::<std::result::Result<_, String>>()
        .map_err(bad)?;
    let m = &part.meta;
    let of_qi: Vec<Option<usize>> = (m.qis.iter())
        .map(|&c| m.columns[c as usize].hierarchy.map(|h| h as usize))
        .collect();
    let (count, classes) = super::row_count::split(part.sections[0].1);
    let renumbered = crate::codec::renumber_classes(classes, m.qis.len(), &mut |q, level, node| {
        let h = (*of_qi.get(q)?)?;
        numbers
            .get(h)?
            .get(level as usize)?
            .get(node as usize)
            .copied()
    })
    .map_err(|e| bad(format!("QI classes: {e}")))?;
    Ok([count, &renumbered[..]].concat())
}

/// Refuses a part of another table or claim than the first part's.
fn same_table(
    path: &Path,
    meta0: &PublicMeta,
    hierarchies0: &[u8],
    models0: Option<&[u8]>,
    part: &OpenedPart<'_>,
) -> Result<()> {
    let m = &part.meta;
    let differs = if m.columns != meta0.columns || m.qis != meta0.qis {
        Some("its columns")
    } else if m.claim.constraints != meta0.claim.constraints
        || m.claim.policy != meta0.claim.policy
        || m.claim.l_diversity != meta0.claim.l_diversity
    {
        Some("its privacy claim")
    } else if part.sealed.hierarchies != hierarchies0 {
        Some("its hierarchies")
    } else if part.models != models0 {
        Some("its privacy models")
    } else if m.dialect.header {
        Some("its header row (only the first part has one)")
    } else {
        None
    };
    match differs {
        Some(what) => Err(not_a_part(
            path,
            &format!("{what} differ from the first part's"),
        )),
        None => Ok(()),
    }
}

/// The parts' figures, added up into the whole's `META`.
#[derive(Default)]
struct MetricSums {
    rows: u64,
    suppressed: u64,
    budget: u64,
    classes: u64,
    /// Per-cell metrics times rows (precision as its loss, 1 − precision).
    ncp: f64,
    ncp_kaylode: f64,
    glm: f64,
    precision_loss: Option<f64>,
    precision_defined: bool,
    /// Σ |E|² over the parts' classes.
    squares: f64,
    levels: Option<Option<Vec<u32>>>,
}

impl MetricSums {
    /// A global recoding's whole-table figures in place of the parts' sums.
    fn replace(&mut self, t: &Totals) {
        self.budget = t.suppression_budget;
        self.suppressed = t.suppressed;
        self.classes = t.classes;
        self.squares = t.squares;
    }

    fn add(&mut self, m: &PublicMeta, sealed: &SealedMetrics, suppressed: u64, classes: u64) {
        let n = m.rows as f64;
        let x = &m.metrics;
        if self.rows == 0 {
            self.precision_defined = true;
        }
        self.ncp += sealed.ncp * n;
        self.ncp_kaylode += sealed.ncp_kaylode * n;
        self.glm += sealed.glm * n;
        match x.precision {
            Some(p) => *self.precision_loss.get_or_insert(0.0) += (1.0 - p) * n,
            None => self.precision_defined = false,
        }
        self.squares += x.dm - n * suppressed as f64;
        self.rows += m.rows;
        self.suppressed += suppressed;
        self.budget += m.claim.suppression_budget;
        self.classes += classes;
        // Global recoding: the levels stand only when every part has the same.
        let levels = m.algorithm.levels.clone();
        self.levels = match self.levels.take() {
            None => Some(levels),
            Some(l) if l == levels => Some(l),
            Some(_) => Some(None),
        };
    }

    /// The whole's `META` (the first part's, with the sums) and metrics.
    fn public_meta(&self, mut meta: PublicMeta, params: &str) -> (PublicMeta, Metrics) {
        let (n, k) = (
            self.rows as f64,
            meta.claim.constraints.iter().map(|c| c.k).max(),
        );
        let per_row = |x: f64| if n > 0.0 { x / n } else { 0.0 };
        let kept = (self.rows - self.suppressed) as f64;
        let metrics = Metrics {
            precision: self
                .precision_defined
                .then(|| 1.0 - per_row(self.precision_loss.unwrap_or(0.0))),
            ncp: per_row(self.ncp),
            ncp_kaylode: per_row(self.ncp_kaylode),
            glm: per_row(self.glm),
            dm: self.squares + n * self.suppressed as f64,
            cavg: match (self.classes, k) {
                (0, _) | (_, None) => 0.0,
                (c, Some(k)) => kept / c as f64 / k as f64,
            },
        };
        meta.rows = self.rows;
        meta.claim.suppression_budget = self.budget;
        meta.algorithm.params = params.to_owned();
        meta.algorithm.levels = self.levels.clone().flatten();
        meta.metrics = (&metrics).into();
        (meta, metrics)
    }
}

/// A one-off X25519 key for parts: the identity (`AGE-SECRET-KEY-1...`,
/// kept by the merging process, never written) and its recipient (given
/// to the workers).
pub fn part_key() -> (String, String) {
    use age::secrecy::ExposeSecret;
    let identity = age::x25519::Identity::generate();
    let recipient = identity.to_public().to_string();
    (identity.to_string().expose_secret().to_owned(), recipient)
}

/// The key that opens parts sealed for [`part_key`]'s recipient.
pub fn part_identity(secret: &str) -> Result<Key> {
    let identity: age::x25519::Identity = secret
        .parse()
        .map_err(|_| Error::Options("merge: not an age X25519 identity".to_owned()))?;
    Ok(Key::Identities(vec![Box::new(identity)]))
}

/// The seal of a part: for the one-off `recipient`.
pub fn part_seal(recipient: &str) -> Result<Seal> {
    Ok(Seal::Recipients(vec![seal::parse_recipient(
        recipient,
        "the parts' recipient",
    )?]))
}
