#![no_main]
//! libFuzzer entry for [`fstc_fuzz::regex`].

libfuzzer_sys::fuzz_target!(|data: &[u8]| fstc_fuzz::regex(data));
