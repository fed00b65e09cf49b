//! The TOML config: every column's role, type and hierarchy, the privacy
//! model and the algorithm. Command-line flags override it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::hierarchy::builder::{Builder, BuilderSpec};
use crate::table::CsvOptions;
use crate::{Error, Result};

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{}:{line}:{column}: {message}", path.display())]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}: [input] delimiter: expected one ASCII character, found {found:?}", path.display())]
    Delimiter { path: PathBuf, found: String },
    #[error("{}: column {name:?} has no role: expected role = \"identifier\", \"quasi\", \"sensitive\" or \"insensitive\"", path.display())]
    NoRole { path: PathBuf, name: String },
    #[error("{}: column {name:?} is listed twice", path.display())]
    DuplicateColumn { path: PathBuf, name: String },
    #[error("{}: the config names column {name:?}, which {} does not have (its columns: {available}){hint}", path.display(), csv.display())]
    UnknownColumn {
        path: PathBuf,
        csv: PathBuf,
        name: String,
        available: String,
        /// A guess at the cause (a wrong delimiter), or empty.
        hint: String,
    },
    #[error("{}: column {name:?} of {} is not listed in the config: every column needs a role", path.display(), csv.display())]
    UnlistedColumn {
        path: PathBuf,
        csv: PathBuf,
        name: String,
    },
    #[error("{}: the config lists {listed} columns, but {} has {found} and no header to match them by name", path.display(), csv.display())]
    ColumnCount {
        path: PathBuf,
        csv: PathBuf,
        listed: usize,
        found: usize,
    },
    #[error("{}: column {name:?}: hierarchy file {}: {source}", path.display(), hierarchy.display())]
    HierarchyFile {
        path: PathBuf,
        name: String,
        hierarchy: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("unknown algorithm {name:?}: expected one of {known}")]
    UnknownAlgorithm { name: String, known: String },
    #[error("{}: [privacy]: {message}", path.display())]
    Privacy { path: PathBuf, message: String },
}

/// What a column is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Explicit identifier: never released (kept in the private part only).
    Identifier,
    /// Quasi-identifier: generalized.
    Quasi,
    /// Released as it is; the target of l-diversity.
    Sensitive,
    /// Released as it is.
    Insensitive,
}

/// How a column's values are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueType {
    Integer,
    Decimal,
    #[default]
    Categorical,
}

impl ValueType {
    pub fn is_numeric(self) -> bool {
        !matches!(self, ValueType::Categorical)
    }
}

/// How suppressed rows (every QI cell `*`) count in the privacy check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SuppressionPolicy {
    /// Suppressed rows stay in the release and are exempt from the check.
    #[default]
    Mask,
    /// All-`*` rows form one ordinary class that must reach k (pyCANON).
    Strict,
}

impl std::str::FromStr for SuppressionPolicy {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        from_name(s, "mask or strict")
    }
}

