//! Where in a config's text a key is, so that an error found after
//! parsing (a k of 0, an unknown column) names its line and column as a
//! parse error does (docs/CONFIG.md).

/// A config's source text, kept to locate errors: not part of what the
/// config means, so two configs equal whatever text they came from.
#[derive(Clone, Default)]
pub(super) struct SourceText(pub(super) String);

impl PartialEq for SourceText {
    fn eq(&self, _: &SourceText) -> bool {
        true
    }
}

impl std::fmt::Debug for SourceText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} bytes of TOML", self.0.len())
    }
}

/// A step into a config's TOML document: a key, or an entry of an array
/// (`[[columns]]`).
#[derive(Debug, Clone, Copy)]
pub enum TomlKey<'a> {
    /// A key of a table.
    Name(&'a str),
    /// An entry of an array.
    Index(usize),
}

/// `":line:column"` (1-based) of the last of `keys` in `text`, for an error
/// found after parsing (semantic: a k of 0, an unknown column); empty when
/// the key is not in the text (a value given by a flag or a default).
pub fn locate(text: &str, keys: &[TomlKey]) -> String {
    use toml::de::{DeTable, DeValue};
    let Ok(doc) = DeTable::parse(text) else {
        return String::new();
    };
    let mut table = Some(doc.get_ref());
    let mut array: Option<&[toml::Spanned<DeValue>]> = None;
    let mut span = None;
    for key in keys {
        let value = match *key {
            TomlKey::Name(name) => table
                .and_then(|t| t.iter().find(|(k, _)| k.get_ref() == name))
                .map(|(k, v)| {
                    span = Some(k.span());
                    v
                }),
            TomlKey::Index(i) => array
                .and_then(|a| a.get(i))
                .inspect(|v| span = Some(v.span())),
        };
        let Some(value) = value else {
            return String::new();
        };
        table = value.get_ref().as_table();
        array = value.get_ref().as_array().map(|a| &a[..]);
    }
    span.map_or_else(String::new, |s| {
        let (line, column) = line_col(text, s.start);
        format!(":{line}:{column}")
    })
}

/// 1-based line and column of a byte offset.
pub(super) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rfind('\n')
        .map_or(before.len(), |i| before.len() - i - 1)
        + 1;
    (line, column)
}
