//! The results document as JSON.

use crate::gate::GateRun;

/// Pretty JSON with a trailing newline.
pub fn json(run: &GateRun) -> String {
    let mut out = serde_json::to_string_pretty(run).unwrap_or_else(|err| {
        // Serializing plain data cannot fail; if it ever does, say so in valid JSON.
        serde_json::json!({ "error": format!("failed to serialize the results: {err}") })
            .to_string()
    });
    out.push('\n');
    out
}
