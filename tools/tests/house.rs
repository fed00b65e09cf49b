//! karc's own house plan (`tools/STRUCTURE.md`) stays sound: no import
//! circle, no import running back up, and the command line and the Python
//! package reach the library through `karc::api` only; every file over 800
//! lines and function over 80 gives its `// Long:` reason. Reads the repository's
//! sources; writes nothing.

use std::path::Path;

use karc_tools::facade::bypasses;
use karc_tools::long::without_reason;
use karc_tools::structure::{Plan, scan};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tools/ sits in the repository")
}

#[test]
fn the_library_has_no_circle_and_no_import_running_up() {
    let plan = Plan::build(scan(&repo().join("src"), 80).expect("scan src"), "karc");
    assert!(
        plan.rooms.iter().any(|r| r == "api"),
        "the scan found the facade"
    );
    let file = |i: usize| plan.modules[i].file.as_str();
    let circles: Vec<Vec<&str>> = plan
        .circles
        .iter()
        .map(|c| c.iter().map(|&i| file(i)).collect())
        .collect();
    assert!(circles.is_empty(), "import circles: {circles:?}");
    let up: Vec<(&str, &str)> = plan
        .upward
        .iter()
        .map(|&(a, b)| (file(a), file(b)))
        .collect();
    assert!(up.is_empty(), "imports running up: {up:?}");
}

#[test]
fn the_front_ends_reach_the_library_through_its_facade_only() {
    let src = scan(&repo().join("src"), 80).expect("scan src");
    let cli: Vec<_> = src
        .iter()
        .filter(|m| m.path.first().is_some_and(|p| p == "bin/karc"))
        .collect();
    assert!(cli.len() > 5, "the scan found the command line's files");
    assert_eq!(bypasses(cli, "karc", "api"), Vec::<(String, String)>::new());
    let python = scan(&repo().join("python/src"), 80).expect("scan python/src");
    assert!(!python.is_empty(), "the scan found the Python package");
    assert_eq!(
        bypasses(&python, "karc", "api"),
        Vec::<(String, String)>::new()
    );
}

#[test]
fn every_long_file_and_function_says_why() {
    // The limits `tools/STRUCTURE.md` lists against (the structure tool's defaults).
    let src = scan(&repo().join("src"), 80).expect("scan src");
    assert!(
        src.iter().any(|m| !m.long_functions.is_empty()),
        "the scan measured functions"
    );
    assert_eq!(without_reason(&src, 800), Vec::<String>::new());
    let python = scan(&repo().join("python/src"), 80).expect("scan python/src");
    assert_eq!(without_reason(&python, 800), Vec::<String>::new());
}
