//! The World as of each moment of the recording: the recorded writes
//! replayed in order from the initial World through the same dispatch the
//! server uses (the app model first where it owns the call or holds the
//! entity, else the spec's engine, the app model again where the engine
//! answers with rea's own refusal), so that a list answered after writes
//! can be checked against the entities that existed when it was recorded,
//! not only against the initial World.
//!
//! Values the fake generates (ids, tokens) differ from the app's; each
//! generated value is marked, learned from the write's answer against the
//! recorded one (same JSON pointer), and mapped back to the recorded value
//! both in later requests and in the universes handed to the check.

use crate::model::lists::instances::timeline_positions;
use crate::model::serving::{ModelWorld, ServingModel};
use crate::state::records::{Body, Record};
use crate::state::timeline::is_state_write;
use crate::state::State;
use rea_engine::codec::normalize_path;
use rea_engine::{Call, Engine, Generator, Request};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// The mark every generated value carries (hex, so it survives id formats).
const MARK: &str = "feedface";

/// What the replay needs to know of each list instance to check.
pub(crate) struct Wanted {
    pub ordinal: u64,
    pub tool: String,
    /// `state`: the engine's World list of the instance's collection;
    /// `answers`: the app model's entities the call lists.
    pub universe_kind: String,
    pub method: String,
    pub path: String,
}

struct Replayer {
    uuids: u64,
    tokens: u64,
    now: i64,
}

impl Generator for Replayer {
    fn uuid(&mut self) -> String {
        self.uuids += 1;
        format!("{MARK}-0000-4000-8000-{:012x}", self.uuids)
    }
    fn now_ms(&mut self) -> i64 {
        self.now
    }
    fn token(&mut self, alphabet: &str, len: usize) -> String {
        self.tokens += 1;
        let chars: Vec<char> = alphabet.chars().collect();
        if chars.is_empty() {
            return String::new();
        }
        let seed = format!("{MARK}{}", self.tokens);
        seed.chars()
            .chain(std::iter::repeat('0'))
            .take(len)
            .map(|c| {
                if chars.contains(&c) {
                    c
                } else {
                    chars[(c as usize) % chars.len()]
                }
            })
            .collect()
    }
}

/// Generated strings in `served` where `recorded` holds another value at
/// the same place: served → recorded.
fn learn(served: &Value, recorded: &Value, map: &mut BTreeMap<String, String>) {
    match (served, recorded) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                if let Some(w) = b.get(k) {
                    learn(v, w, map);
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (v, w) in a.iter().zip(b) {
                learn(v, w, map);
            }
        }
        (Value::String(s), Value::String(r)) if s != r && s.contains(MARK) => {
            // The id itself, or a URL or path that holds it.
            let generated: Vec<&str> = s
                .split(|c: char| !c.is_ascii_alphanumeric() && c != '-' && c != '_')
                .filter(|p| p.contains(MARK))
                .collect();
            if generated.len() == 1 && generated[0] != s {
                if let Some(at) = s.find(generated[0]) {
                    let (pre, post) = (&s[..at], &s[at + generated[0].len()..]);
                    if let Some(v) = r.strip_prefix(pre).and_then(|x| x.strip_suffix(post)) {
                        map.insert(generated[0].to_string(), v.to_string());
                        return;
                    }
                }
            }
            map.insert(s.clone(), r.clone());
        }
        _ => {}
    }
}

fn replace_all(text: &str, pairs: &[(&str, &str)]) -> String {
    let mut out = text.to_string();
    for (from, to) in pairs {
        if !from.is_empty() && out.contains(from) {
            out = out.replace(from, to);
        }
    }
    out
}

fn json_of(rec: &Record) -> Option<Value> {
    match &rec.response_body {
        Body::Text(t) => serde_json::from_str(t).ok(),
        _ => None,
    }
}

