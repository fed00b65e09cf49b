//! Generalization hierarchies in ARX's CSV format.
//!
//! One row per leaf, `;`-separated: `leaf;level1;...;root`. Level 0 is the
//! raw value, the last level the single root (normally `*`). Nodes are
//! identified per level by their label; generalizing is a table lookup
//! (`node_of`), never arithmetic on labels (the Adult age hierarchy puts 25
//! in `20-24`).
//!
//! Loading validates the tree: ragged rows, a leaf with two different parent
//! paths, a node with two parents and several roots are errors naming the
//! values (the first few and the count); an exact duplicate row is accepted
//! with a warning.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use crate::dictionary::Dictionary;
use crate::io::Input;
use crate::{Error, Result};

pub mod builder;
pub mod pruned;

pub use pruned::Pruned;

/// How many offending values an error message lists before "and N more".
pub const NAMED_IN_ERRORS: usize = 5;

/// Errors in a generalization hierarchy: its file, its tree, or building it.
#[derive(Debug, thiserror::Error)]
pub enum HierarchyError {
    /// A hierarchy file without rows.
    #[error("{}: the hierarchy is empty: expected one row per leaf", path.display())]
    Empty {
        /// The hierarchy file.
        path: PathBuf,
    },
    #[error("{}:{line}: malformed hierarchy CSV: {message}", path.display())]
    /// A line that is not valid CSV.
    Malformed {
        /// The hierarchy file (or the name of a generated hierarchy).
        path: PathBuf,
        /// The 1-based line in that file.
        line: u64,
        /// What is wrong.
        message: String,
    },
    #[error("{}:{line}: ragged hierarchy: expected {expected} levels (as line 1), found {found}; rows must all have the same length", path.display())]
    /// A row with a different number of levels from the first.
    Ragged {
        /// The hierarchy file (or the name of a generated hierarchy).
        path: PathBuf,
        /// The 1-based line in that file.
        line: u64,
        /// Levels on line 1.
        expected: usize,
        /// Levels on this line.
        found: usize,
    },
    #[error("{}: {} two different generalization paths: {names}", path.display(), counted(*count, "leaf has", "leaves have"))]
    /// Leaves listed twice with different generalizations.
    ConflictingLeaves {
        /// The hierarchy file (or the name of a generated hierarchy).
        path: PathBuf,
        /// How many offenders there are.
        count: usize,
        /// The first few offenders, quoted.
        names: String,
    },
    #[error("{}: {} two parents: {names}", path.display(), counted(*count, "node has", "nodes have"))]
    /// Nodes generalized to two different parents: not a tree.
    TwoParents {
        /// The hierarchy file (or the name of a generated hierarchy).
        path: PathBuf,
        /// How many offenders there are.
        count: usize,
        /// The first few offenders, quoted.
        names: String,
    },
    #[error("{}: the last level has {count} nodes ({names}); expected one root", path.display())]
    /// A last level with more than one node.
    SeveralRoots {
        /// The hierarchy file (or the name of a generated hierarchy).
        path: PathBuf,
        /// How many offenders there are.
        count: usize,
        /// The first few offenders, quoted.
        names: String,
    },
    #[error("{what}: {message}")]
    /// A hierarchy builder that cannot generalize the values it was given.
    Build {
        /// The column (or hierarchy) being built.
        what: String,
        /// What is wrong.
        message: String,
    },
    #[error("{}:{line}: {message}", path.display())]
    /// Any other invalid line of a hierarchy file.
    Invalid {
        /// The hierarchy file (or the name of a generated hierarchy).
        path: PathBuf,
        /// The 1-based line in that file.
        line: u64,
        /// What is wrong.
        message: String,
    },
}

impl crate::error::AreaError for HierarchyError {}

/// "1 leaf has" or "3 leaves have": a count with its noun and verb agreeing.
pub(crate) fn counted(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// Formats the first few offenders and the count of the rest.
pub(crate) fn name_some<I: IntoIterator<Item = String>>(items: I, total: usize) -> String {
    let mut s = String::new();
    for (i, item) in items.into_iter().take(NAMED_IN_ERRORS).enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(&item);
    }
    if total > NAMED_IN_ERRORS {
        let _ = write!(s, " and {} more", total - NAMED_IN_ERRORS);
    }
    s
}

