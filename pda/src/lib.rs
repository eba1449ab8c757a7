//! PDAs.
