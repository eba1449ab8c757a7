//! URI references resolved against a base (RFC 3986, section 5.2): how `$id` changes the
//! base URI of the schemas inside it and how a `$ref` names a schema resource.

/// The five components of a URI reference (RFC 3986, appendix B).
#[derive(Debug, PartialEq)]
struct Parts<'a> {
    scheme: Option<&'a str>,
    authority: Option<&'a str>,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

fn split(uri: &str) -> Parts<'_> {
    let (rest, fragment) = match uri.split_once('#') {
        Some((r, f)) => (r, Some(f)),
        None => (uri, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (rest, None),
    };
    let (scheme, rest) = match rest.split_once(':') {
        Some((s, r)) if is_scheme(s) => (Some(s), r),
        _ => (None, rest),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(r) => {
            let end = r.find('/').unwrap_or(r.len());
            (Some(&r[..end]), &r[end..])
        }
        None => (None, rest),
    };
    Parts {
        scheme,
        authority,
        path,
        query,
        fragment,
    }
}

fn is_scheme(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
}

/// `reference` resolved against the absolute URI `base`.
pub(crate) fn resolve(base: &str, reference: &str) -> String {
    let b = split(base);
    let r = split(reference);
    let (scheme, authority, path, query);
    if r.scheme.is_some() {
        (scheme, authority) = (r.scheme, r.authority);
        (path, query) = (remove_dot_segments(r.path), r.query);
    } else if r.authority.is_some() {
        (scheme, authority) = (b.scheme, r.authority);
        (path, query) = (remove_dot_segments(r.path), r.query);
    } else if r.path.is_empty() {
        (scheme, authority) = (b.scheme, b.authority);
        (path, query) = (b.path.to_string(), r.query.or(b.query));
    } else {
        (scheme, authority) = (b.scheme, b.authority);
        let merged = if r.path.starts_with('/') {
            r.path.to_string()
        } else if b.authority.is_some() && b.path.is_empty() {
            format!("/{}", r.path)
        } else {
            let dir = b.path.rfind('/').map_or("", |i| &b.path[..=i]);
            format!("{dir}{}", r.path)
        };
        (path, query) = (remove_dot_segments(&merged), r.query);
    }
    let mut out = String::new();
    if let Some(s) = scheme {
        out.push_str(s);
        out.push(':');
    }
    if let Some(a) = authority {
        out.push_str("//");
        out.push_str(a);
    }
    out.push_str(&path);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    if let Some(f) = r.fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// `uri` without its fragment, and the fragment (`""` when there is none).
pub(crate) fn without_fragment(uri: &str) -> (&str, &str) {
    uri.split_once('#').unwrap_or((uri, ""))
}

/// The path of the absolute URI `uri` (`/a/b.json` of `https://host/a/b.json?x`).
pub(crate) fn path(uri: &str) -> &str {
    split(uri).path
}

/// `%XX` escapes decoded (a JSON pointer in a `$ref` is a URI fragment).
pub(crate) fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// RFC 3986, section 5.2.4: `.` and `..` segments removed.
fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let absolute = path.starts_with('/');
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len() - 1;
    for (i, segment) in segments.iter().enumerate() {
        match *segment {
            "." | ".." => {
                if *segment == ".." && out.len() > usize::from(absolute) {
                    out.pop();
                }
                if i == last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    match (absolute, joined.starts_with('/')) {
        (true, false) => format!("/{joined}"),
        _ => joined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 3986, section 5.4: the normal and abnormal examples against its base.
    #[test]
    fn the_rfc_examples_resolve_as_written() {
        let base = "http://a/b/c/d;p?q";
        let cases = [
            ("g:h", "g:h"),
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("g#s", "http://a/b/c/g#s"),
            (";x", "http://a/b/c/;x"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("/./g", "http://a/g"),
            ("/../g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            ("..g", "http://a/b/c/..g"),
            ("./../g", "http://a/b/g"),
            ("g/./h", "http://a/b/c/g/h"),
            ("g/../h", "http://a/b/c/h"),
            ("g;x=1/../y", "http://a/b/c/y"),
        ];
        for (reference, want) in cases {
            assert_eq!(resolve(base, reference), want, "{reference}");
        }
    }

    #[test]
    fn urns_and_fragments() {
        let urn = "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed";
        assert_eq!(resolve(urn, "#/$defs/a"), format!("{urn}#/$defs/a"));
        assert_eq!(resolve("file:///", "a.json#x"), "file:///a.json#x");
        assert_eq!(
            without_fragment("http://h/a.json#/b"),
            ("http://h/a.json", "/b")
        );
        assert_eq!(path("https://h/a/b.json?x=1"), "/a/b.json");
    }
}
