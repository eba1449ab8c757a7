//! `format`: the grammars enforced, as regex text over the string body as JSON encodes it.
//!
//! | format | grammar |
//! |---|---|
//! | `date` | RFC 3339 full-date, years 0000–9999, days per month, 29 February in leap years only |
//! | `time` | RFC 3339 full-time: `Z` (either case) or a `±hh:mm` offset; second 60 at 23:59 UTC written with a zero offset (see `leap_seconds`) |
//! | `date-time` | `date` `T` `time` (`T` either case) |
//! | `duration` | RFC 3339 Appendix A (ISO 8601 `P…`) |
//! | `uuid` | RFC 4122 text: 8-4-4-4-12 hex digits, either case |
//! | `ipv4` | dotted quad, each 0–255 without leading zeros |
//! | `ipv6` | RFC 4291 §2.2 text (RFC 3986 `IPv6address`): eight groups, at most one `::`, optional IPv4 tail; no zone |
//! | `hostname` | RFC 1123 labels of letters, digits and inner hyphens: at most 3 labels of 1–63 characters, 4 of 1–62, 8 of 1–30, 16 of 1–14, 32 of 1–6 or 64 of 1–2 (so at most 253 characters); no label with `--` in its 3rd and 4th characters (RFC 5890's reserved labels, A-labels among them: see `label`) |
//! | `email` | RFC 5321 `Mailbox`: see [`email`] |
//! | `uri`, `uri-reference` | RFC 3986 `URI`, `URI-reference` |
//! | `iri`, `iri-reference` | RFC 3987 `IRI`, `IRI-reference` |
//! | `json-pointer` | RFC 6901 |
//! | `relative-json-pointer` | draft-bhutton-relative-json-pointer-00 (with `+`/`-` index manipulation) |
//! | `uri-template` | RFC 6570 (level 4), and `'` in literals as the official test suite has it |
//!
//! Those in [`COMPLETE`] are all of their grammar; the others a subset (so everything
//! admitted is valid), chosen so that the language stays small. Unknown format names are
//! annotations (ignored, as the spec says); known ones not listed here are refused by name.

mod email;
mod uri;

use crate::config::Escapes;
use crate::strings;

/// The formats whose grammar here is all of the RFC's (the others are subsets, so the
/// complement of one, under `not`, would admit valid texts).
pub(crate) const COMPLETE: &[&str] = &[
    "date",
    "uuid",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "json-pointer",
    "relative-json-pointer",
    "uri-template",
];

/// What is done with one `format`.
pub(crate) enum Format {
    /// Enforced exactly: the string body is in every one of these languages.
    Exact(Vec<String>),
    /// Not a format of the specification: an annotation.
    Unknown,
    /// A format of the specification not enforced.
    Refused(&'static str),
}

/// The formats refused, and why.
const REFUSED: &[(&str, &str)] = &[
    (
        "idn-email",
        "its domain is an IDNA2008 U-label (idn-hostname), whose rules are not built",
    ),
    (
        "idn-hostname",
        "IDNA2008 U-labels (RFC 5890-5893) have rules by Unicode property that are not built",
    ),
    (
        "regex",
        "ECMA-262 regular expressions nest parentheses without bound: not a regular language",
    ),
];

/// The handling of `format: name`.
pub(crate) fn body_regex(name: &str) -> Format {
    let regex = match name {
        "date" => date(),
        "time" => time(),
        "date-time" => format!("{}[Tt]{}", date(), time()),
        "duration" => duration(),
        "uuid" => {
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}".into()
        }
        "ipv4" => uri::ipv4(),
        "ipv6" => uri::ipv6(),
        "hostname" => hostname(),
        "email" => {
            let parts = email::mailbox(&hostname());
            return Format::Exact(parts.map(|r| format!("(?:{r})")).into());
        }
        "uri" => uri::uri(false, false),
        "uri-reference" => uri::uri(true, false),
        "iri" => uri::uri(false, true),
        "iri-reference" => uri::uri(true, true),
        "json-pointer" => json_pointer(),
        "relative-json-pointer" => {
            let n = "(?:0|[1-9][0-9]*)";
            format!("{n}(?:[+-]{n})?(?:#|{})", json_pointer())
        }
        "uri-template" => uri_template(),
        _ => {
            return match REFUSED.iter().find(|(n, _)| *n == name) {
                Some((_, why)) => Format::Refused(why),
                None => Format::Unknown,
            }
        }
    };
    Format::Exact(vec![format!("(?:{regex})")])
}

/// Shapes of RFC 1123 host names admitted: (most labels, most characters per label).
/// Each keeps within the 253-character total (RFC 1035's 255 octets in wire form)
/// without counting it: counting the total exactly beside the 63-character label bound is
/// a product of the two counters: 23,811 byte-DFA states for `format: hostname`, 1,876 with these shapes.
pub(crate) const HOSTNAME_SHAPES: [(usize, usize); 6] =
    [(3, 63), (4, 62), (8, 30), (16, 14), (32, 6), (64, 2)];

