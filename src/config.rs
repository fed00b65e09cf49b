//! The TOML config: every column's role, type and hierarchy, the privacy
//! model and the algorithm. Command-line flags override it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::hierarchy::builder::{Builder, BuilderSpec};
use crate::table::CsvOptions;
pub use crate::table::ValueType;
use crate::{Error, Result};

mod locate;
use locate::{SourceText, line_col};
pub use locate::{TomlKey, locate};

/// What is wrong with a config, or with how it fits the table.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The TOML does not parse or does not fit the config's schema (unknown key, wrong type).
    #[error("{}:{line}:{column}: {message}", path.display())]
    Parse {
        /// The config file.
        path: PathBuf,
        /// Line in the config (1-based).
        line: usize,
        /// Column in the line (1-based).
        column: usize,
        /// What is wrong, for the message.
        message: String,
    },
    /// `[input] delimiter` is not one ASCII character usable as a separator.
    #[error("{}{at}: [input] delimiter: expected one ASCII character other than a quote, CR, LF or NUL, found {found:?}", path.display())]
    Delimiter {
        /// The config file.
        path: PathBuf,
        /// Where in it (`:line:column`, or empty), as [`locate`] gives it.
        at: String,
        /// The value found.
        found: String,
    },
    /// A column without `role`.
    #[error("{}{at}: column {name:?} has no role: expected role = \"identifier\", \"quasi\", \"sensitive\" or \"insensitive\"", path.display())]
    NoRole {
        /// The config file.
        path: PathBuf,
        /// Where in it (`:line:column`, or empty).
        at: String,
        /// The column or algorithm name.
        name: String,
    },
    /// Two `[[columns]]` entries with the same name.
    #[error("{}{at}: column {name:?} is listed twice", path.display())]
    DuplicateColumn {
        /// The config file.
        path: PathBuf,
        /// Where in it (`:line:column`, or empty).
        at: String,
        /// The column or algorithm name.
        name: String,
    },
    /// The config names a column the table does not have.
    #[error("{}: the config names column {name:?}, which {} does not have (its columns: {available}){hint}", path.display(), csv.display())]
    UnknownColumn {
        /// The config file.
        path: PathBuf,
        /// The table the config was matched against.
        csv: PathBuf,
        /// The column or algorithm name.
        name: String,
        /// The table's columns, for the message.
        available: String,
        /// A guess at the cause (a wrong delimiter), or empty.
        hint: String,
    },
    /// The table has a column the config does not list.
    #[error("{}: column {name:?} of {} is not listed in the config: every column needs a role", path.display(), csv.display())]
    UnlistedColumn {
        /// The config file.
        path: PathBuf,
        /// The table the config was matched against.
        csv: PathBuf,
        /// The column or algorithm name.
        name: String,
    },
    /// A header-less table whose width differs from the config's column list.
    #[error("{}: the config lists {listed} columns, but {} has {found} and no header to match them by name", path.display(), csv.display())]
    ColumnCount {
        /// The config file.
        path: PathBuf,
        /// The table the config was matched against.
        csv: PathBuf,
        /// Columns the config lists.
        listed: usize,
        /// The value found.
        found: usize,
    },
    /// A hierarchy file named by the config cannot be read.
    #[error("{}: column {name:?}: hierarchy file {}: {source}", path.display(), hierarchy.display())]
    HierarchyFile {
        /// The config file.
        path: PathBuf,
        /// The column or algorithm name.
        name: String,
        /// The hierarchy file, as resolved.
        hierarchy: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// `[algorithm] name` is not one karc implements.
    #[error("unknown algorithm {name:?}: expected one of {known}")]
    UnknownAlgorithm {
        /// The column or algorithm name.
        name: String,
        /// The names accepted.
        known: String,
    },
    /// A `[[columns]]` key that does not fit the column (`allow_derived`).
    #[error("{}{at}: column {name:?}: {message}", path.display())]
    Column {
        /// The config file.
        path: PathBuf,
        /// Where in it (`:line:column`, or empty).
        at: String,
        /// The column.
        name: String,
        /// What is wrong, for the message.
        message: String,
    },
    /// A `[privacy]` value out of its range (k = 0, a limit outside 0..=1, ...).
    #[error("{}{at}: [privacy]: {message}", path.display())]
    Privacy {
        /// The config file.
        path: PathBuf,
        /// Where in it (`:line:column`, or empty).
        at: String,
        /// What is wrong, for the message.
        message: String,
    },
}

impl crate::error::AreaError for ConfigError {}

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

/// `[input]`: how the table is read (docs/CONFIG.md).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct InputConfig {
    /// One character; detected from the first line when absent.
    pub delimiter: Option<String>,
    /// Whether the first record names the columns (default true).
    #[serde(default = "yes")]
    pub header: bool,
    /// Tokens that stand for a missing value: values of their own, which a
    /// hierarchy must list; numeric columns accept them as non-numbers.
    #[serde(default = "default_missing")]
    pub missing: Vec<String>,
    /// Strip spaces around fields when reading values (the original bytes are still restored).
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

