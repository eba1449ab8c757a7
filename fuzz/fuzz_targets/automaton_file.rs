#![no_main]
//! libFuzzer entry for [`fstc_fuzz::automaton_file`].

libfuzzer_sys::fuzz_target!(|data: &[u8]| fstc_fuzz::automaton_file(data));
