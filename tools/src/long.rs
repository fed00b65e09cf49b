//! Long files and functions, and the reasons written beside them.
//!
//! The house rule (issue #21) is no file over ~800 lines and no function
//! over ~80 lines *without a reason written beside it*. The reason is a plain
//! line comment starting `// Long:`:
//!
//! - for a function, in the comment and attribute lines directly above its
//!   `fn` line (above or among its doc comment and attributes);
//! - for a file, in the comment lines at its top, before the first line of
//!   code (after the `//!` module doc, for example).
//!
//! The reason runs on over the plain `//` lines right after the marker, so a
//! long reason may wrap. A blank line or a line of code ends the search: a
//! marker is never borrowed from an item further up.

use crate::structure::{Module, Token};

/// The marker that opens a reason.
pub const MARKER: &str = "// Long:";

/// A function over the line limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LongFn {
    pub name: String,
    /// The line of its `fn` keyword (1-based).
    pub line: usize,
    /// Lines from the `fn` keyword to the brace that closes its body.
    pub lines: usize,
    /// Its `// Long:` reason, if it has one.
    pub reason: Option<String>,
}

/// The files over `file_limit` lines and the long functions (as scanned)
/// that give no reason: `file` or `file:line name`, in scan order.
pub fn without_reason(modules: &[Module], file_limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    for m in modules {
        if m.lines > file_limit && m.reason.is_none() {
            out.push(m.file.clone());
        }
        for f in m.long_functions.iter().filter(|f| f.reason.is_none()) {
            out.push(format!("{}:{} {}", m.file, f.line, f.name));
        }
    }
    out
}

/// Functions longer than `limit` lines in `text` (lexed as `tokens`), from
/// the `fn` keyword to the brace that closes the body, with their reasons.
pub(crate) fn long_functions(tokens: &[(Token, usize)], text: &str, limit: usize) -> Vec<LongFn> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (t, w) in tokens.windows(2).enumerate() {
        let (Token::Ident(kw), Token::Ident(name)) = (&w[0].0, &w[1].0) else {
            continue;
        };
        if kw != "fn" {
            continue;
        }
        let Some(last) = body_end(tokens, t + 2) else {
            continue;
        };
        let n = last - w[0].1 + 1;
        if n > limit {
            out.push(LongFn {
                name: name.clone(),
                line: w[0].1,
                lines: n,
                reason: reason_above(&lines, w[0].1),
            });
        }
    }
    out
}

/// The line of the brace that closes the body opening at the first `{`
/// from token `j` on, or `None` for a declaration (a `;` comes first).
fn body_end(tokens: &[(Token, usize)], mut j: usize) -> Option<usize> {
    let mut angle = 0i32;
    while j < tokens.len() {
        match tokens[j].0 {
            Token::Punct('<') => angle += 1,
            Token::Punct('>') => angle -= 1,
            Token::Punct(';') if angle <= 0 => return None,
            Token::Punct('{') => break,
            _ => {}
        }
        j += 1;
    }
    let mut depth = 0;
    for (tok, line) in tokens.get(j..)? {
        match tok {
            Token::Punct('{') => depth += 1,
            Token::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    return Some(*line);
                }
            }
            _ => {}
        }
    }
    None
}

/// The reason in the comment and attribute lines directly above line
/// `fn_line` (1-based) of `lines`.
pub fn reason_above(lines: &[&str], fn_line: usize) -> Option<String> {
    let mut top = fn_line.saturating_sub(1).min(lines.len());
    // Walk up over `//` comments (doc or plain) and attributes, a
    // multi-line attribute (`#[error(` ... `)]`) as one.
    while top > 0 {
        let l = lines[top - 1].trim();
        if l.starts_with("//") || l.starts_with("#[") {
            top -= 1;
        } else if l == ")]" || l == "]" {
            let open = lines[..top - 1]
                .iter()
                .rposition(|l| l.trim().starts_with("#["))?;
            top = open;
        } else {
            break;
        }
    }
    reason_in(&lines[top..fn_line.saturating_sub(1).min(lines.len())])
}

