//! The replay check's generator: it hands out, for one recorded write, the
//! values that write's recording shows for its generated fields (UUIDs,
//! tokens, the clock), so the replayed World matches the recording; past
//! those it falls back to deterministic values.

use super::input::{object_at, TimelineRecord};
use super::shapes::parse_clock;
use crate::engine::Generator;
use crate::state::model::{Generated, Rule, WritePlan};
use serde_json::Value;
use std::collections::VecDeque;

/// Recorded generated values for one call.
#[derive(Debug, Clone, Default)]
pub(crate) struct RecordedGenerator {
    uuids: VecDeque<String>,
    tokens: VecDeque<String>,
    now_ms: i64,
    counter: u64,
}

impl RecordedGenerator {
    /// Reads the generated values a write's recorded answer shows, in the
    /// plan's field order; the clock is the first clock field's recorded
    /// instant, else the request's start time.
    pub(crate) fn for_call(plan: &WritePlan, rec: &TimelineRecord, seed: u64) -> RecordedGenerator {
        let mut gen = RecordedGenerator {
            now_ms: rec.start_ms.unwrap_or(0),
            counter: seed,
            ..Default::default()
        };
        let entity = plan
            .answer
            .as_ref()
            .and_then(|a| a.pointer.as_deref())
            .zip(rec.response_body.json())
            .and_then(|(p, body)| object_at(body, p));
        let Some(entity) = entity else { return gen };
        let mut clock_set = false;
        for rule in &plan.field_rules {
            let Some(value) = entity.get(&rule.field) else {
                continue;
            };
            match (&rule.rule, value) {
                (Rule::Identity(Generated::Uuid { .. }), Value::String(s))
                | (Rule::Unique { .. }, Value::String(s)) => {
                    gen.uuids.push_back(s.to_ascii_lowercase())
                }
                (Rule::Identity(Generated::Token { .. }), Value::String(s)) => {
                    gen.tokens.push_back(s.clone())
                }
                (Rule::Clock { .. }, v) if !clock_set => {
                    if let Some((ms, _)) = parse_clock(v) {
                        gen.now_ms = ms;
                        clock_set = true;
                    }
                }
                _ => {}
            }
        }
        gen
    }
}

impl Generator for RecordedGenerator {
    fn uuid(&mut self) -> String {
        self.uuids.pop_front().unwrap_or_else(|| {
            self.counter += 1;
            format!("00000000-0000-4000-8000-{:012x}", self.counter)
        })
    }

    fn now_ms(&mut self) -> i64 {
        self.now_ms
    }

    fn token(&mut self, alphabet: &str, len: usize) -> String {
        if let Some(t) = self.tokens.pop_front() {
            return t;
        }
        self.counter += 1;
        let chars: Vec<char> = alphabet.chars().collect();
        if chars.is_empty() {
            return String::new();
        }
        let mut n = self.counter;
        (0..len)
            .map(|_| {
                let c = chars[(n % chars.len() as u64) as usize];
                n = n / chars.len() as u64 + 7;
                c
            })
            .collect()
    }
}
