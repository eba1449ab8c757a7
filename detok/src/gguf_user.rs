//! GGUF user-defined tokens in text: llama.cpp cuts them out before its tokenizer runs (also
//! with `parse_special = false`, which leaves control tokens' names as text). Written here
//! from llama.cpp's documented behaviour and checked against it by
//! python/tests/test_gguf_llama.py: the tokens are taken longest text first (among equal
//! lengths, fstc takes the lower id; llama.cpp's order is unspecified there), each cutting
//! every occurrence, left to right, out of the text not yet cut; the pieces between are
//! tokenized apart by the file's tokenizer.

use fstc_core::TokenVocabulary;

use crate::error::Result;

/// The user-defined tokens of a file: text and id, in the order they cut.
pub(crate) struct UserDefined {
    tokens: Vec<(String, u32)>,
}

/// A piece of the text: a byte range still to tokenize, or a user-defined token.
#[derive(Clone, Copy)]
enum Piece {
    Text(usize, usize),
    Token(u32),
}

impl UserDefined {
    /// The tokens `ids` of `vocab` (user-defined: their bytes are their text).
    pub fn new(vocab: &impl TokenVocabulary, ids: &[u32]) -> UserDefined {
        let mut tokens: Vec<(String, u32)> = ids
            .iter()
            .filter_map(|&id| {
                let text = std::str::from_utf8(vocab.token_bytes(id)?).ok()?;
                Some((text.to_string(), id))
            })
            .collect();
        tokens.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.1.cmp(&b.1)));
        UserDefined { tokens }
    }

    /// The ids of `text`: user-defined tokens where they occur, `encode` on the rest.
    pub fn encode(
        &self,
        text: &str,
        mut encode: impl FnMut(&str) -> Result<Vec<u32>>,
    ) -> Result<Vec<u32>> {
        let mut pieces = vec![Piece::Text(0, text.len())];
        for (name, id) in &self.tokens {
            pieces = pieces
                .into_iter()
                .flat_map(|piece| cut(text, piece, name, *id))
                .collect();
        }
        let mut out = Vec::new();
        for piece in pieces {
            match piece {
                Piece::Text(start, end) => out.extend(encode(&text[start..end])?),
                Piece::Token(id) => out.push(id),
            }
        }
        Ok(out)
    }
}

/// `piece` with every occurrence of `name` in it cut out as token `id` (empty text pieces
/// dropped).
fn cut(text: &str, piece: Piece, name: &str, id: u32) -> Vec<Piece> {
    let Piece::Text(mut start, end) = piece else {
        return vec![piece];
    };
    let mut out = Vec::new();
    while let Some(at) = text[start..end].find(name) {
        if at > 0 {
            out.push(Piece::Text(start, start + at));
        }
        out.push(Piece::Token(id));
        start += at + name.len();
    }
    if start < end {
        out.push(Piece::Text(start, end));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use fstc_core::vocab::ByteVocabulary;

    #[test]
    fn longest_first_every_occurrence_rest_apart() {
        let vocab = ByteVocabulary::new(
            vec![
                Some(b"<a>".to_vec()),
                Some(b"<a><b>".to_vec()),
                Some(b"x".to_vec()),
            ],
            vec![],
        );
        let user = UserDefined::new(&vocab, &[0, 1]);
        let mut seen = Vec::new();
        let ids = user
            .encode("x<a><b>y<a>z<a>", |t| {
                seen.push(t.to_string());
                Ok(vec![9])
            })
            .unwrap();
        assert_eq!(ids, [9, 1, 9, 0, 9, 0]);
        assert_eq!(seen, ["x", "y", "z"]);
    }
}
