use super::*;
use crate::budget::Budget;
use crate::template_rules::TemplateRule::*;
use crate::testkit::{evidence, fixture, har_entry, lines, with_body};
use serde_json::json;

fn manifest(pairs: &[(&str, &str)], rules: &[TemplateRule]) -> Manifest {
    environment_manifest(&lines(pairs), rules, false).unwrap()
}

fn templates(m: &Manifest) -> Vec<String> {
    m.tools
        .iter()
        .map(|t| format!("{} {}", t.method, t.path_template))
        .collect()
}

fn tool<'m>(m: &'m Manifest, method: &str, template: &str) -> &'m Tool {
    m.tools
        .iter()
        .find(|t| t.method == method && t.path_template == template)
        .unwrap_or_else(|| panic!("no tool {method} {template} in {:?}", templates(m)))
}

const G: &str = "http://grafana.example";

fn g(path: &str) -> String {
    format!("{G}{path}")
}

fn pairs<'a>(items: &'a [(&'a str, String)]) -> Vec<(&'a str, &'a str)> {
    items.iter().map(|(m, u)| (*m, u.as_str())).collect()
}

#[test]
fn grafana_name_and_after_uid_literal() {
    let reqs = [
        ("GET", g("/api/dashboards/uid/abc")),
        ("GET", g("/api/dashboards/uid/search")),
    ];
    let m = manifest(&pairs(&reqs), &[AfterUidLiteral]);
    assert_eq!(m.origin, "http://grafana.example");
    assert_eq!(m.name, "grafana-example");
    let t = tool(&m, "GET", "/api/dashboards/uid/{uid}");
    assert_eq!(t.name, "get_dashboards_by_uid");
    assert_eq!(t.params[0].rule, "after-uid-literal");
    assert_eq!(t.params[0].observed, vec!["abc"]);
    // `search` is a stop word: it stays its own literal tool.
    tool(&m, "GET", "/api/dashboards/uid/search");
    // Without the rule the literal stays.
    let m = manifest(&pairs(&reqs), &[]);
    tool(&m, "GET", "/api/dashboards/uid/abc");
}

#[test]
fn localhost_name_keeps_port() {
    let m = manifest(&[("GET", "http://localhost:3000/api/x")], &[]);
    assert_eq!(m.name, "localhost-3000");
}

#[test]
fn plugins_settings_by_plugin_id() {
    let reqs = [
        ("GET", g("/api/plugins/a1/settings")),
        ("GET", g("/api/plugins/b2/settings")),
    ];
    let m = manifest(&pairs(&reqs), &[SiblingVariance]);
    let t = tool(&m, "GET", "/api/plugins/{plugin_id}/settings");
    assert_eq!(t.name, "get_plugins_settings_by_plugin_id");
    assert_eq!(t.params[0].rule, "sibling-variance");
    assert_eq!(t.params[0].observed, vec!["a1", "b2"]);
}

#[test]
fn folders_general_joins_uid_only_with_sibling_variance() {
    let reqs = [
        ("GET", g("/api/folders/a1b2c3d4e5f6")),
        ("GET", g("/api/folders/general")),
    ];
    let m = manifest(&pairs(&reqs), &[OpaqueToken, SiblingVariance]);
    assert_eq!(m.tools.len(), 1, "{:?}", templates(&m));
    let t = tool(&m, "GET", "/api/folders/{uid}");
    assert_eq!(t.params[0].observed, vec!["a1b2c3d4e5f6", "general"]);
    assert_eq!(t.params[0].rule, "opaque-token");
    let m = manifest(&pairs(&reqs), &[OpaqueToken]);
    tool(&m, "GET", "/api/folders/{uid}");
    tool(&m, "GET", "/api/folders/general");
    // No rules: the token stays literal.
    let m = manifest(&pairs(&reqs), &[]);
    tool(&m, "GET", "/api/folders/a1b2c3d4e5f6");
}

#[test]
fn stop_words_do_not_fold_into_parameters() {
    let reqs = [
        ("GET", g("/api/folders/a1b2c3d4e5f6")),
        ("GET", g("/api/folders/search")),
    ];
    let m = manifest(&pairs(&reqs), &[OpaqueToken, SiblingVariance]);
    tool(&m, "GET", "/api/folders/search");
}

#[test]
fn rule_order_is_fixed() {
    let reqs = [
        ("GET", g("/api/folders/a1b2c3d4e5f6")),
        ("GET", g("/api/folders/general")),
    ];
    let a = manifest(&pairs(&reqs), &[SiblingVariance, OpaqueToken]);
    let b = manifest(&pairs(&reqs), &[OpaqueToken, SiblingVariance]);
    assert_eq!(a, b);
    assert_eq!(a.template_rules, vec!["opaque-token", "sibling-variance"]);
}

#[test]
fn repeated_rule_is_invalid_request() {
    let err = environment_manifest(
        &lines(&[("GET", "http://a.example/api/x")]),
        &[OpaqueToken, OpaqueToken],
        false,
    )
    .unwrap_err();
    assert_eq!(err.to_report().code, "invalid_request");
}

#[test]
fn repos_pair_variance() {
    let reqs = [
        ("GET", g("/api/v1/repos/alice/web/issues")),
        ("GET", g("/api/v1/repos/bob/cli/issues")),
        ("GET", g("/api/v1/repos/carol/docs/issues")),
    ];
    let m = manifest(&pairs(&reqs), &[SiblingPairVariance]);
    let t = tool(
        &m,
        "GET",
        "/api/v1/repos/{repo_namespace}/{repo_name}/issues",
    );
    assert_eq!(t.params[0].name, "repo_namespace");
    assert_eq!(t.params[0].observed, vec!["alice", "bob", "carol"]);
    assert_eq!(t.params[1].name, "repo_name");
    assert_eq!(t.params[1].rule, "sibling-pair-variance");
    assert_eq!(m.tools.len(), 1);
}

#[test]
fn pair_variance_negative_cases() {
    // Only two distinct pairs.
    let two = [
        ("GET", g("/api/v1/repos/alice/web/issues")),
        ("GET", g("/api/v1/repos/bob/cli/issues")),
    ];
    assert_eq!(
        manifest(&pairs(&two), &[SiblingPairVariance]).tools.len(),
        2
    );
    // First position constant.
    let constant = [
        ("GET", g("/api/v1/repos/alice/web/issues")),
        ("GET", g("/api/v1/repos/alice/cli/issues")),
        ("GET", g("/api/v1/repos/alice/docs/issues")),
    ];
    assert_eq!(
        manifest(&pairs(&constant), &[SiblingPairVariance])
            .tools
            .len(),
        3
    );
    // Versions and stop words never qualify.
    let versions = [
        ("GET", g("/api/x/repos/v1/web/issues")),
        ("GET", g("/api/x/repos/v2/cli/issues")),
        ("GET", g("/api/x/repos/v3/docs/issues")),
    ];
    assert_eq!(
        manifest(&pairs(&versions), &[SiblingPairVariance])
            .tools
            .len(),
        3
    );
}

#[test]
fn sibling_variance_identifier_like_only() {
    let reqs = [
        ("GET", g("/api/items/a1")),
        ("GET", g("/api/items/b2")),
        ("GET", g("/api/items/featured")),
        ("GET", g("/api/posts/my-first-post")),
        ("GET", g("/api/posts/one-more-post")),
        ("GET", g("/api/tags/alpha")),
        ("GET", g("/api/tags/beta")),
    ];
    let m = manifest(&pairs(&reqs), &[SiblingVariance]);
    assert_eq!(
        tool(&m, "GET", "/api/items/{item_id}").params[0].observed,
        vec!["a1", "b2"]
    );
    tool(&m, "GET", "/api/items/featured");
    tool(&m, "GET", "/api/posts/{post_id}");
    tool(&m, "GET", "/api/tags/alpha");
    tool(&m, "GET", "/api/tags/beta");
}

#[test]
fn sibling_variance_needs_index_two() {
    let reqs = [("GET", g("/api/a1")), ("GET", g("/api/b2"))];
    let m = manifest(&pairs(&reqs), &TemplateRule::ALL);
    assert_eq!(templates(&m), vec!["GET /api/a1", "GET /api/b2"]);
}

#[test]
fn sibling_variance_after_a_parameter_is_named_id() {
    let reqs = [("GET", g("/api/orgs/5/a1")), ("GET", g("/api/orgs/7/b2"))];
    let m = manifest(&pairs(&reqs), &[SiblingVariance]);
    let t = tool(&m, "GET", "/api/orgs/{numeric}/{id_2}");
    assert_eq!(t.params[0].name, "id");
    assert_eq!(t.params[1].name, "id_2");
    assert_eq!(t.params[1].rule, "sibling-variance");
}

#[test]
fn format_positions_absorb_no_literal() {
    let reqs = [
        ("GET", g("/api/teams/5")),
        ("GET", g("/api/teams/search")),
        ("GET", g("/api/teams/x9")),
    ];
    let m = manifest(&pairs(&reqs), &TemplateRule::ALL);
    tool(&m, "GET", "/api/teams/{numeric}");
    tool(&m, "GET", "/api/teams/search");
    tool(&m, "GET", "/api/teams/x9");
}

#[test]
fn opt_in_and_format_placeholders() {
    let reqs = [
        ("GET", g("/api/folders/a1b2c3d4e5f6")),
        ("GET", g("/api/teams/12")),
    ];
    let m = manifest(&pairs(&reqs), &[OpaqueToken]);
    tool(&m, "GET", "/api/folders/{uid}");
    let t = tool(&m, "GET", "/api/teams/{numeric}");
    assert_eq!(t.params[0].name, "id");
    assert_eq!(t.params[0].rule, "numeric");
    assert_eq!(t.name, "get_teams_by_id");
}

#[test]
fn format_params_without_rules() {
    let reqs = [
        ("GET", g("/api/users/42")),
        ("GET", g("/api/days/2024-02-29")),
        ("GET", g("/api/orgs/1/users/2")),
        ("GET", g("/api/blobs/d41d8cd98f00b204e9800998ecf8427e")),
        ("GET", g("/api/o/550e8400-e29b-41d4-a716-446655440000")),
    ];
    let m = manifest(&pairs(&reqs), &[]);
    for t in &m.tools {
        assert_eq!(t.path_template, t.api_surface_template);
    }
    assert_eq!(tool(&m, "GET", "/api/users/{numeric}").params[0].name, "id");
    assert_eq!(
        tool(&m, "GET", "/api/days/{iso-date}").params[0].name,
        "date"
    );
    assert_eq!(tool(&m, "GET", "/api/blobs/{hex}").params[0].name, "hash");
    assert_eq!(tool(&m, "GET", "/api/o/{uuid}").params[0].name, "uuid");
    let t = tool(&m, "GET", "/api/orgs/{numeric}/users/{numeric}");
    let names: Vec<&str> = t.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["id", "id_2"]);
    assert_eq!(t.name, "get_orgs_users_by_id_and_id_2");
}

