//! Draws karc's house plan: the module dependency graph of `src/` in floors,
//! with the import circles, the imports that run back up, the files over
//! `--file-limit` lines and the functions over `--fn-limit` lines with their
//! reasons, written
//! as Markdown with a Mermaid drawing (see `karc_tools::structure`).
//!
//! ```sh
//! cargo run --release -p karc-tools --bin structure -- --src src --front-end python/src \
//!     --out tools/STRUCTURE.md
//! ```
//!
//! It also lists the paths by which a front end (each binary in `src/bin/`,
//! and each `--front-end` crate such as `python/src`) reaches the library
//! other than through its facade (`karc::api`, see `karc_tools::facade`).
//!
//! Each long file and function is listed with its `// Long: <reason>` line
//! (see `karc_tools::long`). Exits 1 when the plan has a circle, an import
//! that runs up, a front end that passes the facade by, or a long file or
//! function without a reason (a check a CI step can use), 2 on unreadable
//! input.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use karc_tools::facade::bypasses;
use karc_tools::long::{LongFn, without_reason};
use karc_tools::structure::{Plan, scan};

#[derive(Debug, Parser)]
#[command(about = "Module dependency floors, circles and upward imports of a Rust crate")]
struct Args {
    /// The crate's source directory (holding lib.rs and bin/).
    #[arg(long, default_value = "src")]
    src: PathBuf,
    /// Where to write the Markdown report (`-` for stdout).
    #[arg(long, default_value = "tools/STRUCTURE.md")]
    out: PathBuf,
    /// The library's crate name, as the binaries import it.
    #[arg(long, default_value = "karc")]
    library: String,
    /// Files longer than this many lines are listed.
    #[arg(long, default_value_t = 800)]
    file_limit: usize,
    /// Functions longer than this many lines are listed.
    #[arg(long, default_value_t = 80)]
    fn_limit: usize,
    /// The library's facade module: the only one front ends may name.
    #[arg(long, default_value = "api")]
    facade: String,
    /// Another front end's source directory (a crate over the library, such
    /// as `python/src`), checked for paths that pass the facade by.
    #[arg(long)]
    front_end: Vec<PathBuf>,
    /// A label for the scanned tree (for example a commit), shown in the report.
    #[arg(long)]
    label: Option<String>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let modules = match scan(&args.src, args.fn_limit) {
        Ok(m) if !m.is_empty() => m,
        Ok(_) => {
            eprintln!(
                "error: {}: no lib.rs or bin/ to start from",
                args.src.display()
            );
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("error: {}: {e}", args.src.display());
            return ExitCode::from(2);
        }
    };
    let plan = Plan::build(modules, &args.library);
    // (front end, its files' paths that pass the facade by)
    let mut fronts: Vec<(String, Vec<(String, String)>)> = Vec::new();
    let mut binaries: Vec<&String> = plan
        .rooms
        .iter()
        .filter(|r| r.starts_with("bin/"))
        .collect();
    binaries.sort();
    for b in binaries {
        let modules = plan.modules.iter().filter(|m| m.path.first() == Some(b));
        let found = bypasses(modules, &args.library, &args.facade);
        let found = found
            .into_iter()
            .map(|(f, p)| (format!("src/{f}"), p))
            .collect();
        fronts.push((b.clone(), found));
    }
    for dir in &args.front_end {
        match scan(dir, args.fn_limit) {
            Ok(modules) => {
                let found = bypasses(&modules, &args.library, &args.facade);
                let found = found
                    .into_iter()
                    .map(|(f, p)| (dir.join(f).display().to_string(), p))
                    .collect();
                fronts.push((dir.display().to_string(), found));
            }
            Err(e) => {
                eprintln!("error: {}: {e}", dir.display());
                return ExitCode::from(2);
            }
        }
    }
    let report = render(&plan, &fronts, &args);
    let written = if args.out.as_os_str() == "-" {
        print!("{report}");
        Ok(())
    } else {
        std::fs::write(&args.out, &report)
    };
    if let Err(e) = written {
        eprintln!("error: {}: {e}", args.out.display());
        return ExitCode::from(2);
    }
    eprintln!(
        "{} modules in {} rooms on {} floors; {} circle(s); {} import(s) running up",
        plan.modules.len(),
        plan.rooms.len(),
        plan.floors.iter().max().map_or(0, |f| f + 1),
        plan.circles.len(),
        plan.upward.len()
    );
    for (front, found) in &fronts {
        eprintln!("{front} imports outside {}: {}", args.facade, found.len());
    }
    let bare = without_reason(&plan.modules, args.file_limit);
    eprintln!(
        "long files and functions without a `// Long:` reason: {}",
        bare.len()
    );
    let facade_kept = fronts.iter().all(|(_, found)| found.is_empty());
    if plan.circles.is_empty() && plan.upward.is_empty() && facade_kept && bare.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The Markdown report; `fronts` are the front ends with the paths by
/// which they pass the facade by.
fn render(plan: &Plan, fronts: &[(String, Vec<(String, String)>)], args: &Args) -> String {
    let mut s = String::new();
    let file = |i: usize| format!("src/{}", plan.modules[i].file);
    let room_lines = |r: usize| -> usize {
        (0..plan.modules.len())
            .filter(|&i| plan.room_of[i] == r)
            .map(|i| plan.modules[i].lines)
            .sum()
    };
    let total: usize = plan.modules.iter().map(|m| m.lines).sum();
    let top = plan.floors.iter().max().map_or(0, |f| f + 1);
    let _ = writeln!(s, "# The structure of karc\n");
    let _ = writeln!(
        s,
        "Generated by `cargo run --release -p karc-tools --bin structure -- --src {}{} --out {}`{}. \
         A room is a top-level module (or a binary); floor 0 imports nothing; a room sits one \
         floor above the highest room it imports. How the graph is built: `tools/src/structure.rs`.\n",
        args.src.display(),
        args.front_end
            .iter()
            .map(|d| format!(" --front-end {}", d.display()))
            .collect::<String>(),
        args.out.display(),
        args.label
            .as_ref()
            .map_or(String::new(), |l| format!(" on {l}"))
    );
    let _ = writeln!(
        s,
        "{total} lines in {} files, {} rooms on {top} floors; {} import circle(s); {} import(s) running up.\n",
        plan.modules.len(),
        plan.rooms.len(),
        plan.circles.len(),
        plan.upward.len()
    );
    // The drawing: rooms by floor, top floor first; edges between rooms.
    let _ = writeln!(s, "## Drawing\n\n```mermaid\nflowchart TB");
    for f in (0..top).rev() {
        let _ = writeln!(s, "  subgraph F{f}[\"floor {f}\"]\n    direction LR");
        for (r, name) in plan.rooms.iter().enumerate() {
            if plan.floors[r] == f {
                let _ = writeln!(s, "    R{r}[\"{name} ({} lines)\"]", room_lines(r));
            }
        }
        let _ = writeln!(s, "  end");
    }
    let mut room_edges = std::collections::BTreeMap::new();
    for (&(a, b), &n) in &plan.imports {
        let (ra, rb) = (plan.room_of[a], plan.room_of[b]);
        if ra != rb {
            *room_edges.entry((ra, rb)).or_insert(0) += n;
        }
    }
    for (&(a, b), &n) in &room_edges {
        let arrow = if plan.floors[b] >= plan.floors[a] {
            "-. up .->"
        } else {
            "-->"
        };
        let _ = writeln!(s, "  R{a} {arrow}|{n}| R{b}");
    }
    let _ = writeln!(s, "```\n");
    let _ = writeln!(s, "## Floors\n");
    for f in (0..top).rev() {
        let names: Vec<String> = (0..plan.rooms.len())
            .filter(|&r| plan.floors[r] == f)
            .map(|r| format!("{} ({})", plan.rooms[r], room_lines(r)))
            .collect();
        let _ = writeln!(s, "- floor {f}: {}", names.join(", "));
    }
    let _ = writeln!(s, "\n## Import circles\n");
    if plan.circles.is_empty() {
        let _ = writeln!(s, "None.");
    }
    for c in &plan.circles {
        let files: Vec<String> = c.iter().map(|&i| file(i)).collect();
        let _ = writeln!(s, "- {}", files.join(" ↔ "));
        for (&(a, b), &n) in &plan.imports {
            if c.contains(&a) && c.contains(&b) {
                let _ = writeln!(s, "  - {} → {} ({n} path(s))", file(a), file(b));
            }
        }
    }
    let _ = writeln!(s, "\n## Imports that run up\n");
    if plan.upward.is_empty() {
        let _ = writeln!(s, "None.");
    }
    for &(a, b) in &plan.upward {
        let _ = writeln!(
            s,
            "- {} (floor {}) → {} (floor {}), {} path(s)",
            file(a),
            plan.floors[plan.room_of[a]],
            file(b),
            plan.floors[plan.room_of[b]],
            plan.imports[&(a, b)]
        );
    }
    let _ = writeln!(s, "\n## Front ends\n");
    for (front, found) in fronts {
        let _ = writeln!(
            s,
            "- {front} imports outside {}: {}",
            args.facade,
            found.len()
        );
        for (file, path) in found {
            let _ = writeln!(s, "  - {file}: `{path}`");
        }
    }
    long_items(&mut s, plan, args);
    let _ = writeln!(s, "\n## Rooms and their files\n");
    let _ = writeln!(s, "| room | floor | file | lines | imports (files) |");
    let _ = writeln!(s, "| --- | ---: | --- | ---: | --- |");
    let mut order: Vec<usize> = (0..plan.modules.len()).collect();
    order.sort_by_key(|&i| {
        (
            std::cmp::Reverse(plan.floors[plan.room_of[i]]),
            plan.room_of[i],
            plan.modules[i].file.clone(),
        )
    });
    for i in order {
        let targets: Vec<String> = plan
            .imports
            .keys()
            .filter(|&&(a, _)| a == i)
            .map(|&(_, b)| plan.modules[b].file.clone())
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | src/{} | {} | {} |",
            plan.rooms[plan.room_of[i]],
            plan.floors[plan.room_of[i]],
            plan.modules[i].file,
            plan.modules[i].lines,
            targets.join(", ")
        );
    }
    s
}

