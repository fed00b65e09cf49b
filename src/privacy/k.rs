//! k-anonymity (Samarati, Sweeney): every equivalence class holds at least k
//! rows. The classes leave out the exempt suppressed rows, as pyCANON's
//! `groupby` leaves out rows whose QI is missing.

use crate::classes::Partition;

/// The k a partition achieves: its smallest class, `None` without classes.
pub fn k_anonymity(p: &Partition) -> Option<usize> {
    p.min_class().map(|s| s as usize)
}
