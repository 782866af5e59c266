//! The fix per SDK: what a failed property says about the server's code, in
//! that server's own API.
//!
//! In: a failed call's evidence from [`mod@crate::check`] (the property broken,
//! the class the judge gave each answer, the `requestedSchema`, the client's
//! capabilities) and the frames every session carries. Out: the failure's
//! [`flaw::Flaw`] (lax coercion, a decline acted on, ...), the SDK that
//! answered ([`sdk::SdkGuess`]: read from marks each SDK leaves on the wire),
//! and one `fix:` line per flaw and SDK with its guide page
//! ([`remedy::fix`], [`remedy::url`], `docs/src/fixes/`), which the
//! check's report ([`crate::report::check`]) prints.
//!
//! Nothing here runs a server or judges an answer: every rule reads evidence
//! the job already has.

pub mod flaw;
pub mod remedy;
pub mod sdk;