/// What a released node's label is read from: a whole [`Hierarchy`], or
/// the [`Pruned`] tree a file's public part holds (`spec/FORMAT.md` §6).
pub trait NodeLabels {
    /// The root's level: levels run `0..=height`.
    fn height(&self) -> usize;
    /// How many nodes `level` has.
    fn nodes(&self, level: usize) -> usize;
    /// The label of `node` at `level`.
    fn label(&self, level: usize, node: u32) -> &str;
}

impl NodeLabels for Hierarchy {
    fn height(&self) -> usize {
        Hierarchy::height(self)
    }

    fn nodes(&self, level: usize) -> usize {
        Hierarchy::nodes(self, level)
    }

    fn label(&self, level: usize, node: u32) -> &str {
        Hierarchy::label(self, level, node)
    }
}

/// One level of a hierarchy: its node labels and each leaf's node.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Level {
    /// Node labels by node number, each once: a level of a million leaves
    /// (near-unique coordinates) costs their text and about ten bytes a
    /// label, not a boxed copy and a map entry each.
    labels: Dictionary,
    /// The node of each leaf at this level.
    of_leaf: Vec<u32>,
    /// The parent of each node at the next level up (empty on the root level).
    parent: Vec<u32>,
    /// How many leaves each node covers.
    leaves: Vec<u32>,
}

/// A validated generalization tree over the leaves of one attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hierarchy {
    /// Where it came from: its CSV file, or the name it was built or stored under.
    pub source: PathBuf,
    levels: Vec<Level>,
    /// Exact duplicate rows that were accepted (line numbers, 1-based).
    pub duplicate_rows: Vec<u64>,
}

impl Hierarchy {
    /// Reads and validates a hierarchy file.
    pub fn load(path: &Path) -> Result<Hierarchy> {
        let input = Input::open(path)?;
        Hierarchy::from_bytes(path, &input)
    }

