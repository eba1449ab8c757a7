//! The token PDA sections (file kind 1): the push of each edge, the pop edges and the
//! push sequences. The writer's encoding and the reader's checks, side by side; the
//! finite control is written and read by the token FSA code (`write`, `read`).

use super::check::{check_csr, expect_len};
use super::container::{AutomatonKind, SectionTable};
use super::error::{err, FormatError, FormatErrorKind};
use super::layout::Layout;
use super::read::{validate_kind, Checks};
use super::write::write_automaton;
use super::*;
use crate::parts::{CanonicalParts, PartsError, PdaStack};

/// Where the PDA sections are inside a validated file's words, beside the finite
/// control's [`Layout`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PdaLayout {
    pub(crate) num_stack_symbols: u32,
    /// Start of the push sequence index of each class edge.
    pub(crate) edge_pushes: usize,
    /// Start of the CSR pop offsets (`num_nodes + 1` words, counting pairs).
    pub(crate) pop_offsets: usize,
    /// Start of the pop edges: `(symbol, target)` pairs.
    pub(crate) pop_edges: usize,
    /// Start of the CSR push offsets (`num_push_seqs + 1` words, counting symbols).
    pub(crate) push_offsets: usize,
    /// Start of the pushed symbols.
    pub(crate) push_symbols: usize,
    pub(crate) num_push_seqs: u32,
    /// Starts of the alternative offsets (`num_class_edges + 1` words, counting pairs) and
    /// of the `(target, push)` pairs: only in a nondeterministic PDA.
    pub(crate) alternatives: Option<(usize, usize)>,
}

/// Lays out canonical PDA parts as the words of a kind-1 file.
pub(crate) fn write_token_pda(
    parts: CanonicalParts,
    stack: PdaStack,
) -> Result<Vec<u32>, PartsError> {
    let mut pop_offsets = vec![0u32];
    let mut pop_edges = Vec::new();
    for list in &stack.pops {
        pop_edges.extend(list.iter().flat_map(|&(s, t)| [s, t]));
        pop_offsets.push((pop_edges.len() / 2) as u32);
    }
    let mut push_offsets = vec![0u32];
    let mut push_symbols = Vec::new();
    for seq in &stack.push_seqs {
        push_symbols.extend_from_slice(seq);
        push_offsets.push(push_symbols.len() as u32);
    }
    let mut extra = vec![
        (SECTION_STACK_SYMBOLS, vec![stack.num_stack_symbols]),
        (SECTION_STACK_OPS, stack.edge_pushes),
        (SECTION_POP_OFFSETS, pop_offsets),
        (SECTION_POP_EDGES, pop_edges),
        (SECTION_PUSH_OFFSETS, push_offsets),
        (SECTION_PUSH_SYMBOLS, push_symbols),
    ];
    // Only a nondeterministic PDA has alternatives: a deterministic one's file is as before.
    if let Some((offsets, pairs)) = stack.alternatives {
        extra.push((SECTION_ALTERNATIVE_OFFSETS, offsets));
        extra.push((SECTION_ALTERNATIVES, pairs));
    }
    write_automaton(parts, AutomatonKind::TokenPda, &extra)
}

