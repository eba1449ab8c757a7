//! Graphviz DOT output shared by every automaton that fstc draws.

/// A byte string as a readable DOT label fragment: printable ASCII stays as is, space is
/// shown as `␠`, everything else as `\xHH`; quotes and backslashes are escaped for DOT.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b' ' => out.push('␠'),
            0x21..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\\\x{b:02X}")),
        }
    }
    out
}

/// A string escaped for use inside a double-quoted DOT attribute.
pub fn escape_str(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_quotes_spaces_and_nonprintables() {
        assert_eq!(escape_bytes(b"a\"b"), "a\\\"b");
        assert_eq!(escape_bytes(b" x"), "␠x");
        assert_eq!(escape_bytes(&[0x0a, 0xff]), "\\\\x0A\\\\xFF");
        assert_eq!(escape_bytes(b"\\"), "\\\\");
    }
}
