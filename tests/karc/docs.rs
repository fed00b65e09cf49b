//! Every figure README.md and docs/ quote comes from a command this test
//! runs again. A ```` ```console ```` block is a transcript: each `$ `
//! line is a command (a line ending in `\` goes on), the lines after it
//! until the next `$ ` are what it prints (standard output and standard
//! error, as a terminal shows them), and a last `(exit N)` line is its exit
//! status (0 when absent). In an expected line, `[..]` stands for any text
//! (times, which vary from run to run). A file's blocks run in order in one
//! temporary folder holding `fixtures` and `docs` (links to the
//! repository's, read only), with the built `karc` first on `PATH`, so a
//! later block may use what an earlier one wrote.
//!
//! When a figure changes on purpose (a new format, a better coder), run
//! `KARC_BLESS_DOCS=1 cargo test --release --test karc docs::` to write
//! every transcript's new output into its file (the `[..]` of lines that
//! still match are kept); read the diff before committing it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The pages whose transcripts are checked: README.md and every docs/ page.
fn pages() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// One `$ ` command of a transcript and what it is expected to print.
struct Step {
    /// The command as the shell reads it (continuations joined).
    command: String,
    /// The expected lines, `(exit N)` taken off.
    expected: Vec<String>,
    /// The expected exit status.
    status: i32,
    /// The page's lines the expected output occupies (`[start, end)`),
    /// `(exit N)` included, for blessing.
    span: (usize, usize),
}

/// The transcripts of a page: its steps, block by block, in order.
fn transcripts(text: &str) -> Vec<Step> {
    let lines: Vec<&str> = text.lines().collect();
    let mut steps = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != "```console" {
            i += 1;
            continue;
        }
        i += 1;
        let mut current: Option<Step> = None;
        while i < lines.len() && lines[i].trim_end() != "```" {
            let line = lines[i];
            if let Some(first) = line.strip_prefix("$ ") {
                steps.extend(current.take());
                let mut command = first.to_owned();
                while command.ends_with('\\') && i + 1 < lines.len() {
                    command.pop();
                    i += 1;
                    command.push_str(lines[i]);
                }
                current = Some(Step {
                    command,
                    expected: Vec::new(),
                    status: 0,
                    span: (i + 1, i + 1),
                });
            } else if let Some(step) = current.as_mut() {
                step.expected.push(line.to_owned());
                step.span.1 = i + 1;
            } else {
                panic!("line {}: a console block starts with a `$ ` command", i + 1);
            }
            i += 1;
        }
        steps.extend(current.take());
        i += 1;
    }
    for step in &mut steps {
        if let Some(last) = step.expected.last()
            && let Some(code) = last
                .strip_prefix("(exit ")
                .and_then(|c| c.strip_suffix(')'))
        {
            step.status = code.parse().expect("(exit N)");
            step.expected.pop();
        }
    }
    steps
}

/// Whether `actual` matches `expected`, where `[..]` stands for any text.
fn matches(expected: &str, actual: &str) -> bool {
    let mut parts = expected.split("[..]");
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (n, part) in parts.iter().enumerate() {
        if n + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// Runs a step in `dir`: its status and its output lines (standard error
/// and standard output through one pipe, in the order they were written).
fn run(step: &Step, dir: &Path) -> (i32, Vec<String>) {
    let karc = Path::new(env!("CARGO_BIN_EXE_karc"));
    let path = std::env::join_paths(std::iter::once(karc.parent().unwrap().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1; {}", step.command))
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let lines = text.lines().map(str::to_owned).collect();
    (output.status.code().unwrap_or(-1), lines)
}

/// The lines a blessed transcript gets: the actual ones, each expected line
/// with `[..]` kept where it still matches; a line whose figures changed
/// but that ended in `[..]` (the times of a fixed-width table) keeps its
/// ending: the actual line up to the same width, then `[..]`.
fn blessed(step: &Step, status: i32, actual: &[String]) -> Vec<String> {
    let mut out: Vec<String> = actual
        .iter()
        .enumerate()
        .map(|(n, a)| match step.expected.get(n) {
            Some(e) if e.contains("[..]") && matches(e, a) => e.clone(),
            Some(e) => match e.strip_suffix("[..]") {
                Some(kept) if a.is_char_boundary(kept.len()) && a.len() >= kept.len() => {
                    format!("{}[..]", &a[..kept.len()])
                }
                _ => a.clone(),
            },
            None => a.clone(),
        })
        .collect();
    if status != 0 {
        out.push(format!("(exit {status})"));
    }
    out
}

#[cfg(unix)]
#[test]
fn every_transcript_in_the_readme_and_docs_prints_what_it_quotes() {
    let bless = std::env::var_os("KARC_BLESS_DOCS").is_some();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut failures = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let steps = transcripts(&text);
        if steps.is_empty() {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        for shared in ["fixtures", "docs"] {
            std::os::unix::fs::symlink(root.join(shared), dir.path().join(shared)).unwrap();
        }
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        // Spans shift as blessed outputs change length: edit from the end.
        let mut edits = Vec::new();
        for step in &steps {
            let (status, actual) = run(step, dir.path());
            checked += 1;
            let same = status == step.status
                && actual.len() == step.expected.len()
                && step
                    .expected
                    .iter()
                    .zip(&actual)
                    .all(|(e, a)| matches(e, a));
            if same {
                continue;
            }
            if bless {
                edits.push((step.span, blessed(step, status, &actual)));
            } else {
                failures.push(format!(
                    "{}: `$ {}` (exit {status}, expected {}) printed:\n{}\nexpected:\n{}",
                    page.display(),
                    step.command,
                    step.status,
                    actual.join("\n"),
                    step.expected.join("\n")
                ));
            }
        }
        if bless && !edits.is_empty() {
            for ((start, end), new) in edits.into_iter().rev() {
                lines.splice(start..end, new);
            }
            std::fs::write(&page, lines.join("\n") + "\n").unwrap();
        }
    }
    assert!(checked >= 10, "only {checked} transcript steps found");
    assert!(
        failures.is_empty(),
        "{} transcript(s) differ (KARC_BLESS_DOCS=1 rewrites them):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_transcript_reader_and_its_wildcards() {
    let page = "text\n```console\n$ karc a \\\n  --b\nout [..] ms\n(exit 2)\n$ true\n```\n";
    let steps = transcripts(page);
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0].command, "karc a   --b");
    assert_eq!(steps[0].expected, ["out [..] ms"]);
    assert_eq!((steps[0].status, steps[1].status), (2, 0));
    assert_eq!(steps[0].span, (4, 6));
    assert!(matches("out [..] ms", "out 13.8 ms"));
    assert!(matches("[..]", ""));
    assert!(matches("a [..] b [..]", "a 1 b 2"));
    assert!(!matches("out [..] ms", "out 13.8 s"));
    assert!(!matches("exact", "exact and more"));
    assert!(!matches("a[..]b[..]c", "a b"));
}
