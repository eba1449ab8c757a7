//! Lark's `common` library, built in: `%import common.NAME` brings in one of these
//! terminals. Each is written here as one regex from the meaning Lark documents for it
//! (Lark's `.` is any character but a newline; its strings end at the first quote not
//! escaped by a backslash; its comments at the first closing mark).

/// Name and regex of each common terminal.
pub(super) const COMMON: &[(&str, &str)] = &[
    ("DIGIT", r"[0-9]"),
    ("HEXDIGIT", r"[0-9a-fA-F]"),
    ("INT", r"[0-9]+"),
    ("SIGNED_INT", r"[+-]?[0-9]+"),
    ("DECIMAL", r"[0-9]+\.[0-9]*|\.[0-9]+"),
    ("_EXP", r"[eE][+-]?[0-9]+"),
    (
        "FLOAT",
        r"[0-9]+[eE][+-]?[0-9]+|([0-9]+\.[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?",
    ),
    (
        "SIGNED_FLOAT",
        r"[+-]?([0-9]+[eE][+-]?[0-9]+|([0-9]+\.[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)",
    ),
    (
        "NUMBER",
        r"[0-9]+|[0-9]+[eE][+-]?[0-9]+|([0-9]+\.[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?",
    ),
    (
        "SIGNED_NUMBER",
        r"[+-]?([0-9]+|[0-9]+[eE][+-]?[0-9]+|([0-9]+\.[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)",
    ),
    ("ESCAPED_STRING", r#""([^"\\\n]|\\[^\n])*""#),
    ("LCASE_LETTER", r"[a-z]"),
    ("UCASE_LETTER", r"[A-Z]"),
    ("LETTER", r"[a-zA-Z]"),
    ("WORD", r"[a-zA-Z]+"),
    ("CNAME", r"[_a-zA-Z][_a-zA-Z0-9]*"),
    ("WS_INLINE", r"[ \t]+"),
    ("WS", r"[ \t\f\r\n]+"),
    ("CR", r"\r"),
    ("LF", r"\n"),
    ("NEWLINE", r"(\r?\n)+"),
    ("SH_COMMENT", r"#[^\n]*"),
    ("CPP_COMMENT", r"//[^\n]*"),
    ("C_COMMENT", r"/\*([^*]|\*+[^*/])*\*+/"),
    ("SQL_COMMENT", r"--[^\n]*"),
];

/// The regex of common terminal `name`.
pub(super) fn lookup(name: &str) -> Option<&'static str> {
    COMMON.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
}

/// The names, for messages.
pub(super) fn names() -> String {
    COMMON
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}
