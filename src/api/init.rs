//! `karc init`: a first config for a table never seen before. The table is
//! sniffed (delimiter, header, each column's type and cardinality), the
//! quasi-identifiers chosen or taken as given, and each gets a hierarchy
//! built from its values ([`crate::hierarchy::builder`]), so the config
//! packs right away with every algorithm. The text explains each choice in
//! comments for the user to review.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

mod derived;
mod meaning;
mod roles;

pub use meaning::Meaning;

use crate::archive::TableInput;
use crate::config::ValueType;
use crate::hierarchy::builder::{Builder, parse_date};
use crate::number::NumberFormat;
use crate::privacy::attribute_risk::AttributeRisk;
use crate::table::{CsvOptions, Table, detect_delimiter};
use crate::{Error, Result};

/// The missing-value tokens of a config's default `[input] missing`.
const MISSING: [&str; 2] = ["", "?"];

/// What `init` is told.
#[derive(Debug, Clone, Default)]
pub struct InitOptions {
    /// The quasi-identifiers (empty: chosen from the data).
    pub qi: Vec<String>,
    /// The sensitive column.
    pub sensitive: Option<String>,
    /// Distinct l-diversity of the sensitive column.
    pub l: Option<usize>,
    /// The k to claim (lowered to the row count on a smaller table).
    pub k: usize,
    /// Write hierarchies as ARX files under this directory, as the config
    /// names it (relative to the config file); `None`: inline builders.
    pub hierarchies_dir: Option<PathBuf>,
}

/// What `init` writes.
pub struct InitOutput {
    /// The config's TOML text.
    pub config: String,
    /// Hierarchy files (file name inside the directory, ARX CSV text).
    pub hierarchies: Vec<(String, String)>,
    /// Each column's role and why, ranked: the QIs in the order picked, then
    /// the other candidates, then the rest in file order.
    pub columns: Vec<ColumnChoice>,
    /// Rows the scores were measured on (evenly spaced, at most
    /// [`SAMPLE_ROWS`]).
    pub sampled_rows: usize,
}

pub use roles::SAMPLE_ROWS;

/// What a column looks like.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Integer {
        min: f64,
        max: f64,
    },
    Decimal {
        min: f64,
        max: f64,
    },
    /// Digit strings all of one width (zip codes, ids of a fixed format).
    Code {
        width: usize,
    },
    /// ISO dates, with a time of day when `time`.
    Date {
        time: bool,
    },
    Text {
        free: bool,
    },
}

struct Column {
    /// Its index in the table.
    index: usize,
    name: String,
    kind: Kind,
    distinct: usize,
    missing: usize,
    role: &'static str,
    why: String,
    /// What its name or values say an adversary knows.
    meaning: Option<Meaning>,
    /// Its own distinction and separation on the sampled rows.
    risk: AttributeRisk,
    /// Its place among the QIs picked (1: first), and the picked set's risk
    /// with it.
    rank: Option<usize>,
    joint: Option<AttributeRisk>,
}

/// Why `init` gave a column its role: one row of `init --explain`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ColumnChoice {
    /// The column's name.
    pub name: String,
    /// `quasi`, `identifier`, `sensitive` or `insensitive`.
    pub role: String,
    /// Why, as the config's comment says it.
    pub reason: String,
    /// What its name or values say an adversary knows (`null`: nothing).
    pub meaning: Option<Meaning>,
    /// Distinct values / sampled rows (ARX's distinction of the column alone).
    pub distinction: f64,
    /// Share of sampled row pairs the column tells apart (ARX's separation).
    pub separation: f64,
    /// Its place among the QIs picked by meaning and power (1: first;
    /// `null`: not picked so, as a given or recoded QI).
    pub rank: Option<usize>,
    /// Distinction of the QIs picked up to and with this one.
    pub joint_distinction: Option<f64>,
    /// Separation of the QIs picked up to and with this one.
    pub joint_separation: Option<f64>,
}

/// The config (and hierarchy files) for the table at `input`.
pub fn init(input: &Path, options: &InitOptions) -> Result<InitOutput> {
    init_input(input, &TableInput::open(input)?, options)
}

