//! Refusals by name and path; malformed and mutated specs never panic.
