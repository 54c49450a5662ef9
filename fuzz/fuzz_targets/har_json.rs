//! libFuzzer entry for the `har_json` target (`cargo +nightly fuzz run har_json --features libfuzzer`);
//! a broken invariant is a crash.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(broken) = rea_fuzz::targets::run("har_json", data) {
        panic!("har_json: {broken}");
    }
});