/// A unit variant read by its serde name (`mask`, `pycanon`): flags and the
/// Python API spell the config's enums as the TOML keys do, through this one
/// reading. `expected` lists the names for the message.
pub fn from_name<T: serde::de::DeserializeOwned>(
    s: &str,
    expected: &str,
) -> std::result::Result<T, String> {
    use serde::de::IntoDeserializer;
    let name: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
        s.into_deserializer();
    T::deserialize(name).map_err(|_| format!("expected {expected}, found {s:?}"))
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct InputConfig {
    /// One character; detected from the first line when absent.
    pub delimiter: Option<String>,
    #[serde(default = "yes")]
    pub header: bool,
    /// Tokens that stand for a missing value: values of their own, which a
    /// hierarchy must list; numeric columns accept them as non-numbers.
    #[serde(default = "default_missing")]
    pub missing: Vec<String>,
    #[serde(default)]
    pub trim: bool,
}

fn yes() -> bool {
    true
}

fn default_missing() -> Vec<String> {
    vec![String::new(), "?".to_owned()]
}

impl Default for InputConfig {
    fn default() -> Self {
        InputConfig {
            delimiter: None,
            header: true,
            missing: default_missing(),
            trim: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnConfig {
    pub name: String,
    pub role: Option<Role>,
    #[serde(rename = "type", default)]
    pub value_type: ValueType,
    /// The hierarchy: an ARX hierarchy file (a path relative to the config
    /// file) or a builder over the column's own values.
    pub hierarchy: Option<HierarchyConfig>,
}

/// Where a column's hierarchy comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum HierarchyConfig {
    /// `hierarchy = "h/age.csv"`: an ARX file.
    File(PathBuf),
    /// `hierarchy = { mask = 3 }`: built from the column's values.
    Build(BuilderSpec),
}

impl From<PathBuf> for HierarchyConfig {
    fn from(path: PathBuf) -> Self {
        HierarchyConfig::File(path)
    }
}

impl From<String> for HierarchyConfig {
    fn from(path: String) -> Self {
        HierarchyConfig::File(path.into())
    }
}

/// A string is a file, a table a builder (whose own errors keep their place
/// in the file, which serde's untagged enums would lose).
impl<'de> Deserialize<'de> for HierarchyConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = HierarchyConfig;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "a hierarchy file's path or a builder table ({ mask = N }, { intervals = [...] }, \
                     { dates = \"day,month,year\" } or { flat = true })",
                )
            }
            fn visit_str<E: serde::de::Error>(
                self,
                v: &str,
            ) -> std::result::Result<Self::Value, E> {
                Ok(HierarchyConfig::File(v.into()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let spec =
                    BuilderSpec::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                spec.builder().map_err(serde::de::Error::custom)?;
                Ok(HierarchyConfig::Build(spec))
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// A column's hierarchy, ready to load or build.
pub enum HierarchySource {
    File(PathBuf),
    Build(Builder),
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ConstraintConfig {
    pub qi: Vec<String>,
    pub k: usize,
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PrivacyConfig {
    pub k: Option<usize>,
    /// Fraction of the rows that may be suppressed; see `ALGORITHMS.md` for
    /// the budget when absent.
    pub suppression_limit: Option<f64>,
    #[serde(default)]
    pub suppressed: SuppressionPolicy,
    /// A constraint set, used instead of `k` when given.
    #[serde(default)]
    pub constraints: Vec<ConstraintConfig>,
    /// The sensitive column(s) the models beyond k hold on: a name or a
    /// list of names (as `--sensitive`, repeatable).
    #[serde(default, deserialize_with = "one_or_many")]
    pub sensitive: Vec<String>,
    /// Distinct l-diversity.
    pub l: Option<usize>,
    // The models beyond distinct l, each as its flag names it (README,
    // "Privacy models").
    pub entropy_l: Option<f64>,
    /// `[C, L]`.
    pub recursive_cl: Option<(f64, usize)>,
    pub t: Option<f64>,
    pub alpha: Option<f64>,
    pub delta: Option<f64>,
    pub beta: Option<f64>,
    #[serde(default)]
    pub enhanced_beta: bool,
}

impl PrivacyConfig {
    /// The models beyond k these keys claim, by pyCANON's definitions (the
    /// ones the anonymizers enforce): the one reading of the keys.
    pub fn models(&self) -> crate::privacy::Models {
        crate::privacy::Models {
            l: self.l,
            entropy_l: self.entropy_l,
            recursive_cl: self.recursive_cl,
            t: self.t,
            alpha: self.alpha,
            delta: self.delta,
            beta: self.beta,
            enhanced_beta: self.enhanced_beta,
            definitions: crate::privacy::Definitions::PyCanon,
        }
    }

    /// Whether the keys name sensitive columns or claim a model beyond k.
    pub fn beyond_k(&self) -> bool {
        !self.sensitive.is_empty() || self.models().any()
    }
}

/// A string or a list of strings, as a list.
fn one_or_many<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Names {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Names::deserialize(d)? {
        Names::One(name) => vec![name],
        Names::Many(names) => names,
    })
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct AlgorithmConfig {
    #[serde(default = "default_algorithm")]
    pub name: String,
    /// Seed of every randomized step.
    #[serde(default)]
    pub seed: u64,
    /// Further parameters of the algorithm.
    #[serde(flatten)]
    pub params: toml::Table,
}

fn default_algorithm() -> String {
    "datafly".to_owned()
}

impl Default for AlgorithmConfig {
    fn default() -> Self {
        AlgorithmConfig {
            name: default_algorithm(),
            seed: 0,
            params: toml::Table::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub input: InputConfig,
    pub columns: Vec<ColumnConfig>,
    #[serde(default)]
    pub privacy: PrivacyConfig,
    #[serde(default)]
    pub algorithm: AlgorithmConfig,
    /// The config file, for messages and relative paths.
    #[serde(skip)]
    pub path: PathBuf,
}

impl Config {
    pub fn load(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Config::parse(path, &text)
    }

    /// Parses config text; `path` locates hierarchy files and names errors.
    pub fn parse(path: &Path, text: &str) -> Result<Config> {
        let mut config: Config = toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((0, 0));
            ConfigError::Parse {
                path: path.to_owned(),
                line,
                column,
                message: e.message().replace('\n', " "),
            }
        })?;
        config.path = path.to_owned();
        config.validate()?;
        Ok(config)
    }

    fn validate(&self) -> Result<()> {
        let path = || self.path.clone();
        self.delimiter()?;
        for (i, c) in self.columns.iter().enumerate() {
            if c.role.is_none() {
                return Err(ConfigError::NoRole {
                    path: path(),
                    name: c.name.clone(),
                }
                .into());
            }
            if self.columns[..i].iter().any(|d| d.name == c.name) {
                return Err(ConfigError::DuplicateColumn {
                    path: path(),
                    name: c.name.clone(),
                }
                .into());
            }
        }
        let privacy = |message: String| -> Result<()> {
            Err(ConfigError::Privacy {
                path: path(),
                message,
            }
            .into())
        };
        let constraints = self.privacy.constraints.iter().enumerate();
        let counts = (self.privacy.k.map(|k| ("k".to_owned(), k)).into_iter())
            .chain(constraints.map(|(i, c)| (format!("constraint {}: k", i + 1), c.k)))
            .chain(self.privacy.l.map(|l| ("l".to_owned(), l)));
        for (name, value) in counts {
            if value == 0 {
                return privacy(format!("{name} must be at least 1, found 0"));
            }
        }
        if let Some(limit) = self.privacy.suppression_limit {
            if !(0.0..=1.0).contains(&limit) {
                return Err(ConfigError::Privacy {
                    path: path(),
                    message: format!(
                        "suppression_limit: expected a fraction in 0..=1, found {limit}"
                    ),
                }
                .into());
            }
        }
        Ok(())
    }

    /// The configured delimiter as a byte.
    pub fn delimiter(&self) -> Result<Option<u8>> {
        match &self.input.delimiter {
            None => Ok(None),
            Some(d) => {
                let d = if d == "\\t" { "\t" } else { d.as_str() };
                match d.as_bytes() {
                    [b] if b.is_ascii() && *b != b'"' && *b != b'\n' && *b != b'\r' => Ok(Some(*b)),
                    _ => Err(ConfigError::Delimiter {
                        path: self.path.clone(),
                        found: d.to_owned(),
                    }
                    .into()),
                }
            }
        }
    }

    pub fn csv_options(&self) -> Result<CsvOptions> {
        Ok(CsvOptions {
            delimiter: self.delimiter()?,
            header: self.input.header,
            trim: self.input.trim,
        })
    }

    /// Directory against which relative hierarchy paths resolve.
    pub fn base_dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// The hierarchy file of `column`, if it names one.
    pub fn hierarchy_path(&self, column: &ColumnConfig) -> Option<PathBuf> {
        match &column.hierarchy {
            Some(HierarchyConfig::File(h)) => Some(self.base_dir().join(h)),
            _ => None,
        }
    }

    /// Where the hierarchy of `column` comes from, if it has one.
    pub fn hierarchy_source(&self, column: &ColumnConfig) -> Option<HierarchySource> {
        match &column.hierarchy {
            None => None,
            Some(HierarchyConfig::File(h)) => Some(HierarchySource::File(self.base_dir().join(h))),
            Some(HierarchyConfig::Build(spec)) => Some(HierarchySource::Build(
                spec.builder().expect("checked when parsed"),
            )),
        }
    }

    pub fn role(&self, name: &str) -> Option<Role> {
        self.columns
            .iter()
            .find(|c| c.name == name)
            .and_then(|c| c.role)
    }
}

/// 1-based line and column of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rfind('\n')
        .map_or(before.len(), |i| before.len() - i - 1)
        + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Flags read the enums by their TOML names, and only those.
    #[test]
    fn enums_read_their_toml_names() {
        use crate::privacy::Definitions;
        assert_eq!("mask".parse(), Ok(SuppressionPolicy::Mask));
        assert_eq!("strict".parse(), Ok(SuppressionPolicy::Strict));
        assert_eq!("pycanon".parse(), Ok(Definitions::PyCanon));
        assert_eq!("literature".parse(), Ok(Definitions::Literature));
        assert_eq!(
            "Mask".parse::<SuppressionPolicy>(),
            Err("expected mask or strict, found \"Mask\"".to_owned())
        );
        assert_eq!(
            "".parse::<Definitions>(),
            Err("expected pycanon or literature, found \"\"".to_owned())
        );
    }

    #[test]
    fn parses_a_full_config() {
        let c = Config::parse(
            Path::new("dir/c.toml"),
            r#"
            [input]
            delimiter = ";"
            [[columns]]
            name = "age"
            role = "quasi"
            type = "integer"
            hierarchy = "h/age.csv"
            [privacy]
            k = 10
            [[privacy.constraints]]
            qi = ["age"]
            k = 5
            [algorithm]
            name = "incognito"
            seed = 7
            rounds = 3
            "#,
        )
        .unwrap();
        assert_eq!(c.delimiter().unwrap(), Some(b';'));
        assert_eq!(c.columns[0].value_type, ValueType::Integer);
        assert_eq!(
            c.hierarchy_path(&c.columns[0]).unwrap(),
            Path::new("dir/h/age.csv")
        );
        assert_eq!(c.privacy.constraints[0].k, 5);
        assert_eq!(c.algorithm.seed, 7);
        assert_eq!(c.algorithm.params["rounds"].as_integer(), Some(3));
        assert_eq!(c.input.missing, vec!["", "?"]);
    }

    #[test]
    fn errors_name_the_place() {
        let err = Config::parse(
            Path::new("c.toml"),
            "[[columns]]\nname = \"a\"\nrole = \"boss\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("c.toml:3:8: unknown variant `boss`"),
            "{err}"
        );
        let err = Config::parse(Path::new("c.toml"), "[[columns]]\nname = \"a\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("column \"a\" has no role"), "{err}");
    }

    #[test]
    fn numbers_out_of_range_are_refused() {
        let column = "[[columns]]\nname = \"a\"\nrole = \"quasi\"\n";
        for (privacy, expected) in [
            ("k = 0", "k must be at least 1, found 0"),
            ("l = 0\nsensitive = \"a\"", "l must be at least 1, found 0"),
            (
                "[[privacy.constraints]]\nqi = [\"a\"]\nk = 0",
                "constraint 1: k must be at least 1",
            ),
            (
                "suppression_limit = 1.5",
                "expected a fraction in 0..=1, found 1.5",
            ),
            ("suppression_limit = nan", "found NaN"),
            ("suppression_limit = -inf", "found -inf"),
        ] {
            let text = format!("{column}[privacy]\n{privacy}\n");
            let err = Config::parse(Path::new("c.toml"), &text)
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with("c.toml: [privacy]: ") && err.contains(expected),
                "{err}"
            );
        }
    }
}
