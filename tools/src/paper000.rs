//! Paper 000's workload (Yang, Liu, Wang, Yu 2006, Section 4): a table of 9
//! attributes with independent uniform values, a generalization hierarchy
//! for each, and the constraints C1..C8 of its Table 2.
//!
//! The paper gives the attributes and their types (Table 1: Race, Sex and
//! Edu categorical, Birth a date, ZIP, Height, Weight, Work_Hrs and Salary
//! numbers), the row counts (1,024 to 10,240) and the constraints; it leaves
//! the domains and hierarchies open. Chosen here, in the spirit of its
//! Figure 1 and of the Adult hierarchies the field uses:
//!
//! | attribute | domain (uniform) | hierarchy, leaf to root | height |
//! | --- | --- | --- | --- |
//! | Race | 5 Adult races | `*` | 1 |
//! | Birth | every day of 1940-01-01..1989-12-31 | month, year, 5 years, decade, `*` | 5 |
//! | Sex | Male, Female | `*` | 1 |
//! | ZIP | 02000..02999 | `0213*`, `021**`, `*` | 3 |
//! | Height | 150..189 (cm) | 5, 10, 20 cm bands, `*` | 4 |
//! | Weight | 40..119 (kg) | 5, 10, 20, 40 kg bands, `*` | 5 |
//! | Work_Hrs | 20..59 (hours a week) | 5, 10, 20 hour bands, `*` | 4 |
//! | Salary | 1000..9900 in steps of 100 | 500, 1000, 3000 bands, `*` | 4 |
//! | Edu | the 16 Adult education levels | 6 stages, school/higher, `*` | 3 |
//!
//! Values are drawn row by row, attribute by attribute, from ChaCha8 seeded
//! with the given seed, so a (rows, seed) pair always gives the same table.
//! The config of a constraint set makes the attributes of its constraints
//! quasi-identifiers and the others insensitive, so Precision is measured
//! over the constrained attributes, as the paper's figures are.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use karc::civil::{civil_from_days, days_from_civil};

/// The attributes in table order.
pub const ATTRIBUTES: [&str; 9] = [
    "Race", "Birth", "Sex", "ZIP", "Height", "Weight", "Work_Hrs", "Salary", "Edu",
];

/// Paper 000's Table 2: C1..C8 as (QI set, K).
pub const CONSTRAINTS: [(&[&str], usize); 8] = [
    (&["Race", "Birth", "Sex"], 5),
    (&["Birth", "Sex", "ZIP"], 3),
    (&["Sex", "ZIP"], 5),
    (&["ZIP", "Height"], 3),
    (&["Weight", "Work_Hrs", "Salary"], 6),
    (&["Work_Hrs", "Salary", "Edu"], 3),
    (&["Race", "Birth", "Edu"], 4),
    (&["ZIP", "Weight"], 8),
];

/// The table sizes of the paper's experiments: 1K..10K, K = 1,024 rows.
pub const SIZES: [usize; 10] = [1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192, 9216, 10240];

const RACES: [&str; 5] = [
    "White",
    "Black",
    "Asian-Pac-Islander",
    "Amer-Indian-Eskimo",
    "Other",
];
const SEXES: [&str; 2] = ["Male", "Female"];
/// Adult's education levels with their stage and school/higher group.
const EDUCATION: [(&str, &str, &str); 16] = [
    ("Preschool", "Primary", "School"),
    ("1st-4th", "Primary", "School"),
    ("5th-6th", "Primary", "School"),
    ("7th-8th", "Junior", "School"),
    ("9th", "Junior", "School"),
    ("10th", "Senior", "School"),
    ("11th", "Senior", "School"),
    ("12th", "Senior", "School"),
    ("HS-grad", "Senior", "School"),
    ("Some-college", "College", "Higher"),
    ("Assoc-voc", "College", "Higher"),
    ("Assoc-acdm", "College", "Higher"),
    ("Bachelors", "University", "Higher"),
    ("Masters", "Graduate", "Higher"),
    ("Prof-school", "Graduate", "Higher"),
    ("Doctorate", "Graduate", "Higher"),
];
const FIRST_YEAR: i64 = 1940;
const LAST_YEAR: i64 = 1989;

/// The birth dates of the domain, in order.
fn birth_days() -> impl Iterator<Item = (i64, i64, i64)> {
    let first = days_from_civil(FIRST_YEAR, 1, 1);
    let last = days_from_civil(LAST_YEAR, 12, 31);
    (first..=last).map(civil_from_days)
}

