//! The flows of a native mitmproxy file as HAR-shaped HTTP records, for serving.
