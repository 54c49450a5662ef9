//! Naming what a file is when it is given as a HAR but is not JSON at all:
//! a ZIP archive (a Fiddler `.saz` is one), a pcap or pcapng packet
//! capture, or a mitmproxy flow file (tnetstring). Judged by content only,
//! never by the file name, and only after the JSON reader refused the bytes.

use crate::error::ErrorReport;

/// What the bytes look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detected {
    /// A ZIP archive holding Fiddler's `raw/` session members.
    Saz,
    /// Another ZIP archive.
    Zip,
    /// A libpcap capture (either byte order, micro- or nanosecond).
    Pcap,
    /// A pcapng capture.
    Pcapng,
    /// A mitmproxy flow file: a tnetstring dictionary.
    Mitmproxy,
}

impl Detected {
    /// The stable name used in error details.
    pub fn name(self) -> &'static str {
        match self {
            Detected::Saz => "saz",
            Detected::Zip => "zip",
            Detected::Pcap => "pcap",
            Detected::Pcapng => "pcapng",
            Detected::Mitmproxy => "mitmproxy",
        }
    }
}

/// Recognises the formats above by their first bytes.
pub fn detect(bytes: &[u8]) -> Option<Detected> {
    const PCAP: [[u8; 4]; 4] = [
        [0xd4, 0xc3, 0xb2, 0xa1],
        [0xa1, 0xb2, 0xc3, 0xd4],
        [0x4d, 0x3c, 0xb2, 0xa1],
        [0xa1, 0xb2, 0x3c, 0x4d],
    ];
    let head = bytes.get(..4)?;
    if head == b"PK\x03\x04" || head == b"PK\x05\x06" {
        // Fiddler names its members `raw/<n>_c.txt`, `raw/<n>_s.txt`, ...
        let window = &bytes[..bytes.len().min(64 * 1024)];
        let saz =
            window.windows(4).any(|w| w == b"raw/") && window.windows(6).any(|w| w == b"_c.txt");
        return Some(if saz { Detected::Saz } else { Detected::Zip });
    }
    if PCAP.iter().any(|magic| head == magic) {
        return Some(Detected::Pcap);
    }
    if head == [0x0a, 0x0d, 0x0d, 0x0a] {
        return Some(Detected::Pcapng);
    }
    is_tnetstring_dict(bytes).then_some(Detected::Mitmproxy)
}

/// `<length>:<payload>}`: a tnetstring dictionary, as mitmproxy's flow
/// files begin.
fn is_tnetstring_dict(bytes: &[u8]) -> bool {
    let digits = bytes
        .iter()
        .take(12)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 || bytes.get(digits) != Some(&b':') {
        return false;
    }
    let Ok(length) = std::str::from_utf8(&bytes[..digits])
        .unwrap_or("")
        .parse::<usize>()
    else {
        return false;
    };
    let end = digits + 1 + length;
    bytes.get(end) == Some(&b'}')
}

/// The error for bytes that are one of the formats above, or `None`.
pub fn not_a_har(bytes: &[u8]) -> Option<ErrorReport> {
    let detected = detect(bytes)?;
    let (what, instead) = match detected {
        Detected::Saz => (
            "a Fiddler session archive (.saz, a ZIP file)",
            "Inspect it as a SAZ (`rea inspect-web-network-capture <file> saz`), or export HAR from Fiddler: File > Export Sessions > All Sessions > HTTPArchive v1.2.",
        ),
        Detected::Zip => (
            "a ZIP archive",
            "Unpack it and give rea the .har file inside, or, for a Fiddler archive, inspect it with format saz.",
        ),
        Detected::Pcap | Detected::Pcapng => (
            if detected == Detected::Pcap {
                "a pcap packet capture"
            } else {
                "a pcapng packet capture"
            },
            "rea does not read packet captures. Record the traffic as HAR instead: browser DevTools (Network > Save all as HAR), mitmproxy (`mitmdump --set hardump=capture.har`) or Fiddler (Export Sessions > HTTPArchive).",
        ),
        Detected::Mitmproxy => (
            "a mitmproxy flow file",
            "Inspect it as mitmproxy flows (`rea inspect-web-network-capture <file> mitmproxy`), or convert it to HAR with `mitmdump -nr <file> --set hardump=capture.har`.",
        ),
    };
    Some(
        ErrorReport::input(
            "capture_format_mismatch",
            format!("the capture is not a HAR file: it is {what}"),
        )
        .detail("expected_format", "har")
        .detail("detected_format", detected.name())
        .guidance(instead),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_the_formats_by_content() {
        let saz = b"PK\x03\x04\x14\x00\x00\x00raw/01_c.txt....";
        assert_eq!(detect(saz), Some(Detected::Saz));
        assert_eq!(detect(b"PK\x03\x04other.txt"), Some(Detected::Zip));
        assert_eq!(
            detect(&[0xd4, 0xc3, 0xb2, 0xa1, 2, 0]),
            Some(Detected::Pcap)
        );
        assert_eq!(
            detect(&[0x0a, 0x0d, 0x0d, 0x0a, 0, 0]),
            Some(Detected::Pcapng)
        );
        assert_eq!(detect(b"14:4:type;4:http;}"), Some(Detected::Mitmproxy));
        for not in [
            &b"{\"log\":"[..],
            b"14:4:type;4:http;]",
            b"",
            b"PK",
            b"9999:abc}",
        ] {
            assert_eq!(detect(not), None, "{not:?}");
        }
    }

    #[test]
    fn the_error_names_the_file_and_what_to_run() {
        let e = not_a_har(b"14:4:type;4:http;}").unwrap();
        assert_eq!(e.code, "capture_format_mismatch");
        assert!(e.message.contains("mitmproxy flow file"));
        assert!(e.guidance.unwrap().contains("mitmproxy"));
        assert_eq!(e.details["detected_format"], "mitmproxy");
    }
}
