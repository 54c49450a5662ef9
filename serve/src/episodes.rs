//! Isolated episodes (`--isolate`): named Worlds beside the default one,
//! each created from the starting World on first use (`World::clone`), used
//! by one MCP session (`Mcp-Session-Id`) or by callers naming an episode
//! (`AgentEnv-Episode`), and dropped when the session ends or after an idle
//! timeout. Off by default: every caller then shares the one World.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The request header naming an episode (data plane, MCP, the app's paths).
pub const EPISODE_HEADER: &str = "agentenv-episode";
/// `EPISODE_HEADER` as a header name (looked up without parsing it).
const EPISODE_NAME: axum::http::HeaderName = axum::http::HeaderName::from_static(EPISODE_HEADER);
/// Episodes held at most; past it the least recently used one is dropped.
pub(crate) const MAX_EPISODES: usize = 100_000;
/// Idle episodes are looked for at most this often.
const SWEEP_EVERY: Duration = Duration::from_secs(1);
/// Longest episode name accepted (longer names share no World).
const MAX_NAME_BYTES: usize = 256;

/// The episode a request names with the `AgentEnv-Episode` header.
pub(crate) fn named(headers: &axum::http::HeaderMap) -> Option<String> {
    headers
        .get(EPISODE_NAME)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

/// The episode an MCP request acts on: the one it names, else its session.
pub(crate) fn of_mcp_request(headers: &axum::http::HeaderMap) -> Option<String> {
    named(headers).or_else(|| {
        headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    })
}

struct Episode<W> {
    world: Arc<Mutex<W>>,
    used: Instant,
}

/// The episode Worlds of one environment.
pub(crate) struct Episodes<W> {
    /// `None`: isolation is off.
    idle: Option<Duration>,
    held: Mutex<Held<W>>,
}

struct Held<W> {
    by_name: HashMap<String, Episode<W>>,
    swept: Instant,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<W> Episodes<W> {
    pub(crate) fn off() -> Self {
        Episodes {
            idle: None,
            held: Mutex::new(Held {
                by_name: HashMap::new(),
                swept: Instant::now(),
            }),
        }
    }

    /// Turns isolation on (idle timeout `idle`) or off (`None`, dropping
    /// every episode).
    pub(crate) fn set_idle(&mut self, idle: Option<Duration>) {
        self.idle = idle;
        if idle.is_none() {
            lock(&self.held).by_name.clear();
        }
    }

    pub(crate) fn enabled(&self) -> bool {
        self.idle.is_some()
    }

    /// The World of episode `name`, created with `fresh` on first use; `None`
    /// when isolation is off or no usable name is given (the caller then
    /// uses the default World).
    pub(crate) fn world(
        &self,
        name: Option<&str>,
        fresh: impl FnOnce() -> W,
    ) -> Option<Arc<Mutex<W>>> {
        let idle = self.idle?;
        let name = name.filter(|n| !n.is_empty() && n.len() <= MAX_NAME_BYTES)?;
        let now = Instant::now();
        let mut held = lock(&self.held);
        if now.duration_since(held.swept) >= SWEEP_EVERY {
            held.by_name
                .retain(|_, e| now.duration_since(e.used) < idle);
            held.swept = now;
        }
        if !held.by_name.contains_key(name) && held.by_name.len() >= MAX_EPISODES {
            if let Some(oldest) = held
                .by_name
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone())
            {
                held.by_name.remove(&oldest);
            }
        }
        let episode = held
            .by_name
            .entry(name.to_string())
            .or_insert_with(|| Episode {
                world: Arc::new(Mutex::new(fresh())),
                used: now,
            });
        episode.used = now;
        Some(episode.world.clone())
    }

    /// Drops episode `name`; true when it existed.
    pub(crate) fn end(&self, name: &str) -> bool {
        lock(&self.held).by_name.remove(name).is_some()
    }

    pub(crate) fn count(&self) -> usize {
        lock(&self.held).by_name.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn episodes_are_separate_created_once_and_dropped() {
        let mut e: Episodes<Vec<u8>> = Episodes::off();
        assert!(e.world(Some("a"), Vec::new).is_none());
        e.set_idle(Some(Duration::from_secs(60)));
        let a = e.world(Some("a"), || vec![1]).unwrap();
        lock(&a).push(2);
        let again = e.world(Some("a"), || vec![9]).unwrap();
        assert_eq!(*lock(&again), [1, 2]);
        let b = e.world(Some("b"), || vec![1]).unwrap();
        assert_eq!(*lock(&b), [1]);
        assert!(e.world(None, Vec::new).is_none());
        assert!(e.world(Some(""), Vec::new).is_none());
        assert_eq!(e.count(), 2);
        assert!(e.end("a"));
        assert!(!e.end("a"));
        assert_eq!(e.count(), 1);
    }

    #[test]
    fn idle_episodes_are_dropped() {
        let mut e: Episodes<u8> = Episodes::off();
        e.set_idle(Some(Duration::ZERO));
        e.world(Some("a"), || 1).unwrap();
        let earlier = Instant::now()
            .checked_sub(SWEEP_EVERY)
            .unwrap_or_else(Instant::now);
        lock(&e.held).swept = earlier;
        e.world(Some("b"), || 1).unwrap();
        assert_eq!(e.count(), 1, "a was idle past the timeout");
    }
}
