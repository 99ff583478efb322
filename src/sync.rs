//! Locks that outlive a panic. A task that panics while holding one of
//! dra's mutexes leaves data that is still whole (every update is a single
//! statement), so the next holder takes it over instead of failing too.

use std::sync::{Mutex, MutexGuard, PoisonError};

pub trait LockExt<T: ?Sized> {
    /// Locks, taking the data over from a holder that panicked.
    fn lock_or_recover(&self) -> MutexGuard<'_, T>;
    /// The data of an unshared mutex, whether or not a holder panicked.
    fn get_mut_or_recover(&mut self) -> &mut T;
}

impl<T: ?Sized> LockExt<T> for Mutex<T> {
    fn lock_or_recover(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn get_mut_or_recover(&mut self) -> &mut T {
        self.get_mut().unwrap_or_else(PoisonError::into_inner)
    }
}
