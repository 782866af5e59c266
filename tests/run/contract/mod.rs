//! The contract cases C1 to C19 (docs/src/contract.md): their hand-written
//! outcomes met over stdio and by the pure core, and every contract check shown
//! to reject evidence broken in exactly one place.

mod cases;
mod checks;
mod frame_order;
