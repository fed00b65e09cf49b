//! The privacy models beyond k as constraints of the anonymizers: each
//! release satisfies the model by an independent check (the verifier on the
//! release's text, as a third party would run it), and a model no release
//! can meet ends in exit 1 naming it.

use karc::anonymize::{self, Algorithm};
use karc::api::{self, VerifyOptions};
use karc::config::{Config, SuppressionPolicy};
use karc::dataset::Dataset;
use karc::privacy::{Models, PrivacyModel};

use crate::common::{fixture, karc, outcome};

const QI: [&str; 8] = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
];

/// Each model with a parameter Adult's salary class (two values, 75/25)
/// can meet.
fn models() -> Vec<(&'static str, Models)> {
    let m = Models::default;
    vec![
        ("l", Models { l: Some(2), ..m() }),
        (
            "entropy l",
            Models {
                entropy_l: Some(1.5),
                ..m()
            },
        ),
        (
            "recursive",
            Models {
                recursive_cl: Some((3.0, 2)),
                ..m()
            },
        ),
        (
            "t",
            Models {
                t: Some(0.2),
                ..m()
            },
        ),
        (
            "alpha",
            Models {
                alpha: Some(0.8),
                ..m()
            },
        ),
        (
            "delta",
            Models {
                delta: Some(1.0),
                ..m()
            },
        ),
        (
            "beta",
            Models {
                beta: Some(1.0),
                ..m()
            },
        ),
        (
            "enhanced beta",
            Models {
                beta: Some(1.0),
                enhanced_beta: true,
                ..m()
            },
        ),
    ]
}

fn config_with(base: &Config, k: usize, models: &Models) -> Config {
    let mut c = base.clone();
    c.privacy.k = Some(k);
    c.privacy.constraints.clear();
    c.privacy.sensitive = vec!["salary-class".to_owned()];
    c.privacy.l = models.l;
    c.privacy.entropy_l = models.entropy_l;
    c.privacy.recursive_cl = models.recursive_cl;
    c.privacy.t = models.t;
    c.privacy.alpha = models.alpha;
    c.privacy.delta = models.delta;
    c.privacy.beta = models.beta;
    c.privacy.enhanced_beta = models.enhanced_beta;
    c
}

/// The release's classes and whether the verifier, reading the release as
/// text, finds every model of `models` holding.
fn independent_check(
    data: &Dataset,
    release: &karc::release::Release,
    models: &Models,
) -> (usize, bool) {
    let mut csv = Vec::new();
    release
        .write_csv(data, &Default::default(), &mut csv)
        .unwrap();
    let table = api::read_release("release.csv".as_ref(), csv, None).unwrap();
    let report = api::verify_table(
        &table,
        &VerifyOptions {
            qi: QI.iter().map(|q| q.to_string()).collect(),
            k: Some(1),
            constraints: Vec::new(),
            suppressed: SuppressionPolicy::Mask,
            sensitive: vec!["salary-class".to_owned()],
            models: models.clone(),
            missing: api::default_missing(),
        },
    )
    .unwrap();
    (report.constraints[0].classes, report.holds())
}

/// Issue 20's target: Adult, k = 5, t = 0.2, Mondrian keeps at least 10
/// classes (anjana's greedy generalization keeps 1).
#[test]
fn mondrian_keeps_classes_under_t_closeness() {
    let base = Config::load(&fixture("adult/adult8.toml")).unwrap();
    let t = Models {
        t: Some(0.2),
        ..Models::default()
    };
    let mut c = config_with(&base, 5, &t);
    c.algorithm.name = "mondrian".to_owned();
    let data = Dataset::load(&c, &fixture("adult/adult.csv")).unwrap();
    let model = PrivacyModel::from_config(&c, &data).unwrap();
    let outcome = anonymize::run(&data, &model, &c.algorithm).unwrap();
    let (classes, holds) = independent_check(&data, &outcome.release, &t);
    assert!(holds);
    assert!(classes >= 10, "{classes} classes");
}

/// Every model, as a constraint of each algorithm that enforces them, on
/// the first 3,000 rows of Adult.
#[test]
fn every_model_holds_on_every_enforcing_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("adult.csv");
    let text = std::fs::read_to_string(fixture("adult/adult.csv")).unwrap();
    let head: Vec<&str> = text.lines().take(3001).collect();
    std::fs::write(&csv, head.join("\n") + "\n").unwrap();
    let base = Config::load(&fixture("adult/adult8.toml")).unwrap();
    for (name, models) in models() {
        let c = config_with(&base, 5, &models);
        let data = Dataset::load(&c, &csv).unwrap();
        let model = PrivacyModel::from_config(&c, &data).unwrap();
        for a in [
            Algorithm::Mondrian,
            Algorithm::BasicMondrian,
            Algorithm::TopDown,
            Algorithm::Datafly,
            Algorithm::Incognito,
        ] {
            let mut algorithm = c.algorithm.clone();
            algorithm.name = a.name().to_owned();
            let label = format!("{name} on {}", a.name());
            let outcome = anonymize::run(&data, &model, &algorithm)
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            let (classes, holds) = independent_check(&data, &outcome.release, &models);
            assert!(holds, "{label}: {classes} classes");
        }
    }
}