    /// Parses ARX hierarchy bytes; `path` names the source in errors.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Hierarchy> {
        let rows = parse_rows(path, bytes)?;
        Hierarchy::from_rows(path, rows)
    }

    // Long: the hierarchy rules checked in one pass (leaves, levels, parents) so each error names
    // the row and rule that broke
    /// Builds a hierarchy from its rows (`(line, [leaf, level1, ..., root])`).
    pub fn from_rows(path: &Path, rows: Vec<(u64, Vec<String>)>) -> Result<Hierarchy> {
        let err_path = || path.to_owned();
        let Some((_, first)) = rows.first() else {
            return Err(HierarchyError::Empty { path: err_path() }.into());
        };
        let height_plus_one = first.len();
        if height_plus_one == 0 {
            return Err(HierarchyError::Empty { path: err_path() }.into());
        }
        for (line, row) in &rows {
            if row.len() != height_plus_one {
                return Err(HierarchyError::Ragged {
                    path: err_path(),
                    line: *line,
                    expected: height_plus_one,
                    found: row.len(),
                }
                .into());
            }
        }

        // Leaves: the first row of each leaf defines its path.
        let mut leaf_index: FxHashMap<&str, usize> = FxHashMap::default();
        let mut leaf_rows: Vec<usize> = Vec::new();
        let mut duplicate_rows = Vec::new();
        let mut conflicts: Vec<String> = Vec::new();
        for (r, (line, row)) in rows.iter().enumerate() {
            match leaf_index.get(row[0].as_str()) {
                None => {
                    leaf_index.insert(&row[0], leaf_rows.len());
                    leaf_rows.push(r);
                }
                Some(&leaf) => {
                    let original = &rows[leaf_rows[leaf]].1;
                    if original == row {
                        duplicate_rows.push(*line);
                    } else if !conflicts.contains(&row[0]) {
                        conflicts.push(row[0].clone());
                    }
                }
            }
        }
        if !conflicts.is_empty() {
            let count = conflicts.len();
            return Err(HierarchyError::ConflictingLeaves {
                path: err_path(),
                count,
                names: name_some(conflicts.into_iter().map(|n| format!("{n:?}")), count),
            }
            .into());
        }

        let mut levels: Vec<Level> = Vec::with_capacity(height_plus_one);
        for l in 0..height_plus_one {
            let mut level = Level {
                labels: Dictionary::new(),
                of_leaf: Vec::with_capacity(leaf_rows.len()),
                parent: Vec::new(),
                leaves: Vec::new(),
            };
            if l == 0 {
                let bytes = leaf_rows.iter().map(|&r| rows[r].1[0].len()).sum();
                level.labels.reserve(leaf_rows.len(), bytes);
            }
            for &r in &leaf_rows {
                let label = rows[r].1[l].as_str();
                let node = level.labels.intern(label);
                if node as usize == level.leaves.len() {
                    level.leaves.push(0);
                }
                level.of_leaf.push(node);
                level.leaves[node as usize] += 1;
            }
            levels.push(level);
        }

        // Parents: every node of level l must have one node above it.
        let mut two_parents: Vec<String> = Vec::new();
        for l in 0..height_plus_one - 1 {
            let (lower, upper) = levels.split_at_mut(l + 1);
            let lower = &mut lower[l];
            let upper = &upper[0];
            let mut parent = vec![u32::MAX; lower.labels.len()];
            for (leaf, &node) in lower.of_leaf.iter().enumerate() {
                let p = upper.of_leaf[leaf];
                let slot = &mut parent[node as usize];
                if *slot == u32::MAX {
                    *slot = p;
                } else if *slot != p {
                    let name = format!(
                        "{:?} (level {l}) under {:?} and {:?}",
                        lower.labels.value(node),
                        upper.labels.value(*slot),
                        upper.labels.value(p)
                    );
                    if !two_parents.iter().any(|n| {
                        n.starts_with(&format!("{:?} (level {l})", lower.labels.value(node)))
                    }) {
                        two_parents.push(name);
                    }
                }
            }
            lower.parent = parent;
        }
        if !two_parents.is_empty() {
            let count = two_parents.len();
            return Err(HierarchyError::TwoParents {
                path: err_path(),
                count,
                names: name_some(two_parents, count),
            }
            .into());
        }
        let root = levels.last().unwrap();
        if root.labels.len() != 1 {
            let count = root.labels.len();
            return Err(HierarchyError::SeveralRoots {
                path: err_path(),
                count,
                names: name_some(root.labels.values().map(|l| format!("{l:?}")), count),
            }
            .into());
        }
        Ok(Hierarchy {
            source: path.to_owned(),
            levels,
            duplicate_rows,
        })
    }

    // Long: the tree rules checked in one pass (distinct labels, one root, numbering by first
    // appearance) so the error names where
    /// A hierarchy given as a tree: each level's labels (level 0 the
    /// leaves, the last the root) and each node's parent, as an archive
    /// stores it. Opening an archive builds its hierarchies this way:
    /// expanding them into rows for [`Hierarchy::from_rows`] cloned every
    /// label once per leaf and took two thirds of the hierarchies' time.
    /// The tree must be what `from_rows` would build: each level's labels
    /// distinct, one root, and the nodes of every level numbered by first
    /// appearance in leaf order (so every node covers a leaf). The error
    /// says which rule broke where.
    pub fn from_tree(
        source: &Path,
        levels: Vec<Vec<String>>,
        parents: &[Vec<u32>],
    ) -> std::result::Result<Hierarchy, String> {
        let height = levels.len().checked_sub(1).ok_or("no levels")?;
        if parents.len() != height {
            return Err(format!(
                "expected {height} parent lists, found {}",
                parents.len()
            ));
        }
        let leaves = levels[0].len();
        if leaves == 0 {
            return Err("no leaves".to_owned());
        }
        if levels[height].len() != 1 {
            return Err(format!(
                "expected one root, found {} nodes on the top level",
                levels[height].len()
            ));
        }
        let mut built: Vec<Level> = Vec::with_capacity(levels.len());
        let mut of_leaf: Vec<u32> = (0..leaves as u32).collect();
        for (l, labels) in levels.into_iter().enumerate() {
            let parent = parents.get(l).cloned().unwrap_or_default();
            if l < height && parent.len() != labels.len() {
                return Err(format!(
                    "level {l}: {} nodes but {} parents",
                    labels.len(),
                    parent.len()
                ));
            }
            // First appearances in leaf order number the nodes 0, 1, ...
            let mut counts: Vec<u32> = vec![0; labels.len()];
            let mut seen = 0;
            for &node in &of_leaf {
                let Some(count) = counts.get_mut(node as usize) else {
                    return Err(format!(
                        "level {}: parent {node} out of range",
                        l.saturating_sub(1)
                    ));
                };
                if *count == 0 {
                    if node as usize != seen {
                        return Err(format!(
                            "level {l}: nodes are not in first-appearance order of the leaves"
                        ));
                    }
                    seen += 1;
                }
                *count += 1;
            }
            if seen != labels.len() {
                return Err(format!("level {l}: node {seen} covers no leaf"));
            }
            let mut dictionary = Dictionary::new();
            dictionary.reserve(labels.len(), labels.iter().map(String::len).sum());
            for (n, label) in labels.iter().enumerate() {
                if dictionary.intern(label) as usize != n {
                    return Err(format!("level {l}: label {label:?} names two nodes"));
                }
            }
            let next: Vec<u32> = match parents.get(l) {
                Some(up) => of_leaf.iter().map(|&n| up[n as usize]).collect(),
                None => Vec::new(),
            };
            built.push(Level {
                labels: dictionary,
                of_leaf: std::mem::replace(&mut of_leaf, next),
                parent,
                leaves: counts,
            });
        }
        Ok(Hierarchy {
            source: source.to_owned(),
            levels: built,
            duplicate_rows: Vec::new(),
        })
    }

    /// The hierarchy as [`Hierarchy::from_tree`] takes it: each level's
    /// labels and each node's parent.
    pub fn to_tree(&self) -> (Vec<Vec<String>>, Vec<Vec<u32>>) {
        let levels = self
            .levels
            .iter()
            .map(|l| l.labels.values().map(str::to_owned).collect())
            .collect();
        let parents = self.levels[..self.height()]
            .iter()
            .map(|l| l.parent.clone())
            .collect();
        (levels, parents)
    }

    /// The root's level: levels run `0..=height`.
    pub fn height(&self) -> usize {
        self.levels.len() - 1
    }

    /// How many leaves (distinct original values) it has.
    pub fn leaf_count(&self) -> usize {
        self.levels[0].labels.len()
    }

    /// The leaf whose label is `value`.
    pub fn leaf(&self, value: &str) -> Option<u32> {
        self.levels[0].labels.code(value)
    }

    /// The node at `level` that generalizes `leaf`.
    #[inline]
    pub fn node_of(&self, level: usize, leaf: u32) -> u32 {
        self.levels[level].of_leaf[leaf as usize]
    }

    /// Each leaf's node at `level`, indexed by leaf.
    pub fn level_map(&self, level: usize) -> &[u32] {
        &self.levels[level].of_leaf
    }

    /// The label of `node` at `level`: the text a release shows.
    pub fn label(&self, level: usize, node: u32) -> &str {
        self.levels[level].labels.value(node)
    }

    /// The node at `level` labelled `label`.
    pub fn node(&self, level: usize, label: &str) -> Option<u32> {
        self.levels[level].labels.code(label)
    }

    /// How many nodes `level` has.
    pub fn nodes(&self, level: usize) -> usize {
        self.levels[level].labels.len()
    }

    /// The parent (at `level + 1`) of `node` at `level`.
    pub fn parent(&self, level: usize, node: u32) -> u32 {
        self.levels[level].parent[node as usize]
    }

    /// How many leaves `node` at `level` covers.
    pub fn leaves_under(&self, level: usize, node: u32) -> u32 {
        self.levels[level].leaves[node as usize]
    }

    /// The leaves of `node` at `level`, in the file's leaf order.
    pub fn leaves_of(&self, level: usize, node: u32) -> impl Iterator<Item = u32> + '_ {
        self.levels[level]
            .of_leaf
            .iter()
            .enumerate()
            .filter(move |&(_, &n)| n == node)
            .map(|(leaf, _)| leaf as u32)
    }

    /// Whether `ancestor` at `level` is `leaf` itself or one of its ancestors.
    pub fn covers(&self, level: usize, ancestor: u32, leaf: u32) -> bool {
        self.node_of(level, leaf) == ancestor
    }

    /// Rows of the file, each leaf once, in leaf order (for storage).
    pub fn rows(&self) -> impl Iterator<Item = Vec<&str>> + '_ {
        (0..self.leaf_count() as u32).map(move |leaf| {
            (0..self.levels.len())
                .map(|l| self.label(l, self.node_of(l, leaf)))
                .collect()
        })
    }
}

