//! Wire mutants and snapshots (docs/src/wire.md): one snapshot of each contract
//! case's transcript, and every corruption of the server's frames rejected by
//! the contract oracle.

mod mutants;
mod snapshots;
