#![no_main]
//! libFuzzer entry for [`fstc_fuzz::grammar`].

libfuzzer_sys::fuzz_target!(|data: &[u8]| fstc_fuzz::grammar(data));
