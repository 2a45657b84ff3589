//! Independent work items (the experts of a block of rounds) on several threads
//! (rayon). Each item is processed by exactly one call that touches only that
//! item, so the results do not depend on the number of threads, bit for bit.
//!
//! `threads`, the learners' parameter (docs/choices.md, "Threads"): `0` uses
//! rayon's global pool (one thread per core, or `RAYON_NUM_THREADS`), `1` the
//! calling thread only, `t > 1` a pool of `t` threads for the call. Ctrl-C is
//! polled by the caller between blocks ([`crate::interrupt::poll`] does nothing
//! on a pool thread).

use crate::error::Result;
use rayon::prelude::*;

/// Largest accepted `threads`.
pub const MAX_THREADS: usize = 1024;

/// Checks a `threads` parameter (`0`: one per core; `1`: the calling thread).
pub fn check_threads(threads: usize) -> Result<()> {
    if threads > MAX_THREADS {
        return crate::param_err!("threads must be in [0, {MAX_THREADS}], got {threads}");
    }
    Ok(())
}

/// Where the items of one call run (built once per call, used for every block).
pub enum Workers {
    Caller,
    Global,
    Own(rayon::ThreadPool),
}

impl Workers {
    /// The workers for `threads` (a pool that cannot be started falls back to the
    /// calling thread: the results are the same).
    pub fn new(threads: usize) -> Self {
        match threads {
            1 => Workers::Caller,
            0 => Workers::Global,
            t => match rayon::ThreadPoolBuilder::new().num_threads(t).build() {
                Ok(p) => Workers::Own(p),
                Err(_) => Workers::Caller,
            },
        }
    }

    /// Calls `f` once on every item, items in parallel.
    pub fn for_each<T: Send>(&self, items: &mut [T], f: impl Fn(&mut T) + Sync + Send) {
        match self {
            Workers::Caller => items.iter_mut().for_each(f),
            Workers::Global => items.par_iter_mut().for_each(f),
            Workers::Own(p) => p.install(|| items.par_iter_mut().for_each(f)),
        }
    }
}