/// α = 0.5 on a column whose most common value holds 75 % of the rows: not
/// even one class of every row meets it, so no release does.
#[test]
fn a_model_no_release_meets_exits_1_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.csv");
    let config = fixture("adult/adult8.toml");
    let input = fixture("adult/adult.csv");
    let o = karc(&[
        "anonymize",
        "-c",
        config.to_str().unwrap(),
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--k",
        "5",
        "--sensitive",
        "salary-class",
        "--alpha",
        "0.5",
    ]);
    let (code, _, err) = outcome(&o);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("alpha_k_anonymity on \"salary-class\" cannot be met"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!out.exists());
}

/// Regression: Mondrian at δ = 1 on Adult ended in "internal check failed":
/// pyCANON's δ skips the values a class lacks, so two partitions within δ
/// whose released tuples coincide formed one class beyond it. The papers'
/// δ, which the cut enforces, holds on such a union.
#[test]
fn mondrian_delta_disclosure_holds_on_coinciding_classes() {
    let base = Config::load(&fixture("adult/adult8.toml")).unwrap();
    let delta = Models {
        delta: Some(1.0),
        ..Models::default()
    };
    let mut c = config_with(&base, 5, &delta);
    c.algorithm.name = "mondrian".to_owned();
    let data = Dataset::load(&c, &fixture("adult/adult.csv")).unwrap();
    let model = PrivacyModel::from_config(&c, &data).unwrap();
    let outcome = anonymize::run(&data, &model, &c.algorithm).unwrap();
    let (classes, holds) = independent_check(&data, &outcome.release, &delta);
    assert!(holds && classes >= 10, "{classes} classes");
}

/// `karc verify FILE.karc --sensitive S --t T` measures the models on the
/// archive's release: the claim made at pack time holds, a stricter t fails
/// with exit 1.
#[test]
fn verify_measures_the_models_on_a_karc_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.karc");
    let config = fixture("adult/adult8.toml");
    let input = fixture("adult/adult.csv");
    let (file, config, input) = (
        file.to_str().unwrap(),
        config.to_str().unwrap(),
        input.to_str().unwrap(),
    );
    let o = karc(&[
        "pack",
        "-c",
        config,
        input,
        "-o",
        file,
        "--k",
        "5",
        "--algorithm",
        "mondrian",
        "--no-encryption",
    ]);
    assert_eq!(outcome(&o).0, 0, "{}", outcome(&o).2);
    let o = karc(&["verify", file, "--sensitive", "salary-class", "--json"]);
    let (code, out, err) = outcome(&o);
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let t = json["models"]["t_closeness"].as_f64().unwrap();
    assert!(t > 0.0 && json["models"]["k_anonymity"].as_u64().unwrap() >= 5);
    let o = karc(&[
        "verify",
        file,
        "--sensitive",
        "salary-class",
        "--t",
        &format!("{}", t * 0.9),
    ]);
    let (code, out, _) = outcome(&o);
    assert_eq!(code, 1);
    assert!(
        out.contains("t_closeness") && out.contains("FAILS"),
        "{out}"
    );
}

