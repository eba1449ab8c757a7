//! tiktoken rank files, and tiktoken's rank-based byte-pair encoding.
//!
//! A rank file has one line per token, `base64(token bytes) rank`, and the rank is the token
//! id. It has no special tokens and no pre-tokenization pattern; both come from
//! [`TiktokenOptions`].
//!
//! Tokenizing follows tiktoken itself rather than a `tokenizers` BPE with merges rebuilt from
//! ranks: the text is split by the pattern (every stretch of text becomes a piece, matched or
//! not, so nothing is dropped), a piece that is itself a token is that token, and otherwise
//! its bytes are merged pairwise, always merging the adjacent pair whose concatenation has the
//! lowest rank, until no adjacent pair is a token. This needs no merge list and is exactly the
//! algorithm the ranks were made for. Time is quadratic in the length of a piece.

use std::collections::HashMap;
use std::path::Path;

use base64::Engine as _;
#[cfg(feature = "tokenize")]
use tokenizers::pre_tokenizers::split::Split;
#[cfg(feature = "tokenize")]
use tokenizers::{OffsetReferential, OffsetType, PreTokenizedString, PreTokenizer};

use crate::error::{malformed, unsupported, Result};
#[cfg(feature = "tokenize")]
use crate::error::{VocabError, VocabErrorKind};
use crate::raw::{splitter, Eos, Family, RawVocabulary, Source};

/// The pre-tokenization pattern of OpenAI's `cl100k_base`, also used by Llama 3.
pub const CL100K_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// What a tiktoken rank file does not say: its special tokens and its split pattern.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TiktokenOptions {
    /// Special tokens as `(name, id)`. Their ids must not be ranks of the file; they may lie
    /// past the last rank (extending the vocabulary) or in a hole.
    pub special_tokens: Vec<(String, u32)>,
    /// The pre-tokenization regex (fancy-regex syntax); `None` means [`CL100K_PATTERN`].
    pub pattern: Option<String>,
}

pub(crate) fn load(path: &Path, data: &[u8], options: &TiktokenOptions) -> Result<RawVocabulary> {
    let origin = path.display().to_string();
    let text = std::str::from_utf8(data).map_err(|e| {
        malformed(format!(
            "{origin}: not a tiktoken rank file (not UTF-8 text: {e}), nor a JSON tokenizer"
        ))
    })?;
    let mut tokens: Vec<(u32, Vec<u8>)> = Vec::new();
    let mut seen: HashMap<Vec<u8>, u32> = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let mut fields = line.split_ascii_whitespace();
        let (Some(b64), Some(rank), None) = (fields.next(), fields.next(), fields.next()) else {
            return Err(malformed(format!(
                "{origin}:{n}: expected `base64 rank`, found {line:?}"
            )));
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|e| malformed(format!("{origin}:{n}: bad base64 {b64:?}: {e}")))?;
        let rank: u32 = rank
            .parse()
            .map_err(|_| malformed(format!("{origin}:{n}: bad rank {rank:?}")))?;
        if bytes.is_empty() {
            return Err(malformed(format!("{origin}:{n}: empty token")));
        }
        if let Some(prev) = seen.insert(bytes.clone(), rank) {
            return Err(malformed(format!(
                "{origin}:{n}: token \"{}\" already has rank {prev}",
                bytes.escape_ascii()
            )));
        }
        tokens.push((rank, bytes));
    }
    if tokens.is_empty() {
        return Err(malformed(format!(
            "{origin}: no tokens (an empty tiktoken rank file)"
        )));
    }
    for (name, id) in &options.special_tokens {
        if let Some((_, bytes)) = tokens.iter().find(|(rank, _)| rank == id) {
            return Err(malformed(format!(
                "{origin}: special token {name:?} has id {id}, the rank of \"{}\"",
                bytes.escape_ascii()
            )));
        }
    }
    let pattern = options.pattern.as_deref().unwrap_or(CL100K_PATTERN);
    let splitter = splitter(pattern)
        .map_err(|e| unsupported(format!("{origin}: bad split pattern {pattern:?}: {e}")))?;
    Ok(RawVocabulary {
        family: Family::Tiktoken,
        origin,
        text: tokens,
        added_text: Vec::new(),
        specials: options
            .special_tokens
            .iter()
            .map(|(name, id)| (*id, name.clone()))
            .collect(),
        eos: Eos::well_known(),
        source: Source::Tiktoken { splitter },
    })
}

/// tiktoken's encoder: ranks by token bytes, and the splitter.
#[cfg(feature = "tokenize")]
pub(crate) struct RankEncoder {
    ranks: HashMap<Vec<u8>, u32>,
    splitter: Split,
}

#[cfg(feature = "tokenize")]
impl RankEncoder {
    /// The encoder whose ranks are the ids of the token bytes of `tokens`.
    pub fn new(tokens: &impl fstc_core::TokenVocabulary, splitter: &Split) -> RankEncoder {
        let ranks = (0..tokens.len() as u32)
            .filter_map(|id| Some((tokens.token_bytes(id)?.to_vec(), id)))
            .collect();
        RankEncoder {
            ranks,
            splitter: splitter.clone(),
        }
    }

