//! Handing freed memory back to the system: a replaced World is freed off
//! the caller's path (`retire`), the system heap is trimmed, and the
//! program's allocator returns each thread's freed pages (`on_give_back`),
//! on the thread that loaded a World and, after a World is retired, on every
//! async worker as it next goes idle (`give_back_if_retired`).

use std::sync::atomic::{AtomicU64, Ordering};

/// Drops a replaced World (and the replies cached for it) off the caller's
/// path: a large World takes time to free, and `data/reset` should not wait.
/// Then runs `then` (what re-allocates long-lived state made among the
/// World's rows) and hands the freed memory back to the system.
pub(crate) fn retire<T: Send + 'static>(old: T, then: impl FnOnce() + Send + 'static) {
    let spawned = std::thread::Builder::new()
        .name("rea-retire".into())
        .spawn(move || {
            lower_priority();
            drop(old);
            then();
            freed();
        });
    if spawned.is_err() {
        // No thread to spare: the value (and `then`) were dropped with the
        // closure.
        freed();
    }
}

/// After a retired World is freed: trims the system heap, and has every
/// async worker give back the pages it owns (`give_back_if_retired`).
fn freed() {
    trim_system_heap();
    RETIRED.fetch_add(1, Ordering::Release);
    if let Some(wake) = WAKE_WORKERS.get() {
        wake();
    }
}

/// Lowers the calling thread's scheduling priority (freeing a retired World
/// must not compete with answering requests on the same core).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: on Linux, `setpriority(PRIO_PROCESS, 0, …)` sets the nice value
    // of the calling thread only; it touches no memory.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 19);
    }
}

/// Returns freed heap pages to the system (glibc keeps them otherwise, so
/// RSS after a reset would stay at its peak), then runs the hook the
/// program's allocator set (`on_give_back`) for the calling thread. Called
/// on the caller's path after a large load; a freed World only trims the
/// system heap (`trim_system_heap`): with the hook on the low-priority
/// retiring thread too, a `data/reset` after 100k creates took 213 ms over
/// HTTP in one `benches/serve.sh memory` run (8 ms without it), and RSS
/// after it was no lower.
pub(crate) fn give_back_memory() {
    trim_system_heap();
    if let Some(release) = GIVE_BACK.get() {
        release();
    }
}

/// Returns the system allocator's freed heap pages to the system.
fn trim_system_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only releases free memory of the allocator.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// What the program's global allocator does to return the calling thread's
/// freed memory (set once by the binary that chose the allocator).
static GIVE_BACK: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Sets how freed memory goes back to the system when rea gives it back
/// (after a large data-plane load, on the thread that read it):
/// the program's allocator, when it is not the system's, returns its own.
/// The first call wins.
pub fn on_give_back(release: fn()) {
    let _ = GIVE_BACK.set(release);
}

/// How many retired Worlds have been freed. A worker that allocated some of
/// a retired World's rows (an HTTP create, say) holds their pages until it
/// collects them itself: the allocator returns a page only from its owning
/// thread, and the retiring thread is not it.
static RETIRED: AtomicU64 = AtomicU64::new(0);

/// How the program wakes its idle async workers (set once by the binary
/// that built the runtime), so each runs `give_back_if_retired` soon after
/// a World is retired rather than at its next request.
static WAKE_WORKERS: std::sync::OnceLock<Box<dyn Fn() + Send + Sync>> = std::sync::OnceLock::new();

thread_local! {
    /// The `RETIRED` count this thread last gave memory back at.
    static SEEN_RETIRED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Gives the calling thread's freed memory back when a World has been
/// retired since it last did. For a runtime's `on_thread_park`: an atomic
/// load on every park, the allocator's collection only after a retirement.
pub fn give_back_if_retired() {
    let retired = RETIRED.load(Ordering::Acquire);
    if SEEN_RETIRED.with(|seen| newly_retired(seen, retired)) {
        give_back_memory();
    }
}

/// True when `retired` moved since the thread last saw it (and records it).
fn newly_retired(seen: &std::cell::Cell<u64>, retired: u64) -> bool {
    seen.replace(retired) != retired
}

/// Sets how idle async workers are woken after a World is retired (each
/// then parks again, and gives memory back: `give_back_if_retired`).
/// The first call wins.
pub fn on_retired_wake(wake: impl Fn() + Send + Sync + 'static) {
    let _ = WAKE_WORKERS.set(Box::new(wake));
}

#[cfg(test)]
mod tests {
    use super::{newly_retired, retire};
    use std::sync::mpsc;

    #[test]
    fn a_thread_gives_memory_back_once_per_retirement_it_has_not_seen() {
        let seen = std::cell::Cell::new(0);
        assert!(!newly_retired(&seen, 0));
        assert!(newly_retired(&seen, 1));
        assert!(!newly_retired(&seen, 1));
        assert!(newly_retired(&seen, 3));
        assert_eq!(seen.get(), 3);
    }

    struct Dropped(mpsc::Sender<&'static str>);

    impl Drop for Dropped {
        fn drop(&mut self) {
            let _ = self.0.send("dropped");
        }
    }

    #[test]
    fn a_retired_value_is_dropped_off_the_caller_then_the_repack_runs() {
        let (tx, rx) = mpsc::channel();
        let then = tx.clone();
        let caller = std::thread::current().id();
        retire(Dropped(tx), move || {
            assert_ne!(std::thread::current().id(), caller);
            let _ = then.send("then");
        });
        let wait = std::time::Duration::from_secs(10);
        assert_eq!(rx.recv_timeout(wait), Ok("dropped"));
        assert_eq!(rx.recv_timeout(wait), Ok("then"));
    }
}
