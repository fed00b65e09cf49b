//! Text from a file, made safe to show on a terminal: a column name, label
//! or parameter of a forged archive could otherwise carry escape sequences
//! or line breaks that redraw the screen (issue 32: a name that printed
//! "claim holds" and hid the "claim FAILS" after it).

use std::borrow::Cow;

/// `text` with every control character (C0, DEL, C1), every bidirectional
/// override or isolate, and the line and paragraph separators written as
/// `\u{..}` escapes (`\t`, `\n`, `\r` as themselves escaped); other text as
/// it is, borrowed when nothing needs escaping.
pub fn shown(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
}

/// Each of `names`, [`shown`].
pub fn all_shown<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<Cow<'a, str>> {
    names.into_iter().map(shown).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_bidi_characters_are_escaped_and_the_rest_kept() {
        assert!(matches!(shown("âge 2"), Cow::Borrowed("âge 2")));
        assert_eq!(
            shown("a\x1b[2Kb\nclaim holds"),
            "a\\u{1b}[2Kb\\nclaim holds"
        );
        assert_eq!(shown("x\u{202E}y\u{9b}"), "x\\u{202e}y\\u{9b}");
        assert_eq!(all_shown(["a\r", "b"]).join(","), "a\\r,b");
    }
}
