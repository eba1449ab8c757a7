//! The five regexes of issue 3 and the comparison bench, named, for the timing examples
//! (one list; each example includes this file with `#[path]`).

pub const PATTERNS: [(&str, &str); 5] = [
    ("ident", r"[^\W\d]\w*"),
    (
        "ipv4",
        r"((25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(25[0-5]|2[0-4]\d|[01]?\d\d?)",
    ),
    (
        "datetime",
        r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
    ),
    ("summary", r"Summary:(\n\* [^\n]+){3,5}"),
    ("string", r#""([^"\\]|\\.)*""#),
];