/// One `[[columns]]` entry.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnConfig {
    /// The header's name (or, without a header, the name the config gives the position).
    pub name: String,
    /// Required: checked after parsing so the message can name the column.
    pub role: Option<Role>,
    /// `type`; categorical when absent.
    #[serde(rename = "type", default)]
    pub value_type: ValueType,
    /// The hierarchy: an ARX hierarchy file (a path relative to the config
    /// file) or a builder over the column's own values.
    pub hierarchy: Option<HierarchyConfig>,
    /// The quasi-identifiers this released column may pin (docs/CONFIG.md,
    /// `allow_derived`): the publisher's explicit leave for a column the
    /// derived-column check (`crate::derived`) would refuse. `karc init`
    /// never writes it.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    pub allow_derived: Vec<String>,
    /// An identifier released as keyed pseudonyms (docs/CONFIG.md,
    /// `pseudonym`; the `pseudonym` module) rather than left out.
    #[serde(default, skip_serializing_if = "is_false")]
    pub pseudonym: bool,
    /// This column's pseudonym key file (relative to the config file),
    /// over the config's `pseudonym_key`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pseudonym_key: Option<PathBuf>,
}

fn is_false(b: &bool) -> bool {
    !b
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
    /// An ARX hierarchy file, resolved against the config's directory.
    File(PathBuf),
    /// A builder to run over the column's values.
    Build(Builder),
}

/// One `[[privacy.constraints]]` entry: k-anonymity on a subset of the QIs.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ConstraintConfig {
    /// The QI columns the constraint groups by.
    pub qi: Vec<String>,
    /// The smallest class size on those columns.
    pub k: usize,
}

/// `[privacy]`: the claim the release must hold.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PrivacyConfig {
    /// k of k-anonymity; `--k` may give it instead.
    pub k: Option<usize>,
    /// Fraction of the rows that may be suppressed; see `ALGORITHMS.md` for
    /// the budget when absent.
    pub suppression_limit: Option<f64>,
    /// How suppressed rows count in the check.
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
    /// Entropy l-diversity.
    pub entropy_l: Option<f64>,
    /// Recursive (c, l)-diversity as `[C, L]`.
    pub recursive_cl: Option<(f64, usize)>,
    /// t-closeness (earth mover's distance).
    pub t: Option<f64>,
    /// (alpha, k)-anonymity: no sensitive value above this share of a class.
    pub alpha: Option<f64>,
    /// delta-disclosure privacy.
    pub delta: Option<f64>,
    /// beta-likeness.
    pub beta: Option<f64>,
    /// Enhanced beta-likeness instead of basic, when `beta` is given.
    #[serde(default)]
    pub enhanced_beta: bool,
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

/// `[algorithm]`: which anonymizer runs, with its parameters.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct AlgorithmConfig {
    /// The anonymizer (`datafly` when absent).
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

/// A whole config file (docs/CONFIG.md is the reference of its keys).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// How the table is read.
    #[serde(default)]
    pub input: InputConfig,
    /// Every column of the table, in any order.
    pub columns: Vec<ColumnConfig>,
    /// The privacy claim.
    #[serde(default)]
    pub privacy: PrivacyConfig,
    /// The anonymizer.
    #[serde(default)]
    pub algorithm: AlgorithmConfig,
    /// The pseudonym key file (relative to the config file) of the
    /// `pseudonym = true` columns without one of their own; none: each pack
    /// draws a key and seals it (docs/CONFIG.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pseudonym_key: Option<PathBuf>,
    /// The config file, for messages and relative paths.
    #[serde(skip)]
    pub path: PathBuf,
    /// The config's text, which locates a semantic error ([`locate`]).
    #[serde(skip)]
    text: SourceText,
}

impl Config {
    /// Reads and validates a config file.
    pub fn load(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Config::parse(path, &text)
    }

    /// [`Config::parse`] of a text written from another form (a dict):
    /// its semantic errors name their keys without a line and column.
    pub fn parse_generated(path: &Path, text: &str) -> Result<Config> {
        Config::parse_located(path, text, false)
    }

    /// Parses config text; `path` locates hierarchy files and names errors.
    pub fn parse(path: &Path, text: &str) -> Result<Config> {
        Config::parse_located(path, text, true)
    }

    fn parse_located(path: &Path, text: &str, located: bool) -> Result<Config> {
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
        if located {
            config.text = SourceText(text.to_owned());
        }
        config.validate()?;
        Ok(config)
    }

    /// `":line:column"` of `keys` in this config's text ([`locate`]).
    pub fn at(&self, keys: &[TomlKey]) -> String {
        locate(&self.text.0, keys)
    }

