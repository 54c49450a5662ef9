//! libFuzzer entry for the `mitmproxy` target (`cargo +nightly fuzz run mitmproxy --features libfuzzer`);
//! a broken invariant is a crash.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(broken) = rea_fuzz::targets::run("mitmproxy", data) {
        panic!("mitmproxy: {broken}");
    }
});