/// `karc pack --sensitive S --l L --t T` stores the models in the file's
/// claim (`PRIVACY_MODELS`): `verify` reports them without flags, and a file
/// whose stored t is lowered below the release's is refused on every open
/// (exit 1, naming the model).
#[test]
fn pack_stores_the_models_and_every_open_rechecks_them() {
    use karc::archive::format::{self, SectionKind};
    use karc::archive::meta;
    use karc::archive::models::ModelsClaim;
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let config = fixture("adult/adult8.toml").display().to_string();
    let input = fixture("adult/adult.csv").display().to_string();
    let pack = [
        "pack",
        "-c",
        &config,
        &input,
        "--k",
        "5",
        "-a",
        "mondrian",
        "--no-encryption",
    ];
    let models = ["--sensitive", "salary-class", "--l", "2", "--t", "0.2"];
    let file = path("m.karc");
    let mut args: Vec<&str> = pack.to_vec();
    args.extend(models);
    args.extend(["-o", &file]);
    let (code, _, err) = outcome(&karc(&args));
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = outcome(&karc(&["verify", &file, "--json"]));
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let checks: Vec<(&str, bool)> = json["models"]["checks"]
        .as_array()
        .unwrap_or_else(|| panic!("{out}"))
        .iter()
        .map(|c| (c["model"].as_str().unwrap(), c["holds"].as_bool().unwrap()))
        .collect();
    assert_eq!(checks, [("l_diversity", true), ("t_closeness", true)]);
    let t = json["models"]["t_closeness"].as_f64().unwrap();
    assert!(t > 0.0 && t <= 0.2, "{t}");

    // The stored t lowered below the release's: every reader refuses it.
    let bytes = std::fs::read(&file).unwrap();
    let container = format::parse("m.karc".as_ref(), &bytes).unwrap();
    let mut sections: Vec<(SectionKind, Vec<u8>)> = container
        .entries
        .iter()
        .map(|e| (e.kind().unwrap(), bytes[e.range()].to_vec()))
        .collect();
    let at = sections
        .iter()
        .position(|(k, _)| *k == SectionKind::PrivacyModels)
        .expect("a PRIVACY_MODELS section");
    let claim: ModelsClaim = meta::from_bytes(&sections[at].1).unwrap();
    assert_eq!((claim.l, claim.t), (Some(2), Some(0.2)));
    let lowered = t * 0.9;
    sections[at].1 = meta::to_bytes(&ModelsClaim {
        t: Some(lowered),
        ..claim
    });
    let refs: Vec<(SectionKind, &[u8])> = sections.iter().map(|(k, b)| (*k, &b[..])).collect();
    let tampered = path("t.karc");
    std::fs::write(&tampered, format::assemble(&refs)).unwrap();
    // The values as the message prints them (JSON's t may differ in its
    // last digit).
    let want = format!("t_closeness (t={lowered}) on salary-class: the release has 0.1999");
    for command in [
        vec!["export", &tampered, "-o", "-"],
        vec!["inspect", &tampered],
        vec!["restore", &tampered, "-o", "-"],
    ] {
        let (code, out, err) = outcome(&karc(&command));
        assert_eq!(code, 1, "{command:?}: {err}");
        assert!(err.contains(&want), "{command:?}: {err}");
        assert!(out.is_empty(), "{command:?}");
    }
    let (code, _, _) = outcome(&karc(&["verify", &tampered]));
    assert_eq!(code, 1);
}

/// pack takes CASTLE's beta as --castle-beta (a streamed pack's), beside
/// the --beta of beta-likeness; a stream refuses the models beyond k.
#[test]
fn pack_tells_castle_beta_from_beta_likeness() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a.karc").display().to_string();
    let config = fixture("archive/source/small.toml").display().to_string();
    let input = fixture("archive/source/small.csv").display().to_string();
    let base = ["pack", "-c", &config, &input, "-o", &out, "--no-encryption"];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend(extra);
        outcome(&karc(&args))
    };
    let (code, _, err) = with(&["--castle-beta", "3"]);
    assert_eq!(
        (code, err.trim()),
        (
            2,
            "karc: error: --castle-beta applies to a streamed pack: add --stream"
        )
    );
    let (code, _, err) = with(&["--sensitive", "note", "--beta", "5"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = with(&[
        "--stream",
        "-a",
        "castle",
        "--delay",
        "4",
        "--castle-beta",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = with(&[
        "--stream",
        "-a",
        "castle",
        "--delay",
        "4",
        "--sensitive",
        "note",
        "--t",
        "0.5",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("FADS and CASTLE do not provide"), "{err}");
    // A model without --sensitive is refused too, not dropped.
    let (code, _, err) = with(&["--stream", "-a", "fads", "--delay", "4", "--t", "0.5"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("FADS and CASTLE do not provide"), "{err}");
}

/// `karc inspect` reports the release's re-identification risk from the
/// classes the file codes: on a claim of k alone (and several row groups)
/// it is the risk `verify --sensitive` measures on the rows.
#[test]
fn inspect_reports_the_risk_verify_measures() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.karc").display().to_string();
    let config = fixture("adult/adult8.toml").display().to_string();
    let input = fixture("adult/adult.csv").display().to_string();
    let o = karc(&[
        "pack",
        "-c",
        &config,
        &input,
        "-o",
        &file,
        "--k",
        "10",
        "-a",
        "datafly",
        "--no-encryption",
        "--suppression-limit",
        "0.01",
    ]);
    assert_eq!(outcome(&o).0, 0, "{}", outcome(&o).2);
    let json = |args: &[&str]| -> serde_json::Value {
        let (code, out, err) = outcome(&karc(args));
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let inspected = json(&["inspect", &file, "--json"]);
    let verified = json(&["verify", &file, "--sensitive", "salary-class", "--json"]);
    let (a, b) = (&inspected["risk"], &verified["models"]["risk"]);
    assert!(a["max_rir"].as_f64().unwrap() <= 0.1, "{a}");
    for key in ["marketer", "average_rir", "max_rir"] {
        let (x, y) = (a[key].as_f64().unwrap(), b[key].as_f64().unwrap());
        assert!((x - y).abs() <= 1e-12, "{key}: inspect {x}, verify {y}");
    }
    assert_eq!(a["prosecutor"], b["prosecutor"]);
}
