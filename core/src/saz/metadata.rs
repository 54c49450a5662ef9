//! One `_m.xml` session metadata member as an XML node tree, read with
//! `quick-xml`: each element is `{"name", "attributes", "children"}`
//! (attributes in document order), non-blank text and CDATA are
//! `{"text"}` children. Comments, processing instructions and the XML
//! declaration are not nodes; indentation-only text is dropped.

use crate::error::ErrorReport;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;
use quick_xml::XmlVersion;
use serde_json::{json, Map, Value};

/// The deepest element nesting read: 30 elements keep the decoded session
/// document within the 64-level nesting budget.
pub const MAX_ELEMENT_DEPTH: usize = 30;

/// Parses one metadata member into its root element node.
pub fn parse(member: &str, bytes: &[u8]) -> Result<Value, ErrorReport> {
    let fail = |reason: String| invalid(member, &reason);
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|_| fail("the metadata is not UTF-8".into()))?;
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let mut stack: Vec<Map<String, Value>> = Vec::new();
    let mut root: Option<Value> = None;
    let mut pending = String::new();
    loop {
        let event = reader.read_event().map_err(|e| {
            fail(format!(
                "not well-formed XML at byte {}: {e}",
                reader.error_position()
            ))
        })?;
        match event {
            Event::Start(_) | Event::Empty(_) if root.is_some() && stack.is_empty() => {
                return Err(fail("the metadata has more than one root element".into()));
            }
            Event::Start(e) => {
                flush(&mut pending, &mut stack);
                if stack.len() >= MAX_ELEMENT_DEPTH {
                    return Err(ErrorReport::input(
                        "nesting_too_deep",
                        format!("the metadata nests more than {MAX_ELEMENT_DEPTH} elements, beyond the 64-level nesting budget"),
                    )
                    .detail("member", member)
                    .detail("budget_levels", 64u64)
                    .detail("budget_elements", MAX_ELEMENT_DEPTH as u64)
                    .guidance("The nesting budget has no override; remove the deep structure or use another decoder."));
                }
                stack.push(element(&e).map_err(fail)?);
            }
            Event::Empty(e) => {
                flush(&mut pending, &mut stack);
                let node = Value::Object(element(&e).map_err(fail)?);
                attach(node, &mut stack, &mut root);
            }
            Event::End(_) => {
                flush(&mut pending, &mut stack);
                if let Some(node) = stack.pop() {
                    attach(Value::Object(node), &mut stack, &mut root);
                }
            }
            Event::Text(t) => {
                if stack.is_empty() {
                    if !t.xml_content(XmlVersion::Implicit1_0).trim().is_empty() {
                        return Err(fail("text outside the root element".into()));
                    }
                } else {
                    pending.push_str(&t.xml_content(XmlVersion::Implicit1_0));
                }
            }
            Event::CData(t) => {
                if stack.is_empty() {
                    return Err(fail("CDATA outside the root element".into()));
                }
                pending.push_str(&t.into_inner());
            }
            Event::GeneralRef(r) => {
                if stack.is_empty() {
                    return Err(fail("a reference outside the root element".into()));
                }
                let name = r.xml_content(XmlVersion::Implicit1_0);
                if let Some(c) = r
                    .resolve_char_ref()
                    .map_err(|e| fail(format!("bad character reference: {e}")))?
                {
                    pending.push(c);
                } else if let Some(s) = resolve_predefined_entity(&name) {
                    pending.push_str(s);
                } else {
                    return Err(fail(format!(
                        "unknown entity `&{name};` (only the XML predefined entities are read)"
                    )));
                }
            }
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
            Event::Eof => break,
        }
    }
    if !stack.is_empty() {
        return Err(fail("the metadata ends inside an element".into()));
    }
    root.ok_or_else(|| fail("the metadata has no root element".into()))
}

fn element(e: &BytesStart<'_>) -> Result<Map<String, Value>, String> {
    let mut attributes = Map::new();
    for attribute in e.attributes().with_checks(true) {
        let attribute = attribute.map_err(|e| format!("bad attribute: {e}"))?;
        let value = attribute
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| format!("bad attribute value: {e}"))?;
        attributes.insert(attribute.key.as_ref().to_string(), json!(value));
    }
    let mut node = Map::new();
    node.insert("name".into(), json!(e.name().as_ref()));
    node.insert("attributes".into(), Value::Object(attributes));
    node.insert("children".into(), Value::Array(Vec::new()));
    Ok(node)
}

fn flush(pending: &mut String, stack: &mut [Map<String, Value>]) {
    if pending.is_empty() {
        return;
    }
    let text = std::mem::take(pending);
    if text.trim().is_empty() {
        return;
    }
    if let Some(Value::Array(children)) = stack.last_mut().and_then(|n| n.get_mut("children")) {
        children.push(json!({ "text": text }));
    }
}

fn attach(node: Value, stack: &mut [Map<String, Value>], root: &mut Option<Value>) {
    match stack.last_mut().and_then(|n| n.get_mut("children")) {
        Some(Value::Array(children)) => children.push(node),
        _ => *root = Some(node),
    }
}

fn invalid(member: &str, reason: &str) -> ErrorReport {
    ErrorReport::input(
        "saz_metadata_invalid",
        format!("the session metadata is not a well-formed XML document: {reason}"),
    )
    .detail("member", member)
    .detail("reason", reason)
    .guidance(
        "Save the session archive again from Fiddler; every session is read, selected or not.",
    )
}