/// Splits hierarchy bytes into rows with the csv crate (`;`, quotes allowed,
/// CRLF or LF, missing final newline, blank lines skipped).
fn parse_rows(path: &Path, bytes: &[u8]) -> Result<Vec<(u64, Vec<String>)>> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b';')
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            Error::from(HierarchyError::Malformed {
                path: path.to_owned(),
                line: e.position().map_or(0, |p| p.line()),
                message: e.to_string(),
            })
        })?;
        let line = record.position().map_or(0, |p| p.line());
        rows.push((line, record.iter().map(str::to_owned).collect()));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Hierarchy> {
        Hierarchy::from_bytes(Path::new("h.csv"), text.as_bytes())
    }

    #[test]
    fn a_tree_builds_what_its_rows_build() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/adult/hierarchies");
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert_eq!(files.len(), 9);
        for path in files {
            let h = Hierarchy::load(&path).unwrap();
            let (levels, parents) = h.to_tree();
            assert_eq!(
                Hierarchy::from_tree(&path, levels, &parents).unwrap(),
                h,
                "{path:?}"
            );
        }
    }

    #[test]
    fn a_tree_from_rows_would_not_build_is_refused() {
        let h = parse("b;x;*\na;y;*\nc;x;*\nd;z;*").unwrap();
        let (levels, parents) = h.to_tree();
        let refused = |levels: Vec<Vec<String>>, parents: Vec<Vec<u32>>| {
            Hierarchy::from_tree(Path::new("t"), levels, &parents).unwrap_err()
        };
        let mut twice = levels.clone();
        twice[1][2] = "x".into();
        assert_eq!(
            refused(twice, parents.clone()),
            "level 1: label \"x\" names two nodes"
        );
        let mut two_roots = levels.clone();
        two_roots[2].push("+".into());
        assert!(refused(two_roots, parents.clone()).contains("one root"));
        let mut swapped = parents.clone();
        swapped[0][0] = 1;
        swapped[0][1] = 0;
        assert_eq!(
            refused(levels.clone(), swapped),
            "level 1: nodes are not in first-appearance order of the leaves"
        );
        let mut orphan = levels.clone();
        orphan[1].push("w".into());
        let mut orphan_parents = parents.clone();
        orphan_parents[1].push(0);
        assert_eq!(
            refused(orphan, orphan_parents),
            "level 1: node 3 covers no leaf"
        );
        let mut out_of_range = parents.clone();
        out_of_range[0][3] = 7;
        assert_eq!(
            refused(levels.clone(), out_of_range),
            "level 0: parent 7 out of range"
        );
        let mut short = parents.clone();
        short[0].pop();
        assert_eq!(
            refused(levels.clone(), short),
            "level 0: 4 nodes but 3 parents"
        );
        assert!(refused(levels.clone(), parents[..1].to_vec()).contains("parent lists"));
        assert_eq!(refused(vec![], vec![]), "no levels");
    }

    #[test]
    fn lookup_generalizes_by_table() {
        let h = parse("21;20-24;*\r\n25;20-24;*\r\n26;25-29;*").unwrap();
        assert_eq!(h.height(), 2);
        let leaf = h.leaf("25").unwrap();
        assert_eq!(h.label(1, h.node_of(1, leaf)), "20-24");
        assert_eq!(h.leaves_under(1, h.node(1, "20-24").unwrap()), 2);
        assert_eq!(h.label(2, h.node_of(2, leaf)), "*");
        assert_eq!(h.parent(1, h.node(1, "25-29").unwrap()), 0);
    }

    #[test]
    fn duplicate_rows_are_accepted_with_their_lines() {
        let h = parse("a;x;*\na;x;*\nb;x;*\n").unwrap();
        assert_eq!(h.leaf_count(), 2);
        assert_eq!(h.duplicate_rows, vec![2]);
    }

    #[test]
    fn conflicting_leaf_is_named() {
        let err = parse("a;x;*\na;y;*\n").unwrap_err().to_string();
        assert_eq!(
            err,
            "h.csv: 1 leaf has two different generalization paths: \"a\""
        );
    }

    #[test]
    fn node_with_two_parents_is_named() {
        let err = parse("a;x;p;*\nb;x;q;*\n").unwrap_err().to_string();
        assert!(err.contains("1 node has two parents"), "{err}");
        assert!(
            err.contains("\"x\" (level 1) under \"p\" and \"q\""),
            "{err}"
        );
    }

    #[test]
    fn ragged_and_rootless_are_errors() {
        let err = parse("a;x;*\nb;*\n").unwrap_err().to_string();
        assert_eq!(
            err,
            "h.csv:2: ragged hierarchy: expected 3 levels (as line 1), found 2; rows must all have the same length"
        );
        assert!(matches!(
            parse("a;x\nb;y\n").unwrap_err().area(),
            Some(HierarchyError::SeveralRoots { .. })
        ));
        assert!(matches!(
            parse("").unwrap_err().area(),
            Some(HierarchyError::Empty { .. })
        ));
    }
}