/// An unbiased uniform draw from `0..n` (Lemire's multiply-and-reject).
fn below(rng: &mut ChaCha8Rng, n: u32) -> u32 {
    let threshold = n.wrapping_neg() % n;
    loop {
        let m = u64::from(rng.next_u32()) * u64::from(n);
        if (m as u32) >= threshold {
            return (m >> 32) as u32;
        }
    }
}

/// A band label `lo-hi` of width `width` starting at a multiple of `width`
/// counted from `origin`.
fn band(x: i64, origin: i64, width: i64) -> String {
    let lo = origin + (x - origin).div_euclid(width) * width;
    format!("{lo}-{}", lo + width - 1)
}

/// One attribute's leaves (as the table writes them) and hierarchy rows.
fn hierarchy_rows(attribute: &str) -> Vec<Vec<String>> {
    let star = || "*".to_owned();
    let numeric = |lo: i64, hi: i64, step: i64, widths: &[i64]| -> Vec<Vec<String>> {
        (lo..=hi)
            .step_by(step as usize)
            .map(|x| {
                let mut row = vec![x.to_string()];
                row.extend(widths.iter().map(|&w| band(x, lo, w)));
                row.push(star());
                row
            })
            .collect()
    };
    match attribute {
        "Race" => RACES
            .iter()
            .map(|r| vec![(*r).to_owned(), star()])
            .collect(),
        "Sex" => SEXES
            .iter()
            .map(|s| vec![(*s).to_owned(), star()])
            .collect(),
        "Birth" => birth_days()
            .map(|(y, m, d)| {
                vec![
                    format!("{y:04}-{m:02}-{d:02}"),
                    format!("{y:04}-{m:02}"),
                    format!("{y:04}"),
                    band(y, FIRST_YEAR, 5),
                    band(y, FIRST_YEAR, 10),
                    star(),
                ]
            })
            .collect(),
        "ZIP" => (2000..=2999)
            .map(|z| {
                let zip = format!("{z:05}");
                vec![
                    zip.clone(),
                    format!("{}*", &zip[..4]),
                    format!("{}**", &zip[..3]),
                    star(),
                ]
            })
            .collect(),
        "Height" => numeric(150, 189, 1, &[5, 10, 20]),
        "Weight" => numeric(40, 119, 1, &[5, 10, 20, 40]),
        "Work_Hrs" => numeric(20, 59, 1, &[5, 10, 20]),
        "Salary" => numeric(1000, 9900, 100, &[500, 1000, 3000]),
        "Edu" => EDUCATION
            .iter()
            .map(|(e, stage, group)| {
                vec![
                    (*e).to_owned(),
                    (*stage).to_owned(),
                    (*group).to_owned(),
                    star(),
                ]
            })
            .collect(),
        other => panic!("not an attribute of paper 000's workload: {other}"),
    }
}

/// The hierarchy file of `attribute` in ARX's format (`;`, one row per leaf).
pub fn hierarchy_csv(attribute: &str) -> String {
    let mut out = String::new();
    for row in hierarchy_rows(attribute) {
        out.push_str(&row.join(";"));
        out.push('\n');
    }
    out
}

/// The table: `rows` rows of uniform values, seeded, with a header.
pub fn table_csv(rows: usize, seed: u64) -> String {
    let leaves: Vec<Vec<String>> = ATTRIBUTES
        .iter()
        .map(|a| {
            hierarchy_rows(a)
                .into_iter()
                .map(|mut r| r.swap_remove(0))
                .collect()
        })
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = ATTRIBUTES.join(",");
    out.push('\n');
    for _ in 0..rows {
        for (i, domain) in leaves.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&domain[below(&mut rng, domain.len() as u32) as usize]);
        }
        out.push('\n');
    }
    out
}

/// The constraint set {C1, ..., C`size`} of the paper's Table 3.
pub fn constraint_set(size: usize) -> &'static [(&'static [&'static str], usize)] {
    assert!(
        (1..=CONSTRAINTS.len()).contains(&size),
        "|CSet| is 1..=8, found {size}"
    );
    &CONSTRAINTS[..size]
}

