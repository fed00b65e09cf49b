//! Each column's role in the drafted config, and why. Quasi-identifiers are
//! what an adversary knows: picked by meaning first (names and values, see
//! [`super::meaning`]), ranked by re-identification power (ARX's
//! distinction and separation, [`crate::privacy::attribute_risk`]) measured
//! on a sample of rows, and capped; never by file order. Direct identifiers
//! are kept out of the release, measurements released as they are.

use std::collections::HashMap;

use super::meaning::{self, Meaning, NameSays};
use super::{Column, InitOptions, Kind};
use crate::privacy::attribute_risk::{AttributeRisk, Classes};
use crate::table::Table;

/// Quasi-identifiers chosen without `--qi`, at most: each one more splits
/// the classes further, so k is met only by coarser values (and Incognito's
/// lattice grows by a factor per QI).
pub const MAX_CHOSEN_QIS: usize = 8;

/// Columns that nothing says an adversary knows are made QIs, ranked by
/// power, only while fewer than this many QIs were chosen by meaning: a
/// table of unknown columns still gets a draft to review.
const MIN_CHOSEN_QIS: usize = 3;

/// Rows on which power is measured, at most (evenly spaced through the
/// table): bounded cost on a table of any size.
pub const SAMPLE_ROWS: usize = 20_000;

/// Distinct values of a column whose shape is looked at, at most.
const SHAPE_VALUES: usize = 1_000;

/// A category column with more than this share of distinct values is not
/// chosen as a QI: value -> * would suppress it whole.
const MANY_DISTINCT: f64 = 0.5;

/// An integer or code column with at least this share of distinct values
/// is id-like, as is a column named as an id with half as many.
const NEAR_UNIQUE: f64 = 0.9;

