//! Byte fragments for the sugar extensions (see `extensions`).
//!
//! `QUOTED_TEXT` and `UNQUOTED_TEXT` are fixed regexes, parsed once. `TEXT_UNTIL` and
//! `SUBSTRING_OF` are built directly as byte graphs, because their regex equivalents are
//! large: "no stop phrase before the end" needs a complement, and the substrings of `u`
//! written out are quadratic in `|u|`.

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use regex_syntax::hir::Hir;

use fstc_core::bytes::{ByteDfa, DEAD};

use super::graph::{ByteGraph, Dest};

/// `QUOTED_TEXT`: `"`, then characters where `"` and `\` occur only escaped (`\` followed
/// by any one character, newline included), then `"`.
pub const QUOTED_TEXT_REGEX: &str = r#""(?:[^"\\]|\\(?s:.))*""#;

/// The printable non-space characters of YAML 1.2 (`ns-char`): `!`-`~`, U+00A0-U+D7FF,
/// U+E000-U+FFFD and U+10000-U+10FFFF, without the byte-order mark U+FEFF. As the body
/// of a bracketed class.
macro_rules! ns_char {
    () => {
        r"!-~\xA0-\x{D7FF}\x{E000}-\x{FFFD}\x{10000}-\x{10FFFF}--\x{FEFF}"
    };
}

/// `UNQUOTED_TEXT`: a one-line YAML plain scalar in block context. Let N be `ns-char`
/// without `:`. The text is a first part — a non-indicator `ns-char`, or `-`/`?` followed
/// by `:*N`, or `:+N` — then any number of `:*N` (a non-space run where every `:` is
/// followed by a non-space) or `[ \t]+` followed by `:+N` or by an N other than `#`.
/// Equivalently: non-empty; only `ns-char`, space and tab; not starting with a space or
/// tab, nor with an indicator ``-?:,[]{}#&*!|>'"%@` `` except `-`, `?`, `:` followed by a
/// non-space; every `:` followed by a non-space (so no `: ` and no trailing `:`); no `#`
/// after a space or tab; no trailing space or tab.
pub const UNQUOTED_TEXT_REGEX: &str = concat!(
    "(?:[",
    ns_char!(),
    r#"--[-?:,\[\]{}#&*!|>'"%@`]]"#,
    "|[-?]:*[",
    ns_char!(),
    "--:]|:+[",
    ns_char!(),
    "--:])(?::*[",
    ns_char!(),
    r"--:]|[ \t]+(?::+[",
    ns_char!(),
    "--:]|[",
    ns_char!(),
    "--[:#]]))*"
);

fn fixed(cell: &'static OnceLock<Hir>, regex: &str) -> &'static Hir {
    cell.get_or_init(|| regex_syntax::parse(regex).expect("the built-in regex parses"))
}

/// The HIR of [`QUOTED_TEXT_REGEX`].
pub(crate) fn quoted_text() -> &'static Hir {
    static CELL: OnceLock<Hir> = OnceLock::new();
    fixed(&CELL, QUOTED_TEXT_REGEX)
}

/// The HIR of [`UNQUOTED_TEXT_REGEX`].
pub(crate) fn unquoted_text() -> &'static Hir {
    static CELL: OnceLock<Hir> = OnceLock::new();
    fixed(&CELL, UNQUOTED_TEXT_REGEX)
}

/// Appends `(b, b, dest)` to `edges`, widening the last range when it continues it.
fn push_edge(edges: &mut Vec<(u8, u8, Dest)>, b: u8, dest: Dest) {
    if let Some(last) = edges.last_mut() {
        if last.2 == dest && b > 0 && last.1 == b - 1 {
            last.1 = b;
            return;
        }
    }
    edges.push((b, b, dest));
}

/// `TEXT_UNTIL`: valid UTF-8 text that ends with one of `phrases` (non-empty, valid
/// UTF-8) and contains none of them earlier. The Aho–Corasick automaton of the phrases
/// (trie plus failure transitions, as a full byte DFA) is crossed with the UTF-8 decoder;
/// reaching a node whose suffix is a phrase leaves the fragment. Only reachable pairs are
/// built: away from the root the decoder state follows from the trie node, so the graph
/// has O(sum of phrase lengths) nodes.
pub(crate) fn text_until(phrases: &[Vec<u8>]) -> ByteGraph {
    const NONE: u32 = u32::MAX;
    let mut trie: Vec<[u32; 256]> = vec![[NONE; 256]];
    let mut out = vec![false];
    for p in phrases {
        let mut s = 0usize;
        for &b in p {
            if trie[s][b as usize] == NONE {
                trie[s][b as usize] = trie.len() as u32;
                trie.push([NONE; 256]);
                out.push(false);
            }
            s = trie[s][b as usize] as usize;
        }
        out[s] = true;
    }
    // Breadth-first: a node's failure target is shallower, so already complete.
    let mut delta = trie.clone();
    let mut fail = vec![0u32; trie.len()];
    let mut queue = std::collections::VecDeque::new();
    for b in 0..256 {
        match trie[0][b] {
            NONE => delta[0][b] = 0,
            c => queue.push_back(c),
        }
    }
    while let Some(s) = queue.pop_front() {
        let s = s as usize;
        out[s] |= out[fail[s] as usize];
        for b in 0..256 {
            match trie[s][b] {
                NONE => delta[s][b] = delta[fail[s] as usize][b],
                c => {
                    fail[c as usize] = delta[fail[s] as usize][b];
                    queue.push_back(c);
                }
            }
        }
    }
    let mut ids: HashMap<(u32, u8), u32> = HashMap::new();
    let mut order = vec![(0u32, 0u8)];
    ids.insert((0, 0), 0);
    let mut nodes = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let (s, u) = order[i];
        let mut edges = Vec::new();
        for b in 0..=255u8 {
            let Some(u2) = fstc_core::bytes::utf8_next(u, b) else {
                continue;
            };
            let t = delta[s as usize][b as usize];
            let dest = if out[t as usize] {
                // Phrases are valid UTF-8, so a phrase ends on a character boundary.
                debug_assert_eq!(u2, 0);
                Dest::Out
            } else {
                let next = ids.len() as u32;
                let id = *ids.entry((t, u2)).or_insert_with(|| {
                    order.push((t, u2));
                    next
                });
                Dest::Node(id)
            };
            push_edge(&mut edges, b, dest);
        }
        nodes.push(edges);
        i += 1;
    }
    ByteGraph { nodes, entry: 0 }
}