/// The config (and hierarchy files) for a table already read (a file, or
/// an Arrow table in memory as [`super::arrow_input`] gives it), named
/// `input` in messages and in the config's opening comment.
pub fn init_input(
    input: &Path,
    table_input: &TableInput,
    options: &InitOptions,
) -> Result<InitOutput> {
    let arrow = table_input.arrow.is_some();
    let bytes = &*table_input.csv.bytes()?;
    let delimiter = if arrow { b',' } else { detect_delimiter(bytes) };
    let header = arrow || sniff_header(bytes, delimiter);
    let csv = CsvOptions {
        delimiter: Some(delimiter),
        header,
        trim: false,
    };
    let table = Table::from_bytes(input, bytes, &csv)?;
    if table.rows == 0 {
        return Err(Error::Options(format!(
            "{}: the table has no rows: nothing to configure",
            input.display()
        )));
    }
    let mut columns = sniff_columns(&table);
    let known = |name: &str| -> Result<()> {
        if columns.iter().any(|c| c.name == name) {
            return Ok(());
        }
        let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
        Err(Error::Options(format!(
            "{}: no column {name:?} (its columns: {})",
            input.display(),
            names.join(", ")
        )))
    };
    for name in options.qi.iter().chain(&options.sensitive) {
        known(name)?;
    }
    roles::choose_roles(&mut columns, &table, options);
    let qis: Vec<&Column> = columns.iter().filter(|c| c.role == "quasi").collect();
    if qis.is_empty() {
        return Err(Error::Options(format!(
            "{}: no column can be a quasi-identifier (each is id-like, free text or sensitive): \
             name them with --qi",
            input.display()
        )));
    }
    let delimiter = (!arrow).then_some(delimiter);
    let inline = InitOptions {
        hierarchies_dir: None,
        ..options.clone()
    };
    derived::settle(&mut columns, input, &table, options, |columns| {
        write_config(input, &table, columns, &inline, delimiter, &mut Vec::new())
    })?;
    let mut hierarchies = Vec::new();
    let config = write_config(
        input,
        &table,
        &columns,
        options,
        delimiter,
        &mut hierarchies,
    )?;
    let out = InitOutput {
        config,
        hierarchies,
        columns: ranking(&columns),
        sampled_rows: table.rows.min(SAMPLE_ROWS),
    };
    Ok(out)
}

/// The config's text for `columns` as their roles stand; hierarchy files
/// (with `--hierarchies-dir`) are added to `files`.
fn write_config(
    input: &Path,
    table: &Table,
    columns: &[Column],
    options: &InitOptions,
    delimiter: Option<u8>,
    files: &mut Vec<(String, String)>,
) -> Result<String> {
    let mut config = String::new();
    write_input(&mut config, input, table, columns.len(), delimiter);
    for c in columns {
        write_column(&mut config, c, options, table, files)?;
    }
    write_privacy(&mut config, table.rows, options, columns);
    write_stream_note(&mut config, columns, options);
    Ok(config)
}

/// The opening comments and `[input]` (`delimiter`: a CSV file's).
fn write_input(
    config: &mut String,
    input: &Path,
    table: &Table,
    columns: usize,
    delimiter: Option<u8>,
) {
    let header = table.header;
    let _ = writeln!(
        config,
        "# karc config for {} ({} rows, {} columns), written by `karc init`.\n\
         # Review every role: a quasi-identifier (QI) is what an attacker may know of a person\n\
         # (age, sex, zip code, dates); it is generalized. See docs/CONFIG.md for every key.\n",
        input.display(),
        table.rows,
        columns
    );
    config.push_str("[input]\n");
    if let Some(delimiter) = delimiter {
        let _ = writeln!(
            config,
            "delimiter = {}  # sniffed from the first line",
            toml_string(&delimiter_text(delimiter))
        );
    }
    let _ = writeln!(
        config,
        "header = {header}{}\n",
        if header {
            ""
        } else {
            "  # the first row looks like data: columns are named 1, 2, ... in file order"
        }
    );
}

/// Each column's kind, distinct values and missing cells.
fn sniff_columns(table: &Table) -> Vec<Column> {
    let missing = MISSING;
    let format = NumberFormat::for_delimiter(table.delimiter);
    table
        .columns
        .iter()
        .enumerate()
        .map(|(index, c)| {
            let values: Vec<&str> = c.dict.values().collect();
            let counted = values.iter().filter(|v| !missing.contains(v)).count();
            let missing_cells = c
                .codes
                .iter()
                .filter(|&&code| missing.contains(&values[code as usize]))
                .count();
            Column {
                index,
                name: c.name.clone(),
                kind: sniff_kind(&values, &missing, format),
                distinct: counted,
                missing: missing_cells,
                role: "insensitive",
                why: String::new(),
                meaning: None,
                risk: roles::UNMEASURED,
                rank: None,
                joint: None,
            }
        })
        .collect()
}