    fn validate(&self) -> Result<()> {
        use TomlKey::{Index, Name};
        let path = || self.path.clone();
        self.delimiter()?;
        for (i, c) in self.columns.iter().enumerate() {
            let at = |key| self.at(&[Name("columns"), Index(i), key]);
            if c.role.is_none() {
                return Err(ConfigError::NoRole {
                    path: path(),
                    at: at(Name("name")),
                    name: c.name.clone(),
                }
                .into());
            }
            self.validate_release_keys(i, c)?;
            if self.columns[..i].iter().any(|d| d.name == c.name) {
                return Err(ConfigError::DuplicateColumn {
                    path: path(),
                    at: at(Name("name")),
                    name: c.name.clone(),
                }
                .into());
            }
        }
        let privacy = |keys: &[TomlKey], message: String| -> Result<()> {
            Err(ConfigError::Privacy {
                path: path(),
                at: self.at(keys),
                message,
            }
            .into())
        };
        if let Some(0) = self.privacy.k {
            return privacy(
                &[Name("privacy"), Name("k")],
                "k must be at least 1, found 0".to_owned(),
            );
        }
        if let Some((i, c)) = self
            .privacy
            .constraints
            .iter()
            .enumerate()
            .find(|(_, c)| c.k == 0)
        {
            let keys = [Name("privacy"), Name("constraints"), Index(i), Name("k")];
            return privacy(
                &keys,
                format!("constraint {}: k must be at least 1, found {}", i + 1, c.k),
            );
        }
        if let Some(0) = self.privacy.l {
            return privacy(
                &[Name("privacy"), Name("l")],
                "l must be at least 1, found 0".to_owned(),
            );
        }
        if let Some(limit) = self.privacy.suppression_limit
            && !(0.0..=1.0).contains(&limit)
        {
            return privacy(
                &[Name("privacy"), Name("suppression_limit")],
                format!("suppression_limit: expected a fraction in 0..=1, found {limit}"),
            );
        }
        Ok(())
    }

    /// `allow_derived` names quasi-identifiers of a released non-QI column;
    /// `pseudonym` and `pseudonym_key` are an identifier's.
    fn validate_release_keys(&self, i: usize, c: &ColumnConfig) -> Result<()> {
        let error = |key: &str, message: String| -> Result<()> {
            let keys = [
                TomlKey::Name("columns"),
                TomlKey::Index(i),
                TomlKey::Name(key),
            ];
            Err(ConfigError::Column {
                path: self.path.clone(),
                at: self.at(&keys),
                name: c.name.clone(),
                message,
            }
            .into())
        };
        if !c.allow_derived.is_empty() && matches!(c.role, Some(Role::Quasi | Role::Identifier)) {
            return error(
                "allow_derived",
                "allow_derived is for a released column that is not a quasi-identifier (role sensitive or insensitive)"
                    .to_owned(),
            );
        }
        if (c.pseudonym || c.pseudonym_key.is_some()) && c.role != Some(Role::Identifier) {
            let key = if c.pseudonym {
                "pseudonym"
            } else {
                "pseudonym_key"
            };
            return error(
                key,
                "pseudonym is for an identifier column: expected role = \"identifier\"".to_owned(),
            );
        }
        if c.pseudonym_key.is_some() && !c.pseudonym {
            return error(
                "pseudonym_key",
                "pseudonym_key needs pseudonym = true".to_owned(),
            );
        }
        for qi in &c.allow_derived {
            if self.role(qi) != Some(Role::Quasi) {
                return error(
                    "allow_derived",
                    format!("allow_derived: expected the name of a quasi-identifier, found {qi:?}"),
                );
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
                    [b] if crate::table::is_delimiter(*b) => Ok(Some(*b)),
                    _ => Err(ConfigError::Delimiter {
                        path: self.path.clone(),
                        at: self.at(&[TomlKey::Name("input"), TomlKey::Name("delimiter")]),
                        found: d.to_owned(),
                    }
                    .into()),
                }
            }
        }
    }

    /// The CSV reader's options the `[input]` section sets.
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

    /// The role of the column named `name`, if listed.
    pub fn role(&self, name: &str) -> Option<Role> {
        self.columns
            .iter()
            .find(|c| c.name == name)
            .and_then(|c| c.role)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Flags read the enums by their TOML names, and only those.
    #[test]
    fn enums_read_their_toml_names() {
        assert_eq!("mask".parse(), Ok(SuppressionPolicy::Mask));
        assert_eq!("strict".parse(), Ok(SuppressionPolicy::Strict));
        assert_eq!(
            "Mask".parse::<SuppressionPolicy>(),
            Err("expected mask or strict, found \"Mask\"".to_owned())
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
            // The line of the key at fault.
            let at_fault = ["k = 0", "l = 0", "suppression_limit"];
            let line = 1
                + (text.lines())
                    .position(|l| at_fault.iter().any(|f| l.starts_with(f)))
                    .unwrap();
            assert!(
                err.starts_with(&format!("c.toml:{line}:1: [privacy]: ")) && err.contains(expected),
                "{err}"
            );
        }
    }
}
