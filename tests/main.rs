//! All integration tests in one binary (one link step).

mod contract;
mod util;