/// RFC 1123 §2.1 labels of letters, digits and inner hyphens, in one of the
/// [`HOSTNAME_SHAPES`] (a subset: e.g. four labels of 63, 63, 63 and 61 characters are
/// valid and not admitted), none with `--` in its 3rd and 4th characters (see [`label`]).
fn hostname() -> String {
    let shapes: Vec<String> = HOSTNAME_SHAPES
        .iter()
        .map(|&(labels, chars)| {
            let label = label(chars);
            format!("{label}(?:\\.{label}){{0,{}}}", labels - 1)
        })
        .collect();
    format!("(?:{})", shapes.join("|"))
}

/// A label of 1 to `most` letters, digits and inner hyphens, without `--` in its 3rd and
/// 4th characters. RFC 5890 §2.3.1 reserves those labels ("R-LDH"): the `xn--` ones are
/// A-labels, valid only when their Punycode decodes to a U-label that passes IDNA2008's
/// rules by Unicode property and context (RFC 5891-5893), which would take Punycode
/// decoding and those tables inside the automaton (not built); the others are reserved
/// for future encodings. So all are left out:
/// `xn--9n2bp8q` (valid) as well as `xn--X` (not Punycode) and `xn--hello-txk` (a mark
/// first). `a--b` stays in.
fn label(most: usize) -> String {
    let c = "[A-Za-z0-9]";
    let h = "[A-Za-z0-9-]";
    // Up to 4 characters the 3rd and 4th cannot both be hyphens: the last is alphanumeric.
    let short = format!("{c}(?:{h}{{0,{}}}{c})?", most.min(4) - 2);
    if most <= 4 {
        return short;
    }
    let third_fourth = format!("(?:{c}{h}|-{c})");
    format!("(?:{short}|{c}{h}{third_fourth}{h}{{0,{}}}{c})", most - 5)
}

/// RFC 6901: `/`-prefixed tokens of any characters but `/` and `~`, or `~0`, `~1`.
fn json_pointer() -> String {
    let other = strings::encode_class(
        &strings::complement(&[('/', '/'), ('~', '~')]),
        Escapes::Canonical,
    )
    .expect("most code points");
    format!("(?:/(?:{other}|~[01])*)*")
}

/// RFC 6570 §2: literals and `{operator? varspec,...}` expressions. Literals include `'`,
/// which §2.1 leaves out, as the official test suite does (`a'b` is valid there): RFC 3986
/// counts `'` among the sub-delims a URI may hold.
fn uri_template() -> String {
    let pct = "%[0-9A-Fa-f]{2}";
    let ucs = "\\x{a0}-\\x{d7ff}\\x{f900}-\\x{fdcf}\\x{fdf0}-\\x{ffef}\\x{10000}-\\x{1fffd}\\x{20000}-\\x{2fffd}\\x{30000}-\\x{3fffd}\\x{40000}-\\x{4fffd}\\x{50000}-\\x{5fffd}\\x{60000}-\\x{6fffd}\\x{70000}-\\x{7fffd}\\x{80000}-\\x{8fffd}\\x{90000}-\\x{9fffd}\\x{a0000}-\\x{afffd}\\x{b0000}-\\x{bfffd}\\x{c0000}-\\x{cfffd}\\x{d0000}-\\x{dfffd}\\x{e1000}-\\x{efffd}";
    let private = "\\x{e000}-\\x{f8ff}\\x{f0000}-\\x{ffffd}\\x{100000}-\\x{10fffd}";
    let literal = format!("(?:[!#$&'(-;=?-\\[\\]_a-z~{ucs}{private}]|{pct})");
    let varchar = format!("(?:[A-Za-z0-9_]|{pct})");
    let varname = format!("{varchar}(?:\\.?{varchar})*");
    let varspec = format!("{varname}(?::[1-9][0-9]{{0,3}}|\\*)?");
    let expression = format!("\\{{[+#./;?&=,!@|]?{varspec}(?:,{varspec})*\\}}");
    format!("(?:{literal}|{expression})*")
}

fn date() -> String {
    let year = "[0-9]{4}";
    let leap = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)";
    format!(
        "(?:{year}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)\
         |02-(?:0[1-9]|1[0-9]|2[0-8]))|{leap}-02-29)"
    )
}

/// RFC 3339 `full-time`, `Z` either case (§5.6: the ABNF's strings are case-insensitive).
fn time() -> String {
    let fraction = "(?:\\.[0-9]+)?";
    let hh = "(?:[01][0-9]|2[0-3])";
    let mm = "[0-5][0-9]";
    let offset = format!("(?:[Zz]|[+-]{hh}:{mm})");
    format!(
        "(?:{hh}:{mm}:{mm}{fraction}{offset}|{})",
        leap_seconds(fraction)
    )
}

/// Second 60 (RFC 3339 §5.7): a leap second, inserted at 23:59:60 UTC. Admitted where
/// the local time is UTC (`Z`, `+00:00`, `-00:00`): a subset. Any other offset makes the
/// automaton remember the local hour from the 60 to the offset (and the minute, for
/// offsets of other than whole hours): on the GPT-2 fixture `date-time` has 64 token
/// states and 7,688 edges (50 and 5,534 without leap seconds and lower-case `t`/`z`),
/// 302 and 56,906 with every whole-hour offset; `time` with every offset (the exact set)
/// has 11,017 byte-DFA states.
fn leap_seconds(fraction: &str) -> String {
    format!("23:59:60{fraction}(?:[Zz]|[+-]00:00)")
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
