//! `format` grammars against their RFCs and the `jsonschema` crate: hand-written valid and
//! invalid strings (with the RFC's verdict), random walks, and the complement under `not`.
//! Where the crate disagrees with the RFC, `DISAGREE` says so and the test asserts it.

use crate::support::{dfa_walk, validator};
use fstc_core::sample::SplitMix64;
use fstc_json::JsonSchemaCompiler;
use serde_json::{json, Value};

/// (format, decoded string, valid by the format's RFC).
const EXAMPLES: &[(&str, &str, bool)] = &[
    // RFC 5321 §4.1.2 Mailbox.
    ("email", "ada@example.com", true),
    ("email", "o'neil+tag@mail.example.org", true),
    ("email", "a.b.c@x", true),
    ("email", "\"ada lovelace\"@example.com", true),
    ("email", "\"a\\\"b\"@example.com", true),
    ("email", "\"a@b\"@example.com", true),
    ("email", "x@[192.168.0.1]", true),
    ("email", "x@[IPv6:2001:db8::1]", true),
    ("email", "x@[IPv6:::ffff:1.2.3.4]", true),
    // RFC 5321 `Snum` allows leading zeros; fstc leaves them out (a subset that validators
    // reading the literal as an IPv4 address also accept).
    ("email", "x@[001.2.3.4]", false),
    ("email", "x@[IPv6:1:2:3:4:5:6::7]", false),
    ("email", "ada", false),
    ("email", "@example.com", false),
    ("email", "a..b@example.com", false),
    ("email", ".a@example.com", false),
    ("email", "a.@example.com", false),
    ("email", "a b@example.com", false),
    ("email", "a@-example.com", false),
    ("email", "a@example-.com", false),
    ("email", "a@example..com", false),
    ("email", "a@[256.1.1.1]", false),
    ("email", "Ada <ada@example.com>", false),
    ("email", "é@example.com", false),
    ("email", "a@b@example.com", false),
    // RFC 3986 URI.
    ("uri", "https://example.com/a/b?c=d&e#f", true),
    ("uri", "urn:isbn:0451450523", true),
    ("uri", "mailto:ada@example.com", true),
    ("uri", "http://[::1]:8080/", true),
    ("uri", "http://[v1.x]/", true),
    ("uri", "http://u:p@10.0.0.1:/%7E", true),
    ("uri", "a+b-c.d:", true),
    ("uri", "file:///etc/hosts", true),
    ("uri", "//example.com", false),
    ("uri", "/path", false),
    ("uri", "1http://x", false),
    ("uri", "http://exa mple.com", false),
    ("uri", "http://x/%zz", false),
    ("uri", "http://[::1/", false),
    ("uri", "http://x#a#b", false),
    ("uri", "http://é.com", false),
    // RFC 3986 URI-reference.
    ("uri-reference", "../up/x.html", true),
    ("uri-reference", "#frag", true),
    ("uri-reference", "", true),
    ("uri-reference", "//host/p?q", true),
    ("uri-reference", "http://x", true),
    ("uri-reference", "a/b:c", true),
    ("uri-reference", "a:b:%zz", false),
    ("uri-reference", "a b", false),
    ("uri-reference", "\\\\x", false),
    // RFC 3987 IRI, IRI-reference.
    ("iri", "http://é.example/ü?ß", true),
    ("iri", "/é", false),
    ("iri-reference", "/é", true),
    // RFC 6901.
    ("json-pointer", "", true),
    ("json-pointer", "/a~1b/0", true),
    ("json-pointer", "/", true),
    ("json-pointer", "/a\"\\/~0", true),
    ("json-pointer", "a/b", false),
    ("json-pointer", "/a~2", false),
    ("json-pointer", "/a~", false),
    // draft-bhutton-relative-json-pointer-00.
    ("relative-json-pointer", "0", true),
    ("relative-json-pointer", "1/a", true),
    ("relative-json-pointer", "2#", true),
    ("relative-json-pointer", "0+1/a", true),
    ("relative-json-pointer", "01", false),
    ("relative-json-pointer", "/a", false),
    ("relative-json-pointer", "1#/a", false),
    // RFC 6570.
    ("uri-template", "http://x/{id}{?q,lang*}", true),
    ("uri-template", "/{+path:3}/{#frag}", true),
    ("uri-template", "{a.b}", true),
    ("uri-template", "{a..b}", false),
    ("uri-template", "{Id}/%C3%A9", true),
    ("uri-template", "{}", false),
    ("uri-template", "{a b}", false),
    ("uri-template", "x{", false),
    ("uri-template", "{a:0}", false),
    // RFC 4291 §2.2.
    ("ipv6", "::ffff:1.2.3.4", true),
    ("ipv6", "1:2:3:4:5:6:7::", true),
    ("ipv6", "1::2::3", false),
    // RFC 3339 §5.6 (ABNF strings are case-insensitive) and §5.7 (leap seconds at 23:59 UTC).
    ("time", "08:30:06z", true),
    ("time", "23:59:60Z", true),
    ("time", "23:59:60.5z", true),
    ("time", "23:59:60+00:00", true),
    ("time", "22:59:60Z", false),
    ("time", "23:58:60Z", false),
    ("time", "23:59:60+01:00", false),
    ("time", "23:59:61Z", false),
    ("date-time", "1963-06-19t08:30:06.283185z", true),
    ("date-time", "1998-12-31T23:59:60.123-00:00", true),
    ("date-time", "1998-12-31T22:59:60Z", false),
    // RFC 1123 labels; RFC 5890 §2.3.1 reserves `--` in the 3rd and 4th characters.
    ("hostname", "a--b.com", true),
    ("hostname", "ab-c-d.example", true),
    ("hostname", "xn--X", false),
    ("hostname", "xn--hello-txk", false),
    ("hostname", "XN--aa---o47jg78q", false),
    ("hostname", "-a.com", false),
    // RFC 6570 literals with `'` (as the official suite), RFC 3986 IPvFuture either case.
    ("uri-template", "a'b", true),
    ("uri", "http://[V1.fe]/", true),
    ("iri", "http://[V1.fe]", true),
];