fn collections() -> Vec<(&'static str, String)> {
    vec![
        ("GET", g("/api/v1/collections/0RZ576QZQA5KG")),
        ("GET", g("/api/v1/collections/7QWE12RTY34UI")),
        ("PATCH", g("/api/v1/collections/0RZ576QZQA5KG")),
        ("DELETE", g("/api/v1/collections/1ABCD23EFGH4K")),
        ("GET", g("/api/v1/collections/0RZ576QZQA5KG/books")),
        ("POST", g("/api/v1/collections/search")),
    ]
}

#[test]
fn collections_prefix_variance() {
    let reqs = collections();
    let m = manifest(&pairs(&reqs), &[SiblingVariance, PrefixVariance]);
    let reads = tool(&m, "GET", "/api/v1/collections/{collection_id}");
    assert_eq!(reads.params[0].rule, "sibling-variance");
    let patch = tool(&m, "PATCH", "/api/v1/collections/{collection_id}");
    assert_eq!(patch.params[0].name, "collection_id");
    assert_eq!(patch.params[0].rule, "prefix-variance");
    assert_eq!(patch.name, "patch_collections_by_collection_id");
    // Spelled like an observed value: same length and character classes.
    tool(&m, "DELETE", "/api/v1/collections/{collection_id}");
    tool(&m, "GET", "/api/v1/collections/{collection_id}/books");
    // Stop words never qualify.
    tool(&m, "POST", "/api/v1/collections/search");
    // Without prefix-variance the edit stays literal.
    let m = manifest(&pairs(&reqs), &[SiblingVariance]);
    tool(&m, "PATCH", "/api/v1/collections/0RZ576QZQA5KG");
}

