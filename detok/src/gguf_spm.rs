//! Tokenizing text with a GGUF file's SentencePiece tokenizer (`tokenizer.ggml.model =
//! "llama"`), as llama.cpp's SPM tokenizer does (written here from its documented behaviour;
//! checked against llama.cpp itself by python/tests/test_gguf_llama.py and against the
//! model's tokenizer.json by detok/tests/all/gguf.rs):
//!
//! - every space of the text becomes `▁` (and nothing else changes: no normalizer);
//! - each UTF-8 character starts as a symbol; while two neighbouring symbols spell a token
//!   together, the pair whose token has the highest score (`tokenizer.ggml.scores`, 0 when
//!   absent) is merged, the leftmost among equal scores;
//! - each final symbol is then the token it spells or, if none (a character the vocabulary
//!   lacks), one token per byte: `<0xHH>`, else the token spelled as that byte alone.
//!
//! Every token takes part by its text in the file, whatever its type, as in llama.cpp: text
//! spelling a control token's name through mergeable pieces gives the control token (llama.cpp
//! with `parse_special = false`; [`Vocabulary::tokenize`](crate::Vocabulary::tokenize) then
//! refuses it, as such a token has no text). llama.cpp's space prefix
//! (`tokenizer.ggml.add_space_prefix`) is not added: the tokens spell the text exactly.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use crate::error::{Result, VocabError, VocabErrorKind};

/// The table of a SentencePiece GGUF file: each token's text (as written in the file) and score.
pub(crate) struct SpmTokenizer {
    /// Token text → id (llama.cpp refuses a file with two tokens of one text; here the last
    /// id of a text wins).
    ids: HashMap<String, u32>,
    scores: Vec<f32>,
    /// The token of each byte, for characters no token spells.
    byte_ids: [Option<u32>; 256],
}

/// A pair of neighbouring symbols whose text is a token: `left`'s index, the bytes of both
/// when it was found (a merge of either since makes it stale), the token's score.
struct Pair {
    score: f32,
    left: usize,
    len: usize,
}

impl PartialEq for Pair {
    fn eq(&self, other: &Pair) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Pair {}

impl PartialOrd for Pair {
    fn partial_cmp(&self, other: &Pair) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Pair {
    /// The greatest is merged first: the highest score, then the leftmost.
    fn cmp(&self, other: &Pair) -> Ordering {
        (self.score.total_cmp(&other.score)).then(other.left.cmp(&self.left))
    }
}

/// A symbol: `len` bytes of the escaped text from its index's start; `len` 0 once merged
/// into its left neighbour. Symbols are chained by `prev`/`next` (`usize::MAX`: none).
#[derive(Clone, Copy)]
struct Symbol {
    start: usize,
    len: usize,
    prev: usize,
    next: usize,
}

const NONE: usize = usize::MAX;

impl SpmTokenizer {
    /// The tokenizer of `texts` (the file's tokens, id order) and `scores` (as many, or none).
    pub fn new(texts: &[String], scores: Option<&[f32]>) -> SpmTokenizer {
        let mut ids = HashMap::with_capacity(texts.len());
        for (id, text) in texts.iter().enumerate() {
            ids.insert(text.clone(), id as u32);
        }
        let byte_ids = std::array::from_fn(|b| {
            let name = format!("<0x{b:02X}>");
            (ids.get(&name).copied()).or_else(|| {
                std::str::from_utf8(&[b as u8])
                    .ok()
                    .and_then(|s| ids.get(s).copied())
            })
        });
        let scores = scores.map_or_else(|| vec![0.0; texts.len()], <[f32]>::to_vec);
        SpmTokenizer {
            ids,
            scores,
            byte_ids,
        }
    }

    /// The ids of `text`; an error names a byte no token spells.
    pub fn encode(&self, text: &str, origin: &str) -> Result<Vec<u32>> {
        let escaped = text.replace(' ', "\u{2581}");
        let mut symbols = initial_symbols(&escaped);
        let mut queue = BinaryHeap::new();
        for left in 1..symbols.len() {
            self.push_pair(&escaped, &symbols, left - 1, &mut queue);
        }
        while let Some(pair) = queue.pop() {
            let left = symbols[pair.left];
            if left.len == 0 || left.next == NONE {
                continue;
            }
            let right = symbols[left.next];
            if right.len == 0 || left.len + right.len != pair.len {
                continue; // stale: one side was merged since
            }
            let merged = Symbol {
                len: pair.len,
                next: right.next,
                ..left
            };
            symbols[left.next].len = 0;
            symbols[pair.left] = merged;
            if right.next != NONE {
                symbols[right.next].prev = pair.left;
            }
            if merged.prev != NONE {
                self.push_pair(&escaped, &symbols, merged.prev, &mut queue);
            }
            self.push_pair(&escaped, &symbols, pair.left, &mut queue);
        }
        self.output(&escaped, &symbols, origin)
    }

    /// Queues the pair of symbol `left` and its next, if together they spell a token.
    fn push_pair(&self, text: &str, symbols: &[Symbol], left: usize, queue: &mut BinaryHeap<Pair>) {
        let l = symbols[left];
        if l.next == NONE {
            return;
        }
        let len = l.len + symbols[l.next].len;
        if let Some(&id) = self.ids.get(&text[l.start..l.start + len]) {
            let score = self.scores.get(id as usize).copied().unwrap_or(0.0);
            queue.push(Pair { score, left, len });
        }
    }

