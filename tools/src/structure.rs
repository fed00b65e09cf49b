//! The house plan of a Rust crate: which module imports which, drawn as
//! floors, with the import circles and the imports that run back up.
//!
//! - A *module* is one `.rs` file; the module tree comes from the `mod`
//!   declarations, starting at `lib.rs` and at each `bin/<name>/main.rs` (or
//!   `bin/<name>.rs`), the usual file layout (`a.rs` or `a/mod.rs`, children
//!   in `a/`).
//! - An *import* is a path in the code (`use` trees and inline paths) that
//!   starts with `crate::`, `super::`, `self::`, a child module's name, or
//!   (in a binary) the library's name; it points at the deepest module the
//!   path names, following `pub use` re-exports (`crate::Error` is
//!   `error.rs`'s). A module naming one of its ancestors is not an import:
//!   the ancestor declares it and owns the types it works on (containment);
//!   so items defined in `lib.rs` itself (`crate::Result`) count for no room.
//! - A *room* is a top-level module (`src/codec.rs` with `src/codec/`), or a
//!   whole binary. Rooms sit on *floors*: floor 0 imports nothing; a room's
//!   floor is one above the highest room it imports. Rooms that import each
//!   other (a circle of rooms) are ordered by the greedy feedback-arc rule of
//!   Eades, Lin and Smyth (1993) on the number of imports, so the fewest
//!   imports point up; those that do are the imports that *run up*.
//! - A *circle* is a set of modules (files) that import each other
//!   (a strongly connected component of two or more modules, Tarjan 1972).
//!
//! The scan is lexical (comments, strings and char literals skipped) and
//! needs no compiler; it does not see paths made by macros, and does not
//! follow glob re-exports (`pub use a::*`), which name no item.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::long::{LongFn, file_reason, long_functions};

/// One module: a file and its place in the module tree.
#[derive(Debug, Clone)]
pub struct Module {
    /// Path segments from the crate root: `["codec", "originals"]`; a
    /// binary's modules start with `bin/<name>`.
    pub path: Vec<String>,
    /// The file, relative to the scanned `src/`.
    pub file: String,
    pub lines: usize,
    /// The file's `// Long:` reason, if it gives one ([`crate::long`]).
    pub reason: Option<String>,
    /// Functions longer than the limit, with their reasons.
    pub long_functions: Vec<LongFn>,
    /// Child module names declared with `mod`.
    children: Vec<String>,
    /// Names re-exported with `pub use` (not globs), with the path as written.
    reexports: Vec<(String, Vec<String>)>,
    tokens: Vec<Token>,
}

impl Module {
    /// The paths the module's code names (`use` trees expanded), as written.
    pub fn paths(&self) -> Vec<Vec<String>> {
        paths(&self.tokens)
    }
}

/// A lexical token: an identifier, `::`, or one punctuation character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    Ident(String),
    PathSep,
    Punct(char),
}

/// The crate's modules and their imports.
#[derive(Debug)]
pub struct Plan {
    pub modules: Vec<Module>,
    /// (importer, imported) module indices, with the number of paths.
    pub imports: BTreeMap<(usize, usize), usize>,
    /// Room of each module (index into `rooms`).
    pub room_of: Vec<usize>,
    pub rooms: Vec<String>,
    /// Floor of each room.
    pub floors: Vec<usize>,
    /// Circles of modules, each sorted by file.
    pub circles: Vec<Vec<usize>>,
    /// Imports from a room to a room on the same floor or above.
    pub upward: Vec<(usize, usize)>,
}

