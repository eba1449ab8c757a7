//! Free text as a wildcard: the text tokens that leave free text where it was.
//!
//! Free text that may not contain some strings (a structural tag's triggers and end
//! strings) allows almost every token of a vocabulary, so composing one of its states
//! walks the whole vocabulary trie (milliseconds on 128k-token vocabularies). Its tokens
//! split in two. Most are *kept*: whole UTF-8 that completes none of the strings and
//! ends inside none of them, so from the clean state (no string begun) they lead back
//! to it, whatever the constraint around the text is. The rest (a token ending in `<` of
//! `<tool_call>`, one that holds a trigger, a token cut inside a character) is a list
//! about 1% of the vocabulary long for usual triggers. Both sets depend only on the
//! strings, the position within them and the vocabulary, so they are computed once and
//! a free-text state's tokens become a copy of the kept set plus a short walk of the
//! rest. Whether a state of some automaton really is such free text is not assumed:
//! `crate::lazy` checks it on the automaton's own transitions before using the sets.

use super::trie::VocabTrie;

/// Most bytes of excluded strings a [`FreeText`] takes (its table is 1 KiB per byte).
pub const MAX_FREE_TEXT_BYTES: usize = 1024;

/// The texts a free text reads: UTF-8 (Unicode scalar values) holding none of a set of
/// strings, as a deterministic automaton over bytes. A state is a position in the
/// strings (an Aho–Corasick node: the longest end of the text read that begins one of
/// them) and a position within a UTF-8 character; [`FreeText::CLEAN`] is the state of
/// no string begun, between characters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FreeText {
    strings: Vec<Box<[u8]>>,
    /// `next[node * 256 + byte]`: the node after `byte`; `DEAD` when it completes a string.
    next: Vec<u32>,
}

const DEAD: u32 = u32::MAX;

/// Where a state is within a UTF-8 character: `BETWEEN`, or what the next byte must be.
const UTF8_STATES: u32 = 8;
const BETWEEN: u32 = 0;

/// The UTF-8 position after `byte` from position `u` (RFC 3629's table: no overlong
/// forms, no surrogates, nothing past U+10FFFF), `None` where the byte may not come.
fn utf8_next(u: u32, byte: u8) -> Option<u32> {
    let cont = |range: std::ops::RangeInclusive<u8>, to: u32| range.contains(&byte).then_some(to);
    match u {
        BETWEEN => match byte {
            0x00..=0x7F => Some(BETWEEN),
            0xC2..=0xDF => Some(1),
            0xE1..=0xEC | 0xEE..=0xEF => Some(2),
            0xF1..=0xF3 => Some(3),
            0xE0 => Some(4),
            0xED => Some(5),
            0xF0 => Some(6),
            0xF4 => Some(7),
            _ => None,
        },
        1 => cont(0x80..=0xBF, BETWEEN),
        2 => cont(0x80..=0xBF, 1),
        3 => cont(0x80..=0xBF, 2),
        4 => cont(0xA0..=0xBF, 1),
        5 => cont(0x80..=0x9F, 1),
        6 => cont(0x90..=0xBF, 2),
        _ => cont(0x80..=0x8F, 2),
    }
}

impl FreeText {
    /// The state of no string begun, between characters.
    pub const CLEAN: u32 = 0;

    /// Free text holding none of `strings`; `None` when one is empty (no text would be
    /// left) or they pass [`MAX_FREE_TEXT_BYTES`] together.
    pub fn new<S: AsRef<[u8]>>(strings: &[S]) -> Option<FreeText> {
        let mut strings: Vec<Box<[u8]>> = strings.iter().map(|s| s.as_ref().into()).collect();
        strings.sort();
        strings.dedup();
        let total: usize = strings.iter().map(|s| s.len()).sum();
        if strings.iter().any(|s| s.is_empty()) || total > MAX_FREE_TEXT_BYTES {
            return None;
        }
        let next = aho_corasick(&strings);
        Some(FreeText { strings, next })
    }

    /// The excluded strings, sorted.
    pub fn strings(&self) -> &[Box<[u8]>] {
        &self.strings
    }

    /// Number of states (reachable or not).
    pub fn num_states(&self) -> u32 {
        (self.next.len() / 256) as u32 * UTF8_STATES
    }

    /// The state after `byte` from `state`, `None` when the byte completes an excluded
    /// string or breaks UTF-8.
    pub fn next(&self, state: u32, byte: u8) -> Option<u32> {
        let (node, u) = (state / UTF8_STATES, state % UTF8_STATES);
        let u = utf8_next(u, byte)?;
        match self.next[node as usize * 256 + byte as usize] {
            DEAD => None,
            node => Some(node * UTF8_STATES + u),
        }
    }

