//! `format`: the grammars enforced, as regex text over the (ASCII, unescaped) string body.
//!
//! | format | grammar |
//! |---|---|
//! | `date` | RFC 3339 full-date, years 0000–9999, days per month, 29 February in leap years only |
//! | `time` | RFC 3339 full-time with seconds 00–59 (no leap second), `Z` or `±hh:mm` offset, upper-case `Z` |
//! | `date-time` | `date` `T` `time` (upper-case `T`) |
//! | `duration` | RFC 3339 Appendix A (ISO 8601 `P…`) |
//! | `uuid` | RFC 4122 text: 8-4-4-4-12 hex digits, either case |
//! | `ipv4` | dotted quad, each 0–255 without leading zeros |
//! | `ipv6` | RFC 4291 text of eight hex groups, with at most one `::`; no embedded IPv4 tail, no zone |
//! | `hostname` | RFC 1123 labels of letters, digits and inner hyphens, 1–62 characters, at most 4 labels (so at most 251 characters) |
//!
//! Each is a subset of what the format's RFC allows (so everything admitted is valid), chosen so
//! that the language stays small. Unknown format names are annotations (ignored, as the spec
//! says); known ones not listed here are refused by name.

/// The formats whose grammar here is all of the RFC's (the others are subsets, so the
/// complement of one, under `not`, would admit valid texts).
pub(crate) const COMPLETE: &[&str] = &["date", "uuid", "ipv4"];

/// What is done with one `format`.
pub(crate) enum Format {
    /// Enforced exactly: the regex of the string body.
    Exact(String),
    /// Not a format of the specification: an annotation.
    Unknown,
    /// A format of the specification not built yet.
    Refused(&'static str),
}

const NOT_YET: &str = "this format's grammar is not built yet";
const KNOWN: &[&str] = &[
    "email",
    "idn-email",
    "idn-hostname",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// The handling of `format: name`.
pub(crate) fn body_regex(name: &str) -> Format {
    let regex = match name {
        "date" => date(),
        "time" => time(),
        "date-time" => format!("{}T{}", date(), time()),
        "duration" => duration(),
        "uuid" => {
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}".into()
        }
        "ipv4" => {
            let octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
            format!("{octet}(?:\\.{octet}){{3}}")
        }
        "ipv6" => ipv6(),
        "hostname" => {
            let label = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,60}[A-Za-z0-9])?";
            format!("{label}(?:\\.{label}){{0,3}}")
        }
        _ if KNOWN.contains(&name) => return Format::Refused(NOT_YET),
        _ => return Format::Unknown,
    };
    Format::Exact(format!("(?:{regex})"))
}

fn date() -> String {
    let year = "[0-9]{4}";
    let leap = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)";
    format!(
        "(?:{year}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)\
         |02-(?:0[1-9]|1[0-9]|2[0-8]))|{leap}-02-29)"
    )
}

fn time() -> String {
    "(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]+)?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])".into()
}

fn duration() -> String {
    let second = "[0-9]+S";
    let minute = format!("[0-9]+M(?:{second})?");
    let hour = format!("[0-9]+H(?:{minute})?");
    let time = format!("T(?:{hour}|{minute}|{second})");
    let day = "[0-9]+D";
    let month = format!("[0-9]+M(?:{day})?");
    let year = format!("[0-9]+Y(?:{month})?");
    format!("P(?:(?:{day}|{month}|{year})(?:{time})?|{time}|[0-9]+W)")
}

fn ipv6() -> String {
    let h = "[0-9a-fA-F]{1,4}";
    let groups = |n: usize| match n {
        0 => String::new(),
        n => format!("{h}(?::{h}){{{}}}", n - 1),
    };
    let mut alts = vec![groups(8)];
    for before in 0..=7 {
        let after = match 7 - before {
            0 => String::new(),
            1 => format!("(?:{h})?"),
            m => format!("(?:{h}(?::{h}){{0,{}}})?", m - 1),
        };
        alts.push(format!("{}::{after}", groups(before)));
    }
    alts.join("|")
}