    pub fn encode(&self, text: &str, origin: &str) -> Result<Vec<u32>> {
        let mut pre = PreTokenizedString::from(text);
        self.splitter.pre_tokenize(&mut pre).map_err(|e| {
            VocabError::new(
                VocabErrorKind::Tokenize,
                format!("{origin}: cannot split the text: {e}"),
            )
        })?;
        let mut out = Vec::new();
        for (piece, (start, _), _) in pre.get_splits(OffsetReferential::Original, OffsetType::Byte)
        {
            self.encode_piece(piece.as_bytes(), &mut out)
                .map_err(|at| {
                    VocabError::new(
                        VocabErrorKind::Tokenize,
                        format!(
                            "{origin}: the tokenizer cannot spell this text exactly: byte {} \
                         (\\x{:02X}) is not a token",
                            start + at,
                            piece.as_bytes()[at]
                        ),
                    )
                })?;
        }
        Ok(out)
    }

    /// Byte-pair merges by rank; on failure, the offset of a byte that is no token.
    fn encode_piece(&self, piece: &[u8], out: &mut Vec<u32>) -> std::result::Result<(), usize> {
        if let Some(&rank) = self.ranks.get(piece) {
            out.push(rank);
            return Ok(());
        }
        let rank_of = |a: usize, b: usize| self.ranks.get(&piece[a..b]).copied();
        // bounds[i]..bounds[i + 1] are the current parts; pair[i] is the rank of parts i and
        // i + 1 merged.
        let mut bounds: Vec<usize> = (0..=piece.len()).collect();
        let mut pair: Vec<Option<u32>> = (0..bounds.len().saturating_sub(2))
            .map(|i| rank_of(bounds[i], bounds[i + 2]))
            .collect();
        loop {
            let best = pair
                .iter()
                .enumerate()
                .filter_map(|(i, r)| r.map(|r| (r, i)))
                .min();
            let Some((_, i)) = best else { break };
            bounds.remove(i + 1);
            pair.remove(i);
            if i + 2 < bounds.len() {
                pair[i] = rank_of(bounds[i], bounds[i + 2]);
            }
            if i > 0 {
                pair[i - 1] = rank_of(bounds[i - 1], bounds[i + 1]);
            }
        }
        for w in bounds.windows(2) {
            match self.ranks.get(&piece[w[0]..w[1]]) {
                Some(&rank) => out.push(rank),
                None => return Err(w[0]),
            }
        }
        Ok(())
    }
}

#[cfg(all(test, feature = "tokenize"))]
mod tests {
    use super::*;

    fn encoder(tokens: &[(&[u8], u32)]) -> RankEncoder {
        let splitter = splitter(CL100K_PATTERN).unwrap();
        RankEncoder {
            ranks: tokens.iter().map(|&(b, r)| (b.to_vec(), r)).collect(),
            splitter,
        }
    }

    fn piece(enc: &RankEncoder, text: &[u8]) -> std::result::Result<Vec<u32>, usize> {
        let mut out = Vec::new();
        enc.encode_piece(text, &mut out).map(|()| out)
    }

    #[test]
    fn merges_the_lowest_rank_pair_first() {
        let enc = encoder(&[(b"a", 0), (b"b", 1), (b"c", 2), (b"bc", 3), (b"ab", 4)]);
        // "bc" (rank 3) beats "ab" (rank 4), although "ab" comes first.
        assert_eq!(piece(&enc, b"abc"), Ok(vec![0, 3]));
        assert_eq!(piece(&enc, b"abab"), Ok(vec![4, 4]));
        assert_eq!(piece(&enc, b"cab"), Ok(vec![2, 4]));
        // A byte that is no token: its offset.
        assert_eq!(piece(&enc, b"abzc"), Err(2));
    }

    #[test]
    fn a_whole_piece_token_wins_without_merges() {
        // "abc" is a token although no pair merge leads to it.
        let enc = encoder(&[(b"a", 0), (b"b", 1), (b"c", 2), (b"abc", 3)]);
        assert_eq!(piece(&enc, b"abc"), Ok(vec![3]));
        assert_eq!(piece(&enc, b"abca"), Ok(vec![0, 1, 2, 0]));
    }

    #[test]
    fn splits_like_cl100k() {
        let enc = encoder(&[]);
        let mut pre = PreTokenizedString::from("Hello world's  42\n");
        enc.splitter.pre_tokenize(&mut pre).unwrap();
        let pieces: Vec<&str> = pre
            .get_splits(OffsetReferential::Original, OffsetType::Byte)
            .into_iter()
            .map(|(s, _, _)| s)
            .collect();
        assert_eq!(pieces, ["Hello", " world", "'s", " ", " ", "42", "\n"]);
    }
}
