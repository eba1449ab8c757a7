//! Graphviz DOT output shared by every automaton that fstc draws.
//!
//! [`to_dot`] draws a token automaton, [`pda_to_dot`] a token PDA; [`escape_bytes`] and [`escape_str`] are the one
//! label formatter every drawing uses, so byte strings look the same everywhere.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::automaton::TokenAutomaton;
use crate::token_pda::TokenPda;

/// How many tokens an edge label lists before eliding the rest.
const MAX_TOKENS_PER_EDGE: usize = 8;

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

/// The automaton as a DOT digraph: circles for states, double circles for accepting ones,
/// an arrow from a point into the start state, and one arrow per (state, target) pair
/// labelled with its tokens separated by spaces (a space inside a token shows as `␠`),
/// and one dashed arrow per terminal edge labelled `<NAME>`.
///
/// `token_text` gives a token's bytes; tokens without text show as `#id`. A long token
/// list is cut after a few with "… N more". The output depends only on the automaton.
pub fn to_dot<W: AsRef<[u32]>>(
    automaton: &TokenAutomaton<W>,
    token_text: &dyn Fn(u32) -> Option<Vec<u8>>,
) -> String {
    let mut out = String::new();
    let accepting: Vec<bool> = (0..automaton.num_states())
        .map(|s| automaton.is_accepting(s))
        .collect();
    dot_header(&mut out, "token_automaton", automaton.start(), &accepting);
    for s in 0..automaton.num_states() {
        let mut by_target: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for (t, target) in automaton.token_edges(s) {
            by_target.entry(target).or_default().push(t);
        }
        for (target, list) in by_target {
            let label = token_list_label(&list, token_text);
            let _ = writeln!(out, "  {s} -> {target} [label=\"{label}\"];");
        }
        // Terminal edges: dashed, labelled with the terminal's name in angle brackets.
        for (k, target) in automaton.terminal_edges(s) {
            let name = automaton
                .terminal_name(k)
                .unwrap_or_else(|| format!("terminal {k}"));
            let _ = writeln!(
                out,
                "  {s} -> {target} [label=\"<{}>\", style=dashed];",
                escape_str(&name)
            );
        }
    }
    out.push_str("}\n");
    out
}

/// Tokens as an edge label: their texts separated by spaces (`#id` for a token without
/// text), cut after a few with "… N more".
fn token_list_label(tokens: &[u32], token_text: &dyn Fn(u32) -> Option<Vec<u8>>) -> String {
    let mut label = String::new();
    for (i, &t) in tokens.iter().take(MAX_TOKENS_PER_EDGE).enumerate() {
        if i > 0 {
            label.push(' ');
        }
        match token_text(t) {
            Some(bytes) => label.push_str(&escape_bytes(&bytes)),
            None => {
                let _ = write!(label, "#{t}");
            }
        }
    }
    if tokens.len() > MAX_TOKENS_PER_EDGE {
        let _ = write!(label, " … {} more", tokens.len() - MAX_TOKENS_PER_EDGE);
    }
    label
}

/// The header shared by both drawings: graph name, layout, start arrow and the nodes
/// (double circles for accepting ones).
fn dot_header(out: &mut String, name: &str, start: u32, accepting: &[bool]) {
    let _ = writeln!(out, "digraph {name} {{\n  rankdir=LR;\n  node [shape=circle];");
    out.push_str("  start [shape=point, label=\"\"];\n");
    let _ = writeln!(out, "  start -> {start};");
    for (s, &a) in accepting.iter().enumerate() {
        if a {
            let _ = writeln!(out, "  {s} [shape=doublecircle];");
        } else {
            let _ = writeln!(out, "  {s};");
        }
    }
}

/// A token PDA as a DOT digraph, drawn like Figure 7 of Koo et al.: one arrow per edge
/// labelled with its class's tokens and, when it pushes, `/ push r1 r2` (stack symbol `k`
/// shown as `rk`, the last pushed is the new top); one dashed arrow per pop edge labelled
/// `pop rk`. Accepting nodes (EOS allowed there once the stack is empty) are double
/// circles.
pub fn pda_to_dot<W: AsRef<[u32]>>(
    pda: &TokenPda<W>,
    token_text: &dyn Fn(u32) -> Option<Vec<u8>>,
) -> String {
    let mut out = String::new();
    let accepting: Vec<bool> = (0..pda.num_nodes()).map(|n| pda.is_accepting(n)).collect();
    dot_header(&mut out, "token_pda", pda.start(), &accepting);
    for n in 0..pda.num_nodes() {
        for (class, target, push) in pda.edges(n) {
            let tokens: Vec<u32> = pda.class_tokens(class).collect();
            let mut label = token_list_label(&tokens, token_text);
            let seq = pda.push_seq(push);
            if !seq.is_empty() {
                label.push_str(" / push");
                for sym in seq {
                    let _ = write!(label, " r{sym}");
                }
            }
            let _ = writeln!(out, "  {n} -> {target} [label=\"{label}\"];");
        }
        for (sym, target) in pda.pops(n) {
            let _ = writeln!(
                out,
                "  {n} -> {target} [label=\"pop r{sym}\", style=dashed];"
            );
        }
    }
    out.push_str("}\n");
    out
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

    #[test]
    fn draws_figure5_with_elided_long_edges() {
        use crate::automaton::AutomatonParts;
        let vocab: [&[u8]; 5] = [b"f", b"oo", b"foo", b"for", b"food"];
        let a = TokenAutomaton::from_parts(AutomatonParts {
            vocab_size: 20,
            vocab_fingerprint: 0,
            eos_ids: vec![19],
            start: 0,
            accepting: vec![false, false, true],
            edges: vec![
                vec![(4, 2), (0, 1), (2, 0)],
                (1..=10).map(|t| (t, 0)).collect(),
                vec![],
            ],
            terminals: Vec::new(),
        })
        .unwrap();
        let text = |t: u32| vocab.get(t as usize).map(|b| b.to_vec());
        let dot = to_dot(&a, &text);
        let want = "digraph token_automaton {
  rankdir=LR;
  node [shape=circle];
  start [shape=point, label=\"\"];
  start -> 0;
  0;
  1;
  2 [shape=doublecircle];
  0 -> 0 [label=\"foo\"];
  0 -> 1 [label=\"f\"];
  0 -> 2 [label=\"food\"];
  1 -> 0 [label=\"oo foo for food #5 #6 #7 #8 … 2 more\"];
}
";
        assert_eq!(dot, want);
    }
}