/// Reads and lexes `text`, returning tokens with the line each starts on.
pub(crate) fn lex(text: &str) -> Vec<(Token, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i..].starts_with(b"/*") {
                        depth += 1;
                        i += 2;
                    } else if b[i..].starts_with(b"*/") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        line += usize::from(b[i] == b'\n');
                        i += 1;
                    }
                }
            }
            b'"' => i = skip_string(b, i + 1, 0, &mut line),
            b'r' if raw_string_hashes(b, i + 1).is_some() => {
                let hashes = raw_string_hashes(b, i + 1).expect("checked");
                i = skip_string(b, i + 2 + hashes, hashes, &mut line);
            }
            b'b' if b.get(i + 1) == Some(&b'"') => i = skip_string(b, i + 2, 0, &mut line),
            b'b' if b.get(i + 1) == Some(&b'\'') => i = skip_char(b, i + 1),
            b'\'' => i = skip_char(b, i),
            _ if c == b'_' || c.is_ascii_alphabetic() => {
                let start = i;
                while i < b.len() && (b[i] == b'_' || b[i].is_ascii_alphanumeric()) {
                    i += 1;
                }
                out.push((Token::Ident(text[start..i].to_owned()), line));
            }
            b':' if b.get(i + 1) == Some(&b':') => {
                out.push((Token::PathSep, line));
                i += 2;
            }
            _ if c.is_ascii_whitespace() || c.is_ascii_digit() => i += 1,
            _ => {
                out.push((Token::Punct(c as char), line));
                i += 1;
            }
        }
    }
    out
}

/// `r"`, `r#"`, ...: the number of `#`, when a raw string starts at `i`.
fn raw_string_hashes(b: &[u8], i: usize) -> Option<usize> {
    let hashes = b[i.min(b.len())..]
        .iter()
        .take_while(|&&c| c == b'#')
        .count();
    (b.get(i + hashes) == Some(&b'"')).then_some(hashes)
}

/// The index after a string whose body starts at `i` and ends at `"`
/// followed by `hashes` `#` (escapes only when not raw).
fn skip_string(b: &[u8], mut i: usize, hashes: usize, line: &mut usize) -> usize {
    let raw = hashes > 0 || (i >= 2 && b[i - 2] == b'r');
    while i < b.len() {
        match b[i] {
            b'\\' if !raw => {
                // A `\` line continuation still ends a line.
                *line += usize::from(b.get(i + 1) == Some(&b'\n'));
                i += 2;
            }
            b'"' if b[i + 1..].iter().take(hashes).all(|&c| c == b'#')
                && b.len() >= i + 1 + hashes =>
            {
                return i + 1 + hashes;
            }
            c => {
                *line += usize::from(c == b'\n');
                i += 1;
            }
        }
    }
    i
}

/// The index after a char literal at `i` (a `'`), or after the `'` alone
/// when it starts a lifetime or label.
fn skip_char(b: &[u8], i: usize) -> usize {
    if b.get(i + 1) == Some(&b'\\') {
        let mut j = i + 2;
        while j < b.len() && b[j] != b'\'' {
            j += 1;
        }
        return j + 1;
    }
    // 'x' (one UTF-8 character) is a char; 'a without a closing quote a lifetime.
    let len = b.get(i + 1).map_or(1, |&c| {
        if c < 0x80 {
            1
        } else {
            c.leading_ones() as usize
        }
    });
    if b.get(i + 1 + len) == Some(&b'\'') {
        i + 2 + len
    } else {
        i + 1
    }
}

/// Reads the module tree under `src` (the library at `lib.rs`, binaries in
/// `bin/`), with functions over `fn_limit` lines.
pub fn scan(src: &Path, fn_limit: usize) -> std::io::Result<Vec<Module>> {
    let mut modules = Vec::new();
    if src.join("lib.rs").is_file() {
        load_tree(
            src,
            &src.join("lib.rs"),
            &src.join("lib.rs"),
            Vec::new(),
            fn_limit,
            &mut modules,
        )?;
    }
    let bin = src.join("bin");
    if bin.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&bin)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()?;
        entries.sort();
        for e in entries {
            let (root, name) = if e.is_dir() && e.join("main.rs").is_file() {
                (e.join("main.rs"), e.file_name())
            } else if e.extension().is_some_and(|x| x == "rs") {
                (e.clone(), e.file_stem())
            } else {
                continue;
            };
            let name = format!("bin/{}", name.expect("entry name").to_string_lossy());
            load_tree(src, &root, &root, vec![name], fn_limit, &mut modules)?;
        }
    }
    Ok(modules)
}

