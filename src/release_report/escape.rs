//! Texts from files made safe for the page: one function below both the
//! HTML and its SVG charts.

use std::fmt::Write;

/// `text` safe inside HTML text and attribute values: `& < > " '` as
/// entities, and control characters (ESC, NUL, ...) written out as `\x1B`
/// so that nothing a file holds can reach a terminal or break the page.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => {
                let _ = write!(out, "\\x{:02X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_quotes_and_control_characters() {
        assert_eq!(
            escape("<a href=\"x\">'&'</a>\u{1b}[31m"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;\\x1B[31m"
        );
    }
}
