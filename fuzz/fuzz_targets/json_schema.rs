#![no_main]
//! libFuzzer entry for [`fstc_fuzz::json_schema`].

libfuzzer_sys::fuzz_target!(|data: &[u8]| fstc_fuzz::json_schema(data));
