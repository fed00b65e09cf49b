//! `karc report` (docs/REPORT.md): the page parses, a default page holds no
//! value the release hides and no identifier, an internal page says so,
//! the JSON's models are `verify --json`'s, names from files are escaped,
//! a third party's release CSV is reported, and the committed example is
//! what its command writes.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use karc::archive::reader::{Archive, ClaimCheck};

use crate::common::{fixture, karc, outcome};
use crate::public_bytes::{airports_table, init};
use crate::public_scan::{hidden_values, tokens};

/// The time the committed example states (`SOURCE_DATE_EPOCH`).
const EXAMPLE_TIME: &str = "1767225600";

/// Runs karc in `dir` with `env`, expecting success; its stdout.
fn run_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_karc"))
        .current_dir(dir)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "karc {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Checks that `html` nests its elements: every opened element closed in
/// order (void elements and `/>` aside), nothing after `</html>`. A page
/// that passes parses in any browser as written.
fn assert_well_formed(html: &str) {
    const VOID: [&str; 4] = ["meta", "br", "hr", "img"];
    let mut stack: Vec<String> = Vec::new();
    let mut rest = html;
    assert!(html.starts_with("<!DOCTYPE html>"));
    while let Some(at) = rest.find('<') {
        let end = rest[at..].find('>').expect("a tag ends") + at;
        let tag = &rest[at + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') {
            continue;
        }
        let name: String = (tag.trim_start_matches('/').chars())
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        assert!(!name.is_empty(), "a bare '<' in text: <{tag}>");
        if let Some(closed) = tag.strip_prefix('/') {
            let open = stack.pop().unwrap_or_default();
            assert_eq!(open, closed, "</{closed}> closes <{open}>");
        } else if !tag.ends_with('/') && !VOID.contains(&name.as_str()) {
            if name == "style" {
                let close = rest.find("</style>").expect("style closes");
                rest = &rest[close..];
            }
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    assert!(html.trim_end().ends_with("</html>"));
}

/// Packs `config` over `input` with `args`, unencrypted, into `dir`; the
/// archive and its published copy.
fn pack(dir: &Path, name: &str, config: &Path, input: &Path, args: &[&str]) -> (PathBuf, PathBuf) {
    let packed = dir.join(format!("{name}.karc"));
    let published = dir.join(format!("{name}-published.karc"));
    let mut all = vec![
        "pack",
        "-c",
        config.to_str().unwrap(),
        input.to_str().unwrap(),
        "--no-encryption",
        "-o",
        packed.to_str().unwrap(),
    ];
    all.extend(args);
    let (code, _, err) = outcome(&karc(&all));
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = outcome(&karc(&[
        "publish",
        packed.to_str().unwrap(),
        "-o",
        published.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{err}");
    (packed, published)
}

/// The report of `file` (`args` before it), as text.
fn report(file: &Path, args: &[&str]) -> String {
    let mut all = vec!["report"];
    all.extend(args);
    all.extend([file.to_str().unwrap(), "-o", "-"]);
    let (code, out, err) = outcome(&karc(&all));
    assert_eq!(code, 0, "report {args:?}: {err}");
    out
}

/// The hidden QI values of `packed` (of at least `min` characters) that
/// appear as a token of `page`.
fn leaks(packed: &Path, original: &Path, page: &str, min: usize) -> (Vec<String>, usize) {
    let archive = Archive::open(packed, ClaimCheck::Enforce).unwrap();
    let mut found = HashSet::new();
    tokens(page, &mut found);
    let mut leaks = Vec::new();
    let mut hidden = 0;
    for (column, values) in hidden_values(&archive, packed, original) {
        for v in values.iter().filter(|v| v.chars().count() >= min) {
            hidden += 1;
            if found.contains(v.as_str()) {
                leaks.push(format!("{column}: {v}"));
            }
        }
    }
    (leaks, hidden)
}

#[test]
fn default_report_shows_no_hidden_value_and_internal_says_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = fixture("adult/adult.csv");
    let (packed, published) = pack(
        d,
        "adult",
        &fixture("adult/adult8.toml"),
        &input,
        &[
            "-a",
            "mondrian",
            "-k",
            "10",
            "--sensitive",
            "salary-class",
            "--l",
            "2",
        ],
    );
    for file in [&packed, &published] {
        let page = report(file, &[]);
        assert_well_formed(&page);
        assert!(page.contains("Non-disclosive report"));
        assert!(!page.contains("INTERNAL"));
        assert!(page.matches("<svg").count() >= 3, "the charts");
        for section in [
            "id=\"claim\"",
            "id=\"models\"",
            "id=\"risk\"",
            "id=\"classes\"",
        ] {
            assert!(page.contains(section), "{section}");
        }
        assert!(page.contains("intervals fitted to the classes"));
        // Adult's hidden values with a letter: numbers are everywhere on a
        // report (counts, sizes), the next test scans a table whose hidden
        // numbers are long.
        let (found, hidden) = leaks(&packed, &input, &page, 1);
        let found: Vec<&String> = (found.iter())
            .filter(|v| v.chars().any(char::is_alphabetic))
            .collect();
        assert!(hidden > 0, "the release hides values: the scan can fail");
        assert!(found.is_empty(), "hidden values on the page: {found:?}");
    }
    let internal = report(&packed, &["--internal"]);
    assert_well_formed(&internal);
    assert!(internal.contains("INTERNAL REPORT, for the publisher only"));
    assert!(internal.contains("id=\"internal\""));
    assert!(
        internal.contains("zip of the original"),
        "unencrypted: sizes"
    );
    // A key is for internal reports only: exit 2, one line.
    let key = d.join("pw");
    std::fs::write(&key, "secret\n").unwrap();
    let (code, _, err) = outcome(&karc(&[
        "report",
        packed.to_str().unwrap(),
        "--passphrase-file",
        key.to_str().unwrap(),
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--internal"), "{err}");
}

#[test]
fn report_of_exact_coordinates_shows_no_hidden_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join("airports.csv");
    std::fs::write(&input, airports_table(400)).unwrap();
    let config = init(&input, "latitude,longitude", None);
    let mut findings = Vec::new();
    let mut hidden = 0;
    for algorithm in ["datafly", "mondrian"] {
        let (packed, published) =
            pack(d, algorithm, &config, &input, &["-a", algorithm, "-k", "5"]);
        let mut page = report(&published, &[]);
        page.push_str(&report(&published, &["--json"]));
        let (found, n) = leaks(&packed, &input, &page, 6);
        findings.extend(found);
        hidden += n;
    }
    assert!(
        hidden > 0,
        "the releases hide coordinates: the scan can fail"
    );
    assert!(
        findings.is_empty(),
        "hidden coordinates on a page: {findings:?}"
    );
}

#[test]
fn report_json_models_are_verify_json_models() {
    let dir = tempfile::tempdir().unwrap();
    let (packed, _) = pack(
        dir.path(),
        "adult",
        &fixture("adult/adult8.toml"),
        &fixture("adult/adult.csv"),
        &[
            "-a",
            "datafly",
            "-k",
            "5",
            "--sensitive",
            "salary-class",
            "--t",
            "0.5",
        ],
    );
    let json: serde_json::Value = serde_json::from_str(&report(&packed, &["--json"])).unwrap();
    let (code, out, err) = outcome(&karc(&["--json", "verify", packed.to_str().unwrap()]));
    assert_eq!(code, 0, "{err}");
    let verify: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["schema"], "karc.report/1");
    assert_eq!(json["models"], verify["models"]);
    assert!(json["models"]["t_closeness"].as_f64().is_some());
    let checks = json["claim"]["checks"].as_array().unwrap();
    let t = checks.iter().find(|c| c["model"] == "t_closeness").unwrap();
    let value = t["value"].as_f64().unwrap();
    assert_eq!(t["margin"].as_f64().unwrap(), 0.5 - value);
    assert_eq!(json["class_sizes"], verify["constraints"][0]["histogram"]);
}

/// The claim pyCANON's Adult release is reported under: k = 10 and
/// distinct 2-diversity of `salary-class` on six QIs.
const RELEASE_CLAIM: [&str; 8] = [
    "--qi",
    "age,education,occupation,relationship,sex,native-country",
    "--k",
    "10",
    "--sensitive",
    "salary-class",
    "--l",
    "2",
];

#[test]
fn release_csv_is_reported_under_the_claim_given() {
    let file = fixture("pycanon/adult_anonymized_10.csv");
    let args = RELEASE_CLAIM;
    let mut json_args = vec!["--json"];
    json_args.extend(args);
    let json: serde_json::Value = serde_json::from_str(&report(&file, &json_args)).unwrap();
    let mut verify = vec!["--json", "verify", file.to_str().unwrap()];
    verify.extend(args);
    let (_, out, _) = outcome(&karc(&verify));
    let verify: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["source"]["kind"], "table");
    assert_eq!(json["models"], verify["models"]);
    assert_eq!(json["claim"]["holds"], verify["holds"]);
    assert_eq!(json["generalization"].as_array().unwrap().len(), 6);
    let page = report(&file, &args);
    assert_well_formed(&page);
    assert!(page.contains("Not available for a release table"));
}

#[test]
fn hostile_names_and_values_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("hostile.csv");
    let header = "\"<script>alert(1)</script>\",\"a\"\"b'c\",\"\x1b[31mred\"\n";
    let mut text = header.to_owned();
    for i in 0..6 {
        text += &format!(
            "\"<b>{}</b>\",\"x\"\"y\",\"\x1b]0;title\x07v{}\"\n",
            i % 2,
            i % 3
        );
    }
    std::fs::write(&csv, text).unwrap();
    let qi = "<script>alert(1)</script>,a\"b'c";
    let page = report(
        &csv,
        &[
            "--internal",
            "--qi",
            qi,
            "--k",
            "1",
            "--sensitive",
            "\x1b[31mred",
            "--l",
            "1",
        ],
    );
    assert_well_formed(&page);
    assert!(!page.contains("<script>"), "a name as markup");
    assert!(!page.contains("<b>"), "a value as markup");
    assert!(
        !page.contains('\x1b') && !page.contains('\x07'),
        "control bytes"
    );
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("a&quot;b&#39;c"));
    assert!(page.contains("\\x1B[31mred"));
}

/// docs/report-example.html is what docs/REPORT.md's commands write.
#[test]
fn the_committed_example_report_is_reproduced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let config = fixture("adult/adult8.toml");
    let input = fixture("adult/adult.csv");
    let env = [("SOURCE_DATE_EPOCH", EXAMPLE_TIME)];
    run_in(
        d,
        &[
            "pack",
            "-c",
            config.to_str().unwrap(),
            "-a",
            "mondrian",
            "-k",
            "10",
            "--sensitive",
            "salary-class",
            "--l",
            "2",
            "--no-encryption",
            input.to_str().unwrap(),
            "-o",
            "adult.karc",
        ],
        &env,
    );
    run_in(
        d,
        &["publish", "adult.karc", "-o", "adult-published.karc"],
        &env,
    );
    let page = run_in(d, &["report", "adult-published.karc", "-o", "-"], &env);
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report-example.html");
    let expected = std::fs::read(&committed).unwrap_or_default();
    assert!(
        page == expected,
        "docs/report-example.html differs from what docs/REPORT.md's commands write: regenerate it"
    );
}

/// Debian's headless Chromium renders the pages (which .ci/run installs):
/// an archive's with l-diversity (the committed example) and a third
/// party's release CSV's, each a PNG and no console error. Without a
/// `chromium` on the path the test says so and checks nothing.
#[test]
fn chromium_renders_the_page_without_a_console_error() {
    let Ok(found) = Command::new("chromium").arg("--version").output() else {
        eprintln!("no chromium on the path: the page is not rendered (.ci/run installs it)");
        return;
    };
    assert!(found.status.success());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report-example.html");
    std::fs::copy(example, d.join("archive.html")).unwrap();
    let release = fixture("pycanon/adult_anonymized_10.csv");
    let page = report(&release, &RELEASE_CLAIM);
    std::fs::write(d.join("release.html"), page).unwrap();
    for name in ["archive", "release"] {
        render_in_chromium(d, name);
    }
}

/// Renders `dir/NAME.html` to `dir/NAME.png`: no console message, a PNG.
fn render_in_chromium(d: &Path, name: &str) {
    let page = d.join(format!("{name}.html"));
    let png = d.join(format!("{name}.png"));
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1000,3000",
        ])
        .arg(format!(
            "--user-data-dir={}",
            d.join(format!("profile-{name}")).display()
        ))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name}: {log}");
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "{name}: console messages: {console:?}");
    let bytes = std::fs::read(&png).unwrap();
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 20_000,
        "{name}: a rendered page"
    );
}