/// A header is assumed unless a first-row field is empty, a number or a
/// date (names rarely are), or repeats another.
fn sniff_header(bytes: &[u8], delimiter: u8) -> bool {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut record = csv::StringRecord::new();
    if !matches!(reader.read_record(&mut record), Ok(true)) {
        return true;
    }
    let fields: Vec<&str> = record.iter().collect();
    !fields.iter().enumerate().any(|(i, f)| {
        let t = f.trim();
        t.is_empty()
            || NumberFormat::for_delimiter(delimiter).decimal(t).is_some()
            || parse_date(t).is_some()
            || fields[..i].contains(f)
    })
}

/// The kind of a column from its distinct values (numbers spelled as
/// `format` says), missing tokens aside.
fn sniff_kind(values: &[&str], missing: &[&str], format: NumberFormat) -> Kind {
    let present: Vec<&str> = values
        .iter()
        .copied()
        .filter(|v| !missing.contains(v))
        .collect();
    if present.is_empty() {
        return Kind::Text { free: false };
    }
    let digits = |v: &&str| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
    let width = present[0].len();
    if width >= 3 && present.iter().all(|v| digits(v) && v.len() == width) {
        // Leading zeros, or a fixed width in a wide range: a code, not a count.
        return Kind::Code { width };
    }
    let range = |parse: &dyn Fn(&str) -> Option<f64>| -> Option<(f64, f64)> {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for v in &present {
            let x = parse(v)?;
            lo = lo.min(x);
            hi = hi.max(x);
        }
        Some((lo, hi))
    };
    if let Some((min, max)) = range(&|v| v.parse::<i64>().ok().map(|x| x as f64)) {
        return Kind::Integer { min, max };
    }
    if let Some((min, max)) = range(&|v| format.decimal(v)) {
        return Kind::Decimal { min, max };
    }
    if present.iter().all(|v| parse_date(v).is_some()) {
        return Kind::Date {
            time: present.iter().any(|v| v.trim().len() > 10),
        };
    }
    // Free text: long values with several words, mostly distinct.
    let words = present
        .iter()
        .filter(|v| v.len() > 30 && v.split_whitespace().count() >= 4)
        .count();
    Kind::Text {
        free: words * 2 > present.len(),
    }
}

/// The columns as `--explain` ranks them: the QIs in the order picked,
/// then the other candidates and the given or recoded QIs, then the rest, in
/// file order.
fn ranking(columns: &[Column]) -> Vec<ColumnChoice> {
    let mut order: Vec<&Column> = columns.iter().collect();
    order.sort_by_key(|c| {
        (
            c.rank.unwrap_or(usize::MAX),
            c.role != "quasi" && c.meaning.is_none(),
            c.index,
        )
    });
    (order.into_iter())
        .map(|c| ColumnChoice {
            name: c.name.clone(),
            role: c.role.to_owned(),
            reason: c.why.clone(),
            meaning: c.meaning,
            distinction: c.risk.distinction,
            separation: c.risk.separation,
            rank: c.rank,
            joint_distinction: c.joint.map(|j| j.distinction),
            joint_separation: c.joint.map(|j| j.separation),
        })
        .collect()
}

/// The builder for a QI of this kind.
fn builder(kind: Kind) -> (Builder, ValueType, String) {
    match kind {
        Kind::Integer { min, max } => {
            let widths = ladder(max - min, true);
            let spec = format!("{{ intervals = [{}] }}", join_numbers(&widths));
            (Builder::Intervals(widths), ValueType::Integer, spec)
        }
        Kind::Decimal { min, max } => {
            let widths = ladder(max - min, false);
            let spec = format!("{{ intervals = [{}] }}", join_numbers(&widths));
            (Builder::Intervals(widths), ValueType::Decimal, spec)
        }
        Kind::Code { width } => (
            Builder::Mask(width - 1),
            ValueType::Categorical,
            format!("{{ mask = {} }}", width - 1),
        ),
        Kind::Date { time } => {
            use crate::hierarchy::builder::DateLevel::{Day, Month, Year};
            let (levels, spec) = if time {
                (vec![Day, Month, Year], "time,day,month,year")
            } else {
                (vec![Month, Year], "day,month,year")
            };
            (
                Builder::Dates(levels),
                ValueType::Categorical,
                format!("{{ dates = \"{spec}\" }}"),
            )
        }
        Kind::Text { .. } => (
            Builder::Flat,
            ValueType::Categorical,
            "{ flat = true }".to_owned(),
        ),
    }
}

