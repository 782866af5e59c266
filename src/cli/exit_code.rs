//! The exit codes of `elicit-check` (every subcommand).

/// Every case passed (`run`), every property held (`check`), or `serve` ended
/// when its client closed stdin.
pub const PASSED: u8 = 0;

/// A case failed (`run`) or a property failed (`check`): the server under test
/// broke the contract.
pub const FAILED: u8 = 1;

/// Nothing was judged: bad options or config, a server that cannot be started
/// or does not offer the tool, a set-up command that failed, evidence that
/// cannot be written, or an interrupted run. Also clap's code for a usage error.
pub const ERROR: u8 = 2;