    /// A class per byte such that bytes of one class lead every state alike: each byte
    /// of the strings alone (`16 + byte`), the others by their UTF-8 role (below 16).
    pub(crate) fn byte_classes(&self) -> [u16; 256] {
        let role = |b: u8| -> u16 {
            match b {
                0x00..=0x7F => 0,
                0x80..=0x8F => 1,
                0x90..=0x9F => 2,
                0xA0..=0xBF => 3,
                0xC2..=0xDF => 4,
                0xE0 => 5,
                0xE1..=0xEC | 0xEE..=0xEF => 6,
                0xED => 7,
                0xF0 => 8,
                0xF1..=0xF3 => 9,
                0xF4 => 10,
                _ => 11,
            }
        };
        let mut classes: [u16; 256] = std::array::from_fn(|b| role(b as u8));
        for s in &self.strings {
            for &b in s.iter() {
                classes[b as usize] = 16 + u16::from(b);
            }
        }
        classes
    }
}

/// The Aho–Corasick automaton of `strings` as a dense table (`node * 256 + byte`), with
/// `DEAD` for every byte that completes a string somewhere in the text read.
fn aho_corasick(strings: &[Box<[u8]>]) -> Vec<u32> {
    // The trie of the strings: children by byte, then failure links breadth first.
    let mut next = vec![DEAD; 256];
    let mut ends = vec![false];
    for s in strings {
        let mut node = 0usize;
        for &b in s.iter() {
            let i = node * 256 + b as usize;
            if next[i] == DEAD {
                next[i] = ends.len() as u32;
                next.extend(std::iter::repeat(DEAD).take(256));
                ends.push(false);
            }
            node = next[i] as usize;
        }
        ends[node] = true;
    }
    let mut fail = vec![0u32; ends.len()];
    let mut queue = std::collections::VecDeque::new();
    // The root's missing children lead back to it.
    for entry in next.iter_mut().take(256) {
        match *entry {
            DEAD => *entry = 0,
            child => queue.push_back(child),
        }
    }
    while let Some(node) = queue.pop_front() {
        let node = node as usize;
        ends[node] |= ends[fail[node] as usize];
        for b in 0..256 {
            let i = node * 256 + b;
            let via_fail = next[fail[node] as usize * 256 + b];
            match next[i] {
                DEAD => next[i] = via_fail,
                child => {
                    fail[child as usize] = via_fail;
                    queue.push_back(child);
                }
            }
        }
    }
    // A byte into a node where some string ends completes it.
    for entry in next.iter_mut() {
        if ends[*entry as usize] {
            *entry = DEAD;
        }
    }
    next
}

/// The text tokens of a vocabulary split for one state of a [`FreeText`]: those that lead
/// from it to [`FreeText::CLEAN`] without completing a string or breaking UTF-8 (the
/// *kept* tokens, as a bitset of the vocabulary's width), and every other text token as
/// a [`TokenList`].
#[derive(Debug)]
pub(crate) struct FreeTextTokens {
    pub(crate) kept: Box<[u32]>,
    pub(crate) rest: TokenList,
}

impl FreeText {
    /// The split of `trie`'s text tokens for state `from`: one walk of the whole trie.
    pub(crate) fn tokens(&self, from: u32, trie: &VocabTrie) -> FreeTextTokens {
        let mut kept = vec![0u32; trie.vocab_size().div_ceil(32)];
        let mut rest = TokenList::default();
        let mut at = vec![None; trie.max_depth() + 1];
        at[0] = Some(from);
        let mut path = Vec::with_capacity(trie.max_depth());
        for node in 1..trie.num_nodes() {
            let depth = trie.node_depth(node);
            let byte = trie.node_byte(node);
            path.truncate(depth - 1);
            path.push(byte);
            at[depth] = at[depth - 1].and_then(|a| self.next(a, byte));
            let ids = trie.node_tokens(node);
            if ids.is_empty() {
                continue;
            }
            if at[depth] == Some(FreeText::CLEAN) {
                for &t in ids {
                    kept[(t / 32) as usize] |= 1 << (t % 32);
                }
            } else {
                rest.push(&path, ids);
            }
        }
        FreeTextTokens {
            kept: kept.into_boxed_slice(),
            rest,
        }
    }
}

/// Text tokens sorted by their bytes, walked like a trie of their own: each string's
/// states reuse its common prefix with the one before, and strings below a prefix the
/// automaton rejects are skipped.
#[derive(Debug, Default)]
pub(crate) struct TokenList {
    bytes: Vec<u8>,
    /// Per string: where its bytes start in `bytes`, its common prefix with the string
    /// before, and where its tokens start in `ids`.
    starts: Vec<(u32, u32, u32)>,
    ids: Vec<u32>,
    longest: usize,
}

