//! Transport credential exclusions in qlog events: authorization,
//! proxy-authorization, cookie and set-cookie values in known HTTP frame
//! events, userinfo in known URL headers, stateless reset tokens in
//! transport parameters and NEW_CONNECTION_ID frames, and NEW_TOKEN frame
//! tokens. Ordinary extension fields and token-looking query text stay.

use crate::evidence::{Redaction, RedactionReason, RedactionScope};
use crate::recorded_url::{credential_cut, CredentialCut};
use crate::redact::{Redactor, CREDENTIAL_HEADERS};
use serde_json::Value;

/// Header names whose values are URLs that may carry userinfo.
const URL_HEADERS: [&str; 4] = ["location", "referer", "content-location", "origin"];

fn note(redactor: &mut Redactor<'_>, pointer: &str, scope: RedactionScope) {
    redactor.redactions.push(Redaction {
        pointer: redactor.declared.safe_pointer(pointer),
        record_ordinal: redactor.record_ordinal,
        scope,
        reason: RedactionReason::TransportCredential,
    });
    if scope != RedactionScope::Userinfo {
        redactor.excluded.push(pointer.to_string());
    }
}

fn null_member(redactor: &mut Redactor<'_>, object: &mut Value, member: &str, pointer: &str) {
    if let Some(slot) = object.get_mut(member) {
        if !slot.is_null() {
            *slot = Value::Null;
            note(
                redactor,
                &format!("{pointer}/{member}"),
                RedactionScope::Value,
            );
        }
    }
}

/// Excludes the transport credentials of one event at `pointer`.
pub fn transport(redactor: &mut Redactor<'_>, event: &mut Value, pointer: &str) {
    let name = event
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let data_pointer = format!("{pointer}/data");
    let Some(data) = event.get_mut("data") else {
        return;
    };
    match name.as_str() {
        "transport:parameters_set" => {
            null_member(redactor, data, "stateless_reset_token", &data_pointer);
        }
        "http:frame_created" | "http:frame_parsed" => {
            let base = format!("{data_pointer}/frame/headers");
            if let Some(headers) = data
                .pointer_mut("/frame/headers")
                .and_then(Value::as_array_mut)
            {
                for (i, header) in headers.iter_mut().enumerate() {
                    self::header(redactor, header, &format!("{base}/{i}"));
                }
            }
        }
        _ => {}
    }
    if let Some(frames) = data.get_mut("frames").and_then(Value::as_array_mut) {
        for (i, frame) in frames.iter_mut().enumerate() {
            let fp = format!("{data_pointer}/frames/{i}");
            match frame.get("frame_type").and_then(Value::as_str) {
                Some("new_connection_id") => {
                    null_member(redactor, frame, "reset_token", &fp);
                    null_member(redactor, frame, "stateless_reset_token", &fp);
                }
                Some("new_token") => {
                    null_member(redactor, frame, "token", &fp);
                }
                _ => {}
            }
        }
    }
}

fn header(redactor: &mut Redactor<'_>, header: &mut Value, pointer: &str) {
    let Some(name) = header.get("name").and_then(Value::as_str) else {
        return;
    };
    let name = name.to_ascii_lowercase();
    if CREDENTIAL_HEADERS.contains(&name.as_str()) {
        null_member(redactor, header, "value", pointer);
        return;
    }
    let Some(slot) = header.get_mut("value") else {
        return;
    };
    let Some(raw) = slot.as_str() else { return };
    let value_pointer = format!("{pointer}/value");
    if name == ":authority" {
        // An authority with `userinfo@` has no URL around it to keep.
        if raw.contains('@') {
            *slot = Value::Null;
            note(redactor, &value_pointer, RedactionScope::Field);
        }
        return;
    }
    if !URL_HEADERS.contains(&name.as_str()) {
        return;
    }
    match credential_cut(raw) {
        CredentialCut::None => {}
        CredentialCut::Span(span) => {
            let mut kept = raw.to_string();
            kept.replace_range(span, "");
            *slot = Value::String(kept);
            note(redactor, &value_pointer, RedactionScope::Userinfo);
        }
        CredentialCut::WholeField => {
            *slot = Value::Null;
            note(redactor, &value_pointer, RedactionScope::Field);
        }
    }
}