/// Valid strings that a format's documented subset leaves out: (format, string, why).
const LEFT_OUT: &[(&str, &str, &str)] = &[
    (
        "hostname",
        "xn--9n2bp8q.xn--9t4b11yi5a",
        "a valid A-label: every label with `--` in its 3rd and 4th characters is left out",
    ),
    (
        "hostname",
        "xn--ll-0ea",
        "a valid A-label (MIDDLE DOT between two `l`s)",
    ),
    (
        "time",
        "15:59:60-08:00",
        "a leap second at an offset other than zero",
    ),
    (
        "date-time",
        "1998-12-31T01:29:60+01:30",
        "a leap second at an offset other than zero",
    ),
];

/// Strings a documented subset leaves out are valid (the crate agrees) and rejected.
#[test]
fn subsets_leave_out_what_they_say() {
    for &(format, text, why) in LEFT_OUT {
        let encoded = Value::String(text.into()).to_string();
        assert!(
            !language(format).is_match(encoded.as_bytes()),
            "{format} {text}: {why}"
        );
        let oracle = validator(&json!({"format": format}));
        assert!(
            oracle.is_valid(&json!(text)),
            "{format} {text}: the crate disagrees"
        );
    }
}

/// Where the `jsonschema` crate (0.30) disagrees with the RFC: (format, string, why).
const DISAGREE: &[(&str, &str, &str)] = &[
    (
        "hostname",
        "xn--X",
        "RFC 5891 §5.4: an A-label must be valid Punycode; the crate does not decode A-labels",
    ),
    (
        "hostname",
        "xn--hello-txk",
        "RFC 5891 §5.4: an A-label must decode to a valid U-label, and RFC 5891 §5.4 / \
         RFC 5892 refuse one beginning with a combining mark; the crate does not decode A-labels",
    ),
    (
        "hostname",
        "XN--aa---o47jg78q",
        "RFC 5891 §4.2.3.1: `--` in the 3rd and 4th positions; the crate does not check it",
    ),
    (
        "uri-template",
        "a'b",
        "the official test suite admits `'` in literals (a sub-delim of RFC 3986); the \
         crate's regex follows RFC 6570 §2.1's ABNF, which leaves it out",
    ),
    (
        "email",
        "x@[IPv6:1:2:3:4:5:6::7]",
        "RFC 5321 §4.1.3 IPv6-comp allows at most 6 groups beside `::`; the crate \
         parses the literal with Rust's Ipv6Addr (RFC 4291 text)",
    ),
    (
        "email",
        "Ada <ada@example.com>",
        "a display name is RFC 5322 name-addr, not RFC 5321 Mailbox; the crate's \
         email_address parser allows it",
    ),
    (
        "email",
        "é@example.com",
        "RFC 5321 atext is ASCII (non-ASCII local parts are RFC 6531, JSON Schema's \
         `idn-email`); the crate's email_address parser allows UTF-8",
    ),
    (
        "uri-template",
        "{Id}/%C3%A9",
        "RFC 6570 §2.3 varchar is ALPHA / DIGIT / `_` / pct-encoded with HEXDIG of either \
         case (RFC 3986 §2.1); the crate's regex allows lower case only",
    ),
    (
        "uri-template",
        "{a.b}",
        "RFC 6570 §2.3 varname is varchar *( [\".\"] varchar ); the crate's regex has no dots",
    ),
    (
        "relative-json-pointer",
        "0+1/a",
        "draft-bhutton-relative-json-pointer-00 (cited by draft 2020-12) adds the `+`/`-` \
         index manipulation, which the crate does not parse",
    ),
];

