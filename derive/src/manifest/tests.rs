use super::*;
use crate::testkit::{evidence, fixture, har_entry, lines, with_body};
use crate::template_rules::TemplateRule::*;
use serde_json::json;

fn manifest(pairs: &[(&str, &str)], rules: &[TemplateRule]) -> Manifest {
    environment_manifest(&lines(pairs), rules, false).unwrap()
}

fn templates(m: &Manifest) -> Vec<String> {
    m.tools.iter().map(|t| format!("{} {}", t.method, t.path_template)).collect()
}

fn tool<'m>(m: &'m Manifest, method: &str, template: &str) -> &'m Tool {
    m.tools
        .iter()
        .find(|t| t.method == method && t.path_template == template)
        .unwrap_or_else(|| panic!("no tool {method} {template} in {:?}", templates(m)))
}

#[test]
fn kinto_dev_a_prints() {
    let ev = fixture("kinto/dev-a.har");
    let m = environment_manifest(&ev, &TemplateRule::ALL, true).unwrap();
    for t in &m.tools {
        eprintln!("{:60} {:7} {}  {:?}", t.name, t.method, t.path_template, t.params.iter().map(|p| (&p.name, &p.rule, &p.observed)).collect::<Vec<_>>());
    }
}
