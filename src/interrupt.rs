//! Cooperative interruption of long loops (Ctrl-C).
//!
//! The core cannot see signals itself: the bindings install a hook (which briefly
//! takes the GIL and runs Python's signal handlers) with [`set_hook`]. Long loops
//! call [`poll`] at points where stopping leaves a consistent state (a round
//! boundary); `poll` calls the hook at most every [`POLL_INTERVAL`] and returns
//! [`KsError::Interrupted`] when it reports an interrupt. Without a hook (plain
//! Rust use), `poll` never interrupts.

use crate::error::{KsError, Result};
use std::cell::Cell;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How often the hook is consulted at most.
pub const POLL_INTERVAL: Duration = Duration::from_millis(5);

static HOOK: OnceLock<fn() -> bool> = OnceLock::new();

thread_local! {
    static LAST: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Installs the hook that says whether an interrupt is pending (first call wins).
pub fn set_hook(hook: fn() -> bool) {
    let _ = HOOK.set(hook);
}

/// Resets the clock of this thread (the start of a long call).
pub fn start() {
    LAST.with(|l| l.set(Some(Instant::now())));
}

/// `Err(Interrupted)` if an interrupt is pending (checked at most every `POLL_INTERVAL`).
#[inline]
pub fn poll() -> Result<()> {
    let Some(hook) = HOOK.get() else {
        return Ok(());
    };
    let now = Instant::now();
    // Only the thread that started the call consults the hook: a helper thread (a
    // Mixture's experts run on several) never takes the GIL, which its caller may hold.
    let due = LAST.with(|l| match l.get() {
        None => false,
        Some(t) if now.duration_since(t) < POLL_INTERVAL => false,
        Some(_) => {
            l.set(Some(now));
            true
        }
    });
    if due && hook() {
        return Err(KsError::Interrupted("interrupted".into()));
    }
    Ok(())
}
