//! libFuzzer entry for the `qlog` target (`cargo +nightly fuzz run qlog --features libfuzzer`);
//! a broken invariant is a crash.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(broken) = rea_fuzz::targets::run("qlog", data) {
        panic!("qlog: {broken}");
    }
});
