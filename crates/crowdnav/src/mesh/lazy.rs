//! A mesh's derived data that is built on first use and that an edit, rather than
//! drop, keeps aside for its next use to bring up to date (the corridor index, the
//! query index, the grid of obstacle corners): [`Refreshed`].

use std::sync::{Mutex, OnceLock};

/// Data of type `T` derived from a mesh: up to date (`ready`), or, after an edit, kept
/// aside as `S` (the data of an earlier state, with whatever the update needs) until
/// the first use brings it up to date, by whichever thread asks first (the result
/// depends on the mesh alone).
#[derive(Debug)]
pub(crate) struct Refreshed<T, S = T> {
    ready: OnceLock<T>,
    stale: Mutex<Option<S>>,
}

impl<T, S> Default for Refreshed<T, S> {
    fn default() -> Self {
        Refreshed {
            ready: OnceLock::new(),
            stale: Mutex::new(None),
        }
    }
}

impl<T: Clone, S: Clone> Clone for Refreshed<T, S> {
    fn clone(&self) -> Self {
        let stale = match self.stale.lock() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        Refreshed {
            ready: self.ready.clone(),
            stale: Mutex::new(stale),
        }
    }
}

impl<T, S> Refreshed<T, S> {
    /// Data already built and up to date.
    pub(crate) fn built(data: T) -> Self {
        Refreshed {
            ready: OnceLock::from(data),
            stale: Mutex::new(None),
        }
    }

    /// The data, up to date: as it is, or `refresh` of what an edit kept aside (`None`
    /// when nothing was built yet) on first use.
    pub(crate) fn get(&self, refresh: impl FnOnce(Option<S>) -> T) -> &T {
        self.ready.get_or_init(|| {
            let stale = match self.stale.lock() {
                Ok(mut guard) => guard.take(),
                Err(poisoned) => poisoned.into_inner().take(),
            };
            refresh(stale)
        })
    }

    /// The data if it is built and up to date.
    pub(crate) fn ready(&self) -> Option<&T> {
        self.ready.get()
    }

    /// Notes an edit: the data, if up to date, goes to `keep` together with what was
    /// kept aside before (if any), and what `keep` gives is kept aside.
    pub(crate) fn edited(&mut self, keep: impl FnOnce(Option<T>, Option<S>) -> Option<S>) {
        let stale = self.stale.get_mut().unwrap_or_else(|p| p.into_inner());
        *stale = keep(self.ready.take(), stale.take());
    }

    /// What an edit kept aside, if any.
    pub(crate) fn stale_mut(&mut self) -> Option<&mut S> {
        self.stale
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
    }

    /// Whether an edit left the data to be brought up to date by its first use.
    pub(crate) fn is_stale(&self) -> bool {
        self.stale.lock().is_ok_and(|stale| stale.is_some())
    }
}

impl<T> Refreshed<T> {
    /// Notes an edit: data up to date is kept aside as it is, for its first use to
    /// bring up to date.
    pub(crate) fn keep_aside(&mut self) {
        self.edited(|ready, stale| ready.or(stale));
    }
}
