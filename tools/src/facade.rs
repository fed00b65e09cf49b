//! Whether front ends reach the library through its facade only: a path in
//! a front end's code that names the library must go on with the facade
//! module (`karc::api::Config`, not `karc::config::Config`), so the command
//! line and the Python package stay thin shells over one entry point.
//!
//! The check is lexical, as the structure scan is ([`crate::structure`]):
//! comments and strings are not code; a re-export in the facade is fine
//! (it is the facade's choice to show the item).

use crate::structure::Module;

/// The paths in `modules` that name crate `library` but not its facade
/// module `facade`: (file, path as written with `::`), in file order.
pub fn bypasses<'a>(
    modules: impl IntoIterator<Item = &'a Module>,
    library: &str,
    facade: &str,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for m in modules {
        for p in m.paths() {
            if p.len() >= 2 && p[0] == library && p[1] != facade {
                out.push((m.file.clone(), p.join("::")));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::structure::scan;

    #[test]
    fn finds_the_paths_that_pass_the_facade_by() {
        let dir = tempfile::tempdir().expect("temp dir");
        let bin = dir.path().join("bin/tool");
        std::fs::create_dir_all(&bin).expect("mkdir");
        std::fs::write(dir.path().join("lib.rs"), "pub mod api;\npub mod low;\n").expect("write");
        std::fs::write(
            bin.join("main.rs"),
            "use lib::api::{self, X};\nuse lib::{api::Y, low::Z};\n\
             // lib::low::comment\nfn main() { let _ = lib::low::f(); let _s = \"lib::low\"; }\n",
        )
        .expect("write");
        let modules = scan(dir.path(), 80).expect("scan");
        let front: Vec<&Module> = modules
            .iter()
            .filter(|m| m.path.first().is_some_and(|p| p.starts_with("bin/")))
            .collect();
        assert_eq!(
            bypasses(front, "lib", "api"),
            vec![
                ("bin/tool/main.rs".to_owned(), "lib::low::Z".to_owned()),
                ("bin/tool/main.rs".to_owned(), "lib::low::f".to_owned()),
            ]
        );
    }
}
