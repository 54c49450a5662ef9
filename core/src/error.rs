//! The error contract every rea failure answers with: a stable `code`, a
//! `category`, a readable message, whether retrying can help, structured
//! details and what to do next. `docs/errors.md` is the table of codes.

use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt;

/// The broad class of a failure; decides the CLI exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// The caller's input (arguments, file, payload) is wrong; fix it and retry.
    Input,
    /// The input is well formed but asks for something rea does not do.
    Unsupported,
    /// The host refused or could not provide a resource (permissions, I/O).
    Unavailable,
    /// The input changed while it was being read.
    IntegrityMismatch,
    /// A fixed budget (memory representation, time) was exceeded.
    ResourceConstraint,
    /// rea's own reply or output could not be produced within its budget.
    Output,
    /// A defect in rea itself.
    Internal,
}

impl Category {
    /// The process exit code the CLI uses for this category.
    pub fn exit_code(self) -> i32 {
        match self {
            Category::Input => 2,
            Category::Unsupported => 3,
            Category::Unavailable => 4,
            Category::IntegrityMismatch => 5,
            Category::ResourceConstraint => 6,
            Category::Output => 7,
            Category::Internal => 70,
        }
    }

    /// The canonical spelling used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Input => "input",
            Category::Unsupported => "unsupported",
            Category::Unavailable => "unavailable",
            Category::IntegrityMismatch => "integrity_mismatch",
            Category::ResourceConstraint => "resource_constraint",
            Category::Output => "output",
            Category::Internal => "internal",
        }
    }
}

/// One failure, in the shape every adapter prints: CLI `--json` on stderr,
/// MCP structured content, data-plane `data`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorReport {
    pub code: String,
    pub category: Category,
    pub message: String,
    pub retryable: bool,
    pub details: Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guidance: Option<String>,
}

impl ErrorReport {
    pub fn new(code: impl Into<String>, category: Category, message: impl Into<String>) -> Self {
        ErrorReport {
            code: code.into(),
            category,
            message: message.into(),
            retryable: false,
            details: Map::new(),
            guidance: None,
        }
    }

    /// Adds one structured detail.
    pub fn detail(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_string(), value.into());
        self
    }

    /// Says what the caller can do about it.
    pub fn guidance(mut self, text: impl Into<String>) -> Self {
        self.guidance = Some(text.into());
        self
    }

    pub fn retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// The JSON object printed for this error.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|_| Value::Null)
    }

    /// Shorthand for a caller mistake.
    pub fn input(code: impl Into<String>, message: impl Into<String>) -> Self {
        ErrorReport::new(code, Category::Input, message)
    }

    /// Removes every declared sensitive literal from the message, guidance
    /// and string details, so a failure never repeats a declared value.
    pub fn scrub(mut self, sensitive: &[String]) -> Self {
        if sensitive.is_empty() {
            return self;
        }
        self.message = scrub_text(&self.message, sensitive);
        self.guidance = self.guidance.map(|g| scrub_text(&g, sensitive));
        for value in self.details.values_mut() {
            scrub_value(value, sensitive);
        }
        self
    }
}

/// Replaces each occurrence of a declared literal with `[excluded]`.
/// Used only in free text rea generates (messages, guidance), never in
/// captured values, which are excluded whole instead.
pub fn scrub_text(text: &str, sensitive: &[String]) -> String {
    let mut out = text.to_string();
    for literal in sensitive.iter().filter(|s| !s.is_empty()) {
        if out.contains(literal.as_str()) {
            out = out.replace(literal.as_str(), "[excluded]");
        }
    }
    out
}

fn scrub_value(value: &mut Value, sensitive: &[String]) {
    match value {
        Value::String(s)
            if sensitive
                .iter()
                .any(|l| !l.is_empty() && s.contains(l.as_str())) =>
        {
            *value = Value::Null;
        }
        Value::Array(items) => items.iter_mut().for_each(|v| scrub_value(v, sensitive)),
        Value::Object(map) => {
            let hidden: Vec<String> = map
                .keys()
                .filter(|k| {
                    sensitive
                        .iter()
                        .any(|l| !l.is_empty() && k.contains(l.as_str()))
                })
                .cloned()
                .collect();
            for key in hidden {
                map.shift_remove(&key);
            }
            map.values_mut().for_each(|v| scrub_value(v, sensitive));
        }
        _ => {}
    }
}

impl fmt::Display for ErrorReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): {}",
            self.code,
            self.category.as_str(),
            self.message
        )?;
        if let Some(g) = &self.guidance {
            write!(f, " {g}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ErrorReport {}
