//! libFuzzer entry for the `end_to_end` target (`cargo +nightly fuzz run end_to_end --features libfuzzer`);
//! a broken invariant is a crash.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(broken) = rea_fuzz::targets::run("end_to_end", data) {
        panic!("end_to_end: {broken}");
    }
});
