//! The detokenizing FST T_V of the paper (§2.3), and its DOT drawing.
//!
//! T_V has one root state, both start and only final state. Each text token `v` of `n` bytes
//! is a cycle through the root: a chain of `n - 1` edges reading nothing (ε) and writing
//! `v_1 .. v_{n-1}`, shared between tokens like the paths of a prefix trie, then one edge
//! reading `v` and writing `v_n` back to the root. So T_V maps every token sequence to the
//! concatenation of its tokens' bytes. Special tokens (no bytes) have no edge. Labels follow
//! `crate::labels`: token `id` is `id + 1`, byte `b` is `b + 1`, ε is 0.

use std::fmt::Write as _;

use crate::labels::{byte_label, label_byte, label_token, token_label, EPSILON};
use crate::vocab::TokenVocabulary;
use rustfst::prelude::*;

/// Builds T_V for `vocab`.
///
/// State 0 is the root. The other states are trie nodes, numbered in the lexicographic order
/// of the byte prefixes they stand for; each state's edges are sorted by input then output
/// label (so the FST is input-label sorted, as composition wants). A token with zero bytes
/// (possible in a hand-made vocabulary) is a root loop writing ε.
pub fn detokenizing_fst<V: TokenVocabulary + ?Sized>(vocab: &V) -> VectorFst<TropicalWeight> {
    let mut ids: Vec<u32> = (0..vocab.len() as u32)
        .filter(|&id| vocab.token_bytes(id).is_some())
        .collect();
    ids.sort_by(|&a, &b| {
        vocab
            .token_bytes(a)
            .cmp(&vocab.token_bytes(b))
            .then(a.cmp(&b))
    });

    const ROOT: StateId = 0;
    let one = TropicalWeight::one;
    // trs[s]: the edges of state s. path[i]: the state reached by the first i + 1 bytes of
    // the current prefix, with that byte.
    let mut trs: Vec<Vec<Tr<TropicalWeight>>> = vec![Vec::new()];
    let mut path: Vec<(u8, StateId)> = Vec::new();
    for id in ids {
        let bytes = vocab.token_bytes(id).unwrap_or_default();
        let Some((&last, prefix)) = bytes.split_last() else {
            trs[ROOT as usize].push(Tr::new(token_label(id), EPSILON, one(), ROOT));
            continue;
        };
        let shared = path
            .iter()
            .zip(prefix)
            .take_while(|((b, _), p)| b == *p)
            .count();
        path.truncate(shared);
        for &b in &prefix[shared..] {
            let from = path.last().map_or(ROOT, |&(_, s)| s);
            let state = trs.len() as StateId;
            trs.push(Vec::new());
            trs[from as usize].push(Tr::new(EPSILON, byte_label(b), one(), state));
            path.push((b, state));
        }
        let from = path.last().map_or(ROOT, |&(_, s)| s);
        trs[from as usize].push(Tr::new(token_label(id), byte_label(last), one(), ROOT));
    }

    let mut fst = VectorFst::new();
    fst.add_states(trs.len());
    fst.set_start(ROOT).expect("the root state exists");
    fst.set_final(ROOT, one()).expect("the root state exists");
    for (state, mut edges) in trs.into_iter().enumerate() {
        edges.sort_by_key(|tr| (tr.ilabel, tr.olabel, tr.nextstate));
        for tr in edges {
            fst.add_tr(state as StateId, tr)
                .expect("both ends of every edge were added above");
        }
    }
    fst
}

/// Draws T_V (or any FST with T_V's labels) in Graphviz DOT: input labels as token text,
/// output labels as bytes, both escaped by `crate::dot::escape_bytes`, ε for epsilon.
///
/// States and edges come out in the FST's own order, so the text is deterministic. A token
/// with no bytes is shown as `#id`, a label that is no byte as `?label`.
pub fn detokenizer_dot<V: TokenVocabulary + ?Sized>(
    fst: &VectorFst<TropicalWeight>,
    vocab: &V,
) -> String {
    let input = |label: Label| -> String {
        match label_token(label) {
            None => "ε".to_string(),
            Some(id) => match vocab.token_bytes(id) {
                Some(bytes) => crate::dot::escape_bytes(bytes),
                None => format!("#{id}"),
            },
        }
    };
    let output = |label: Label| -> String {
        if label == EPSILON {
            return "ε".to_string();
        }
        match label_byte(label) {
            Some(b) => crate::dot::escape_bytes(&[b]),
            None => format!("?{label}"),
        }
    };
    let mut out = String::new();
    out.push_str("digraph T_V {\n  rankdir=LR;\n  node [shape=circle];\n");
    if let Some(start) = fst.start() {
        let _ = writeln!(out, "  start [shape=point];\n  start -> {start};");
    }
    for state in fst.states_iter() {
        let shape = if fst.is_final(state).unwrap_or(false) {
            "doublecircle"
        } else {
            "circle"
        };
        let _ = writeln!(out, "  {state} [shape={shape}];");
    }
    for state in fst.states_iter() {
        let Ok(trs) = fst.get_trs(state) else {
            continue;
        };
        for tr in trs.trs() {
            let _ = writeln!(
                out,
                "  {state} -> {} [label=\"{}:{}\"];",
                tr.nextstate,
                input(tr.ilabel),
                output(tr.olabel)
            );
        }
    }
    out.push_str("}\n");
    out
}
