//! fstc-regex's integration tests as one binary, a module per subject.

mod budgets;
mod differential;
mod extensions_differential;
mod hostile;
mod regex_algebra;
mod regex_assertions;
mod regex_dfa;
mod regex_ecmascript;
mod regex_errors;
mod regex_extensions;
mod regex_random;
