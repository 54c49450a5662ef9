//! The write representation (`model::write_shape`) and the status forms
//! (`model::status_forms`) as `rea environment-model` names them: each
//! write-only member with its rule, the records supporting it and the
//! records it was checked against, the sibling it is lent from, each status
//! form with its evidence; and `inferred_operations.from` naming the sibling
//! serving borrows a write route from (WordPress pages: the posts', not the
//! categories'). Apps whose write answers are their read shape get neither
//! section.

use rea_core::{inspect_web_network_capture, InspectRequest};
use rea_derivation::environment_model;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn model(rel: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel);
    let evidence = inspect_web_network_capture(&InspectRequest::har(&path)).expect("decode");
    let evidence = serde_json::to_value(&evidence).expect("evidence JSON");
    serde_json::to_value(environment_model(&evidence).expect("model")).expect("model JSON")
}

fn ordinals(v: &Value) -> BTreeSet<u64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

fn resource<'a>(m: &'a Value, collection: &str) -> &'a Value {
    m["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["collection"] == collection)
        .unwrap_or_else(|| panic!("no resource {collection}"))
}

fn section<'a>(m: &'a Value, name: &str, collection: &str) -> Option<&'a Value> {
    m[name]
        .as_array()?
        .iter()
        .find(|r| r["resource"] == collection)
}

/// Every member's records: supported ⊆ checked ⊆ the document's records.
fn check_evidence(m: &Value) {
    let records = ordinals(&m["records"]);
    for w in m["write_representation"].as_array().into_iter().flatten() {
        for x in w["members"].as_array().unwrap() {
            let (s, c) = (
                ordinals(&x["supported_by"]),
                ordinals(&x["checked_against"]),
            );
            assert!(!s.is_empty() && s.is_subset(&c), "{x}");
            assert!(c.is_subset(&records), "{x}");
        }
    }
    for f in m["status_forms"].as_array().into_iter().flatten() {
        let (s, c) = (
            ordinals(&f["supported_by"]),
            ordinals(&f["checked_against"]),
        );
        assert!(
            !s.is_empty() && s.is_subset(&c) && c.is_subset(&records),
            "{f}"
        );
    }
}

#[test]
fn wordpress_dev_a_names_each_write_member_its_rule_and_records() {
    let m = model("wordpress/dev-a.har");
    check_evidence(&m);
    let posts = section(&m, "write_representation", "/wp-json/wp/v2/posts").expect("posts");
    assert!(posts.get("lent_from").is_none());
    let member = |w: &Value, p: &str| {
        w["members"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["member"] == p)
            .cloned()
            .unwrap_or_else(|| panic!("no {p} in {w}"))
    };
    let pw = member(posts, "/password");
    assert_eq!(
        (pw["rule"].as_str(), &pw["value"]),
        (Some("constant"), &Value::from(""))
    );
    let slug = member(posts, "/generated_slug");
    assert_eq!(slug["rule"], "slug");
    assert_eq!(slug["of"], "/title/rendered");
    let pt = member(posts, "/permalink_template");
    assert_eq!(pt["rule"], "replace");
    assert_eq!(
        (&pt["of"], &pt["part"]),
        (&Value::from("/link"), &Value::from("/slug"))
    );
    assert_eq!(pt["with"], "%{/type}name%");
    let excerpt = member(posts, "/excerpt/raw");
    assert_eq!(
        (excerpt["rule"].as_str(), &excerpt["default"]),
        (Some("sent"), &Value::from(""))
    );
    // The forced delete's `previous` (no `_links`) was checked, not counted as support.
    let link = member(posts, "/_links/wp:action-publish");
    let (s, c) = (
        ordinals(&link["supported_by"]),
        ordinals(&link["checked_against"]),
    );
    assert!(s.len() < c.len(), "{link}");
    assert_eq!(posts["quote_leaves_out"], serde_json::json!(["_links"]));

    // Pages were never written in: lent from posts, with the posts' records.
    let pages = section(&m, "write_representation", "/wp-json/wp/v2/pages").expect("pages");
    assert_eq!(pages["lent_from"], "/wp-json/wp/v2/posts");
    assert_eq!(
        member(pages, "/password")["supported_by"],
        pw["supported_by"]
    );
    assert!(pages["members"]
        .as_array()
        .unwrap()
        .iter()
        .all(|x| !x["member"].as_str().unwrap().contains("sticky")));
    assert!(pages["conventions"][0]
        .as_str()
        .unwrap()
        .contains("never written in"));

    // The pages' borrowed write routes come from the lender serving uses.
    let posts_r = resource(&m, "/wp-json/wp/v2/posts");
    let pages_r = resource(&m, "/wp-json/wp/v2/pages");
    for method in ["DELETE", "POST", "PUT", "PATCH"] {
        let lent = pages_r["inferred_operations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["method"] == method)
            .unwrap_or_else(|| panic!("no lent {method}"));
        assert_eq!(lent["from"], "/wp-json/wp/v2/posts", "{method}");
        let own = posts_r["operations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["method"] == method && o["route"] == posts_r["item"])
            .unwrap();
        assert_eq!(lent["supported_by"], own["ordinals"], "{method}");
    }

    // The link's two forms: the soft delete and every answer showing the link.
    let forms = m["status_forms"].as_array().expect("status_forms");
    assert_eq!(forms.len(), 1);
    let f = &forms[0];
    assert_eq!(f["resource"], "/wp-json/wp/v2/posts");
    assert_eq!(
        (f["member"].as_str(), f["decider"].as_str()),
        (Some("link"), Some("status"))
    );
    assert_eq!(f["slug_values"], serde_json::json!(["publish"]));
    assert_eq!(f["key_value"], "trash");
    assert!(f.get("contradicted_by").is_none(), "{f}");
    let soft: BTreeSet<u64> = m["writes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["delete"]["soft"] == true && w["collection"] == "/wp-json/wp/v2/posts")
        .flat_map(|w| ordinals(&w["supported_by"]))
        .collect();
    assert!(!soft.is_empty() && soft.is_subset(&ordinals(&f["supported_by"])));
    assert!(f["conventions"][0]
        .as_str()
        .unwrap()
        .contains("never showed"));
}

#[test]
fn wordpress_dev_b_lists_its_own_write_members_and_no_lender() {
    // dev-b writes pages and comments itself: each has its own members.
    let m = model("wordpress/dev-b.har");
    check_evidence(&m);
    for c in ["/wp-json/wp/v2/pages", "/wp-json/wp/v2/comments"] {
        let w = section(&m, "write_representation", c).unwrap_or_else(|| panic!("{c}"));
        assert!(w.get("lent_from").is_none(), "{c}");
        assert!(!w["members"].as_array().unwrap().is_empty(), "{c}");
    }
    // No soft delete respelled a member: no status form.
    assert!(m.get("status_forms").is_none());
}

#[test]
fn apps_whose_write_answers_are_their_read_shape_list_neither_section() {
    for capture in [
        "kinto/dev-a.har",
        "mlflow/dev-a.har",
        "drf/dev-a.har",
        "jsonserver/dev-a.har",
        "redmine/dev-a.har",
        "couch/dev-a.har",
    ] {
        let m = model(capture);
        assert!(m.get("write_representation").is_none(), "{capture}");
        assert!(m.get("status_forms").is_none(), "{capture}");
    }
}
