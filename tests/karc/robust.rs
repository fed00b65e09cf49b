//! Every algorithm answers on any table: a valid release for every k up to
//! the row count (the release with every QI at `*` always is one), and for a
//! model no release can meet, exit 1 with one line naming it. Releases are
//! checked here by grouping the released label tuples, apart from the
//! library's verifier.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use karc::anonymize::{self, Algorithm};
use karc::config::Config;
use karc::dataset::Dataset;
use karc::privacy::PrivacyModel;

use crate::common::{fixture, karc, outcome};

/// A table under test: its config and CSV (written in a temporary folder).
struct Table {
    name: &'static str,
    config: PathBuf,
    csv: PathBuf,
}

/// The first `rows` data lines of `from` (header kept), each passed through
/// `edit` with its data line number.
fn head(from: &Path, to: &Path, rows: usize, edit: impl Fn(usize, &str) -> String) {
    let text = std::fs::read_to_string(from).unwrap();
    let mut lines = text.lines();
    let mut out = format!("{}\n", lines.next().unwrap());
    for (i, line) in lines.take(rows).enumerate() {
        out.push_str(&edit(i, line));
        out.push('\n');
    }
    std::fs::write(to, out).unwrap();
}

/// An ARX hierarchy with one more leaf, `token`, under its own nodes.
fn with_missing(from: &Path, to: &Path, token: &str) {
    let text = std::fs::read_to_string(from).unwrap();
    let levels = text.lines().next().unwrap().split(';').count();
    let mut out = text.trim_end().to_owned();
    out.push('\n');
    let mut row = vec![token.to_owned(); levels];
    for (level, cell) in row.iter_mut().enumerate().skip(1) {
        *cell = format!("missing{level}");
    }
    row[levels - 1] = "*".to_owned();
    out.push_str(&row.join(";"));
    out.push('\n');
    std::fs::write(to, out).unwrap();
}

/// Adult's first 2,000 rows (9 QIs); raw UCI Adult's first 1,200 rows with
/// `?` in workclass, occupation and native-country and `?` written into
/// every 23rd age, all QIs; and a generated table with missing ZIP codes
/// and ages.
fn tables(dir: &Path) -> Vec<Table> {
    let adult = dir.join("adult.csv");
    head(&fixture("adult/adult.csv"), &adult, 2000, |_, l| {
        l.to_owned()
    });

    let raw = dir.join("raw.csv");
    head(&fixture("adult-raw/adult.csv"), &raw, 1200, |i, l| {
        if i % 23 == 5 {
            let (_, rest) = l.split_once(',').unwrap();
            format!("?,{rest}")
        } else {
            l.to_owned()
        }
    });
    let arx = fixture("adult/hierarchies");
    let mut toml = String::from("[input]\ndelimiter = \",\"\nheader = true\ntrim = true\n");
    for (name, role, hierarchy) in [
        ("age", "quasi", Some("age")),
        ("workclass", "quasi", Some("workclass")),
        ("fnlwgt", "insensitive", None),
        ("education", "quasi", Some("education")),
        ("education-num", "insensitive", None),
        ("marital-status", "quasi", Some("marital-status")),
        ("occupation", "quasi", Some("occupation")),
        ("relationship", "insensitive", None),
        ("race", "quasi", Some("race")),
        ("sex", "quasi", Some("sex")),
        ("capital-gain", "insensitive", None),
        ("capital-loss", "insensitive", None),
        ("hours-per-week", "insensitive", None),
        ("native-country", "quasi", Some("native-country")),
        ("salary-class", "sensitive", None),
    ] {
        toml.push_str(&format!(
            "\n[[columns]]\nname = \"{name}\"\nrole = \"{role}\"\n"
        ));
        if name == "age" {
            toml.push_str("type = \"integer\"\n");
        }
        if let Some(h) = hierarchy {
            let file = format!("h_{h}.csv");
            with_missing(
                &arx.join(format!("adult_hierarchy_{h}.csv")),
                &dir.join(&file),
                "?",
            );
            toml.push_str(&format!("hierarchy = \"{file}\"\n"));
        }
    }
    toml.push_str("\n[privacy]\nk = 2\n\n[algorithm]\nname = \"datafly\"\n");
    let raw_config = dir.join("raw.toml");
    std::fs::write(&raw_config, toml).unwrap();

    // Generated: ZIP codes masked digit by digit, ages by decade, sex; `?`
    // for a missing ZIP or age; a sensitive diagnosis.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let mut csv = String::from("zip;age;sex;diagnosis\n");
    for _ in 0..400 {
        let zip = if next(20) == 0 {
            "?".to_owned()
        } else {
            format!("{}", 47600 + next(40))
        };
        let age = if next(15) == 0 {
            "?".to_owned()
        } else {
            (18 + next(70)).to_string()
        };
        let sex = ["f", "m"][next(2) as usize];
        let diagnosis = ["flu", "cold", "asthma", "ulcer", "none"][next(5) as usize];
        csv.push_str(&format!("{zip};{age};{sex};{diagnosis}\n"));
    }
    let generated = dir.join("generated.csv");
    std::fs::write(&generated, csv).unwrap();
    let mut zip = String::new();
    for z in 47600..47640 {
        let s = z.to_string();
        zip.push_str(&format!(
            "{s};{}*;{}**;{}***;*\n",
            &s[..4],
            &s[..3],
            &s[..2]
        ));
    }
    zip.push_str("?;?;?;?;*\n");
    let mut age = String::new();
    for a in 18..88 {
        age.push_str(&format!("{a};{}0s;*\n", a / 10));
    }
    age.push_str("?;?;*\n");
    std::fs::write(dir.join("zip.csv"), zip).unwrap();
    std::fs::write(dir.join("age.csv"), age).unwrap();
    std::fs::write(dir.join("sex.csv"), "f;*\nm;*\n").unwrap();
    let generated_config = dir.join("generated.toml");
    std::fs::write(
        &generated_config,
        "[input]\ndelimiter = \";\"\nheader = true\n\n\
         [[columns]]\nname = \"zip\"\nrole = \"quasi\"\nhierarchy = \"zip.csv\"\n\n\
         [[columns]]\nname = \"age\"\nrole = \"quasi\"\ntype = \"integer\"\nhierarchy = \"age.csv\"\n\n\
         [[columns]]\nname = \"sex\"\nrole = \"quasi\"\nhierarchy = \"sex.csv\"\n\n\
         [[columns]]\nname = \"diagnosis\"\nrole = \"sensitive\"\n\n\
         [privacy]\nk = 2\n\n[algorithm]\nname = \"datafly\"\n",
    )
    .unwrap();

    vec![
        Table {
            name: "adult-2000",
            config: fixture("adult/adult.toml"),
            csv: adult,
        },
        Table {
            name: "adult-raw-missing",
            config: raw_config,
            csv: raw,
        },
        Table {
            name: "generated",
            config: generated_config,
            csv: generated,
        },
    ]
}