/// `SUBSTRING_OF`: the non-empty substrings of `u` that start and end on character
/// boundaries. The suffix automaton of `u` over characters (at most 2|u| states and
/// 3|u| transitions) with each state's outgoing characters spelled as a byte trie; every
/// state but the initial one may leave the fragment.
pub(crate) fn substrings(u: &str) -> ByteGraph {
    struct St {
        len: usize,
        link: Option<usize>,
        next: BTreeMap<char, u32>,
    }
    let mut st = vec![St {
        len: 0,
        link: None,
        next: BTreeMap::new(),
    }];
    let mut last = 0usize;
    for c in u.chars() {
        let cur = st.len();
        st.push(St {
            len: st[last].len + 1,
            link: None,
            next: BTreeMap::new(),
        });
        let mut p = Some(last);
        while let Some(q) = p {
            if st[q].next.contains_key(&c) {
                break;
            }
            st[q].next.insert(c, cur as u32);
            p = st[q].link;
        }
        match p {
            None => st[cur].link = Some(0),
            Some(p) => {
                let q = st[p].next[&c] as usize;
                if st[p].len + 1 == st[q].len {
                    st[cur].link = Some(q);
                } else {
                    let clone = st.len();
                    st.push(St {
                        len: st[p].len + 1,
                        link: st[q].link,
                        next: st[q].next.clone(),
                    });
                    let mut r = Some(p);
                    while let Some(x) = r {
                        if st[x].next.get(&c) != Some(&(q as u32)) {
                            break;
                        }
                        st[x].next.insert(c, clone as u32);
                        r = st[x].link;
                    }
                    st[q].link = Some(clone);
                    st[cur].link = Some(clone);
                }
            }
        }
        last = cur;
    }
    let mut nodes: Vec<Vec<(u8, u8, Dest)>> = vec![Vec::new(); st.len()];
    let mut inner: HashMap<(u32, u8), u32> = HashMap::new();
    for (s, state) in st.iter().enumerate() {
        for (&c, &t) in &state.next {
            let mut buf = [0u8; 4];
            let bytes = c.encode_utf8(&mut buf).as_bytes();
            let (&last_byte, lead) = bytes.split_last().expect("a char has bytes");
            let mut node = s as u32;
            for &b in lead {
                node = match inner.get(&(node, b)) {
                    Some(&n) => n,
                    None => {
                        let n = nodes.len() as u32;
                        nodes.push(Vec::new());
                        nodes[node as usize].push((b, b, Dest::Node(n)));
                        inner.insert((node, b), n);
                        n
                    }
                };
            }
            // The target is never the initial state, so the text may end here.
            nodes[node as usize].push((last_byte, last_byte, Dest::Node(t)));
            nodes[node as usize].push((last_byte, last_byte, Dest::Out));
        }
    }
    ByteGraph { nodes, entry: 0 }
}

/// A byte DFA (without terminals) as a graph: one node per state, and each byte edge
/// into an accepting state also leads out. The empty text (an accepting start) is the
/// caller's to allow.
pub(crate) fn dfa_graph(dfa: &ByteDfa) -> ByteGraph {
    let (k, classes, table) = (dfa.num_classes(), dfa.byte_classes(), dfa.transitions());
    let mut nodes = Vec::with_capacity(dfa.num_states());
    for s in 0..dfa.num_states() {
        let mut edges = Vec::new();
        let mut lo = 0usize;
        while lo < 256 {
            let class = classes[lo];
            let mut hi = lo;
            while hi < 255 && classes[hi + 1] == class {
                hi += 1;
            }
            let t = table[s * k + class as usize];
            if t != DEAD {
                edges.push((lo as u8, hi as u8, Dest::Node(t)));
                if dfa.is_accepting(t) {
                    edges.push((lo as u8, hi as u8, Dest::Out));
                }
            }
            lo = hi + 1;
        }
        nodes.push(edges);
    }
    ByteGraph { nodes, entry: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_decoder_accepts_exactly_valid_utf8() {
        for text in [
            "a".as_bytes(),
            "é☃😀".as_bytes(),
            b"\xC0\x80",
            b"\xED\xA0\x80",
            b"\xF4\x90\x80\x80",
            b"\xE0\x9F\xBF",
            b"\xC3",
        ] {
            let mut s = Some(0u8);
            for &b in text {
                s = s.and_then(|s| fstc_core::bytes::utf8_next(s, b));
            }
            assert_eq!(s == Some(0), std::str::from_utf8(text).is_ok(), "{text:?}");
        }
    }

    #[test]
    fn suffix_automaton_is_linear() {
        let u = "abcbcbabbcab".repeat(10);
        let g = substrings(&u);
        assert!(g.nodes.len() <= 2 * u.len(), "{}", g.nodes.len());
    }
}
