#![no_main]
//! libFuzzer entry for [`fstc_fuzz::structural_tag`].

libfuzzer_sys::fuzz_target!(|data: &[u8]| fstc_fuzz::structural_tag(data));