#[test]
fn prefix_variance_prefers_the_parameter_that_observed_the_literal() {
    let reqs = [
        ("GET", g("/api/things/a1b2c3d4e5f6")),
        ("DELETE", g("/api/things/x1")),
        ("DELETE", g("/api/things/x2")),
        ("PATCH", g("/api/things/x1")),
    ];
    let m = manifest(&pairs(&reqs), &TemplateRule::ALL);
    let patch = tool(&m, "PATCH", "/api/things/{thing_id}");
    assert_eq!(patch.params[0].rule, "prefix-variance");
}

#[test]
fn prefix_variance_merges_and_keeps_own_rule_label() {
    // The PATCH of `a1` joins `{item_id}` and then equals the PATCH tool
    // that templated the position itself: they merge under the own rule.
    let reqs = [
        ("GET", g("/api/items/a1")),
        ("GET", g("/api/items/b2")),
        ("PATCH", g("/api/items/c3")),
        ("PATCH", g("/api/items/d4")),
        ("PATCH", g("/api/items/zz9")),
    ];
    let m = manifest(&pairs(&reqs), &[SiblingVariance, PrefixVariance]);
    let patch = tool(&m, "PATCH", "/api/items/{item_id}");
    assert_eq!(patch.params[0].rule, "sibling-variance");
    assert_eq!(patch.params[0].observed, vec!["c3", "d4", "zz9"]);
}