/// Checks a release by its labels alone: the rows whose every QI label is
/// `*` are one class when they number at least `k` (and hold `l` sensitive
/// values), else suppressed, at most `budget` of them; every other label
/// tuple is carried by at least `k` rows (holding `l` sensitive values).
fn assert_anonymous(
    data: &Dataset,
    release: &karc::release::Release,
    k: usize,
    l: Option<(usize, usize)>,
    budget: usize,
    label: &str,
) {
    let columns: Vec<_> = (0..data.qis.len())
        .map(|q| release.qi_column(data, q))
        .collect();
    let mut classes: HashMap<Vec<&str>, (usize, Vec<&str>)> = HashMap::new();
    for row in 0..data.rows() {
        let tuple: Vec<&str> = columns.iter().map(|c| c.text(row)).collect();
        let class = classes.entry(tuple).or_default();
        class.0 += 1;
        if let Some((col, _)) = l {
            let value = data.table.columns[col].text(row);
            if !class.1.contains(&value) {
                class.1.push(value);
            }
        }
    }
    let stars = vec!["*"; data.qis.len()];
    let need_l = l.map_or(1, |(_, l)| l);
    for (tuple, (size, values)) in &classes {
        let valid = *size >= k && (l.is_none() || values.len() >= need_l);
        if *tuple == stars && !valid {
            assert!(
                *size <= budget,
                "{label}: {size} suppressed rows, budget {budget}"
            );
        } else {
            assert!(
                valid,
                "{label}: class {tuple:?} of {size} rows, {} values",
                values.len()
            );
        }
    }
}

fn load(table: &Table) -> (Config, Dataset) {
    let config = Config::load(&table.config).unwrap();
    let data = Dataset::load(&config, &table.csv).unwrap();
    (config, data)
}

/// Every algorithm, k in {2, n/2, n-1, n}, suppression limits 0 and 0.1:
/// a release that is k-anonymous by the labels, whose cells cover the
/// original values.
#[test]
fn every_algorithm_answers_at_every_k() {
    let dir = tempfile::tempdir().unwrap();
    for table in tables(dir.path()) {
        let (mut config, data) = load(&table);
        let n = data.rows();
        for limit in [0.0, 0.1] {
            for k in [2, n / 2, n - 1, n] {
                config.privacy.k = Some(k);
                config.privacy.constraints.clear();
                config.privacy.suppression_limit = Some(limit);
                let model = PrivacyModel::from_config(&config, &data).unwrap();
                for a in Algorithm::ALL {
                    config.algorithm.name = a.name().to_owned();
                    let label = format!("{} {} k={k} limit {limit}", table.name, a.name());
                    let outcome = anonymize::run(&data, &model, &config.algorithm)
                        .unwrap_or_else(|e| panic!("{label}: {e}"));
                    let budget = a.suppression_budget(&model, n);
                    assert_eq!(budget, (limit * n as f64) as usize, "{label}");
                    assert_anonymous(&data, &outcome.release, k, None, budget, &label);
                    crate::anonymize::assert_sound(&data, &model, &outcome, &label);
                }
            }
        }
    }
}

