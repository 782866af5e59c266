//! Locking a mutex whose data stays usable after a panic elsewhere: the
//! answers a responder noted, a check's journal and the reference server's
//! line gate are shared between tasks, and a task that panics must not make
//! the others lose what they hold. Like [`mod@crate::format`], it imports
//! nothing of the crate.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, keeping its data when another holder panicked (a
/// poisoned lock is read as it was left).
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn a_lock_poisoned_by_a_panic_keeps_its_data() {
        let shared = Arc::new(Mutex::new(vec![1]));
        let held = Arc::clone(&shared);
        let panicked = std::thread::spawn(move || {
            let mut data = held.lock().expect("not poisoned yet");
            data.push(2);
            panic!("a holder panics");
        })
        .join();
        assert!(panicked.is_err());
        assert!(shared.is_poisoned());
        lock(&shared).push(3);
        assert_eq!(*lock(&shared), vec![1, 2, 3]);
    }
}