/// The config for {C1..C`size`}: the constrained attributes are QIs, the
/// others insensitive; no suppression limit (each method's own rule).
pub fn config_toml(size: usize, algorithm: &str) -> String {
    let set = constraint_set(size);
    let mut out = String::from(
        "# Paper 000's synthetic workload (karc-tools, paper000 module).\n\
         [input]\ndelimiter = \",\"\nheader = true\n",
    );
    for a in ATTRIBUTES {
        let quasi = set.iter().any(|(qis, _)| qis.contains(&a));
        let kind = match a {
            "Race" | "Sex" | "Edu" | "Birth" => "categorical",
            _ => "integer",
        };
        let _ = write!(
            out,
            "\n[[columns]]\nname = \"{a}\"\nrole = \"{}\"\ntype = \"{kind}\"\n",
            if quasi { "quasi" } else { "insensitive" }
        );
        if quasi {
            let _ = writeln!(out, "hierarchy = \"hierarchies/{a}.csv\"");
        }
    }
    out.push_str("\n[privacy]\nsuppressed = \"mask\"\n");
    for (qis, k) in set {
        let names: Vec<String> = qis.iter().map(|q| format!("\"{q}\"")).collect();
        let _ = write!(
            out,
            "\n[[privacy.constraints]]\nqi = [{}]\nk = {k}\n",
            names.join(", ")
        );
    }
    let _ = write!(out, "\n[algorithm]\nname = \"{algorithm}\"\nseed = 0\n");
    out
}

/// Where [`write()`] put the workload.
#[derive(Debug, Clone)]
pub struct Files {
    pub table: PathBuf,
    pub config: PathBuf,
}

/// Writes the table (`paper000.csv`), the hierarchies (`hierarchies/`) and
/// the config for {C1..C`size`} (`paper000.toml`) into `dir`.
pub fn write(
    dir: &Path,
    rows: usize,
    seed: u64,
    size: usize,
    algorithm: &str,
) -> std::io::Result<Files> {
    std::fs::create_dir_all(dir.join("hierarchies"))?;
    for a in ATTRIBUTES {
        std::fs::write(
            dir.join("hierarchies").join(format!("{a}.csv")),
            hierarchy_csv(a),
        )?;
    }
    let table = dir.join("paper000.csv");
    std::fs::write(&table, table_csv(rows, seed))?;
    let config = dir.join("paper000.toml");
    std::fs::write(&config, config_toml(size, algorithm))?;
    Ok(Files { table, config })
}

/// A workload ready to anonymize: its config, data and privacy model.
pub struct Loaded {
    pub config: karc::config::Config,
    pub data: karc::dataset::Dataset,
    pub model: karc::privacy::PrivacyModel,
}

/// Writes the workload into `dir` (see [`write()`]) and loads it as karc does.
pub fn load(dir: &Path, rows: usize, seed: u64, size: usize) -> karc::Result<Loaded> {
    let files = write(dir, rows, seed, size, "classfly-plus-complete")
        .map_err(|e| karc::Error::io(dir, e))?;
    let config = karc::config::Config::load(&files.config)?;
    let data = karc::dataset::Dataset::load(&config, &files.table)?;
    let model = karc::privacy::PrivacyModel::from_config(&config, &data)?;
    Ok(Loaded {
        config,
        data,
        model,
    })
}

/// The model whose one constraint is the set's union constraint (paper 000,
/// Definition 5: every constrained QI, the largest K): what a
/// single-constraint method such as Datafly is given when it is "simply
/// ported" to a constraint set (the paper's introduction). A release that
/// satisfies it satisfies the set (Theorem 3).
pub fn union_model(model: &karc::privacy::PrivacyModel) -> karc::privacy::PrivacyModel {
    let mut qis: Vec<usize> = model
        .constraints
        .iter()
        .flat_map(|c| c.qis.clone())
        .collect();
    qis.sort_unstable();
    qis.dedup();
    karc::privacy::PrivacyModel {
        constraints: vec![karc::privacy::Constraint {
            qis,
            k: model.max_k(),
        }],
        ..model.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip() {
        for z in [-11_000, -1, 0, 1, 7_000, 365 * 30] {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(birth_days().count(), 50 * 365 + 13); // 13 leap years, 1940..1988
    }

    #[test]
    fn bands_start_at_the_origin() {
        assert_eq!(band(153, 150, 5), "150-154");
        assert_eq!(band(1250, 1000, 500), "1000-1499");
        assert_eq!(band(9900, 1000, 3000), "7000-9999");
    }

    #[test]
    fn draws_are_uniform_and_seeded() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut counts = [0u32; 5];
        for _ in 0..50_000 {
            counts[below(&mut rng, 5) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (9_500..10_500).contains(&c)),
            "{counts:?}"
        );
        assert_eq!(table_csv(50, 3), table_csv(50, 3));
        assert_ne!(table_csv(50, 3), table_csv(50, 4));
    }
}