pub fn language(format: &str) -> fstc_core::bytes::ByteDfa {
    JsonSchemaCompiler::new()
        .value_to_regex(&json!({"type": "string", "format": format}))
        .unwrap_or_else(|e| panic!("{format}: {e}"))
        .dfa(100_000)
        .unwrap()
}

#[test]
fn examples_follow_the_rfcs_and_the_validator_where_it_agrees() {
    for &(format, text, rfc) in EXAMPLES {
        let encoded = Value::String(text.into()).to_string();
        assert_eq!(
            language(format).is_match(encoded.as_bytes()),
            rfc,
            "{format} {encoded}"
        );
        let oracle = validator(&json!({"format": format}));
        let crate_says = oracle.is_valid(&json!(text));
        match DISAGREE.iter().find(|d| d.0 == format && d.1 == text) {
            Some((_, _, why)) => assert_eq!(crate_says, !rfc, "{format} {text}: {why}"),
            None => assert_eq!(crate_says, rfc, "{format} {text}: the crate disagrees"),
        }
    }
}

#[test]
fn random_walks_validate() {
    let mut rng = SplitMix64::new(5);
    let mut formats: Vec<&str> = EXAMPLES.iter().map(|e| e.0).collect();
    formats.dedup();
    for format in formats {
        let dfa = language(format);
        let oracle = validator(&json!({"format": format}));
        for _ in 0..150 {
            let text = String::from_utf8(dfa_walk(&dfa, &mut rng, 40)).unwrap();
            let value: Value = serde_json::from_str(&text).unwrap();
            let s = value.as_str().unwrap();
            let lower = json!(s.to_ascii_lowercase().replace('.', "_"));
            let case_only = format == "uri-template" && oracle.is_valid(&lower);
            assert!(
                oracle.is_valid(&value) || case_only || crate_misses(format, s),
                "{format}: walk gave {text}"
            );
        }
    }
}

/// Strings valid by the RFC that the crate refuses, by the disagreements above (the
/// upper-case and dotted `uri-template` ones are checked by lower-casing and undotting).
pub fn crate_misses(format: &str, s: &str) -> bool {
    match format {
        "email" => {
            let literal = s.rsplit_once("@[").map_or("", |(_, l)| l);
            let local = s.rsplit_once('@').map_or("", |(l, _)| l);
            literal
                .split(['.', ':', ']'])
                .any(|o| o.len() > 1 && o.starts_with('0'))
                || literal.starts_with("IPv6:") && literal.matches(':').count() == 8
                || !local.is_ascii()
        }
        "uri-template" => s.contains('\''),
        "relative-json-pointer" => s
            .split(['/', '#'])
            .next()
            .unwrap_or("")
            .contains(['+', '-']),
        _ => false,
    }
}

#[test]
fn formats_complement_exactly_under_not() {
    for format in [
        "uri",
        "uri-reference",
        "json-pointer",
        "ipv6",
        "uri-template",
    ] {
        let dfa = JsonSchemaCompiler::new()
            .value_to_regex(&json!({"type": "string", "not": {"format": format}}))
            .unwrap_or_else(|e| panic!("{format}: {e}"))
            .dfa(100_000)
            .unwrap();
        for &(_, text, rfc) in EXAMPLES.iter().filter(|e| e.0 == format) {
            let encoded = Value::String(text.into()).to_string();
            assert_eq!(
                dfa.is_match(encoded.as_bytes()),
                !rfc,
                "not {format} {encoded}"
            );
        }
    }
    // An email or nothing: the branches are disjoint by type, so `oneOf` is exact.
    let schema = json!({"oneOf": [{"type": "string", "format": "email"}, {"type": "null"}]});
    let dfa = JsonSchemaCompiler::new()
        .value_to_regex(&schema)
        .unwrap()
        .dfa(100_000)
        .unwrap();
    assert!(dfa.is_match(b"\"ada@example.com\"") && dfa.is_match(b"null"));
    assert!(!dfa.is_match(b"\"ada\""));
}

#[test]
fn formats_not_built_are_refused_by_name() {
    for format in ["idn-email", "idn-hostname", "regex"] {
        let err = JsonSchemaCompiler::new()
            .value_to_regex(&json!({"type": "string", "format": format}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("`format`"), "{format}: {err}");
    }
}
