//! RFC 5321 §4.1.2 `Mailbox` (what JSON Schema's `email` names), as regex text over the
//! JSON-encoded string body (the quoted local part's `"` and `\` appear escaped).
//!
//! - `Local-part` = `Dot-string` (atoms of `atext` joined by single dots) or
//!   `Quoted-string` (printable ASCII, `"` and `\` only as quoted pairs), at most 64
//!   octets (§4.5.3.1.1).
//! - `Domain`: the `hostname` grammar (up to 64 labels of letters, digits and inner
//!   hyphens in the shapes of `formats::HOSTNAME_SHAPES`, so at most 253 octets, within
//!   §4.5.3.1.2's 255, and no label with `--` in its 3rd and 4th characters, A-labels
//!   among them): a subset, as for `hostname`.
//! - `address-literal` = `[` IPv4 `]` or `[IPv6:` RFC 5321 `IPv6-addr` `]`. RFC 5321's
//!   `Snum` allows leading zeros (`041`); validators that read the literal as an IPv4
//!   address (the `jsonschema` crate) refuse them, so the IPv4 form here has none (a
//!   subset: every address written is accepted by both readings). `General-address-literal` needs a tag
//!   registered with IANA, and the only one is `IPv6`, so it adds nothing.

/// A decoded `"` and `\` as they appear in the JSON text.
const QUOTE: &str = "\\\\\"";
const BACKSLASH: &str = "\\\\\\\\";

/// The pieces of `Mailbox` whose intersection bounds the local part's length: the
/// structure, and the count of decoded octets before `@`.
/// `domain`: the regex of the domains admitted.
pub(crate) fn mailbox(domain: &str) -> [String; 2] {
    let atext = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~]";
    let dot_string = format!("{atext}+(?:\\.{atext}+)*");
    // qtextSMTP (%d32-33 / %d35-91 / %d93-126) and quoted-pairSMTP (`\` %d32-126).
    let qtext = "[ !#-\\[\\]-~]";
    let printable = format!("(?:{qtext}|{QUOTE}|{BACKSLASH})");
    let quoted = format!("{QUOTE}(?:{qtext}|{BACKSLASH}{printable})*{QUOTE}");
    let structure = format!("(?:{dot_string}|{quoted})@{}", domain_or_literal(domain));
    // 1 to 64 decoded octets before the last `@` (the domain has none).
    let counted = format!("{printable}{{1,64}}@[^@]*");
    [structure, counted]
}

fn domain_or_literal(domain: &str) -> String {
    let ipv4 = super::uri::ipv4();
    format!("(?:{domain}|\\[(?:{ipv4}|IPv6:{})\\])", ipv6_addr(&ipv4))
}

/// RFC 5321 `IPv6-addr`: full (8 groups), compressed (`::` and at most 6 groups),
/// and both with an IPv4 tail (6 groups, or `::` and at most 4).
fn ipv6_addr(ipv4: &str) -> String {
    let hex = "[0-9A-Fa-f]{1,4}";
    let full = format!("{hex}(?::{hex}){{7}}");
    let v4_full = format!("{hex}(?::{hex}){{5}}:{ipv4}");
    let mut alts = vec![full, v4_full];
    // `a` groups before `::` and `b` after, a + b <= 6 (<= 4 before an IPv4 tail).
    let run = |n: usize| match n {
        0 => String::new(),
        n => format!("{hex}(?::{hex}){{{}}}", n - 1),
    };
    for a in 0..=6 {
        for b in 0..=6 - a {
            alts.push(format!("{}::{}", run(a), run(b)));
            if a + b <= 4 {
                let sep = if b > 0 { ":" } else { "" };
                alts.push(format!("{}::{}{sep}{ipv4}", run(a), run(b)));
            }
        }
    }
    format!("(?:{})", alts.join("|"))
}
