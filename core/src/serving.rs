//! The capture a derived command (environment-serve, -manifest, -state)
//! starts from: its format detected by content unless the caller names it,
//! and the HTTP record Evidence the derivation consumes for that format.

use crate::error::{Category, ErrorReport};
use crate::evidence::{
    Artifact, Capture, Decoder, Evidence, Parameters, Record, Redaction, EVIDENCE_VERSION,
    OPERATION,
};
use crate::har::LeftOutEntry;
use crate::inspect::{decode_for_serving, inspect_web_network_capture, InspectRequest};
use crate::mitm;
use crate::read::Snapshot;
use serde_json::Value;
use std::io::Read;
use std::path::Path;

/// The formats a derived command can start from.
pub const SERVING_FORMATS: [&str; 3] = ["har", "mitmproxy", "saz"];

/// The format of a capture by its content: a tnetstring length prefix
/// is a native mitmproxy flow file; a ZIP archive holding `raw/…_c.txt`
/// members is a Fiddler session archive; anything else is read as HAR
/// (whose decoder reports what is wrong with it).
pub fn detect_format(path: &Path) -> &'static str {
    let mut head = [0u8; 16];
    let read = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    if mitm::looks_native(&head[..read]) {
        "mitmproxy"
    } else if head[..read].starts_with(b"PK\x03\x04") && looks_saz(path) {
        "saz"
    } else {
        "har"
    }
}

/// Whether the ZIP archive's central directory names a `raw/…_c.txt` member.
fn looks_saz(path: &Path) -> bool {
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let Ok(zip) = zip::ZipArchive::new(std::io::BufReader::new(file)) else {
        return false;
    };
    let found = zip
        .file_names()
        .any(|n| n.is_ok_and(|n| n.starts_with("raw/") && n.ends_with("_c.txt")));
    found
}

/// The HTTP record Evidence of a capture and the HAR entries left out of it:
/// HAR Evidence decoded per entry (with `strict`, refused as inspection
/// refuses it), or the HAR-shaped records of a native mitmproxy file (which
/// leave nothing out). `format` overrides detection.
pub fn capture_evidence(
    path: &Path,
    format: Option<&str>,
    strict: bool,
) -> Result<(Evidence, Vec<LeftOutEntry>), ErrorReport> {
    let format = match format {
        Some(f) => f,
        None => detect_format(path),
    };
    match format {
        "har" if strict => {
            inspect_web_network_capture(&InspectRequest::har(path)).map(|e| (e, Vec::new()))
        }
        "har" => decode_for_serving(&InspectRequest::har(path)),
        "mitmproxy" => mitm::http::http_evidence(path).map(|e| (e, Vec::new())),
        "saz" => crate::saz::http::http_evidence(path),
        "qlog" => Err(ErrorReport::new(
            "format_not_supported_yet",
            Category::Unsupported,
            format!(
                "rea cannot serve from {format} captures yet; har, mitmproxy and saz are available"
            ),
        )
        .detail("format", format)
        .guidance("Export the capture as HAR 1.2 from its producer and serve the HAR.")),
        _ => Err(ErrorReport::input(
            "unknown_format",
            format!("--format must be one of {}", SERVING_FORMATS.join(", ")),
        )
        .detail("argument", "format")
        .detail("format", format)),
    }
}

/// HAR-shaped HTTP records built from a native capture, for serving.
pub(crate) struct HttpRecords<'a> {
    /// The capture's own format (`mitmproxy`, `saz`).
    pub(crate) format: &'a str,
    pub(crate) basis: &'a str,
    pub(crate) decoder: &'a str,
    pub(crate) profile: &'a str,
    pub(crate) records_pointer: &'a str,
    pub(crate) path: &'a Path,
    pub(crate) snapshot: &'a Snapshot,
    pub(crate) total: u64,
    pub(crate) records: Vec<Record>,
    pub(crate) redactions: Vec<Redaction>,
    pub(crate) limitations: Vec<String>,
}

/// The one Evidence envelope of serving records built from a native
/// capture: a `har` capture of every record, no declared values.
pub(crate) fn http_records_evidence(r: HttpRecords<'_>) -> Evidence {
    let retained = r.records.len() as u64;
    Evidence {
        evidence_version: EVIDENCE_VERSION.to_string(),
        operation: OPERATION.to_string(),
        subject: Some(format!("sha256:{}", r.snapshot.sha256)),
        basis: r.basis.to_string(),
        parameters: Parameters {
            format: r.format.to_string(),
            record_ordinals: None,
            detail: "complete".to_string(),
            sensitive_value_count: 0,
        },
        artifact: Artifact {
            path: r.path.display().to_string(),
            sha256: Some(r.snapshot.sha256.clone()),
            size: r.snapshot.size,
        },
        capture: Capture {
            format: "har".to_string(),
            decoder: Decoder {
                name: r.decoder.to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
                profile: r.profile.to_string(),
                producer_profile: None,
            },
            container: Value::Null,
            records_pointer: r.records_pointer.to_string(),
            total_records: r.total,
            retained_records: retained,
            numeric_literals: Vec::new(),
        },
        records: r.records,
        redactions: r.redactions,
        limitations: r.limitations,
        explanations: Vec::new(),
        qlog: None,
        protobuf: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_is_detected_by_content_and_can_be_overridden() {
        let dir = tempfile::tempdir().unwrap();
        let native = dir.path().join("capture.har");
        let flows = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/formats/protobuf-http1.mitm");
        std::fs::copy(flows, &native).unwrap();
        assert_eq!(detect_format(&native), "mitmproxy");
        let (e, left_out) = capture_evidence(&native, None, false).unwrap();
        assert_eq!((e.capture.format.as_str(), e.records.len()), ("har", 2));
        assert!(left_out.is_empty());
        let err = capture_evidence(&native, Some("har"), false).unwrap_err();
        assert_eq!(err.code, "capture_format_mismatch");
        let json = dir.path().join("flows.mitm");
        std::fs::write(&json, b"{\"log\": {}}").unwrap();
        assert_eq!(detect_format(&json), "har");
        assert_eq!(
            capture_evidence(&json, Some("mitmproxy"), false)
                .unwrap_err()
                .code,
            "mitmproxy_invalid_tnetstring"
        );
        assert_eq!(
            capture_evidence(&json, Some("pcap"), true)
                .unwrap_err()
                .code,
            "unknown_format"
        );
    }

    #[test]
    fn a_session_archive_is_detected_by_its_members() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("capture.har");
        let saz = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/formats/saz/httpbin-test.saz");
        std::fs::copy(saz, &archive).unwrap();
        assert_eq!(detect_format(&archive), "saz");
        let (e, left_out) = capture_evidence(&archive, None, false).unwrap();
        assert_eq!(
            (e.capture.format.as_str(), e.parameters.format.as_str()),
            ("har", "saz")
        );
        assert!(!e.records.is_empty() && left_out.is_empty());
        // A ZIP without `raw/…_c.txt` members is not a session archive.
        let other = dir.path().join("other.saz");
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        w.start_file("readme.txt", zip::write::SimpleFileOptions::default())
            .unwrap();
        std::io::Write::write_all(&mut w, b"hi").unwrap();
        std::fs::write(&other, w.finish().unwrap().into_inner()).unwrap();
        assert_eq!(detect_format(&other), "har");
        // Named as SAZ, it reads as an archive of no sessions.
        let (e, _) = capture_evidence(&other, Some("saz"), false).unwrap();
        assert_eq!(e.capture.total_records, 0);
    }
}
