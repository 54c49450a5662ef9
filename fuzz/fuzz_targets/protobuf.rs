//! libFuzzer entry for the `protobuf` target (`cargo +nightly fuzz run protobuf --features libfuzzer`);
//! a broken invariant is a crash.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(broken) = rea_fuzz::targets::run("protobuf", data) {
        panic!("protobuf: {broken}");
    }
});