/// Interval widths from about a twentieth of `range` up to all of it, each
/// a round number (1, 2 or 5 times a power of ten) and a multiple of the one
/// before.
pub fn ladder(range: f64, whole: bool) -> Vec<f64> {
    let target = if range > 0.0 { range / 20.0 } else { 1.0 };
    let mut exp = target.log10().floor() as i32;
    let mut mantissa = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .find(|m| m * 10f64.powi(exp) >= target * (1.0 - 1e-9))
        .unwrap_or(10.0);
    if mantissa == 10.0 {
        mantissa = 1.0;
        exp += 1;
    }
    if whole && exp < 0 {
        (mantissa, exp) = (2.0, 0);
    }
    if whole && exp == 0 && mantissa < 2.0 {
        mantissa = 2.0;
    }
    let mut widths = Vec::new();
    loop {
        let w = round_width(mantissa, exp);
        widths.push(w);
        if w >= range || widths.len() == 8 {
            return widths;
        }
        (mantissa, exp) = match mantissa as u8 {
            1 => (2.0, exp),
            2 => (1.0, exp + 1),
            _ => (1.0, exp + 1),
        };
    }
}

/// `mantissa × 10^exp` as the nearest short decimal (0.05, not 0.0500…01).
fn round_width(mantissa: f64, exp: i32) -> f64 {
    let text = if exp >= 0 {
        format!("{}", mantissa * 10f64.powi(exp))
    } else {
        format!("{:.*}", (-exp) as usize, mantissa * 10f64.powi(exp))
    };
    text.parse().unwrap_or(mantissa * 10f64.powi(exp))
}

