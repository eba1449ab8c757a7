//! The regex text of a language as the translator passes it around.

/// The regex of a language, `None` when empty (so `false`, unsatisfiable `required` and
/// recursion cuts propagate).
pub(crate) type Lang = Option<String>;

/// `langs` as one alternation, `None` when there is none.
pub(crate) fn alternation(langs: Vec<String>) -> Lang {
    match langs.len() {
        0 => None,
        1 => langs.into_iter().next(),
        _ => Some(format!("(?:{})", langs.join("|"))),
    }
}
