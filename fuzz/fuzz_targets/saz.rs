//! libFuzzer entry for the `saz` target (`cargo +nightly fuzz run saz --features libfuzzer`);
//! a broken invariant is a crash.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(broken) = rea_fuzz::targets::run("saz", data) {
        panic!("saz: {broken}");
    }
});