impl TokenList {
    /// Appends the string `bytes` (after every string so far in byte order) spelled by `ids`.
    fn push(&mut self, bytes: &[u8], ids: &[u32]) {
        let previous = match self.starts.last() {
            Some(&(start, _, _)) => &self.bytes[start as usize..],
            None => &[],
        };
        let common = previous
            .iter()
            .zip(bytes)
            .take_while(|(a, b)| a == b)
            .count();
        self.starts.push((
            self.bytes.len() as u32,
            common as u32,
            self.ids.len() as u32,
        ));
        self.bytes.extend_from_slice(bytes);
        self.ids.extend_from_slice(ids);
        self.longest = self.longest.max(bytes.len());
    }

    /// Calls `visit(target, tokens)` for each string an automaton reads from `from`
    /// without rejecting a byte, `target` being the state after it; `step(state, byte)`
    /// is the automaton's transition.
    pub(crate) fn walk(
        &self,
        from: u32,
        mut step: impl FnMut(u32, u8) -> Option<u32>,
        mut visit: impl FnMut(u32, &[u32]),
    ) {
        let mut at = vec![0; self.longest + 1];
        at[0] = from;
        // `at[..=known]` are the states along the last string walked; `dead` the length
        // of its shortest rejected prefix, if any.
        let (mut known, mut dead) = (0usize, usize::MAX);
        for (i, &(start, common, first_id)) in self.starts.iter().enumerate() {
            let (start, common) = (start as usize, common as usize);
            let end = self
                .starts
                .get(i + 1)
                .map_or(self.bytes.len(), |s| s.0 as usize);
            if common >= dead {
                continue;
            }
            dead = usize::MAX;
            known = known.min(common);
            let bytes = &self.bytes[start..end];
            while known < bytes.len() {
                let Some(next) = step(at[known], bytes[known]) else {
                    dead = known + 1;
                    break;
                };
                known += 1;
                at[known] = next;
            }
            if dead == usize::MAX {
                let ids_end = self
                    .starts
                    .get(i + 1)
                    .map_or(self.ids.len(), |s| s.2 as usize);
                visit(at[known], &self.ids[first_id as usize..ids_end]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::SplitMix64;
    use crate::vocab::{ByteVocabulary, TokenVocabulary};

    /// A vocabulary of random pieces of `<tool_call>`, characters of every length and
    /// bytes UTF-8 forbids, with holes and repeated strings.
    fn vocabulary(rng: &mut SplitMix64) -> ByteVocabulary {
        let pieces: [&[u8]; 9] = [
            b"<tool_call>",
            b"a",
            b" ",
            b"\xC3\xA9",
            b"\xE4\xB8\xAD",
            b"\xF0\x9F\x98\x80",
            b"\xED\xA0\x80",
            b"\x80",
            b"<",
        ];
        let tokens = (0..600)
            .map(|_| {
                let mut t = Vec::new();
                for _ in 0..rng.index(4) + 1 {
                    let p = pieces[rng.index(pieces.len())];
                    let (i, j) = (rng.index(p.len()), rng.index(p.len() + 1));
                    t.extend_from_slice(if i < j { &p[i..j] } else { p });
                }
                (rng.index(10) > 0).then_some(t)
            })
            .collect();
        ByteVocabulary::new(tokens, vec![])
    }

    /// From each text state: the kept tokens are those the text reads back to the clean
    /// state, and the list's walk (with the text as the automaton) visits every other
    /// token the text reads, each with its own target.
    #[test]
    fn kept_tokens_and_the_rest_split_the_vocabulary() {
        let mut rng = SplitMix64::new(9);
        let vocab = vocabulary(&mut rng);
        let trie = VocabTrie::new(&vocab);
        let text = FreeText::new(&["<tool_call>", "</x>"]).unwrap();
        let run = |from: u32, bytes: &[u8]| bytes.iter().try_fold(from, |a, &b| text.next(a, b));
        let froms: Vec<u32> = [&b""[..], b"<", b"<tool", b"\xC3"]
            .iter()
            .map(|p| run(FreeText::CLEAN, p).unwrap())
            .collect();
        for from in froms {
            let split = text.tokens(from, &trie);
            let mut walked = vec![None; vocab.len()];
            split.rest.walk(
                from,
                |a, b| text.next(a, b),
                |to, ids| {
                    for &t in ids {
                        walked[t as usize] = Some(to);
                    }
                },
            );
            for t in 0..vocab.len() as u32 {
                let bytes = vocab.token_bytes(t).filter(|b| !b.is_empty());
                let kept = split.kept[(t / 32) as usize] & (1 << (t % 32)) != 0;
                let expected = bytes.and_then(|b| run(from, b));
                assert_eq!(
                    kept,
                    expected == Some(FreeText::CLEAN),
                    "token {t}: {bytes:x?}"
                );
                let rest = (!kept).then_some(expected).flatten();
                assert_eq!(
                    walked[t as usize], rest,
                    "token {t} from {from}: {bytes:x?}"
                );
            }
        }
    }
}