/// Validates a whole token PDA file: the finite control as a token FSA (without
/// terminals; its dense masks hold no EOS ids), then the stack sections.
pub(crate) fn validate_pda(
    words: &[u32],
    checks: Checks,
) -> Result<(Layout, PdaLayout), FormatError> {
    let (layout, table) = validate_kind(words, checks, AutomatonKind::TokenPda)?;
    let num_nodes = layout.header.num_states;
    let num_class_edges = words[layout.state_offsets + num_nodes as usize] as usize;
    let counts = table.require(SECTION_STACK_SYMBOLS)?;
    expect_len(
        SECTION_STACK_SYMBOLS,
        counts,
        1,
        "the stack symbol count".into(),
    )?;
    let num_stack_symbols = words[counts.0];
    let (push_offsets, push_symbols) = read_push_seqs(words, &table, num_stack_symbols)?;
    let num_push_seqs = (push_offsets.1 - 1) as u32;
    let pushes = table.require(SECTION_STACK_OPS)?;
    expect_len(
        SECTION_STACK_OPS,
        pushes,
        num_class_edges as u64,
        format!("the {num_class_edges} class edges"),
    )?;
    for (e, &p) in words[pushes.0..pushes.0 + pushes.1].iter().enumerate() {
        if p >= num_push_seqs {
            return Err(err(
                FormatErrorKind::StackSections,
                format!(
                    "section 'stack operations' word {} (edge {e}): pushes sequence {p}, but \
                     there are {num_push_seqs} push sequences",
                    pushes.0 + e
                ),
            ));
        }
    }
    let (pop_offsets, pop_edges) = read_pops(words, &table, num_nodes, num_stack_symbols)?;
    let control = EdgeResults {
        targets: &layout,
        pushes: &words[pushes.0..pushes.0 + pushes.1],
        num_nodes,
        num_push_seqs,
    };
    let alternatives = read_alternatives(words, &table, &control)?;
    Ok((
        layout,
        PdaLayout {
            num_stack_symbols,
            edge_pushes: pushes.0,
            pop_offsets: pop_offsets.0,
            pop_edges: pop_edges.0,
            push_offsets: push_offsets.0,
            push_symbols: push_symbols.0,
            num_push_seqs,
            alternatives,
        },
    ))
}

/// What the alternatives are checked against: the class edges' own results.
struct EdgeResults<'a> {
    targets: &'a Layout,
    pushes: &'a [u32],
    num_nodes: u32,
    num_push_seqs: u32,
}

/// The alternatives of a nondeterministic PDA, if the file has them: both sections or
/// neither; CSR per class edge; per edge `(target, push)` pairs strictly increasing and
/// after the edge's own, targets nodes, pushes sequences.
fn read_alternatives(
    words: &[u32],
    table: &SectionTable,
    edges: &EdgeResults<'_>,
) -> Result<Option<(usize, usize)>, FormatError> {
    let (offsets, pairs) = match (
        table.get(SECTION_ALTERNATIVE_OFFSETS),
        table.get(SECTION_ALTERNATIVES),
    ) {
        (None, None) => return Ok(None),
        (Some(o), Some(p)) => (o, p),
        _ => {
            return Err(err(
                FormatErrorKind::StackSections,
                "a nondeterministic token PDA needs both sections 'alternative offsets' and \
                 'alternatives', but the file has only one"
                    .into(),
            ))
        }
    };
    let num_edges = edges.pushes.len();
    expect_len(
        SECTION_ALTERNATIVE_OFFSETS,
        offsets,
        num_edges as u64 + 1,
        format!("the {num_edges} class edges"),
    )?;
    if pairs.1 % 2 != 0 {
        return Err(err(
            FormatErrorKind::StackSections,
            format!(
                "section 'alternatives' has {} words, not a whole number of (target, push) pairs",
                pairs.1
            ),
        ));
    }
    let csr = &words[offsets.0..offsets.0 + offsets.1];
    check_csr(
        csr,
        offsets.0,
        ("alternative offsets", "class edge"),
        (pairs.1 / 2, "alternatives"),
        false,
    )?;
    let all = &words[pairs.0..pairs.0 + pairs.1];
    for (e, range) in csr.windows(2).enumerate() {
        let mut prev = (edges.targets.edge(words, e).1, edges.pushes[e]);
        for i in range[0] as usize..range[1] as usize {
            let pair = (all[2 * i], all[2 * i + 1]);
            let fault = if pair <= prev {
                Some(format!(
                    "(target {}, push {}) does not come after (target {}, push {})",
                    pair.0, pair.1, prev.0, prev.1
                ))
            } else if pair.0 >= edges.num_nodes {
                Some(format!(
                    "target {} is not below the number of nodes {}",
                    pair.0, edges.num_nodes
                ))
            } else if pair.1 >= edges.num_push_seqs {
                Some(format!(
                    "push {} is not below the {} push sequences",
                    pair.1, edges.num_push_seqs
                ))
            } else {
                None
            };
            if let Some(why) = fault {
                return Err(err(
                    FormatErrorKind::StackSections,
                    format!(
                        "section 'alternatives' word {} (class edge {e}): {why}",
                        pairs.0 + 2 * i
                    ),
                ));
            }
            prev = pair;
        }
    }
    Ok(Some((offsets.0, pairs.0)))
}