/// The files and functions over the limits, each with its `// Long:`
/// reason, and how many have none (the house rule wants none of those).
fn long_items(s: &mut String, plan: &Plan, args: &Args) {
    let file = |i: usize| format!("src/{}", plan.modules[i].file);
    let reason = |r: &Option<String>| match r {
        Some(r) => format!(" — {r}"),
        None => " — **no reason given**".to_owned(),
    };
    let mut big: Vec<usize> = (0..plan.modules.len())
        .filter(|&i| plan.modules[i].lines > args.file_limit)
        .collect();
    big.sort_by_key(|&i| std::cmp::Reverse(plan.modules[i].lines));
    let mut long: Vec<(usize, &LongFn)> = plan
        .modules
        .iter()
        .enumerate()
        .flat_map(|(i, m)| m.long_functions.iter().map(move |f| (i, f)))
        .collect();
    long.sort_by_key(|&(_, f)| std::cmp::Reverse(f.lines));
    let bare = without_reason(&plan.modules, args.file_limit).len();
    let _ = writeln!(
        s,
        "\n## Long files and functions\n\n{} file(s) over {} lines, {} function(s) over {} lines; \
         {bare} without a reason (a `// Long: <reason>` line above the function, or among the \
         file's first lines).",
        big.len(),
        args.file_limit,
        long.len(),
        args.fn_limit
    );
    let _ = writeln!(s, "\n### Files over {} lines\n", args.file_limit);
    if big.is_empty() {
        let _ = writeln!(s, "None.");
    }
    for i in big {
        let m = &plan.modules[i];
        let _ = writeln!(s, "- {}: {} lines{}", file(i), m.lines, reason(&m.reason));
    }
    let _ = writeln!(s, "\n### Functions over {} lines\n", args.fn_limit);
    if long.is_empty() {
        let _ = writeln!(s, "None.");
    }
    for (i, f) in long {
        let (name, line, n) = (&f.name, f.line, f.lines);
        let _ = writeln!(
            s,
            "- {}:{line} `{name}`: {n} lines{}",
            file(i),
            reason(&f.reason)
        );
    }
}
