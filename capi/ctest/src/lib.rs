//! Test-only crate: `build.rs` compiles fstc-capi's C test program and the C example
//! of docs/c.md with the system C compiler into a static library (their `main` renamed), and
//! `tests/c_abi.rs` links it with fstc-capi and calls them. Linking into the test binary
//! keeps the test free of target-dir paths and rpaths, in any checkout.

// The C code resolves its `fstc_*` calls against this crate's dependency.
pub use fstc_capi;
