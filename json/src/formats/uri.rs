//! RFC 3986 `URI` and `URI-reference`, and RFC 3987 `IRI` and `IRI-reference` (the same
//! grammar with `ucschar` among the unreserved characters and `iprivate` in queries),
//! transcribed rule by rule (quoted strings case-insensitive, as in all ABNF: `v` or `V`
//! before an IPvFuture). None of their characters is escaped in a JSON string.

/// Regex of `URI` (`reference`: `URI-reference`); `iri`: the RFC 3987 forms.
pub(crate) fn uri(reference: bool, iri: bool) -> String {
    let ucs = if iri {
        "\\x{a0}-\\x{d7ff}\\x{f900}-\\x{fdcf}\\x{fdf0}-\\x{ffef}\\x{10000}-\\x{1fffd}\
         \\x{20000}-\\x{2fffd}\\x{30000}-\\x{3fffd}\\x{40000}-\\x{4fffd}\\x{50000}-\\x{5fffd}\
         \\x{60000}-\\x{6fffd}\\x{70000}-\\x{7fffd}\\x{80000}-\\x{8fffd}\\x{90000}-\\x{9fffd}\
         \\x{a0000}-\\x{afffd}\\x{b0000}-\\x{bfffd}\\x{c0000}-\\x{cfffd}\\x{d0000}-\\x{dfffd}\
         \\x{e1000}-\\x{efffd}"
    } else {
        ""
    };
    let private = if iri {
        "|[\\x{e000}-\\x{f8ff}\\x{f0000}-\\x{ffffd}\\x{100000}-\\x{10fffd}]"
    } else {
        ""
    };
    let pct = "%[0-9A-Fa-f]{2}";
    // unreserved, sub-delims, then the extra characters each rule allows.
    let chars = |extra: &str| format!("(?:[A-Za-z0-9\\-._~!$&'()*+,;={ucs}{extra}]|{pct})");
    let pchar = chars(":@");
    let segment = format!("{pchar}*");
    let segment_nz = format!("{pchar}+");
    let segment_nz_nc = format!("{}+", chars("@"));
    let query = format!("(?:{}{private})*", chars(":@/?"));
    let fragment = format!("{}*", chars(":@/?"));
    let authority = format!(
        "(?:{}*@)?(?:\\[(?:{}|[vV][0-9A-Fa-f]+\\.{}+)\\]|{}|{}*)(?::[0-9]*)?",
        chars(":"),
        ipv6(),
        chars(":"),
        ipv4(),
        chars("")
    );
    let abempty = format!("(?:/{segment})*");
    let absolute = format!("/(?:{segment_nz}(?:/{segment})*)?");
    let rootless = format!("{segment_nz}(?:/{segment})*");
    let noscheme = format!("{segment_nz_nc}(?:/{segment})*");
    let tail = format!("(?:\\?{query})?(?:#{fragment})?");
    let scheme = "[A-Za-z][A-Za-z0-9+\\-.]*";
    let hier = format!("(?://{authority}{abempty}|{absolute}|{rootless}|)");
    let full = format!("{scheme}:{hier}{tail}");
    if !reference {
        return full;
    }
    let relative = format!("(?://{authority}{abempty}|{absolute}|{noscheme}|)");
    format!("(?:{full}|{relative}{tail})")
}

/// RFC 3986 `IPv4address`: four `dec-octet`s (no leading zeros).
pub(crate) fn ipv4() -> String {
    let octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
    format!("{octet}(?:\\.{octet}){{3}}")
}

/// RFC 3986 `IPv6address`: eight 16-bit groups, at most one `::` standing for one or
/// more of them, the last two possibly written as an IPv4 address (`ls32`).
pub(crate) fn ipv6() -> String {
    let h16 = "[0-9A-Fa-f]{1,4}";
    let ls32 = format!("(?:{h16}:{h16}|{})", ipv4());
    // `n` groups each followed by a colon.
    let groups = |n: usize| match n {
        0 => String::new(),
        n => format!("(?:{h16}:){{{n}}}"),
    };
    let mut alts = vec![format!("{}{ls32}", groups(6))];
    // `before` groups at most before `::`, then the fixed tail after it.
    for (before, after) in [(0, 5), (1, 4), (2, 3), (3, 2), (4, 1), (5, 0)] {
        let head = prefix(h16, before);
        alts.push(format!("{head}::{}{ls32}", groups(after)));
    }
    alts.push(format!("{}::{h16}", prefix(h16, 6)));
    alts.push(format!("{}::", prefix(h16, 7)));
    format!("(?:{})", alts.join("|"))
}

/// `[ *(n-1)( h16 ":" ) h16 ]`: up to `n` groups separated by colons (`n` = 0: none).
fn prefix(h16: &str, n: usize) -> String {
    match n {
        0 => String::new(),
        1 => format!("(?:{h16})?"),
        n => format!("(?:(?:{h16}:){{0,{}}}{h16})?", n - 1),
    }
}