type Section = (usize, usize);

/// The push sequences: CSR offsets from 0 with sequence 0 empty, symbols in range.
fn read_push_seqs(
    words: &[u32],
    table: &SectionTable,
    num_stack_symbols: u32,
) -> Result<(Section, Section), FormatError> {
    let offsets = table.require(SECTION_PUSH_OFFSETS)?;
    let symbols = table.require(SECTION_PUSH_SYMBOLS)?;
    let csr = &words[offsets.0..offsets.0 + offsets.1];
    if csr.len() < 2 || csr[1] != 0 {
        return Err(err(
            FormatErrorKind::StackSections,
            format!(
                "section 'push offsets' (word {}) must list sequence 0, the empty sequence",
                offsets.0
            ),
        ));
    }
    check_csr(
        csr,
        offsets.0,
        ("push offsets", "push sequence"),
        (symbols.1, "pushed symbols"),
        false,
    )?;
    check_symbols(
        &words[symbols.0..symbols.0 + symbols.1],
        symbols.0,
        num_stack_symbols,
        "push symbols",
    )?;
    Ok((offsets, symbols))
}

/// The pop edges: CSR offsets per node, symbols strictly increasing and in range per
/// node, targets nodes.
fn read_pops(
    words: &[u32],
    table: &SectionTable,
    num_nodes: u32,
    num_stack_symbols: u32,
) -> Result<(Section, Section), FormatError> {
    let offsets = table.require(SECTION_POP_OFFSETS)?;
    let edges = table.require(SECTION_POP_EDGES)?;
    expect_len(
        SECTION_POP_OFFSETS,
        offsets,
        u64::from(num_nodes) + 1,
        format!("the header's {num_nodes} nodes (word 10)"),
    )?;
    if edges.1 % 2 != 0 {
        return Err(err(
            FormatErrorKind::StackSections,
            format!(
                "section 'pop edges' has {} words, not a whole number of (symbol, node) pairs",
                edges.1
            ),
        ));
    }
    let csr = &words[offsets.0..offsets.0 + offsets.1];
    check_csr(
        csr,
        offsets.0,
        ("pop offsets", "node"),
        (edges.1 / 2, "pop edges"),
        false,
    )?;
    let pairs = &words[edges.0..edges.0 + edges.1];
    for (node, range) in csr.windows(2).enumerate() {
        let list = &pairs[2 * range[0] as usize..2 * range[1] as usize];
        for (i, pair) in list.chunks_exact(2).enumerate() {
            let (symbol, target) = (pair[0], pair[1]);
            let at = edges.0 + 2 * (range[0] as usize + i);
            let fault = if symbol >= num_stack_symbols {
                Some(format!(
                    "symbol {symbol} is not below the {num_stack_symbols} stack symbols"
                ))
            } else if i > 0 && list[2 * i - 2] >= symbol {
                Some(format!(
                    "symbols are not strictly increasing ({} then {symbol})",
                    list[2 * i - 2]
                ))
            } else if target >= num_nodes {
                Some(format!(
                    "target {target} is not below the number of nodes {num_nodes}"
                ))
            } else {
                None
            };
            if let Some(why) = fault {
                return Err(err(
                    FormatErrorKind::StackSections,
                    format!("section 'pop edges' word {at} (node {node}): {why}"),
                ));
            }
        }
    }
    Ok((offsets, edges))
}

/// Checks that every symbol of a section is below the symbol count.
fn check_symbols(
    symbols: &[u32],
    at: usize,
    num_stack_symbols: u32,
    name: &str,
) -> Result<(), FormatError> {
    match symbols.iter().position(|&s| s >= num_stack_symbols) {
        Some(i) => Err(err(
            FormatErrorKind::StackSections,
            format!(
                "section '{name}' word {}: symbol {} is not below the {num_stack_symbols} stack \
                 symbols",
                at + i,
                symbols[i]
            ),
        )),
        None => Ok(()),
    }
}