/// Loads the module in `file` at `path` and, recursively, the modules it
/// declares. `dir_owner` is the file whose directory holds its children
/// (`a.rs` -> `a/`, `mod.rs`/`lib.rs`/`main.rs` -> their own directory).
fn load_tree(
    src: &Path,
    file: &Path,
    dir_owner: &Path,
    path: Vec<String>,
    fn_limit: usize,
    out: &mut Vec<Module>,
) -> std::io::Result<()> {
    let text = std::fs::read_to_string(file)?;
    let lexed = lex(&text);
    let stem = dir_owner.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let child_dir = if matches!(stem, "mod" | "lib" | "main")
        || path.len() == 1 && path[0].starts_with("bin/")
    {
        dir_owner
            .parent()
            .expect("file in a directory")
            .to_path_buf()
    } else {
        dir_owner.with_extension("")
    };
    let mut children = Vec::new();
    for w in lexed.windows(3) {
        if let (Token::Ident(m), Token::Ident(name), Token::Punct(';')) =
            (&w[0].0, &w[1].0, &w[2].0)
            && m == "mod"
        {
            children.push(name.clone());
        }
    }
    out.push(Module {
        path: path.clone(),
        file: file
            .strip_prefix(src)
            .unwrap_or(file)
            .to_string_lossy()
            .into_owned(),
        lines: text.lines().count(),
        reason: file_reason(&text),
        long_functions: long_functions(&lexed, &text, fn_limit),
        children: children.clone(),
        reexports: reexports(&lexed),
        tokens: lexed.into_iter().map(|(t, _)| t).collect(),
    });
    for child in children {
        let flat = child_dir.join(format!("{child}.rs"));
        let nested = child_dir.join(&child).join("mod.rs");
        let found = if flat.is_file() { flat } else { nested };
        if !found.is_file() {
            continue; // A `mod` inside a macro or a cfg'd-out platform file.
        }
        let mut p = path.clone();
        p.push(child);
        load_tree(src, &found, &found, p, fn_limit, out)?;
    }
    Ok(())
}

/// The `pub use` (any visibility) re-exports of a module: (name, path).
fn reexports(tokens: &[(Token, usize)]) -> Vec<(String, Vec<String>)> {
    let tokens: Vec<Token> = tokens.iter().map(|(t, _)| t.clone()).collect();
    let mut out = Vec::new();
    for i in 0..tokens.len() {
        if tokens[i] != Token::Ident("pub".to_owned()) {
            continue;
        }
        let mut j = i + 1;
        if tokens.get(j) == Some(&Token::Punct('(')) {
            while j < tokens.len() && tokens[j] != Token::Punct(')') {
                j += 1;
            }
            j += 1;
        }
        if tokens.get(j) != Some(&Token::Ident("use".to_owned())) {
            continue;
        }
        j += 1;
        let before_globs = j;
        let globbed = tokens[before_globs..]
            .iter()
            .take_while(|t| **t != Token::Punct(';'))
            .any(|t| *t == Token::Punct('*'));
        if globbed {
            continue;
        }
        for path in use_tree(&tokens, &mut j, Vec::new()) {
            if let Some(name) = path.last() {
                out.push((name.clone(), path));
            }
        }
    }
    out
}

