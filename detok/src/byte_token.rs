//! `<0xHH>` byte tokens (SentencePiece byte fallback): the one parser for every source.
//!
//! Both decoders fstc follows read the two characters after `<0x` of a six-byte token as a
//! base-16 number: HF tokenizers' `ByteFallback` with Rust's `u8::from_str_radix`, llama.cpp's
//! `token_to_byte` with C's `strtol`. Both take a sign, so `<0x+1>` is byte 1 in each, and
//! so it is here. Where they part: `ByteFallback` leaves any other token as text, while
//! llama.cpp reads every token *typed* byte this way even when it is not spelled so
//! (`strtol` on garbage gives 0); the GGUF loader refuses such a token instead (an error
//! naming it), the tokenizer.json loader keeps it as text.

/// The byte of a `<0xHH>` token: six bytes, `<0x`, two base-16 characters (a sign is
/// accepted, as both decoders do), `>`.
pub(crate) fn byte_token(token: &str) -> Option<u8> {
    if token.len() != 6 || !token.starts_with("<0x") || !token.ends_with('>') {
        return None;
    }
    u8::from_str_radix(token.get(3..5)?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::byte_token;

    #[test]
    fn reads_what_byte_fallback_and_llama_cpp_read() {
        assert_eq!(byte_token("<0x0A>"), Some(b'\n'));
        assert_eq!(byte_token("<0xff>"), Some(0xFF));
        assert_eq!(byte_token("<0xFF>"), Some(0xFF));
        // A sign: from_str_radix and strtol both take it.
        assert_eq!(byte_token("<0x+1>"), Some(1));
        assert_eq!(byte_token("<0x-1>"), None);
        assert_eq!(byte_token("<0x1>"), None);
        assert_eq!(byte_token("<0xABC>"), None);
        assert_eq!(byte_token("<0xG0>"), None);
        assert_eq!(byte_token("0x41"), None);
        assert_eq!(byte_token("<0x\u{e9}>"), None);
        assert_eq!(byte_token("<0x4\u{e9}"), None);
    }
}
