//! `check --shard K/N`: the K-th of N deterministic slices of the config's
//! targets, so a CI matrix of N jobs checks every target exactly once (as
//! cargo-mutants' `--shard k/n` and nextest's `--partition count:k/n` slice
//! their work). The slice is round-robin over the targets in the file's order
//! (after `--target`): the target at position `i` (from 0) belongs to shard
//! `i % N + 1`. The same file and options give the same slices on every
//! machine.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One slice: `index` of `count`, `1 <= index <= count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which slice, from 1.
    pub index: usize,
    /// How many slices.
    pub count: usize,
}

impl Shard {
    /// Whether the item at `position` (from 0) belongs to this slice.
    pub fn takes(self, position: usize) -> bool {
        position % self.count + 1 == self.index
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `K/N`, e.g. `1/4`.
    ///
    /// # Errors
    /// Not two whole numbers around a `/`, `N` of 0, or `K` outside 1..=N.
    fn from_str(text: &str) -> Result<Shard, String> {
        let parse = |part: &str| part.trim().parse::<usize>().ok();
        let Some((index, count)) = text
            .split_once('/')
            .and_then(|(index, count)| Some((parse(index)?, parse(count)?)))
        else {
            return Err(format!(
                "shard {text:?}: expected K/N, e.g. 1/4 (the first of four slices)"
            ));
        };
        if count == 0 || index == 0 || index > count {
            return Err(format!(
                "shard {text:?}: K must be 1 to N, and N at least 1"
            ));
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(shard: &str, items: usize) -> Vec<usize> {
        let shard: Shard = shard.parse().expect("a shard");
        (0..items)
            .filter(|&position| shard.takes(position))
            .collect()
    }

    #[test]
    fn the_slices_are_round_robin_and_cover_each_position_once() {
        assert_eq!(taken("1/2", 5), [0, 2, 4]);
        assert_eq!(taken("2/2", 5), [1, 3]);
        assert_eq!(taken("1/3", 7), [0, 3, 6]);
        assert_eq!(taken("2/3", 7), [1, 4]);
        assert_eq!(taken("3/3", 7), [2, 5]);
        assert_eq!(taken("1/1", 3), [0, 1, 2]);
        // More slices than items: the last slices are empty.
        assert_eq!(taken("3/4", 2), Vec::<usize>::new());
    }

    #[test]
    fn a_shard_reads_and_prints_as_k_slash_n() {
        assert_eq!("2/5".parse::<Shard>(), Ok(Shard { index: 2, count: 5 }));
        assert_eq!(Shard { index: 2, count: 5 }.to_string(), "2/5");
        for bad in ["0/2", "3/2", "1/0", "2", "a/b", "1/2/3", "-1/2"] {
            let error = bad.parse::<Shard>().expect_err(bad);
            assert!(error.starts_with(&format!("shard {bad:?}: ")), "{error}");
        }
        assert_eq!(
            "3/2".parse::<Shard>().expect_err("beyond"),
            "shard \"3/2\": K must be 1 to N, and N at least 1"
        );
    }
}
