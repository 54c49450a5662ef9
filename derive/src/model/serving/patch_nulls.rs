//! The evidence-based null reading on the serving side: a `PATCH` that
//! sends a `null` where the route's update semantics say a sent `null` is
//! stored (`model::nulls`) is not served as an RFC 7396 merge patch.

use super::ServingModel;
use serde_json::Value;

impl ServingModel {
    /// True when `body`, sent as a `PATCH` to `path`, sends a `null` that
    /// the route's recorded (or lent) null reading says is stored.
    pub fn stores_sent_null(&self, path: &str, body: Option<&Value>) -> bool {
        if !body.is_some_and(crate::model::nulls::sends_null) {
            return false;
        }
        let Some(r) = self.resolve("PATCH", path, None, None) else {
            return false;
        };
        self.write_of("PATCH", &r.route)
            .is_some_and(crate::model::nulls::stores)
    }
}
