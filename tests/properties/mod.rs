//! The properties of generated answers G1 to G7 (docs/src/generated.md): G1 to
//! G5 on the pure core, G6 and G7 over stdio, the near misses one test each, the
//! planted faults of `calculator.py` found with any seed, and deliberately
//! broken cores caught with a small answer.

mod broken_cores;
mod core;
mod near_misses;
mod planted_faults;
mod stdio;
