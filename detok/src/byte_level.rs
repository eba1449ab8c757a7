//! GPT-2's byte-to-unicode table, used by every byte-level BPE (GPT-2, Llama 3, Qwen, ...).
//!
//! Byte-level tokenizers store each token as a string in which every byte is replaced by one
//! printable character: the printable Latin-1 bytes `!`..`~`, `¡`..`¬` and `®`..`ÿ` stand for
//! themselves, and the 68 remaining bytes (controls, space, `\x7F`..`\xA0`, `\xAD`) are
//! mapped in increasing order to U+0100, U+0101, ... Inverting the table gives the token's
//! exact bytes, including bytes that are only part of a UTF-8 character.

use std::sync::OnceLock;

fn is_printable(b: u8) -> bool {
    matches!(b, 0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF)
}

fn table() -> &'static [char; 256] {
    static TABLE: OnceLock<[char; 256]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut out = ['\0'; 256];
        let mut next = 0x100u32;
        for b in 0..=255u8 {
            out[b as usize] = if is_printable(b) {
                char::from(b)
            } else {
                let c = char::from_u32(next).expect("U+0100..U+0143 are chars");
                next += 1;
                c
            };
        }
        out
    })
}

/// The non-printable bytes in increasing order: byte `shifted()[i]` is written U+0100 + i.
fn shifted() -> &'static [u8; 68] {
    static SHIFTED: OnceLock<[u8; 68]> = OnceLock::new();
    SHIFTED.get_or_init(|| {
        let mut out = [0u8; 68];
        for (slot, b) in out
            .iter_mut()
            .zip((0..=255u8).filter(|&b| !is_printable(b)))
        {
            *slot = b;
        }
        out
    })
}

/// The character that stands for byte `b` in a byte-level token string.
pub fn byte_char(b: u8) -> char {
    table()[b as usize]
}

/// The byte a character stands for, or `None` if the character is not in the table.
pub fn char_byte(c: char) -> Option<u8> {
    let u = c as u32;
    match u {
        0..=0xFF if is_printable(u as u8) => Some(u as u8),
        0x100..=0x143 => Some(shifted()[(u - 0x100) as usize]),
        _ => None,
    }
}

/// The exact bytes of a byte-level token string.
///
/// A string with a character outside the table is taken as its own UTF-8 bytes, which is
/// what the `tokenizers` ByteLevel decoder does with it.
pub fn decode_token(token: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(token.len());
    for c in token.chars() {
        match char_byte(c) {
            Some(b) => out.push(b),
            None => return token.as_bytes().to_vec(),
        }
    }
    out
}

/// The byte-level string of a byte sequence (the inverse of [`decode_token`]).
pub fn encode_bytes(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| byte_char(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_a_bijection_onto_its_chars() {
        let mut seen = std::collections::HashSet::new();
        for b in 0..=255u8 {
            let c = byte_char(b);
            assert!(seen.insert(c), "{c:?} used twice");
            assert_eq!(char_byte(c), Some(b));
        }
        assert_eq!(byte_char(b' '), 'Ġ');
        assert_eq!(byte_char(b'\n'), 'Ċ');
        assert_eq!(byte_char(b'A'), 'A');
        assert_eq!(char_byte('\u{144}'), None);
        assert_eq!(char_byte(' '), None);
    }

    #[test]
    fn decodes_split_utf8_and_foreign_chars() {
        assert_eq!(decode_token("ĠÃ"), vec![b' ', 0xC3]);
        assert_eq!(decode_token("a€"), "a€".as_bytes());
        assert_eq!(encode_bytes(b" hi\n"), "ĠhiĊ");
    }
}
