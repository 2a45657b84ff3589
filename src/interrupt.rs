//! Cooperative interruption of long loops (Ctrl-C).
//!
//! The core cannot see signals itself: the bindings install a hook (which briefly
//! takes the GIL and runs Python's signal handlers) with [`set_hook`]. Long loops
//! call [`poll`] at points where stopping leaves a consistent state (a round
//! boundary); `poll` calls the hook at most every [`POLL_INTERVAL`] (reading the
//! time only every few polls when they come fast) and returns
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
    static CLOCK: Cell<Clock> = const { Cell::new(Clock { last: None, read: None, countdown: 1, stride: 1 }) };
}

/// When this thread last consulted the hook, and how often it reads the time:
/// every `stride` polls, with `stride` doubled while reads come less than an
/// eighth of [`POLL_INTERVAL`] apart and halved when more than it (a clock
/// read costs about as much as a small round, so fast rounds must not pay it).
#[derive(Clone, Copy)]
struct Clock {
    last: Option<Instant>,
    read: Option<Instant>,
    countdown: u32,
    stride: u32,
}

/// Largest number of polls between two clock reads.
const MAX_STRIDE: u32 = 1 << 12;

/// Installs the hook that says whether an interrupt is pending (first call wins).
pub fn set_hook(hook: fn() -> bool) {
    let _ = HOOK.set(hook);
}

/// Resets the clock of this thread (the start of a long call).
pub fn start() {
    let now = Instant::now();
    CLOCK.with(|c| c.set(Clock { last: Some(now), read: Some(now), countdown: 1, stride: 1 }));
}

/// Runs `f` with [`poll`] switched off on this thread: for a step that must not stop
/// halfway (a Mixture's block, whose experts poll in their own loops, is whole only when
/// every expert and the rule ran it). The clock is restored afterwards.
pub fn uninterrupted<T>(f: impl FnOnce() -> T) -> T {
    let saved = CLOCK.with(|c| c.get());
    CLOCK.with(|c| c.set(Clock { last: None, ..saved }));
    let r = f();
    CLOCK.with(|c| c.set(saved));
    r
}

/// `Err(Interrupted)` if an interrupt is pending (checked at most every `POLL_INTERVAL`).
#[inline]
pub fn poll() -> Result<()> {
    let Some(hook) = HOOK.get() else {
        return Ok(());
    };
    // Only the thread that started the call consults the hook: a helper thread (a
    // Mixture's experts run on several) never takes the GIL, which its caller may hold.
    let due = CLOCK.with(|cell| {
        let mut c = cell.get();
        let (Some(last), Some(read)) = (c.last, c.read) else {
            return false;
        };
        c.countdown -= 1;
        if c.countdown > 0 {
            cell.set(c);
            return false;
        }
        let now = Instant::now();
        let gap = now.duration_since(read);
        c.stride = if gap < POLL_INTERVAL / 8 {
            (c.stride * 2).min(MAX_STRIDE)
        } else if gap > POLL_INTERVAL {
            (c.stride / 2).max(1)
        } else {
            c.stride
        };
        c.countdown = c.stride;
        c.read = Some(now);
        let due = now.duration_since(last) >= POLL_INTERVAL;
        if due {
            c.last = Some(now);
        }
        cell.set(c);
        due
    });
    if due && hook() {
        return Err(KsError::Interrupted("interrupted".into()));
    }
    Ok(())
}