/// The reason among the lines at the top of a file before its first line of
/// code (comments, blank lines and inner attributes such as `#![...]`).
pub fn file_reason(text: &str) -> Option<String> {
    let head: Vec<&str> = text
        .lines()
        .take_while(|l| {
            let l = l.trim();
            l.is_empty() || l.starts_with("//") || l.starts_with("#![")
        })
        .collect();
    reason_in(&head)
}

/// The first `// Long:` reason in `lines`, run on over the plain `//`
/// lines right after it.
fn reason_in(lines: &[&str]) -> Option<String> {
    let at = lines.iter().position(|l| l.trim().starts_with(MARKER))?;
    let mut reason = lines[at].trim()[MARKER.len()..].trim().to_owned();
    for l in &lines[at + 1..] {
        let l = l.trim();
        let plain = l.starts_with("//") && !l.starts_with("///") && !l.starts_with("//!");
        if !plain {
            break;
        }
        reason.push(' ');
        reason.push_str(l[2..].trim());
    }
    (!reason.is_empty()).then_some(reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::structure::lex;

    fn long(text: &str, limit: usize) -> Vec<(String, usize, usize, Option<String>)> {
        long_functions(&lex(text), text, limit)
            .into_iter()
            .map(|f| (f.name, f.line, f.lines, f.reason))
            .collect()
    }

    #[test]
    fn counts_long_functions_from_fn_to_closing_brace() {
        let body = "    let x = '{';\n".repeat(5);
        let text = format!(
            "fn short() {{}}\nfn long<T: Into<u8>>(t: T) -> u8 {{\n{body}    t.into()\n}}\n"
        );
        assert_eq!(long(&text, 5), vec![("long".to_owned(), 2, 8, None)]);
        assert!(long(&text, 8).is_empty());
    }

    #[test]
    fn a_line_continuation_in_a_string_still_counts_as_a_line() {
        let text = "const S: &str = \"a \\\n    b\";\n// Long: why\nfn f() {\n    let _ = 1;\n}\n";
        assert_eq!(
            long(text, 2),
            vec![("f".to_owned(), 4, 3, Some("why".to_owned()))]
        );
    }

    #[test]
    fn a_reason_above_the_doc_comment_and_attributes_is_the_functions() {
        let text = "\
fn before() {
    // Long: not this one: it sits inside another function
}
// Long: one match over the section kinds,
// in the format's order.
/// Does the thing.
#[inline]
#[allow(
    clippy::too_many_lines
)]
pub fn reasoned() {
    let _ = 1;
    let _ = 2;
}

// Long: a blank line parts it from the function below.

/// Doc.
fn bare() {
    let _ = 1;
    let _ = 2;
}
";
        assert_eq!(
            long(text, 3),
            vec![
                (
                    "reasoned".to_owned(),
                    11,
                    4,
                    Some("one match over the section kinds, in the format's order.".to_owned())
                ),
                ("bare".to_owned(), 19, 4, None),
            ]
        );
    }

    #[test]
    fn a_files_reason_sits_among_its_first_lines() {
        let reasoned = "//! Module doc.\n//!\n//! More.\n\n// Long: every blob's round trip in one place.\n\nuse a::b;\n";
        assert_eq!(
            file_reason(reasoned).as_deref(),
            Some("every blob's round trip in one place.")
        );
        assert_eq!(
            file_reason("// Long:\nfn f() {}\n"),
            None,
            "an empty reason"
        );
        assert_eq!(
            file_reason("//! Doc.\nuse a::b;\n// Long: below the code\n"),
            None
        );
        // A doc comment saying `// Long:` is not the marker.
        assert_eq!(file_reason("//! `// Long: x`\nfn f() {}\n"), None);
    }
}