/// A column's judgement before the QIs are picked.
enum Judged {
    /// Role and reason settled.
    Settled(&'static str, String),
    /// Quasi-identifier candidate: what it is and how that was told.
    Candidate(Meaning, String),
    /// Nothing says what it is: a QI only to fill a draft short of QIs.
    Unknown,
}

/// The sampled rows' codes of each column.
fn sample_codes(table: &Table) -> Vec<Vec<u32>> {
    let rows = table.rows;
    let n = rows.min(SAMPLE_ROWS);
    let pick = |i: usize| (i as u128 * rows as u128 / n as u128) as usize;
    (table.columns.iter())
        .map(|c| (0..n).map(|i| c.codes[pick(i)]).collect())
        .collect()
}

/// Sets each column's role, reason, meaning and scores, as the comments
/// and `--explain` say them.
pub(super) fn choose_roles(columns: &mut [Column], table: &Table, options: &InitOptions) {
    let codes = sample_codes(table);
    let sampled = codes.first().map_or(0, Vec::len);
    for (c, codes) in columns.iter_mut().zip(&codes) {
        c.risk = Classes::new(sampled).refine(codes).risk();
    }
    let mut candidates: Vec<(usize, Meaning)> = Vec::new();
    let mut unknown: Vec<usize> = Vec::new();
    for (i, c) in columns.iter_mut().enumerate() {
        let given_qi = options.qi.contains(&c.name);
        if options.sensitive.as_deref() == Some(c.name.as_str()) {
            c.set("sensitive", "--sensitive: released as it is".to_owned());
            continue;
        }
        match judge(c, table) {
            _ if given_qi => c.set("quasi", "--qi".to_owned()),
            Judged::Settled("identifier", why) => c.set("identifier", why),
            _ if !options.qi.is_empty() => {
                c.set("insensitive", "not in --qi: released as it is".to_owned())
            }
            Judged::Settled(role, why) => c.set(role, why),
            Judged::Candidate(m, why) => {
                c.meaning = Some(m);
                c.why = why;
                candidates.push((i, m));
            }
            Judged::Unknown => unknown.push(i),
        }
    }
    if options.qi.is_empty() {
        pick(columns, &codes, &candidates, &unknown);
    }
    flag_recodings(columns, &codes, options);
}

/// A column's role by its name, then its values (options aside).
fn judge(c: &Column, table: &Table) -> Judged {
    use Judged::{Candidate, Settled};
    let rows = table.rows;
    let share = c.distinct as f64 / rows as f64;
    let percent = format!("{:.1} % distinct", 100.0 * share);
    let values: Vec<&str> = (table.columns[c.index].dict.values())
        .filter(|v| !super::MISSING.contains(v))
        .take(SHAPE_VALUES)
        .collect();
    let says = meaning::by_name(&c.name);
    if c.distinct <= 1 && rows > 1 {
        return Settled("insensitive", "one value only: tells nothing".to_owned());
    }
    if matches!(c.kind, Kind::Text { free: true }) {
        return Settled(
            "identifier",
            "free text (long, several words): may name people, so kept in the private part \
             only; set role = \"insensitive\" to release it"
                .to_owned(),
        );
    }
    if let NameSays::Identifier(what) = says {
        return Settled("identifier", format!("name says {what}; {percent}"));
    }
    if let Some(what) = meaning::identifier_shape(&values) {
        return Settled("identifier", format!("{percent}, {what}"));
    }
    match says {
        NameSays::Quasi(m) => return Candidate(m, format!("name says {}", m.text())),
        NameSays::Sensitive(word) => {
            return Settled(
                "sensitive",
                format!("name says {word}: what an attack would learn, released as it is"),
            );
        }
        NameSays::Measurement(word) => {
            return Settled(
                "insensitive",
                format!("name says a measurement ({word}): released as it is"),
            );
        }
        NameSays::RecordId if share >= NEAR_UNIQUE / 2.0 || rows < 20 => {
            return Settled("identifier", format!("name says a record id; {percent}"));
        }
        _ => {}
    }
    let coded = matches!(c.kind, Kind::Integer { .. } | Kind::Code { .. });
    if coded && rows >= 20 && share >= NEAR_UNIQUE {
        return Settled(
            "identifier",
            format!("id-like ({percent}): kept in the private part only"),
        );
    }
    if matches!(c.kind, Kind::Text { .. }) && rows >= 20 && share > MANY_DISTINCT {
        return Settled(
            "identifier",
            format!(
                "{} distinct categories in {rows} rows: a value -> * hierarchy would suppress \
                 them all, and released as they are they would single people out, so kept in \
                 the private part only; give it a hierarchy file and make it quasi",
                c.distinct
            ),
        );
    }
    judge_shape(c, &values, share)
}

/// A column no name settles, by the look of its values.
fn judge_shape(c: &Column, values: &[&str], share: f64) -> Judged {
    use Judged::{Candidate, Settled};
    let shape = |what: &str| Candidate(Meaning::Shape, what.to_owned());
    match c.kind {
        Kind::Date { time: true } => Settled(
            "insensitive",
            "timestamps of the record's event, not a trait of a person: released as they are; \
             make it quasi if an attacker could know them"
                .to_owned(),
        ),
        Kind::Date { time: false } => {
            shape("dates: a date in a person's life (birth, admission) identifies")
        }
        Kind::Code { width } if width <= 6 && share < MANY_DISTINCT => {
            shape("fixed-width digit codes look like zip codes")
        }
        Kind::Decimal { .. } if c.distinct > 20 => Settled(
            "insensitive",
            format!(
                "decimals, {} distinct: a measurement, released as it is",
                c.distinct
            ),
        ),
        Kind::Integer { min, max } => match meaning::quasi_shape(values, Some((min, max))) {
            Some(what) => shape(what),
            None => Judged::Unknown,
        },
        _ => match meaning::quasi_shape(values, None) {
            Some(what) => shape(what),
            None => Judged::Unknown,
        },
    }
}

/// Picks the QIs among the candidates: named ones before guessed ones, each
/// meaning once before any twice (mother's age, race and education before
/// father's), the strongest tier first, and within it the column that
/// raises the chosen set's distinction (then separation) most; up to
/// [`MAX_CHOSEN_QIS`]. Columns nothing says anything of fill a short
/// draft up to [`MIN_CHOSEN_QIS`] by the same power.
fn pick(
    columns: &mut [Column],
    codes: &[Vec<u32>],
    candidates: &[(usize, Meaning)],
    unknown: &[usize],
) {
    let mut classes = Classes::new(codes.first().map_or(0, Vec::len));
    let mut chosen: Vec<(usize, Option<Meaning>)> = Vec::new();
    let mut left: Vec<(usize, Option<Meaning>)> = (candidates.iter())
        .map(|&(i, m)| (i, Some(m)))
        .chain(unknown.iter().map(|&i| (i, None)))
        .collect();
    loop {
        let named = chosen.iter().filter(|(_, m)| m.is_some()).count();
        let open = |m: &Option<Meaning>| match m {
            Some(_) => chosen.len() < MAX_CHOSEN_QIS,
            None => named < MIN_CHOSEN_QIS && chosen.len() < MIN_CHOSEN_QIS,
        };
        let scored = (left.iter().enumerate())
            .filter(|(_, (_, m))| open(m))
            .map(|(at, &(i, m))| {
                let refined = classes.refine(&codes[i]);
                let risk = refined.risk();
                let round = chosen
                    .iter()
                    .filter(|(_, c)| m.is_some() && *c == m)
                    .count();
                let tier = m.map_or(4, Meaning::tier);
                (at, refined, risk, (tier >= 3, round, tier))
            })
            .min_by(|a, b| {
                (a.3.cmp(&b.3))
                    .then(b.2.distinction.total_cmp(&a.2.distinction))
                    .then(b.2.separation.total_cmp(&a.2.separation))
            });
        let Some((at, refined, risk, _)) = scored else {
            break;
        };
        // A column that splits no class more adds nothing an attacker could use.
        if left[at].1.is_none() && refined.count() == classes.count() && !chosen.is_empty() {
            left.remove(at);
            continue;
        }
        let (i, m) = left.remove(at);
        classes = refined;
        chosen.push((i, m));
        let c = &mut columns[i];
        c.role = "quasi";
        c.rank = Some(chosen.len());
        c.joint = Some(risk);
        if m.is_none() {
            c.why = format!(
                "nothing says what it is, but it tells rows apart and fewer than \
                 {MIN_CHOSEN_QIS} QIs were found by meaning; set role = \"insensitive\" if no \
                 attacker could know it"
            );
        }
    }
    for &(i, m) in &left {
        let c = &mut columns[i];
        c.role = "insensitive";
        c.why = match m {
            Some(_) => format!(
                "{}, but {MAX_CHOSEN_QIS} QIs were chosen already by meaning and power (more \
                 make every release coarse): released as it is; make it quasi if an attacker \
                 could know it",
                c.why
            ),
            None => "nothing says an attacker knows it: released as it is; make it quasi if \
                     an attacker could know it"
                .to_owned(),
        };
    }
}

/// A released column that is a one-to-one recoding of a QI (`education-num`
/// beside `education`, `mage2` = `mage`²) shows the QI's exact value beside
/// its generalization: it becomes a QI too (or, with `--qi`, the comment
/// says so). Measured on the sample, where the QI has repeated values (a
/// near-unique QI is one-to-one with anything near-unique).
fn flag_recodings(columns: &mut [Column], codes: &[Vec<u32>], options: &InitOptions) {
    let given = !options.qi.is_empty();
    let sampled = codes.first().map_or(0, Vec::len);
    let repeated = |c: &Column| {
        let classes = (c.risk.distinction * sampled as f64).round() as usize;
        (2..=sampled / 2).contains(&classes)
    };
    let qis: Vec<usize> = (0..columns.len())
        .filter(|&q| columns[q].role == "quasi" && repeated(&columns[q]))
        .collect();
    for i in 0..columns.len() {
        let c = &columns[i];
        if matches!(c.role, "quasi" | "identifier")
            || options.sensitive.as_deref() == Some(c.name.as_str())
        {
            continue;
        }
        let Some(&q) = qis.iter().find(|&&q| one_to_one(&codes[q], &codes[i])) else {
            continue;
        };
        let qi = columns[q].name.clone();
        let c = &mut columns[i];
        if given {
            c.why = format!(
                "{}; but it is a one-to-one recoding of QI {qi:?}: released as it is it shows \
                 {qi:?} exactly, so make it quasi or identifier",
                c.why
            );
        } else {
            c.role = "quasi";
            c.why = format!(
                "a one-to-one recoding of QI {qi:?}: released as it is it would show {qi:?} \
                 exactly"
            );
        }
    }
}

/// Whether each value of `a` goes with one value of `b` and back.
fn one_to_one(a: &[u32], b: &[u32]) -> bool {
    let mut forth: HashMap<u32, u32> = HashMap::new();
    let mut back: HashMap<u32, u32> = HashMap::new();
    a.iter()
        .zip(b)
        .all(|(&x, &y)| *forth.entry(x).or_insert(y) == y && *back.entry(y).or_insert(x) == x)
}

impl Column {
    fn set(&mut self, role: &'static str, why: String) {
        self.role = role;
        self.why = why;
    }
}

/// The comment after a column's role: the reason and the scores.
pub(super) fn comment(c: &Column) -> String {
    let mut text = c.why.clone();
    if c.role == "quasi" || c.meaning.is_some() {
        text.push_str(&format!(
            "; distinction {}, separation {}",
            score(c.risk.distinction),
            score(c.risk.separation)
        ));
    }
    if let (Some(rank), Some(joint)) = (c.rank, c.joint) {
        text.push_str(&format!(
            "; QI {rank} picked (with those before: distinction {})",
            score(joint.distinction)
        ));
    }
    text
}

/// A score with four decimals, as ARX shows them.
pub(super) fn score(x: f64) -> String {
    format!("{x:.4}")
}

/// A column's risk before it is measured.
pub(super) const UNMEASURED: AttributeRisk = AttributeRisk {
    distinction: 0.0,
    separation: 0.0,
};
