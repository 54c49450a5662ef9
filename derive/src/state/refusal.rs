//! The parents the state view turns away, as the manifest does: native
//! mitmproxy, SAZ and qlog captures, Evidence inspected with declared
//! sensitive values, and browser scenarios that selected no response bodies.

use rea_core::{Category, ErrorReport};
use serde_json::Value;

/// Refuses an Evidence document the state cannot be derived from.
pub fn refuse(evidence: &Value) -> Result<(), ErrorReport> {
    if !evidence.is_object() || !evidence.get("records").is_some_and(Value::is_array) {
        return Err(ErrorReport::input("invalid_evidence", "the parent is not an Evidence document with `records`")
            .guidance("Pass the output of `rea inspect-web-network-capture`."));
    }
    let scenario = evidence.get("operation").and_then(Value::as_str) == Some("capture_browser_scenario");
    if scenario {
        if !scenario_selected_bodies(evidence) {
            return Err(ErrorReport::new(
                "unsupported_parent",
                Category::Unsupported,
                "the browser scenario did not select response bodies, so its reads observed no state",
            )
            .detail("reason", "response_bodies_unselected")
            .guidance("Record the scenario with response bodies selected."));
        }
    } else {
        let format = evidence
            .pointer("/capture/format")
            .or_else(|| evidence.pointer("/parameters/format"))
            .and_then(Value::as_str)
            .unwrap_or("");
        if format != "har" {
            return Err(ErrorReport::new(
                "unsupported_format",
                Category::Unsupported,
                format!("the environment state is derived from HAR Evidence, not `{format}`"),
            )
            .detail("format", format)
            .guidance("Export the capture as HAR 1.2 and inspect that."));
        }
        let sensitive = evidence.pointer("/parameters/sensitive_value_count").and_then(Value::as_u64).unwrap_or(0);
        if sensitive > 0 {
            return Err(ErrorReport::new(
                "sensitive_values_unretained",
                Category::Unsupported,
                "Evidence inspected with sensitive values cannot feed the state: its values are recorded data",
            )
            .detail("reason", "sensitive_values_unretained")
            .detail("sensitive_value_count", sensitive)
            .guidance("Inspect the capture without `sensitive_values` to derive its state."));
        }
    }
    Ok(())
}

/// A scenario selected response bodies when its parameters say so:
/// `selected` (or `select`) lists `response_bodies` / `response-bodies`,
/// or `response_bodies` is `true`.
fn scenario_selected_bodies(evidence: &Value) -> bool {
    let params = evidence.get("parameters");
    let listed = ["selected", "select", "selection"].iter().any(|k| {
        params
            .and_then(|p| p.get(*k))
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|v| matches!(v.as_str(), Some("response_bodies" | "response-bodies"))))
    });
    listed || params.and_then(|p| p.get("response_bodies")).and_then(Value::as_bool) == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refusals_both_sides() {
        let har = json!({"records": [], "capture": {"format": "har"}, "parameters": {"sensitive_value_count": 0}});
        assert!(refuse(&har).is_ok());
        for f in ["saz", "mitmproxy", "qlog"] {
            let e = refuse(&json!({"records": [], "capture": {"format": f}})).unwrap_err();
            assert_eq!(e.category, Category::Unsupported);
        }
        let e = refuse(&json!({"records": [], "capture": {"format": "har"}, "parameters": {"sensitive_value_count": 1}})).unwrap_err();
        assert_eq!(e.code, "sensitive_values_unretained");
        let s = json!({"operation": "capture_browser_scenario", "records": [], "parameters": {"selected": ["header_values"]}});
        assert_eq!(refuse(&s).unwrap_err().category, Category::Unsupported);
        let s = json!({"operation": "capture_browser_scenario", "records": [], "parameters": {"selected": ["response_bodies"], "sensitive_value_count": 2}});
        assert!(refuse(&s).is_ok());
        assert_eq!(refuse(&json!([1])).unwrap_err().code, "invalid_evidence");
    }
}