    /// The final symbols' tokens, in order; bytes for a symbol that is no token.
    fn output(&self, text: &str, symbols: &[Symbol], origin: &str) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        let mut i = if symbols.is_empty() { NONE } else { 0 };
        while i != NONE {
            let s = symbols[i];
            let piece = &text[s.start..s.start + s.len];
            // A merged symbol always spells a token; only single characters can miss.
            match self.ids.get(piece) {
                Some(&id) => out.push(id),
                None => {
                    for &b in piece.as_bytes() {
                        out.push(self.byte_ids[b as usize].ok_or_else(|| {
                            VocabError::new(
                                VocabErrorKind::Tokenize,
                                format!(
                                    "{origin}: the text has {piece:?}, which no token spells, \
                                     and byte 0x{b:02X} has no byte token (<0x{b:02X}>)"
                                ),
                            )
                        })?);
                    }
                }
            }
            i = s.next;
        }
        Ok(out)
    }
}

/// One symbol per UTF-8 character of `text`, chained.
fn initial_symbols(text: &str) -> Vec<Symbol> {
    let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    let n = starts.len();
    (0..n)
        .map(|k| Symbol {
            start: starts[k],
            len: starts.get(k + 1).copied().unwrap_or(text.len()) - starts[k],
            prev: if k == 0 { NONE } else { k - 1 },
            next: if k + 1 == n { NONE } else { k + 1 },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The merge loop spelled out without a queue: rescan every neighbouring pair, merge the
    /// best, until none spells a token.
    fn naive(tokens: &[(String, f32)], text: &str) -> Vec<u32> {
        let id = |s: &str| tokens.iter().rposition(|(t, _)| t == s).map(|i| i as u32);
        let escaped = text.replace(' ', "\u{2581}");
        let mut symbols: Vec<String> = escaped.chars().map(String::from).collect();
        loop {
            let best = (0..symbols.len().saturating_sub(1))
                .filter_map(|i| {
                    let id = id(&format!("{}{}", symbols[i], symbols[i + 1]))?;
                    Some((tokens[id as usize].1, i))
                })
                .fold(None, |best: Option<(f32, usize)>, (score, i)| match best {
                    Some((s, _)) if s >= score => best,
                    _ => Some((score, i)),
                });
            let Some((_, i)) = best else { break };
            let right = symbols.remove(i + 1);
            symbols[i].push_str(&right);
        }
        let mut out = Vec::new();
        for s in symbols {
            match id(&s) {
                Some(id) => out.push(id),
                None => out.extend(s.bytes().map(|b| id(&format!("<0x{b:02X}>")).unwrap())),
            }
        }
        out
    }

    proptest! {
        /// Random vocabularies over a few letters (with every byte token) and random texts:
        /// the queue gives the naive loop's ids.
        #[test]
        fn the_queue_merges_as_the_naive_loop(
            pieces in prop::collection::vec(("[ab c]{2,4}", -4i8..4), 0..24),
            text in "[ab cd]{0,24}",
        ) {
            let mut tokens: Vec<(String, f32)> =
                (0..=255u8).map(|b| (format!("<0x{b:02X}>"), 0.0)).collect();
            tokens.extend(["a", "b", "c", "\u{2581}"].map(|t| (t.to_string(), 0.0)));
            for (piece, score) in pieces {
                let piece = piece.replace(' ', "\u{2581}");
                if tokens.iter().all(|(t, _)| *t != piece) {
                    tokens.push((piece, f32::from(score)));
                }
            }
            let texts: Vec<String> = tokens.iter().map(|(t, _)| t.clone()).collect();
            let scores: Vec<f32> = tokens.iter().map(|(_, s)| *s).collect();
            let spm = SpmTokenizer::new(&texts, Some(&scores));
            prop_assert_eq!(spm.encode(&text, "t").unwrap(), naive(&tokens, &text));
        }
    }

    fn tokenizer(tokens: &[(&str, f32)]) -> SpmTokenizer {
        let texts: Vec<String> = tokens.iter().map(|(t, _)| t.to_string()).collect();
        let scores: Vec<f32> = tokens.iter().map(|&(_, s)| s).collect();
        SpmTokenizer::new(&texts, Some(&scores))
    }

    #[test]
    fn the_highest_score_merges_first_then_the_leftmost() {
        // "abc": "ab" (-2) and "bc" (-1): "bc" first, so a + bc.
        let t = tokenizer(&[
            ("a", 0.0),
            ("b", 0.0),
            ("c", 0.0),
            ("ab", -2.0),
            ("bc", -1.0),
        ]);
        assert_eq!(t.encode("abc", "t").unwrap(), [0, 4]);
        // Equal scores: the leftmost pair.
        let t = tokenizer(&[
            ("a", 0.0),
            ("b", 0.0),
            ("c", 0.0),
            ("ab", -1.0),
            ("bc", -1.0),
        ]);
        assert_eq!(t.encode("abc", "t").unwrap(), [3, 2]);
        // "aaaa": pairs merge left to right, then the two halves.
        let t = tokenizer(&[("a", 0.0), ("aa", -1.0), ("aaaa", -2.0)]);
        assert_eq!(t.encode("aaaa", "t").unwrap(), [2]);
        assert_eq!(t.encode("aaa", "t").unwrap(), [1, 0]);
    }

    #[test]
    fn spaces_are_the_marker_and_missing_characters_are_bytes() {
        let t = tokenizer(&[
            ("\u{2581}", 0.0),
            ("x", 0.0),
            ("\u{2581}x", -1.0),
            ("<0xC3>", 0.0),
            ("<0xA9>", 0.0),
        ]);
        assert_eq!(t.encode(" x\u{e9}", "t").unwrap(), [2, 3, 4]);
        assert_eq!(t.encode("", "t").unwrap(), Vec::<u32>::new());
        let msg = t.encode("y", "t").unwrap_err().to_string();
        assert!(msg.contains("\"y\"") && msg.contains("0x79"), "{msg}");
    }
}
