//! Independent work items (the experts of a block of rounds) on several threads
//! (rayon). Each item is processed by exactly one call that touches only that
//! item, so the results do not depend on the number of threads, bit for bit.
//!
//! `threads`, the learners' parameter (docs/choices.md, "Threads"): `0` uses the
//! library's shared pool (one thread per core, or `RAYON_NUM_THREADS`), `1` the
//! calling thread only, `t > 1` a pool of `t` threads for the call. Ctrl-C is
//! polled by the caller between blocks ([`crate::interrupt::poll`] does nothing
//! on a pool thread).
//!
//! Fork safety: a forked child has only the thread that called `fork`; a pool
//! built before the fork has workers that no longer exist, and a job sent to it
//! would wait forever. rayon's global pool is therefore never used: the shared
//! pool is built by this module and remembers the process id that built it; a
//! process that finds another id (a forked child) builds its own pool and
//! leaves the parent's untouched (leaked: its locks may be held by threads that
//! do not exist in the child). Per-call pools (`t > 1`) live within one call.

use crate::error::Result;
use rayon::prelude::*;
use std::sync::atomic::{AtomicPtr, Ordering};

/// Largest accepted `threads`.
pub const MAX_THREADS: usize = 1024;

/// The domain of a `threads` parameter (`0`: one per core; `1`: the calling thread): the
/// row `threads` of the parameter structs and the check of [`check_threads`].
pub const THREADS: crate::params::Constraint = crate::params::between(0.0, MAX_THREADS as f64);

/// Checks a `threads` parameter against [`THREADS`].
pub fn check_threads(threads: usize) -> Result<()> {
    crate::params::Checked::check_in(&threads, "threads", &THREADS)
}

/// The shared pool of one process (never freed: see the module comment).
struct Shared {
    pid: u32,
    pool: rayon::ThreadPool,
}

static SHARED: AtomicPtr<Shared> = AtomicPtr::new(std::ptr::null_mut());

/// The shared pool of this process, built on first use in it (None if no
/// thread can be started: the caller then runs the items itself).
fn shared_pool() -> Option<&'static rayon::ThreadPool> {
    let pid = std::process::id();
    let cur = SHARED.load(Ordering::Acquire);
    // SAFETY: a non-null pointer was made by `Box::into_raw` below and is never freed.
    if let Some(s) = unsafe { cur.as_ref() } {
        if s.pid == pid {
            return Some(&s.pool);
        }
    }
    let pool = rayon::ThreadPoolBuilder::new().build().ok()?;
    let new = Box::into_raw(Box::new(Shared { pid, pool }));
    match SHARED.compare_exchange(cur, new, Ordering::AcqRel, Ordering::Acquire) {
        // The previous pool (if any) belonged to a parent process: left as it is.
        // SAFETY: `new` was just stored and is never freed.
        Ok(_) => Some(unsafe { &(*new).pool }),
        Err(winner) => {
            // Another thread of this process built one first: use it, drop ours.
            // SAFETY: `new` was never shared; `winner` is never freed.
            drop(unsafe { Box::from_raw(new) });
            match unsafe { winner.as_ref() } {
                Some(s) if s.pid == pid => Some(&s.pool),
                _ => None,
            }
        }
    }
}

/// Where the items of one call run (built once per call, used for every block).
pub enum Workers {
    Caller,
    Shared(&'static rayon::ThreadPool),
    Own(rayon::ThreadPool),
}

impl Workers {
    /// The workers for `threads` (a pool that cannot be started falls back to the
    /// calling thread: the results are the same).
    pub fn new(threads: usize) -> Self {
        match threads {
            1 => Workers::Caller,
            0 => shared_pool().map_or(Workers::Caller, Workers::Shared),
            t => match rayon::ThreadPoolBuilder::new().num_threads(t).build() {
                Ok(p) => Workers::Own(p),
                Err(_) => Workers::Caller,
            },
        }
    }

    /// Calls `f` once on every item, items in parallel: each item is a task of its
    /// own (the items are few and unequal: halves of the list handed to two threads
    /// would leave one idle while the other finishes the costly half).
    pub fn for_each<T: Send>(&self, items: &mut [T], f: impl Fn(&mut T) + Sync + Send) {
        match self {
            Workers::Caller => items.iter_mut().for_each(f),
            Workers::Shared(p) => p.install(|| items.par_iter_mut().with_max_len(1).for_each(f)),
            Workers::Own(p) => p.install(|| items.par_iter_mut().with_max_len(1).for_each(f)),
        }
    }
}
