//! The runners' command line: `--name value` pairs, checked against the
//! names a runner knows, so a typo is an error instead of a silent default.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::str::FromStr;

/// `--name value` options of a runner.
#[derive(Debug)]
pub struct Args {
    values: BTreeMap<String, String>,
}

impl Args {
    /// Parses the process arguments; `known` lists the accepted names.
    pub fn from_env(known: &[&str]) -> Result<Args, String> {
        Args::parse_from(std::env::args().skip(1), known)
    }

    pub fn parse_from(
        args: impl IntoIterator<Item = String>,
        known: &[&str],
    ) -> Result<Args, String> {
        let mut values = BTreeMap::new();
        let mut it = args.into_iter();
        while let Some(arg) = it.next() {
            let Some(name) = arg.strip_prefix("--") else {
                return Err(format!("expected an option --name, found {arg:?}"));
            };
            if !known.contains(&name) {
                return Err(format!(
                    "unknown option --{name}; expected one of: --{}",
                    known.join(", --")
                ));
            }
            let value = it
                .next()
                .ok_or_else(|| format!("option --{name} needs a value"))?;
            values.insert(name.to_owned(), value);
        }
        Ok(Args { values })
    }

    /// The value of `--name`, if given.
    pub fn take(&mut self, name: &str) -> Option<String> {
        self.values.remove(name)
    }

    /// The value of `--name` parsed as `T`, if given.
    pub fn parse<T: FromStr>(&mut self, name: &str) -> Result<Option<T>, String>
    where
        T::Err: std::fmt::Display,
    {
        self.take(name)
            .map(|v| {
                v.parse::<T>()
                    .map_err(|e| format!("option --{name}: {e}: found {v:?}"))
            })
            .transpose()
    }
}

/// The repository's `fixtures/` directory.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_unknown_and_incomplete_options() {
        let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut a = Args::parse_from(args(&["--rows", "12"]), &["rows", "seed"]).unwrap();
        assert_eq!(a.parse::<usize>("rows").unwrap(), Some(12));
        assert_eq!(a.parse::<u64>("seed").unwrap(), None);
        assert!(Args::parse_from(args(&["--row", "1"]), &["rows"]).is_err());
        assert!(Args::parse_from(args(&["--rows"]), &["rows"]).is_err());
        let mut bad = Args::parse_from(args(&["--rows", "x"]), &["rows"]).unwrap();
        assert!(bad.parse::<usize>("rows").is_err());
    }
}