/// The paths a module's tokens name: each maximal run `a::b::c`.
fn paths(tokens: &[Token]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        // `use` trees: expand `a::{b::c, d}` into whole paths.
        if tokens[i] == Token::Ident("use".to_owned()) {
            let mut j = i + 1;
            out.extend(use_tree(tokens, &mut j, Vec::new()));
            i = j;
            continue;
        }
        if let Token::Ident(first) = &tokens[i]
            && tokens.get(i + 1) == Some(&Token::PathSep)
            && (i == 0 || tokens[i - 1] != Token::PathSep)
        {
            let mut path = vec![first.clone()];
            let mut j = i + 1;
            while tokens.get(j) == Some(&Token::PathSep) {
                match tokens.get(j + 1) {
                    Some(Token::Ident(s)) => path.push(s.clone()),
                    _ => break,
                }
                j += 2;
            }
            out.push(path);
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// The paths of a `use` tree starting at `*j`, under `prefix`; leaves `*j`
/// after the tree.
fn use_tree(tokens: &[Token], j: &mut usize, prefix: Vec<String>) -> Vec<Vec<String>> {
    let mut path = prefix;
    loop {
        match tokens.get(*j) {
            Some(Token::Ident(s)) => {
                path.push(s.clone());
                *j += 1;
            }
            Some(Token::PathSep) => *j += 1,
            Some(Token::Punct('{')) => {
                *j += 1;
                let mut out = Vec::new();
                loop {
                    match tokens.get(*j) {
                        Some(Token::Punct('}')) => {
                            *j += 1;
                            return out;
                        }
                        Some(Token::Punct(',')) => *j += 1,
                        None => return out,
                        _ => out.extend(use_tree(tokens, j, path.clone())),
                    }
                }
            }
            Some(Token::Punct('*')) => {
                *j += 1;
            }
            _ => {
                // `as name`: the alias is not part of the path.
                if path.len() >= 2 && path[path.len() - 2] == "as" {
                    path.truncate(path.len() - 2);
                }
                return vec![path];
            }
        }
    }
}

impl Plan {
    /// Builds the plan of `modules`; `library` is the library's crate name
    /// (how binaries reach it).
    pub fn build(modules: Vec<Module>, library: &str) -> Plan {
        let index: BTreeMap<Vec<String>, usize> = modules
            .iter()
            .enumerate()
            .map(|(i, m)| (m.path.clone(), i))
            .collect();
        let mut imports = BTreeMap::new();
        for (i, m) in modules.iter().enumerate() {
            let crate_root: Vec<String> = m
                .path
                .iter()
                .take_while(|s| s.starts_with("bin/"))
                .cloned()
                .collect();
            for p in paths(&m.tokens) {
                let Some(absolute) = absolute(&p, m, &crate_root, library) else {
                    continue;
                };
                let Some(t) = resolve(&modules, &index, absolute, library) else {
                    continue;
                };
                let target_path = &modules[t].path;
                let ancestor =
                    target_path.starts_with(&crate_root) && m.path.starts_with(target_path);
                if t != i && !ancestor {
                    *imports.entry((i, t)).or_insert(0) += 1;
                }
            }
        }
        let room_name = |m: &Module| match m.path.first() {
            None => "(crate root)".to_owned(),
            Some(s) => s.clone(),
        };
        let mut rooms: Vec<String> = modules
            .iter()
            .map(room_name)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        rooms.sort();
        let room_of: Vec<usize> = modules
            .iter()
            .map(|m| rooms.binary_search(&room_name(m)).expect("room listed"))
            .collect();
        let circles = strongly_connected(modules.len(), imports.keys().copied())
            .into_iter()
            .filter(|c| c.len() > 1)
            .collect();
        let mut room_edges: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        for (&(a, b), &n) in &imports {
            if room_of[a] != room_of[b] {
                *room_edges.entry((room_of[a], room_of[b])).or_insert(0) += n;
            }
        }
        let floors = floors(rooms.len(), &room_edges);
        let upward = imports
            .keys()
            .copied()
            .filter(|&(a, b)| room_of[a] != room_of[b] && floors[room_of[b]] >= floors[room_of[a]])
            .collect();
        Plan {
            modules,
            imports,
            room_of,
            rooms,
            floors,
            circles,
            upward,
        }
    }
}

/// The deepest module an absolute path names, following `pub use`
/// re-exports of the item after it (`crate::Error` -> `error.rs`).
fn resolve(
    modules: &[Module],
    index: &BTreeMap<Vec<String>, usize>,
    mut absolute: Vec<String>,
    library: &str,
) -> Option<usize> {
    // A bounded number of hops: re-export chains are short, and a cycle of
    // re-exports (a compile error) must not loop.
    for _ in 0..8 {
        let (n, t) = (0..=absolute.len())
            .rev()
            .find_map(|n| index.get(&absolute[..n]).map(|&t| (n, t)))?;
        let Some(next) = absolute.get(n) else {
            return Some(t);
        };
        let Some((_, path)) = modules[t].reexports.iter().find(|(name, _)| name == next) else {
            return Some(t);
        };
        let m = &modules[t];
        let root: Vec<String> = m
            .path
            .iter()
            .take_while(|s| s.starts_with("bin/"))
            .cloned()
            .collect();
        let Some(mut again) = self::absolute(path, m, &root, library) else {
            return Some(t);
        };
        again.extend(absolute[n + 1..].iter().cloned());
        absolute = again;
    }
    None
}

/// The absolute module path a code path names, or `None` for a path outside
/// the crate (std, other crates, local items).
fn absolute(p: &[String], m: &Module, crate_root: &[String], library: &str) -> Option<Vec<String>> {
    let first = p.first()?;
    let mut base: Vec<String> = match first.as_str() {
        "crate" => crate_root.to_vec(),
        "self" => m.path.clone(),
        "super" => {
            let mut b = m.path.clone();
            let mut rest = p;
            while rest.first().is_some_and(|s| s == "super") {
                if b.len() <= crate_root.len() {
                    return None;
                }
                b.pop();
                rest = &rest[1..];
            }
            b.extend(rest.iter().cloned());
            return Some(b);
        }
        s if s == library && !crate_root.is_empty() => Vec::new(),
        s if m.children.iter().any(|c| c == s) => {
            let mut b = m.path.clone();
            b.push(s.to_owned());
            b.extend(p[1..].iter().cloned());
            return Some(b);
        }
        _ => return None,
    };
    base.extend(p[1..].iter().cloned());
    Some(base)
}

/// Tarjan's strongly connected components of a graph of `n` nodes.
fn strongly_connected(n: usize, edges: impl Iterator<Item = (usize, usize)>) -> Vec<Vec<usize>> {
    let mut adj = vec![Vec::new(); n];
    for (a, b) in edges {
        adj[a].push(b);
    }
    let (mut index, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut out, mut next) = (Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // Iterative DFS: (node, next edge).
        let mut call = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on[root] = true;
        while let Some(&mut (v, ref mut e)) = call.last_mut() {
            if let Some(&w) = adj[v].get(*e) {
                *e += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    call.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(u, _)) = call.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut c = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    c.push(w);
                    if w == v {
                        break;
                    }
                }
                c.sort_unstable();
                out.push(c);
            }
        }
    }
    out.sort();
    out
}