/// l-diversity: every algorithm holds l = 2 on Adult's salary class (two
/// values) and on the generated diagnosis, under both policies; l = 3 on
/// the salary class (two values) cannot be met.
#[test]
fn every_algorithm_holds_l_diversity() {
    use karc::config::SuppressionPolicy;
    let dir = tempfile::tempdir().unwrap();
    let adult = dir.path().join("adult.csv");
    head(&fixture("adult/adult.csv"), &adult, 1000, |_, l| {
        l.to_owned()
    });
    let generated = tables(dir.path()).pop().unwrap();
    for (config, csv, sensitive) in [
        (fixture("adult/adult8.toml"), adult, "salary-class"),
        (generated.config, generated.csv, "diagnosis"),
    ] {
        let mut config = Config::load(&config).unwrap();
        let data = Dataset::load(&config, &csv).unwrap();
        let n = data.rows();
        let col = data.table.column_index(sensitive).unwrap();
        for policy in [SuppressionPolicy::Mask, SuppressionPolicy::Strict] {
            for (k, limit) in [(2, 0.0), (5, 0.05), (n / 2, 0.0)] {
                config.privacy.k = Some(k);
                config.privacy.constraints.clear();
                config.privacy.suppression_limit = Some(limit);
                config.privacy.suppressed = policy;
                config.privacy.sensitive = vec![sensitive.to_owned()];
                config.privacy.l = Some(2);
                let model = PrivacyModel::from_config(&config, &data).unwrap();
                for a in Algorithm::ALL {
                    config.algorithm.name = a.name().to_owned();
                    let label = format!("{sensitive} {} k={k} l=2 {policy:?}", a.name());
                    let outcome = anonymize::run(&data, &model, &config.algorithm)
                        .unwrap_or_else(|e| panic!("{label}: {e}"));
                    let budget = a.suppression_budget(&model, n);
                    let l = Some((col, 2));
                    assert_anonymous(&data, &outcome.release, k, l, budget, &label);
                }
            }
        }
        if sensitive == "salary-class" {
            config.privacy.l = Some(3);
            let model = PrivacyModel::from_config(&config, &data).unwrap();
            let e = anonymize::run(&data, &model, &config.algorithm).unwrap_err();
            assert_eq!(e.exit_code(), 1);
            assert!(
                e.to_string()
                    .contains("l = 3 on \"salary-class\" cannot be met"),
                "{e}"
            );
        }
    }
}

/// Under `strict` with a suppression limit, Incognito returns only vectors
/// whose suppressed rows form a class of k (or none), and Datafly too.
#[test]
fn strict_policy_with_a_limit_suppresses_none_or_a_class_of_k() {
    use karc::config::SuppressionPolicy;
    let (mut config, data, _) = crate::common::adult("adult", 50);
    config.privacy.suppressed = SuppressionPolicy::Strict;
    config.privacy.suppression_limit = Some(0.01);
    let model = PrivacyModel::from_config(&config, &data).unwrap();
    for a in [Algorithm::Incognito, Algorithm::Datafly] {
        config.algorithm.name = a.name().to_owned();
        let outcome = anonymize::run(&data, &model, &config.algorithm).unwrap();
        let stars = outcome.release.star_rows();
        assert!(stars == 0 || stars >= 50, "{}: {stars}", a.name());
        let budget = a.suppression_budget(&model, data.rows());
        assert_anonymous(&data, &outcome.release, 50, None, budget, a.name());
    }
}

/// k = n + 1 on each table, through the CLI: exit 1, one line naming the k
/// and the row count, no release written.
#[test]
fn k_above_the_rows_exits_1_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    for table in tables(dir.path()) {
        let (_, data) = load(&table);
        let n = data.rows();
        let out = dir.path().join("release.csv");
        let k = (n + 1).to_string();
        for a in ["datafly", "incognito", "mondrian", "classfly"] {
            let o = karc(&[
                "anonymize",
                "-c",
                table.config.to_str().unwrap(),
                table.csv.to_str().unwrap(),
                "-a",
                a,
                "-k",
                &k,
                "-o",
                out.to_str().unwrap(),
            ]);
            let (code, _, stderr) = outcome(&o);
            assert_eq!(code, 1, "{} {a}: {stderr}", table.name);
            assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
            let expected = format!("k = {k} is larger than the table ({n} rows)");
            assert!(stderr.contains(&expected), "{stderr}");
            assert!(!out.exists());
        }
    }
}