fn join_numbers(xs: &[f64]) -> String {
    xs.iter()
        .map(|x| format!("{x}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One `[[columns]]` table, with the hierarchy inline or as a file.
fn write_column(
    config: &mut String,
    c: &Column,
    options: &InitOptions,
    table: &Table,
    files: &mut Vec<(String, String)>,
) -> Result<()> {
    let rows = table.rows;
    let _ = writeln!(
        config,
        "[[columns]]  # {}, {} distinct{}",
        kind_text(c.kind),
        c.distinct,
        if c.missing > 0 {
            format!(", {} of {rows} cells missing", c.missing)
        } else {
            String::new()
        }
    );
    let _ = writeln!(config, "name = {}", toml_string(&c.name));
    let _ = writeln!(config, "role = \"{}\"  # {}", c.role, roles::comment(c));
    if c.role == "identifier" {
        // Left out of the release unless the publisher asks for pseudonyms.
        config.push_str(
            "# pseudonym = true  # release keyed pseudonyms instead of leaving it out (docs/CONFIG.md)\n",
        );
    }
    if c.role != "quasi" {
        config.push('\n');
        return Ok(());
    }
    let (builder, value_type, spec) = builder(c.kind);
    let type_name = match value_type {
        ValueType::Integer => "integer",
        ValueType::Decimal => "decimal",
        ValueType::Categorical => "categorical",
    };
    let _ = writeln!(config, "type = \"{type_name}\"");
    match &options.hierarchies_dir {
        None => {
            let _ = writeln!(config, "hierarchy = {spec}\n");
        }
        Some(dir) => {
            let file = unique_file(&c.name, files.len(), files);
            let path = dir.join(&file);
            let _ = writeln!(
                config,
                "hierarchy = {}  # built as {spec}\n",
                toml_string(&path.to_string_lossy())
            );
            let column = &table.columns[c.index];
            let values: Vec<&str> = column.dict.values().collect();
            let what = format!("column {:?}", c.name);
            let format = NumberFormat::for_delimiter(table.delimiter);
            let missing = MISSING.map(str::to_owned);
            let h = builder.build(&what, &values, value_type, format, &missing)?;
            let mut text = csv::WriterBuilder::new()
                .delimiter(b';')
                .has_headers(false)
                .from_writer(Vec::new());
            for row in h.rows() {
                text.write_record(row)
                    .map_err(|e| Error::Options(format!("{what}: {e}")))?;
            }
            let text = text
                .into_inner()
                .map_err(|e| Error::Options(format!("{what}: {e}")))?;
            files.push((file, String::from_utf8(text).expect("UTF-8 labels")));
        }
    }
    Ok(())
}

/// The hierarchy file of column `name`: its [`file_stem`], numbered
/// (`a_b_2.csv`) when an earlier column's file has the same name up to
/// case (`a/b`, `a_b` and `a:b` would all be `a_b.csv`; a case-blind file
/// system would also merge `A` and `a`).
fn unique_file(name: &str, index: usize, files: &[(String, String)]) -> String {
    let stem = file_stem(name, index);
    let taken = |f: &str| files.iter().any(|(t, _)| t.eq_ignore_ascii_case(f));
    (1..)
        .map(|n| match n {
            1 => format!("{stem}.csv"),
            n => format!("{stem}_{n}.csv"),
        })
        .find(|f| !taken(f))
        .expect("a free name among unbounded numbers")
}

/// A file name from a column name: letters, digits, `-` and `_` kept.
fn file_stem(name: &str, index: usize) -> String {
    let stem: String = name
        .chars()
        .map(|ch| {
            if ch.is_alphanumeric() || ch == '-' || ch == '_' {
                ch
            } else {
                '_'
            }
        })
        .collect();
    if stem.is_empty() {
        format!("column{}", index + 1)
    } else {
        stem
    }
}

fn write_privacy(config: &mut String, rows: usize, options: &InitOptions, columns: &[Column]) {
    let k = options.k.max(1);
    config.push_str("[privacy]\n");
    if k > rows {
        let _ = writeln!(
            config,
            "k = {rows}  # --k {k} is more than the {rows} rows: every release would be one class"
        );
    } else {
        let _ = writeln!(
            config,
            "k = {k}  # each released combination of QI values is shared by at least k rows"
        );
    }
    config.push_str(
        "# suppression_limit = 0.02  # share of rows that may be suppressed (default: see docs/CONFIG.md)\n",
    );
    if let (Some(s), Some(l)) = (&options.sensitive, options.l) {
        let _ = writeln!(config, "sensitive = {}\nl = {l}", toml_string(s));
    } else if let Some(s) = &options.sensitive {
        let _ = writeln!(
            config,
            "# sensitive = {}\n# l = 2  # distinct l-diversity of the sensitive column",
            toml_string(s)
        );
    } else if let Some(c) = columns.iter().find(|c| c.role == "sensitive") {
        let _ = writeln!(
            config,
            "# sensitive = {}  # its name says so: uncomment to claim l-diversity of it\n\
             # l = 2  # distinct l-diversity of the sensitive column",
            toml_string(&c.name)
        );
    }
    config.push_str(
        "\n[algorithm]\n\
         # mondrian (finest intervals), basic-mondrian, topdown, datafly, incognito (optimal\n\
         # full-domain), classfly and more: see docs/CONFIG.md. `-a NAME` overrides it.\n\
         name = \"mondrian\"\n",
    );
}

/// What a stream (`pack --stream`, `karc stream`) needs that a batch pack
/// does not, said in the config rather than first at `pack --stream`.
fn write_stream_note(config: &mut String, columns: &[Column], options: &InitOptions) {
    config.push_str(
        "# A stream (`karc pack --stream`, `karc stream`) runs fads or castle instead:\n\
         # `-a fads --delay N` (a row leaves within N arrivals).\n",
    );
    // A stream never holds the whole column, so a builder has no values to
    // build from.
    if options.hierarchies_dir.is_none() {
        config.push_str(
            "# It cannot build a hierarchy from values it has not seen: for a stream, write\n\
             # them as files with `karc init --hierarchies-dir DIR`.\n",
        );
    }
    // A stream releases every numeric QI as an interval of numbers, which
    // cannot show a missing token beside a number.
    let gaps: Vec<String> = columns
        .iter()
        .filter(|c| c.role == "quasi" && c.missing > 0)
        .filter(|c| matches!(c.kind, Kind::Integer { .. } | Kind::Decimal { .. }))
        .map(|c| format!("{} ({} missing)", c.name, c.missing))
        .collect();
    if !gaps.is_empty() {
        let _ = writeln!(
            config,
            "# In a stream a missing cell of a numeric QI is a value of its own, here {}:\n\
             # a cluster that holds it beside a number releases that cell as `*`.",
            gaps.join(", ")
        );
    }
}

fn kind_text(kind: Kind) -> String {
    match kind {
        Kind::Integer { min, max } => format!("integers {min}..{max}"),
        Kind::Decimal { min, max } => format!("decimals {min}..{max}"),
        Kind::Code { width } => format!("{width}-digit codes"),
        Kind::Date { time: false } => "dates".to_owned(),
        Kind::Date { time: true } => "timestamps".to_owned(),
        Kind::Text { free: true } => "free text".to_owned(),
        Kind::Text { free: false } => "categories".to_owned(),
    }
}

fn delimiter_text(d: u8) -> String {
    if d == b'\t' {
        "\\t".to_owned()
    } else {
        char::from(d).to_string()
    }
}

/// A TOML basic string.
pub fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ladders_are_round_and_nested() {
        assert_eq!(ladder(73.0, true), [5.0, 10.0, 20.0, 100.0]);
        assert_eq!(ladder(1.0, false), [0.05, 0.1, 0.2, 1.0]);
        assert_eq!(ladder(3.0, true), [2.0, 10.0]);
        assert_eq!(ladder(0.0, true), [2.0]);
        assert_eq!(ladder(1.5e6, true), [100000.0, 200000.0, 1e6, 2e6]);
        for range in [0.003, 0.7, 9.0, 55.5, 1234.0, 9.9e9] {
            for whole in [false, true] {
                let w = ladder(range, whole);
                let b = crate::hierarchy::builder::BuilderSpec {
                    intervals: Some(w.clone()),
                    ..Default::default()
                };
                assert!(b.builder().is_ok(), "{range}: {w:?}");
                assert!(
                    *w.last().unwrap() >= range || w.len() == 8,
                    "{range}: {w:?}"
                );
            }
        }
    }

    #[test]
    fn headers_and_kinds_are_sniffed() {
        assert!(sniff_header(b"age;zip\n1;2\n", b';'));
        assert!(!sniff_header(b"34;02139\n1;2\n", b';'));
        assert!(!sniff_header(b"a;;b\n", b';'));
        assert!(!sniff_header(b"a;a\n", b';'));
        let kind = |values: &[&str]| sniff_kind(values, &MISSING, NumberFormat::default());
        assert_eq!(kind(&["02139", "10001", ""]), Kind::Code { width: 5 });
        assert_eq!(
            kind(&["7", "12", "?"]),
            Kind::Integer {
                min: 7.0,
                max: 12.0
            }
        );
        assert_eq!(kind(&["7", "1.5"]), Kind::Decimal { min: 1.5, max: 7.0 });
        assert_eq!(kind(&["2023-01-02", ""]), Kind::Date { time: false });
        assert_eq!(kind(&["2023-01-02T10:00:00Z"]), Kind::Date { time: true });
        assert_eq!(kind(&["2023-02-30"]), Kind::Text { free: false });
        assert_eq!(
            kind(&["this is a long sentence of many words, typed freely"]),
            Kind::Text { free: true }
        );
        assert_eq!(kind(&["", "?"]), Kind::Text { free: false });
        // Decimal commas where the delimiter is not a comma (`crate::number`).
        let semicolons = NumberFormat::for_delimiter(b';');
        let european = |values: &[&str]| sniff_kind(values, &MISSING, semicolons);
        assert_eq!(
            european(&["1234,56", "-0,5", "1.234,56", "", "7"]),
            Kind::Decimal {
                min: -0.5,
                max: 1234.56
            }
        );
        assert_eq!(kind(&["1234,56", "7"]), Kind::Text { free: false });
        assert!(!sniff_header(b"45,3;DE\n", b';'));
    }

    #[test]
    fn toml_strings_escape() {
        assert_eq!(toml_string("a\"b\\c\td\u{1}"), "\"a\\\"b\\\\c\\td\\u0001\"");
        let parsed: toml::Table =
            toml::from_str(&format!("x = {}", toml_string("é\"\\\n"))).unwrap();
        assert_eq!(parsed["x"].as_str(), Some("é\"\\\n"));
    }
}
