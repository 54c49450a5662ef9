use super::*;
use crate::budget::Budget;
use crate::testkit::{evidence, har_entry, lines};
use serde_json::json;

fn surface(ev: &Value, view: ApiSurfaceView) -> Value {
    api_surface(ev, &view).unwrap()
}

fn with_names() -> ApiSurfaceView {
    ApiSurfaceView {
        include_query_parameter_names: true,
        ..ApiSurfaceView::default()
    }
}

fn keys(v: &Value) -> Vec<String> {
    v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            format!(
                "{} {}{}",
                g["method"].as_str().unwrap(),
                g["origin"].as_str().unwrap(),
                g["path_template"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn defaults_offset_zero_limit_fifty() {
    let pairs: Vec<(String, String)> = (0..60)
        .map(|i| ("GET".to_string(), format!("http://a.example/p{i:02}")))
        .collect();
    let refs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(m, u)| (m.as_str(), u.as_str()))
        .collect();
    let v = surface(&lines(&refs), ApiSurfaceView::default());
    assert_eq!(v["groups"].as_array().unwrap().len(), 50);
    assert_eq!(v["coverage"]["offset"], 0);
    assert_eq!(v["coverage"]["limit"], 50);
    assert_eq!(v["coverage"]["total_groups"], 60);
    assert_eq!(v["coverage"]["next_offset"], 50);
    let v = surface(
        &lines(&refs),
        ApiSurfaceView {
            offset: 50,
            limit: 50,
            ..Default::default()
        },
    );
    assert_eq!(v["groups"].as_array().unwrap().len(), 10);
    assert_eq!(v["coverage"]["complete"], true);
}

#[test]
fn sorted_by_origin_template_method() {
    let ev = lines(&[
        ("GET", "https://b.example/x"),
        ("POST", "https://a.example/y"),
        ("GET", "https://a.example/y"),
    ]);
    let v = surface(&ev, ApiSurfaceView::default());
    assert_eq!(
        keys(&v),
        [
            "GET https://a.example/y",
            "POST https://a.example/y",
            "GET https://b.example/x"
        ]
    );
}

#[test]
fn no_query_fragment_or_credentials_in_groups() {
    let ev = lines(&[("GET", "https://u:p@a.example/x?q=1#f")]);
    let v = surface(&ev, ApiSurfaceView::default());
    assert_eq!(keys(&v), ["GET https://a.example/x"]);
    let text = v.to_string();
    assert!(!text.contains("q=1") && !text.contains("#f") && !text.contains("u:p"));
    assert!(v["groups"][0].get("query_parameter_names").is_none());
    let explicit = ApiSurfaceView {
        include_query_parameter_names: false,
        ..Default::default()
    };
    assert!(surface(&ev, explicit)["groups"][0]
        .get("query_parameter_names")
        .is_none());
}

#[test]
fn query_names_inventory() {
    let ev = lines(&[
        ("GET", "http://a.example/products?category=books&page=1"),
        ("GET", "http://a.example/products?category=games&sort=price"),
    ]);
    let v = surface(&ev, with_names());
    assert_eq!(
        v["groups"][0]["query_parameter_names"],
        json!([{"name":"category","record_ordinals":[0,1]},{"name":"page","record_ordinals":[0]},{"name":"sort","record_ordinals":[1]}])
    );
    let text = v.to_string();
    for value in ["books", "games", "price"] {
        assert!(!text.contains(value));
    }
    assert!(v["groups"][0]["query_parameter_names"][0]
        .get("required")
        .is_none());
}

#[test]
fn query_names_sorted_once_per_record_and_decoded() {
    let mut entries: Vec<Value> = (0..5)
        .map(|_| har_entry("GET", "http://a.example/z", 200, "application/json"))
        .collect();
    entries[4] = har_entry(
        "GET",
        "http://a.example/x?b=1&a=1&a=2",
        200,
        "application/json",
    );
    entries[3] = har_entry(
        "GET",
        "http://a.example/y?a+b=1&%2B=2&caf%C3%A9=3&=4&&",
        200,
        "application/json",
    );
    let v = surface(&evidence(entries), with_names());
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(
        groups[0]["query_parameter_names"],
        json!([{"name":"a","record_ordinals":[4]},{"name":"b","record_ordinals":[4]}])
    );
    let names: Vec<&str> = groups[1]["query_parameter_names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["", "+", "a b", "café"]);
}

#[test]
fn name_decoding_keeps_recorded_path() {
    let v = surface(
        &lines(&[("GET", "http://a.example/a%20b?x=1")]),
        with_names(),
    );
    assert_eq!(v["groups"][0]["path_template"], "/a%20b");
}

#[test]
fn format_rules_and_observed_segments() {
    let ev = lines(&[
        ("GET", "http://a.example/users/42"),
        ("GET", "http://a.example/users/7"),
        ("GET", "http://a.example/users/%EF%BC%94%EF%BC%92"),
        (
            "GET",
            "http://a.example/o/550E8400-E29B-41D4-A716-446655440000",
        ),
        ("GET", "http://a.example/b/d41d8cd98f00b204e9800998ecf8427e"),
        ("GET", "http://a.example/d/2024-02-29"),
        ("GET", "http://a.example/d/2023-02-29"),
        ("GET", "http://a.example/v2/oauth2/ab12"),
    ]);
    let v = surface(&ev, ApiSurfaceView::default());
    let templates: Vec<&str> = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["path_template"].as_str().unwrap())
        .collect();
    assert_eq!(
        templates,
        [
            "/b/{hex}",
            "/d/2023-02-29",
            "/d/{iso-date}",
            "/o/{uuid}",
            "/users/%EF%BC%94%EF%BC%92",
            "/users/{numeric}",
            "/v2/oauth2/ab12"
        ]
    );
    let users = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["path_template"] == "/users/{numeric}")
        .unwrap();
    assert_eq!(
        users["templated_segments"],
        json!([{"index":1,"rule":"numeric","observed":["42","7"],"basis":"inferred"}])
    );
    assert_eq!(v["templated_groups"], 4);
    assert_eq!(v["basis"], "inferred");
}

#[test]
fn dot_segments_stay_distinct() {
    let v = surface(
        &lines(&[
            ("GET", "http://a.example/a/%2e%2e/admin"),
            ("GET", "http://a.example/admin"),
        ]),
        ApiSurfaceView::default(),
    );
    assert_eq!(
        keys(&v),
        [
            "GET http://a.example/a/%2e%2e/admin",
            "GET http://a.example/admin"
        ]
    );
}

#[test]
fn merge_needs_same_method_and_rules() {
    let ev = lines(&[
        ("GET", "http://a.example/users/alice"),
        ("GET", "http://a.example/users/bob"),
        ("GET", "http://a.example/a/1"),
        ("POST", "http://a.example/a/2"),
    ]);
    assert_eq!(
        surface(&ev, ApiSurfaceView::default())["groups"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
}

#[test]
fn templated_total_spans_pages() {
    let ev = lines(&[
        ("GET", "http://a.example/a"),
        ("GET", "http://a.example/z/1"),
    ]);
    let v = surface(
        &ev,
        ApiSurfaceView {
            offset: 0,
            limit: 1,
            ..Default::default()
        },
    );
    assert_eq!(v["groups"][0]["path_template"], "/a");
    assert_eq!(v["templated_groups"], 1);
    assert_eq!(v["basis"], "inferred");
    let v = surface(
        &lines(&[("GET", "http://a.example/a")]),
        ApiSurfaceView::default(),
    );
    assert_eq!(v["basis"], "derived");
}

#[test]
fn statuses_mimes_and_flags() {
    let ev = evidence(vec![
        har_entry(
            "GET",
            "http://a.example/x",
            200,
            "Application/JSON; charset=UTF-8",
        ),
        har_entry("GET", "http://a.example/x", 404, "text/html"),
        har_entry("GET", "http://a.example/y", 0, ""),
        har_entry("GET", "http://a.example/z", 200, "json"),
    ]);
    let v = surface(&ev, ApiSurfaceView::default());
    let x = &v["groups"][0];
    assert_eq!(x["statuses"], json!([200, 404]));
    assert_eq!(x["content_types"], json!(["application/json", "text/html"]));
    assert_eq!(x["flags"], json!(["mixed-statuses", "mixed-content-types"]));
    let y = &v["groups"][1];
    assert_eq!(y["statuses"], json!([]));
    assert_eq!(y["content_types"], json!([]));
    assert_eq!(y["unknown_status_records"], 1);
    assert_eq!(y["flags"], json!(["single-sample"]));
    assert_eq!(v["groups"][2]["content_types"], json!([]));
    assert_eq!(v["groups"][2]["unknown_content_type_records"], 1);
}

#[test]
fn records_tally_and_exclusions() {
    let mut entries: Vec<Value> = (0..10)
        .map(|i| {
            har_entry(
                "GET",
                &format!("http://a.example/{i}"),
                200,
                "application/json",
            )
        })
        .collect();
    entries[3]["request"]["url"] = Value::Null;
    entries[5]["request"]["url"] = json!("https:host/path");
    entries[6]["request"]["url"] = json!("data:text/plain,hi");
    entries[7]["request"]["method"] = Value::Null;
    entries[8]["request"] = Value::Null;
    let v = surface(&evidence(entries), ApiSurfaceView::default());
    assert_eq!(v["records"]["total"], 10);
    assert_eq!(v["records"]["examined"], 10);
    assert_eq!(
        v["records"]["excluded"],
        json!([
            {"ordinal":3,"reason":"url-redacted"},
            {"ordinal":5,"reason":"url-unparseable"},
            {"ordinal":6,"reason":"url-unparseable"},
            {"ordinal":7,"reason":"method-unavailable"},
            {"ordinal":8,"reason":"request-unavailable"}
        ])
    );
    assert_eq!(v["coverage"]["total_groups"], 1);
}

#[test]
fn subset_parent_gets_a_limitation_and_keeps_order() {
    let entries: Vec<Value> = (0..5)
        .map(|i| {
            har_entry(
                "GET",
                &format!("http://a.example/x?i={i}"),
                200,
                "application/json",
            )
        })
        .collect();
    let mut ev = evidence(entries);
    let records = ev["records"].as_array().unwrap().clone();
    ev["records"] = json!([records[4], records[1]]);
    ev["parameters"]["record_ordinals"] = json!([4, 1]);
    let v = surface(&ev, with_names());
    assert_eq!(v["groups"][0]["record_ordinals"], json!([4, 1]));
    assert_eq!(
        v["groups"][0]["query_parameter_names"][0]["record_ordinals"],
        json!([4, 1])
    );
    assert!(v["limitations"][0]
        .as_str()
        .unwrap()
        .contains("retains 2 of the capture's 5 records"));
}

#[test]
fn limitations_are_deduplicated() {
    let mut ev = lines(&[
        ("GET", "http://a.example/a"),
        ("GET", "http://a.example/b"),
        ("GET", "http://a.example/c"),
    ]);
    ev["limitations"] = json!(["same note", "envelope note", "same note", "same note"]);
    let v = surface(&ev, ApiSurfaceView::default());
    assert_eq!(v["limitations"], json!(["same note", "envelope note"]));
}

#[test]
fn refusals_apply_with_query_names() {
    let mut ev = lines(&[("GET", "http://a.example/a?secret=1")]);
    ev["parameters"]["sensitive_value_count"] = json!(1);
    let r = api_surface(&ev, &with_names()).unwrap_err().to_report();
    assert_eq!(r.details["reason"], "sensitive_values_unretained");
    assert!(!r.to_json().to_string().contains("secret"));
}

#[test]
fn budget_admission() {
    // Many records of one URL: per-record work is released, the group is shared.
    let entry = har_entry("GET", "http://a.example/same/path", 200, "application/json");
    let ev = evidence(vec![entry; 20_000]);
    let mut budget = Budget::new(crate::budget::PROJECTION_BUDGET);
    api_surface_budgeted(&ev, &ApiSurfaceView::default(), false, &mut budget).unwrap();
    // Paths full of control characters are charged at their escaped size.
    let raw = format!("http://a.example/{}/x", "\u{1}".repeat(1000));
    let mut wide = Budget::new(u64::MAX);
    api_surface_budgeted(
        &lines(&[("GET", raw.as_str())]),
        &ApiSurfaceView::default(),
        false,
        &mut wide,
    )
    .unwrap();
    assert!(wide.used() > 6 * 1000, "{}", wide.used());
    // A small budget: resource_constraint and no partial view.
    let err = api_surface_budgeted(
        &ev,
        &ApiSurfaceView::default(),
        false,
        &mut Budget::new(10_000),
    )
    .unwrap_err();
    assert_eq!(err.to_report().code, "resource_constraint");
}

#[test]
fn only_the_requested_page_is_materialized() {
    let pairs: Vec<(String, String)> = (0..5000)
        .map(|i| ("GET".to_string(), format!("http://a.example/p/x{i}")))
        .collect();
    let refs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(m, u)| (m.as_str(), u.as_str()))
        .collect();
    let v = surface(
        &lines(&refs),
        ApiSurfaceView {
            offset: 0,
            limit: 1,
            ..Default::default()
        },
    );
    assert_eq!(v["groups"].as_array().unwrap().len(), 1);
    assert_eq!(v["coverage"]["total_groups"], 5000);
}

#[test]
fn repeated_query_name_cites_ordinal_once() {
    let mut entries: Vec<Value> = (0..10)
        .map(|i| {
            har_entry(
                "GET",
                &format!("http://a.example/{i}"),
                200,
                "application/json",
            )
        })
        .collect();
    entries[9] = har_entry(
        "GET",
        "http://a.example/q?a=1&a=2&a=3",
        200,
        "application/json",
    );
    let v = surface(&evidence(entries), with_names());
    let q = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["path_template"] == "/q")
        .unwrap();
    assert_eq!(
        q["query_parameter_names"],
        json!([{"name":"a","record_ordinals":[9]}])
    );
}