/// Replays the recording's writes in timeline order and returns, for each
/// wanted instance, the universe as of just before its request (the
/// recorded values in place of generated ones). Instances whose universe
/// cannot be known (the call lands on nothing either World holds) are
/// left out.
pub(crate) fn universes(
    records: &[Record],
    engine: &Engine,
    serving: Option<&ServingModel>,
    state: &State,
    wanted: &[Wanted],
) -> HashMap<u64, Vec<Value>> {
    let mut out = HashMap::new();
    if wanted.is_empty() {
        return out;
    }
    let by_ordinal: HashMap<u64, &Record> = records.iter().map(|r| (r.ordinal, r)).collect();
    let mut world = engine.initial_world();
    let mut app: Option<ModelWorld> = serving.map(ServingModel::initial_world);
    let mut generator = Replayer {
        uuids: 0,
        tokens: 0,
        now: 0,
    };
    // served → recorded
    let mut generated: BTreeMap<String, String> = BTreeMap::new();
    let last = wanted.iter().map(|w| w.ordinal).max().unwrap_or(0);
    let position = timeline_positions(state);
    let last_at = position.get(&last).copied().unwrap_or(usize::MAX);
    for (at, o) in state.timeline.iter().enumerate() {
        if at > last_at {
            break;
        }
        let Some(rec) = by_ordinal.get(o) else {
            continue;
        };
        let restore = |text: &str| {
            // Every generated value carries the mark: a text without it
            // holds none.
            if !text.contains(MARK) {
                return text.to_string();
            }
            let pairs: Vec<(&str, &str)> = generated
                .iter()
                .map(|(s, r)| (s.as_str(), r.as_str()))
                .collect();
            replace_all(text, &pairs)
        };
        for w in wanted.iter().filter(|w| w.ordinal == *o) {
            let items: Option<Vec<Value>> = match w.universe_kind.as_str() {
                "state" => state
                    .types
                    .iter()
                    .find(|t| t.list_tools.contains(&w.tool))
                    .map(|t| {
                        let mut held: Vec<Value> = world
                            .list(&t.name, &normalize_path(&w.path))
                            .iter()
                            .map(|e| Value::Object(e.fields.clone()))
                            .collect();
                        if let (Some(s), Some(a)) = (serving, app.as_ref()) {
                            overlay(s, a, w, &t.id_field, &mut held);
                        }
                        held
                    }),
                _ => match (serving, app.as_ref()) {
                    (Some(s), Some(a)) => s.list_items(a, &w.method, &w.path),
                    _ => None,
                },
            };
            if let Some(items) = items {
                let text = Value::Array(items).to_string();
                if let Ok(Value::Array(v)) = serde_json::from_str(&restore(&text)) {
                    out.insert(w.ordinal, v);
                }
            }
        }
        if !is_state_write(rec) {
            continue;
        }
        // The request as the fake would receive it: its own generated
        // values in place of the recorded ones.
        let pairs: Vec<(&str, &str)> = generated
            .iter()
            .map(|(s, r)| (r.as_str(), s.as_str()))
            .collect();
        let path = replace_all(rec.path.as_deref().unwrap_or("/"), &pairs);
        let query = rec.query.as_deref().map(|q| replace_all(q, &pairs));
        let body: Option<Value> = rec
            .request_text
            .as_deref()
            .and_then(|t| serde_json::from_str(&replace_all(t, &pairs)).ok());
        generator.now = rec.started_ms.map_or(generator.now, |t| t as i64);
        let call = Call {
            method: rec.method.clone(),
            path,
            query,
            headers: Vec::new(),
            body,
        };
        let answered = dispatch(
            engine,
            &mut world,
            serving,
            app.as_mut(),
            &call,
            &mut generator,
        );
        if call.method == "DELETE" && answered.is_some() {
            cascade(
                engine,
                &mut world,
                serving,
                app.as_mut(),
                &call,
                &mut generator,
            );
        }
        if let (Some(a), Some(r)) = (answered, json_of(rec)) {
            learn(&a, &r, &mut generated);
        }
    }
    out
}

/// The app model's changes to a path resource's list laid over the
/// engine's: changed entities in their current version, removed ones
/// left out, created ones appended.
fn overlay(s: &ServingModel, a: &ModelWorld, w: &Wanted, id: &str, held: &mut Vec<Value>) {
    let Some((changed, removed)) = s.list_changes(a, &w.method, &w.path) else {
        return;
    };
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    held.retain(|e| e.get(id).is_none_or(|k| !removed.contains(&text(k))));
    for c in changed {
        match held
            .iter_mut()
            .find(|e| e.get(id).is_some() && e.get(id) == c.get(id))
        {
            Some(e) => *e = c,
            None => held.push(c),
        }
    }
}

/// A parent's delete that the app model's relations cascade
/// (`model::relations::cascaded_deletes`): the children the World lists
/// with the member at the parent's id are deleted through the same
/// dispatch.
fn cascade(
    engine: &Engine,
    world: &mut rea_engine::World,
    serving: Option<&ServingModel>,
    mut app: Option<&mut ModelWorld>,
    call: &Call,
    generator: &mut Replayer,
) {
    let Some(s) = serving else { return };
    let deletes =
        crate::model::relations::cascaded_deletes(&s.model.relations, &call.path, &mut |child| {
            let list = Call {
                method: "GET".into(),
                path: child.to_string(),
                query: None,
                headers: Vec::new(),
                body: None,
            };
            match engine.answer(world, &Request::Http(list), generator).body {
                rea_engine::AnswerBody::Json(Value::Array(items)) => items,
                _ => Vec::new(),
            }
        });
    for path in deletes {
        let del = Call {
            method: "DELETE".into(),
            path,
            query: None,
            headers: Vec::new(),
            body: None,
        };
        dispatch(engine, world, serving, app.as_deref_mut(), &del, generator);
    }
}

/// One write through the same order of models the server uses; the JSON
/// answer, when the write was answered 2xx.
fn dispatch(
    engine: &Engine,
    world: &mut rea_engine::World,
    serving: Option<&ServingModel>,
    app: Option<&mut ModelWorld>,
    call: &Call,
    generator: &mut Replayer,
) -> Option<Value> {
    let now = generator.now;
    let ask = |app: &mut ModelWorld, generator: &mut Replayer| {
        let s = serving?;
        let mut uuid = || generator.uuid();
        s.answer_engine_call(app, call, now, &mut uuid)
            .filter(|a| (200..300).contains(&a.status))
            .map(|a| a.body.unwrap_or(Value::Null))
    };
    let mut app = app;
    if let (Some(s), Some(a)) = (serving, app.as_deref_mut()) {
        if s.owns(&call.method, &call.path) || s.holds(a, &call.method, &call.path) {
            if let Some(v) = ask(a, generator) {
                return Some(v);
            }
        }
    }
    let answer = engine.answer(world, &Request::Http(call.clone()), generator);
    match answer.error_code.as_deref() {
        Some("no_matching_tool" | "write_not_served" | "not_recorded") => {
            app.and_then(|a| ask(a, generator))
        }
        Some("not_found") if call.method == "PUT" => app.and_then(|a| ask(a, generator)),
        _ if (200..300).contains(&answer.status) => match answer.body {
            rea_engine::AnswerBody::Json(v) => Some(v),
            _ => None,
        },
        _ => None,
    }
}
