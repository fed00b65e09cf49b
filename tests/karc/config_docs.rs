//! Every ```toml block of docs/CONFIG.md parses with the real config
//! parser, and every builder in it builds.

use std::path::Path;

use karc::config::{Config, HierarchyConfig};

/// The ```toml blocks of a Markdown text, with their first line numbers.
fn toml_blocks(text: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        match (&mut current, line.trim_end()) {
            (None, "```toml") => current = Some((i + 2, String::new())),
            (Some(_), "```") => blocks.push(current.take().unwrap()),
            (Some((_, block)), line) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    assert!(current.is_none(), "an unclosed ```toml block");
    blocks
}

#[test]
fn every_toml_example_of_the_config_reference_parses() {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/CONFIG.md");
    let text = std::fs::read_to_string(&doc).unwrap();
    let blocks = toml_blocks(&text);
    assert!(blocks.len() >= 6, "found {} blocks", blocks.len());
    let mut builders = 0;
    for (line, block) in &blocks {
        let config = Config::parse(&doc, block)
            .unwrap_or_else(|e| panic!("docs/CONFIG.md block at line {line}: {e}"));
        for c in &config.columns {
            if let Some(HierarchyConfig::Build(spec)) = &c.hierarchy {
                spec.builder()
                    .unwrap_or_else(|e| panic!("line {line}: column {}: {e}", c.name));
                builders += 1;
            }
        }
    }
    assert!(builders >= 6, "{builders} builders");
}

#[test]
fn the_block_extractor_sees_every_block() {
    let text = "a\n```toml\nx = 1\n```\n```sh\nno\n```\n```toml\ny = 2\n```\n";
    assert_eq!(
        toml_blocks(text),
        vec![(3, "x = 1\n".to_owned()), (9, "y = 2\n".to_owned())]
    );
}

#[test]
fn a_bad_builder_is_refused_with_its_place() {
    let text = "[[columns]]\nname = \"a\"\nrole = \"quasi\"\nhierarchy = { intervals = [5, 12] }\n";
    let err = Config::parse(Path::new("c.toml"), text)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("c.toml:4:"), "{err}");
    assert!(err.contains("not a multiple"), "{err}");
    let text =
        "[[columns]]\nname = \"a\"\nrole = \"quasi\"\nhierarchy = { mask = 2, flat = true }\n";
    let err = Config::parse(Path::new("c.toml"), text)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("expected exactly one of mask, intervals, dates, flat; found 2"),
        "{err}"
    );
    let text = "[[columns]]\nname = \"a\"\nrole = \"quasi\"\nhierarchy = { masks = 2 }\n";
    let err = Config::parse(Path::new("c.toml"), text)
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown field `masks`"), "{err}");
    let text = "[[columns]]\nname = \"a\"\nrole = \"quasi\"\nhierarchy = 3\n";
    let err = Config::parse(Path::new("c.toml"), text)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("a hierarchy file's path or a builder table"),
        "{err}"
    );
}