#[test]
fn long_routes_are_not_compared() {
    let deep = "/api".to_string() + &"/seg".repeat(31);
    let reqs = [
        ("GET", g(&format!("{deep}/a1"))),
        ("GET", g(&format!("{deep}/b2"))),
    ];
    let m = manifest(&pairs(&reqs), &[SiblingVariance]);
    assert_eq!(m.tools.len(), 2);
    assert!(m.limitations.iter().any(|l| l.contains("32 segments")));
    let m = manifest(&pairs(&reqs), &[]);
    assert!(!m.limitations.iter().any(|l| l.contains("32 segments")));
}

#[test]
fn primary_origin_keeping_and_exclusion() {
    let ev = evidence(vec![
        har_entry(
            "GET",
            "https://api.example/rest/items",
            200,
            "application/json",
        ),
        har_entry(
            "GET",
            "https://api.example/rest/items/7",
            200,
            "application/json",
        ),
        har_entry("GET", "https://api.example/api/export", 200, "text/csv"),
        har_entry("GET", "https://api.example/download", 200, "text/csv"),
        har_entry("GET", "https://api.example/index.html", 200, "text/html"),
        har_entry(
            "GET",
            "https://cdn.example/app.js",
            200,
            "application/javascript",
        ),
        har_entry("GET", "https://cdn.example/img/5", 200, "image/png"),
    ]);
    let m = environment_manifest(&ev, &[], false).unwrap();
    assert_eq!(m.origin, "https://api.example");
    assert_eq!(
        templates(&m),
        vec![
            "GET /api/export",
            "GET /rest/items",
            "GET /rest/items/{numeric}"
        ]
    );
    let reasons: Vec<(&str, &str)> = m
        .excluded
        .iter()
        .map(|e| (e.path_template.as_str(), e.reason.as_str()))
        .collect();
    assert!(reasons.contains(&("/app.js", "other-origin")));
    assert!(reasons.contains(&("/download", "non-json")));
    assert!(reasons.contains(&("/index.html", "ui-page-or-asset")));
    assert_eq!(m.templated_groups, 2);
    assert_eq!(m.basis, "inferred");
    let rp = &m.records[1];
    assert_eq!(
        serde_json::to_value(rp).unwrap(),
        json!({"ordinal": 1, "method": "GET", "path": "/rest/items/7", "status": 200, "content_type": "application/json"})
    );
    assert_eq!(m.unknowns.len(), 3);
}

#[test]
fn excluded_templated_group_makes_it_inferred() {
    let ev = evidence(vec![
        har_entry(
            "GET",
            "https://api.example/rest/items",
            200,
            "application/json",
        ),
        har_entry("GET", "https://cdn.example/img/5", 200, "image/png"),
    ]);
    let m = environment_manifest(&ev, &[], false).unwrap();
    assert_eq!(m.templated_groups, 1);
    assert_eq!(m.basis, "inferred");
    let ev = evidence(vec![har_entry(
        "GET",
        "https://api.example/rest/items",
        200,
        "application/json",
    )]);
    assert_eq!(
        environment_manifest(&ev, &[], false).unwrap().basis,
        "derived"
    );
}

#[test]
fn unusable_records_are_counted() {
    let mut bad = har_entry("GET", "http://a.example/x", 200, "application/json");
    bad["request"]["url"] = json!(null);
    let ev = evidence(vec![
        har_entry("GET", "http://a.example/api/x", 200, "application/json"),
        bad,
    ]);
    let m = environment_manifest(&ev, &[], false).unwrap();
    assert!(m
        .limitations
        .iter()
        .any(|l| l.starts_with("1 retained record(s) have no usable request line")));
}

