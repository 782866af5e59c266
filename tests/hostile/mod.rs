//! Hostile and reentrant clients (docs/src/hostile.md): the hostile-client
//! cases H1 to H16 against the reference server, `calculator.py` and every SDK
//! peer, and a client whose elicitation handler sends requests of its own to
//! the server before it answers.

mod client;
mod peers;
mod reentrancy;
