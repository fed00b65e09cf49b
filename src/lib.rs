//! # karc: k-anonymized releases with a sealed, restorable original
//!
//! `karc` turns a microdata table into a k-anonymous release with the
//! published algorithms (Datafly, MA-Datafly, Incognito, and more), checks the
//! privacy claim of any release independently, and measures the utility each
//! anonymizer kept.
//!
//! The data model is columnar and dictionary-encoded: a [`table::Table`] holds
//! every CSV column as `u32` codes into a [`dictionary::Dictionary`] of its
//! distinct texts, so the hot loops (equivalence classes, generalization)
//! touch integers only. A [`dataset::Dataset`] binds a table to its
//! [`config::Config`]: column roles, types and [`hierarchy::Hierarchy`] trees.
//! Anonymizers produce a [`release::Release`] of generalized [`cell::Cell`]s.
//!
//! Imports run down only, with no circle (`tools/STRUCTURE.md` draws the
//! floors; `tools/tests/house.rs` keeps it so): [`error`] and the coding
//! primitives at the bottom; then [`io`], [`table`], [`arrow`],
//! [`hierarchy`], [`config`] and [`dataset`]; then what works on a bound
//! table ([`release`], [`codec`], [`stream`], [`privacy`], [`anonymize`],
//! [`metrics`], [`report`]); then [`archive`] and [`compare`]; and the facade
//! [`api`] on top, the one entry point of the command line and the Python
//! package. Each area keeps its own error enum and converts it into
//! [`Error`] where it is defined.
//!
//! ```no_run
//! use karc::{config::Config, dataset::Dataset, anonymize};
//! let config = Config::load("fixtures/adult/adult.toml".as_ref())?;
//! let data = Dataset::load(&config, "fixtures/adult/adult.csv".as_ref())?;
//! let model = karc::privacy::PrivacyModel::from_config(&config, &data)?;
//! let outcome = anonymize::run(&data, &model, &config.algorithm)?;
//! let report = karc::privacy::verify_release(&data, &outcome.release, &model);
//! assert!(report.holds());
//! # Ok::<(), karc::Error>(())
//! ```

#![warn(missing_docs)]

pub mod anonymize;
pub mod api;
pub mod archive;
pub mod arrow;
pub mod cell;
pub mod civil;
pub mod classes;
pub mod codec;
pub mod compare;
pub mod config;
pub mod contain;
pub mod dataset;
pub mod derived;
pub mod dictionary;
pub mod error;
pub mod frequency;
#[doc(hidden)]
pub mod fuzzing;
pub mod hierarchy;
pub mod huffman;
pub mod io;
pub(crate) mod jobs;
pub mod metrics;
pub mod minisign;
pub mod number;
pub mod privacy;
pub mod pseudonym;
pub mod release;
pub mod release_report;
pub mod report;
pub mod stream;
pub mod table;

pub use error::Error;

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