#[test]
fn tools_sort_by_template_then_method_and_have_ten_members() {
    let m = manifest(
        &[
            ("POST", "http://a.example/api/items"),
            ("GET", "http://a.example/api/items"),
        ],
        &[],
    );
    assert_eq!(templates(&m), vec!["GET /api/items", "POST /api/items"]);
    let v = serde_json::to_value(&m.tools[0]).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "name",
            "method",
            "path_template",
            "api_surface_template",
            "params",
            "query_parameter_names",
            "body_shape",
            "statuses",
            "content_types",
            "record_ordinals"
        ]
    );
}

#[test]
fn duplicate_names_get_suffixes() {
    let m = manifest(
        &[
            ("GET", "http://a.example/api/items"),
            ("GET", "http://a.example/api/v1/items"),
        ],
        &[],
    );
    let names: Vec<&str> = m.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["get_items", "get_items_2"]);
}

#[test]
fn body_shape_from_earliest_json_record_only() {
    let ev = evidence(vec![
        with_body(
            har_entry(
                "POST",
                "http://a.example/api/notes",
                201,
                "application/json",
            ),
            "application/json; charset=utf-8",
            r#"{"title":"x","tags":["a"],"meta":{"k":1},"n":2,"ok":true,"z":null}"#,
        ),
        with_body(
            har_entry(
                "POST",
                "http://a.example/api/notes",
                201,
                "application/json",
            ),
            "application/json",
            r#"{"later":1}"#,
        ),
        with_body(
            har_entry("PUT", "http://a.example/api/forms", 200, "application/json"),
            "application/x-www-form-urlencoded",
            "a=1",
        ),
        with_body(
            har_entry(
                "PATCH",
                "http://a.example/api/notes/1",
                200,
                "application/json",
            ),
            "application/merge-patch+json",
            r#"{"a":1}"#,
        ),
        with_body(
            har_entry("GET", "http://a.example/api/get", 200, "application/json"),
            "application/json",
            r#"{"a":1}"#,
        ),
    ]);
    let m = environment_manifest(&ev, &[], false).unwrap();
    let shape = tool(&m, "POST", "/api/notes").body_shape.clone().unwrap();
    assert_eq!(
        serde_json::to_value(shape).unwrap(),
        json!({"title":"string","tags":"array","meta":"object","n":"number","ok":"boolean","z":"null"})
    );
    assert!(tool(&m, "PUT", "/api/forms").body_shape.is_none());
    assert!(tool(&m, "PATCH", "/api/notes/{numeric}")
        .body_shape
        .is_some());
    assert!(tool(&m, "GET", "/api/get").body_shape.is_none());
    let text = serde_json::to_string(&m).unwrap();
    assert!(!text.contains("later"));
}

#[test]
fn query_names_per_tool() {
    let ev = lines(&[
        ("GET", "http://a.example/api/products?category=books&page=1"),
        (
            "GET",
            "http://a.example/api/products?category=games&sort=price",
        ),
    ]);
    let m = environment_manifest(&ev, &[], true).unwrap();
    let names: Vec<&str> = m.tools[0]
        .query_parameter_names
        .iter()
        .map(|q| q.name.as_str())
        .collect();
    assert_eq!(names, ["category", "page", "sort"]);
    assert_eq!(
        m.tools[0].query_parameter_names[0].record_ordinals,
        vec![0, 1]
    );
    let m = environment_manifest(&ev, &[], false).unwrap();
    assert!(m.tools[0].query_parameter_names.is_empty());
}

#[test]
fn manifest_refuses_what_api_surface_refuses() {
    let mut ev = lines(&[("GET", "http://a.example/api/x")]);
    ev["parameters"]["sensitive_value_count"] = json!(2);
    let r = environment_manifest(&ev, &[], false)
        .unwrap_err()
        .to_report();
    assert_eq!(r.details["reason"], "sensitive_values_unretained");
    let mut ev = lines(&[("GET", "http://a.example/api/x")]);
    ev["capture"]["format"] = json!("qlog");
    let r = environment_manifest(&ev, &[], false)
        .unwrap_err()
        .to_report();
    assert_eq!(r.category, rea_core::Category::Unsupported);
}

#[test]
fn over_budget_gives_resource_constraint_without_manifest() {
    let ev = fixture("kinto/dev-a.har");
    let err = manifest_budgeted(
        &ev,
        &TemplateRule::ALL,
        true,
        false,
        &mut Budget::new(64 * 1024),
    )
    .unwrap_err();
    assert!(matches!(err, DeriveError::ResourceConstraint { .. }));
    // The same Evidence fits the fixed budget.
    assert!(environment_manifest(&ev, &TemplateRule::ALL, true).is_ok());
}