/// Floors of a weighted graph: an order by Eades-Lin-Smyth (sinks to the
/// bottom, sources to the top, else the node with the most weight going out
/// less coming in on top), then each node one floor above the highest node
/// below it in that order that it imports.
fn floors(n: usize, edges: &BTreeMap<(usize, usize), usize>) -> Vec<usize> {
    let mut alive = vec![true; n];
    let (mut bottom, mut top) = (Vec::new(), Vec::new());
    let weight = |v: usize, alive: &[bool], out: bool| -> usize {
        edges
            .iter()
            .filter(|&(&(a, b), _)| alive[a] && alive[b] && if out { a == v } else { b == v })
            .map(|(_, &w)| w)
            .sum()
    };
    while alive.iter().any(|&a| a) {
        let live = || (0..n).filter(|&v| alive[v]);
        if let Some(v) = live().find(|&v| weight(v, &alive, true) == 0) {
            bottom.push(v);
            alive[v] = false;
        } else if let Some(v) = live().find(|&v| weight(v, &alive, false) == 0) {
            top.push(v);
            alive[v] = false;
        } else {
            let v = live()
                .max_by_key(|&v| {
                    (
                        weight(v, &alive, true) as i64 - weight(v, &alive, false) as i64,
                        std::cmp::Reverse(v),
                    )
                })
                .expect("a live node");
            top.push(v);
            alive[v] = false;
        }
    }
    // Bottom-up order: the sinks first, then the rest from the last taken top.
    let order: Vec<usize> = bottom.into_iter().chain(top.into_iter().rev()).collect();
    let mut rank = vec![0; n];
    for (r, &v) in order.iter().enumerate() {
        rank[v] = r;
    }
    let mut floor = vec![0; n];
    for &v in &order {
        floor[v] = edges
            .keys()
            .filter(|&&(a, b)| a == v && rank[b] < rank[v])
            .map(|&(_, b)| floor[b] + 1)
            .max()
            .unwrap_or(0);
    }
    floor
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        }
        dir
    }

    fn plan(dir: &Path) -> Plan {
        Plan::build(scan(dir, 80).expect("scan"), "lib")
    }

    fn file_of(plan: &Plan, i: usize) -> &str {
        &plan.modules[i].file
    }

    #[test]
    fn finds_a_circle_between_two_files_and_the_import_that_runs_up() {
        let dir = tree(&[
            (
                "lib.rs",
                "pub mod a;\npub mod b;\npub mod c;\npub use c::C;\n",
            ),
            // a and b use each other (a circle and two rooms that import each
            // other); c sits on both; strings and comments are not imports.
            (
                "a.rs",
                "use crate::b::B;\nuse crate::c;\npub struct A;\n// crate::c::x\n",
            ),
            (
                "b.rs",
                "pub struct B;\nfn f() { let _ = crate::a::A; let _s = \"crate::c::Q\"; }\n",
            ),
            ("c.rs", "pub struct C;\n"),
        ]);
        let plan = plan(dir.path());
        let circles: Vec<Vec<&str>> = plan
            .circles
            .iter()
            .map(|c| c.iter().map(|&i| file_of(&plan, i)).collect())
            .collect();
        assert_eq!(circles, vec![vec!["a.rs", "b.rs"]]);
        let room = |name: &str| plan.rooms.iter().position(|r| r == name).expect("room");
        assert_eq!(plan.floors[room("c")], 0);
        assert_eq!(plan.upward.len(), 1, "one of a -> b, b -> a runs up");
        let imports: Vec<(&str, &str)> = plan
            .imports
            .keys()
            .map(|&(x, y)| (file_of(&plan, x), file_of(&plan, y)))
            .collect();
        assert_eq!(
            imports,
            vec![
                ("lib.rs", "c.rs"),
                ("a.rs", "b.rs"),
                ("a.rs", "c.rs"),
                ("b.rs", "a.rs")
            ]
        );
    }

    #[test]
    fn a_tree_without_circles_has_floors_and_nothing_running_up() {
        let dir = tree(&[
            ("lib.rs", "pub mod low;\npub mod mid;\npub mod top;\n"),
            ("low/mod.rs", "mod inner;\npub use inner::X;\n"),
            // A child naming its parent is containment, not an import.
            ("low/inner.rs", "pub struct X;\nuse super::X as Y;\n"),
            ("mid.rs", "use crate::low::{X, inner::X as Z};\n"),
            (
                "top.rs",
                "use super::{mid, low::X};\nfn long() {\n{\n}\n}\n",
            ),
            ("bin/tool/main.rs", "mod cmd;\nfn main() { cmd::run(); }\n"),
            ("bin/tool/cmd.rs", "pub fn run() { lib::top::f(); }\n"),
        ]);
        let plan = plan(dir.path());
        assert!(plan.circles.is_empty(), "{:?}", plan.circles);
        assert!(plan.upward.is_empty());
        let floor =
            |name: &str| plan.floors[plan.rooms.iter().position(|r| r == name).expect(name)];
        assert_eq!(
            (floor("low"), floor("mid"), floor("top"), floor("bin/tool")),
            (0, 1, 2, 3)
        );
    }
}
