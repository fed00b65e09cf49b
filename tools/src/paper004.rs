//! The published figures of paper 004 (Yu, Lin, Li, Yu, 2023: Huffman-based
//! compression for the k-anonymity model), transcribed from its text: the
//! reductions of the compression rate against Windows 11's zip for the
//! original data (figures 5 and 6, quoted in the text) and for the
//! anonymized data (tables 5 and 6), and the compression times (tables 4, 7
//! and 8). Rates are compressed bytes / original bytes, in percent.

/// The paper's k values.
pub const K: [usize; 4] = [5, 10, 50, 100];

/// One algorithm's figures, one entry per k of [`K`].
pub struct Figures {
    /// karc's name of the algorithm.
    pub algorithm: &'static str,
    /// The paper's name.
    pub paper_name: &'static str,
    /// Original data: reduction of the rate against zip, percent.
    pub original_reduction: [f64; 4],
    /// Anonymized data: (zip rate, the paper's rate, reduction), percent.
    pub release: [(f64, f64, f64); 4],
    /// Original data compression time, ms (zip took 43.5 ms).
    pub original_ms: [f64; 4],
    /// Anonymized data compression time, ms: (zip, the paper's scheme).
    pub release_ms: [(f64, f64); 4],
}

/// zip's rate on the original Adult table, percent.
pub const ZIP_ORIGINAL_RATE: f64 = 7.87;
/// zip's time on the original Adult table, ms.
pub const ZIP_ORIGINAL_MS: f64 = 43.5;
/// The paper's average reductions over its 20 cells, percent.
pub const AVERAGE_ORIGINAL_REDUCTION: f64 = 72.2;
pub const AVERAGE_RELEASE_REDUCTION: f64 = 64.2;

pub const FIGURES: [Figures; 5] = [
    Figures {
        algorithm: "incognito",
        paper_name: "Incognito",
        original_reduction: [76.7, 74.7, 70.3, 68.6],
        release: [
            (7.77, 2.87, 63.1),
            (7.54, 2.82, 62.6),
            (6.75, 2.74, 59.4),
            (6.08, 2.59, 57.4),
        ],
        original_ms: [33.4, 33.6, 34.9, 35.4],
        release_ms: [(43.6, 28.7), (42.9, 27.5), (42.1, 26.9), (41.5, 26.2)],
    },
    Figures {
        algorithm: "datafly",
        paper_name: "Datafly",
        original_reduction: [70.9, 68.7, 68.7, 68.7],
        release: [
            (3.42, 1.06, 69.0),
            (3.18, 0.86, 73.0),
            (3.18, 0.86, 73.0),
            (3.18, 0.86, 73.0),
        ],
        original_ms: [34.5, 35.2, 35.2, 35.2],
        release_ms: [(32.5, 18.2), (31.4, 16.6), (31.4, 16.6), (31.4, 16.6)],
    },
    Figures {
        algorithm: "topdown",
        paper_name: "Top-down",
        original_reduction: [75.3, 72.4, 67.1, 65.4],
        release: [
            (7.70, 2.91, 62.2),
            (7.51, 2.84, 62.2),
            (6.94, 2.67, 61.5),
            (6.66, 2.65, 60.2),
        ],
        original_ms: [33.6, 34.4, 35.7, 36.4],
        release_ms: [(41.5, 27.4), (40.8, 26.8), (39.4, 25.7), (38.9, 25.5)],
    },
    Figures {
        algorithm: "mondrian",
        paper_name: "Mondrian",
        original_reduction: [78.7, 77.4, 71.9, 71.5],
        release: [
            (7.26, 2.58, 64.5),
            (6.46, 2.19, 66.1),
            (4.34, 1.28, 70.5),
            (3.36, 0.90, 73.2),
        ],
        original_ms: [32.9, 33.2, 34.5, 34.7],
        release_ms: [(40.8, 24.7), (38.4, 19.3), (34.5, 17.8), (32.3, 17.5)],
    },
    Figures {
        algorithm: "basic-mondrian",
        paper_name: "Basic Mondrian",
        original_reduction: [76.4, 74.2, 72.7, 72.3],
        release: [
            (7.87, 2.96, 62.4),
            (7.57, 2.92, 61.4),
            (6.10, 2.81, 53.9),
            (4.95, 2.22, 55.2),
        ],
        original_ms: [33.5, 34.1, 34.3, 34.4],
        release_ms: [(42.5, 28.1), (41.1, 27.6), (37.9, 26.3), (35.8, 22.7)],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The transcription reproduces the paper's own averages (72.2 %, 64.2 %).
    #[test]
    fn averages_match_the_abstract() {
        let n = (FIGURES.len() * K.len()) as f64;
        let orig: f64 = FIGURES
            .iter()
            .flat_map(|f| f.original_reduction)
            .sum::<f64>()
            / n;
        let rel: f64 = FIGURES
            .iter()
            .flat_map(|f| f.release.map(|r| r.2))
            .sum::<f64>()
            / n;
        assert!((orig - AVERAGE_ORIGINAL_REDUCTION).abs() < 0.1, "{orig}");
        assert!((rel - AVERAGE_RELEASE_REDUCTION).abs() < 0.15, "{rel}");
    }
}