#[test]
fn inline_envelope_is_charged_at_escaped_size() {
    let ev = fixture("kinto/dev-a.har");
    let mut retained = Budget::new(u64::MAX);
    manifest_budgeted(&ev, &[], false, false, &mut retained).unwrap();
    let mut inline = Budget::new(u64::MAX);
    manifest_budgeted(&ev, &[], false, true, &mut inline).unwrap();
    assert!(
        inline.used() - retained.used() > 248_000,
        "{} vs {}",
        inline.used(),
        retained.used()
    );
    // A budget between the two: the file source projects, inline does not.
    let limit = retained.used() + 1024;
    assert!(manifest_budgeted(&ev, &[], false, false, &mut Budget::new(limit)).is_ok());
    assert!(manifest_budgeted(&ev, &[], false, true, &mut Budget::new(limit)).is_err());
}

#[test]
fn kinto_all_rules() {
    let m = environment_manifest(&fixture("kinto/dev-a.har"), &TemplateRule::ALL, true).unwrap();
    assert_eq!(m.name, "127-0-0-1-37713");
    let base = "/v1/buckets/shop/collections";
    let products = tool(&m, "GET", &format!("{base}/products/records/{{record_id}}"));
    assert_eq!(products.params[0].rule, "sibling-variance");
    assert!(products.params[0]
        .observed
        .contains(&"prod-001".to_string()));
    for method in ["PATCH", "PUT", "DELETE"] {
        let t = tool(
            &m,
            method,
            &format!("{base}/products/records/{{record_id}}"),
        );
        assert_eq!(t.params[0].rule, "prefix-variance");
    }
    tool(
        &m,
        "GET",
        &format!("{base}/customers/records/{{record_id}}"),
    );
    tool(
        &m,
        "PATCH",
        &format!("{base}/customers/records/{{record_id}}"),
    );
    tool(&m, "GET", &format!("{base}/products/records/{{uuid}}"));
    // One read of one order id: no sibling to vary with, so it stays literal.
    tool(&m, "GET", &format!("{base}/orders/records/ord-001"));
    tool(&m, "GET", &format!("{base}/products/records"));
    tool(&m, "GET", "/v1/buckets/shop");
}

#[test]
#[ignore = "prints the Kinto tool lists for the report"]
fn print_kinto_tools() {
    for name in [
        "kinto/dev-a.har",
        "kinto/dev-b.har",
        "kinto/dev-a.playwright.har",
    ] {
        let m = environment_manifest(&fixture(name), &TemplateRule::ALL, true).unwrap();
        eprintln!("== {name}");
        for t in &m.tools {
            let params: Vec<String> = t
                .params
                .iter()
                .map(|p| format!("{}:{}", p.name, p.rule))
                .collect();
            eprintln!("{:7} {:62} {}", t.method, t.path_template, params.join(" "));
        }
    }
}

#[test]
fn primary_origin_tie_break() {
    // Equal JSON-like counts: more records overall wins.
    let ev = evidence(vec![
        har_entry("GET", "https://b.example/api/x", 200, "application/json"),
        har_entry("GET", "https://b.example/page", 200, "text/html"),
        har_entry("GET", "https://a.example/api/x", 200, "application/json"),
    ]);
    assert_eq!(
        environment_manifest(&ev, &[], false).unwrap().origin,
        "https://b.example"
    );
    // Still equal: the smallest origin in code-point order.
    let ev = evidence(vec![
        har_entry("GET", "https://b.example/api/x", 200, "application/json"),
        har_entry("GET", "https://a.example/api/x", 200, "text/plain"),
    ]);
    assert_eq!(
        environment_manifest(&ev, &[], false).unwrap().origin,
        "https://a.example"
    );
    // JSON-like records decide before anything else.
    let ev = evidence(vec![
        har_entry(
            "GET",
            "https://cdn.example/a.js",
            200,
            "application/javascript",
        ),
        har_entry(
            "GET",
            "https://cdn.example/b.js",
            200,
            "application/javascript",
        ),
        har_entry("GET", "https://api.example/x", 200, "text/markdown"),
    ]);
    assert_eq!(
        environment_manifest(&ev, &[], false).unwrap().origin,
        "https://api.example"
    );
}
