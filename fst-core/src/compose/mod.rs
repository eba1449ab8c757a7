//! Composition of a byte automaton with a vocabulary: the fast path.
//!
//! The paper builds the token automaton as A_R ∘ T_V with general FST composition,
//! epsilon removal and determinization. Because A_R is deterministic, the same automaton
//! can be built directly: from every byte-DFA state reachable at a token boundary, walk
//! a trie of the vocabulary's token bytes while driving the DFA, pruning a subtree as
//! soon as the DFA dies. Every token that ends at a live trie node is an edge. The result
//! is deterministic over tokens by construction, so no subset construction is needed;
//! it is then trimmed (states that no token sequence leads to acceptance from are
//! dropped) and minimized (`crate::minimize`).
//!
//! The vocabulary trie (`VocabTrie`) is built once per vocabulary and reused for every
//! pattern compiled against it.
//!
//! Tokens that behave identically from every state form *groups*, and the walks, the
//! trimming and the minimization run on groups (further merged when their columns
//! agree); the compiler lays groups out as token classes, and only tools expand them to
//! token edges. Groups are numbered by their smallest token so that every breadth-first
//! numbering matches the token-level one. Two ways to find them:
//!
//! - by transition function (`functions`), tried first: tokens that map every state to
//!   the same state are one group, found in one pass over the vocabulary trie with a memo
//!   table; a group's edges are read off its function, with no walk at all. Gives up
//!   when the functions' live pairs pass a budget proportional to the DFA's states.
//! - by class string (`ClassTrie`): a byte DFA cannot tell apart bytes of one byte class,
//!   so the vocabulary trie is folded into a trie of class strings (typically ten times
//!   smaller), which is then walked from every state.
//!
//! The stages, one file each: [`VocabTrie`] (`vocab_trie`, built once per vocabulary)
//! and its level-order views (`level_trie`); the groups (`groups`), found by transition
//! function (`functions`) or over a class trie (`class_trie`), as `grouping` chooses;
//! the breadth-first assembly of the token automaton over groups (`assemble`); trimming
//! (`trim`); then column merging (`groups`) and `crate::minimize`.

mod assemble;
mod class_trie;
mod error;
mod every_state;
mod functions;
mod grouping;
mod groups;
mod trim;

pub use assemble::ComposeLimits;
pub use error::{ComposeError, ComposeErrorKind};
pub use every_state::{every_state_edges_with_trie, StateGroupEdges};
// For the lazy matcher (`crate::lazy`), which walks the same tables on demand.
pub(crate) use class_trie::DenseClasses;
pub(crate) use grouping::transition_table;

use std::time::Instant;

use crate::automaton::{AutomatonParts, ClassParts};
use crate::bytes::ByteAutomaton;
use crate::deadline::PastDeadline;
use crate::minimize::minimize_until;
use crate::vocab::{TokenVocabulary, VocabTrie};
use assemble::compose_groups;
use error::deadline_error;
use grouping::GroupBy;
use groups::{merge_columns, TokenGroups};

/// The token automaton of `dfa` over `vocab`: trimmed, minimized, canonically numbered.
///
/// Builds a `VocabTrie` first; compile many patterns against one vocabulary with
/// `compose_with_trie` to build it once.
pub fn compose<A, V>(
    dfa: &A,
    vocab: &V,
    limits: &ComposeLimits,
) -> Result<AutomatonParts, ComposeError>
where
    A: ByteAutomaton + Sync + ?Sized,
    V: TokenVocabulary + ?Sized,
{
    compose_with_trie(dfa, &VocabTrie::new(vocab), limits)
}

/// The token automaton of `dfa` over the vocabulary of `trie`: trimmed, minimized and
/// canonically numbered (start 0, breadth-first, edges in token order), so equal
/// languages give identical parts.
///
/// Minimization runs on token groups (see `byte_classes` on [`ByteAutomaton`]): the
/// groups partition the text tokens the same way from every state, so the group-level
/// minimal automaton, expanded, is the token-level minimal one.
pub fn compose_with_trie<A>(
    dfa: &A,
    trie: &VocabTrie,
    limits: &ComposeLimits,
) -> Result<AutomatonParts, ComposeError>
where
    A: ByteAutomaton + Sync + ?Sized,
{
    let (groups, minimal) = compose_minimal_groups(dfa, trie, limits)?;
    Ok(AutomatonParts {
        edges: groups.expand(&minimal.edges),
        ..minimal
    })
}

/// The same automaton as [`compose_with_trie`], with edges labelled by token class
/// instead of expanded to tokens: what the compiler lays out, since a wildcard state
/// then costs a few class edges instead of ~|V| token edges. `terminals` is left empty.
pub fn compose_classes_with_trie<A>(
    dfa: &A,
    trie: &VocabTrie,
    limits: &ComposeLimits,
) -> Result<ClassParts, ComposeError>
where
    A: ByteAutomaton + Sync + ?Sized,
{
    let (groups, minimal) = compose_minimal_groups(dfa, trie, limits)?;
    Ok(ClassParts {
        vocab_size: minimal.vocab_size,
        vocab_fingerprint: minimal.vocab_fingerprint,
        eos_ids: minimal.eos_ids,
        start: minimal.start,
        accepting: minimal.accepting,
        num_classes: groups.len() as u32,
        class_of_token: groups.of_token,
        edges: minimal.edges,
        terminals: Vec::new(),
    })
}

/// The minimal automaton over token groups (merged where their columns agree) and the
/// groups; terminal labels follow the groups.
fn compose_minimal_groups<A>(
    dfa: &A,
    trie: &VocabTrie,
    limits: &ComposeLimits,
) -> Result<(TokenGroups, AutomatonParts), ComposeError>
where
    A: ByteAutomaton + Sync + ?Sized,
{
    let (groups, grouped) = compose_groups(dfa, trie, limits, GroupBy::Auto)?;
    minimal_from_groups(groups, grouped, limits.deadline)
}

/// Merges the groups whose columns agree, then minimizes (an error past `deadline`).
fn minimal_from_groups(
    groups: TokenGroups,
    mut grouped: AutomatonParts,
    deadline: Option<Instant>,
) -> Result<(TokenGroups, AutomatonParts), ComposeError> {
    let groups = match merge_columns(&groups, &grouped.edges) {
        Some((merged, edges)) => {
            grouped.edges = edges;
            merged
        }
        None => groups,
    };
    let states = grouped.accepting.len();
    let minimal = minimize_until(grouped, deadline)
        .map_err(|PastDeadline| deadline_error("minimizing the token automaton", states))?;
    Ok((groups, minimal))
}

/// The token automaton of `dfa` over the vocabulary of `trie`, trimmed but not minimized.
///
/// States are the byte-DFA states reachable at token boundaries that can still reach
/// acceptance, numbered breadth-first from the start (0), following each state's edges
/// in token order; edges are sorted by token. For callers that minimize later or want
/// to see what minimization merges.
pub fn compose_trimmed_with_trie<A>(
    dfa: &A,
    trie: &VocabTrie,
    limits: &ComposeLimits,
) -> Result<AutomatonParts, ComposeError>
where
    A: ByteAutomaton + Sync + ?Sized,
{
    let (groups, grouped) = compose_groups(dfa, trie, limits, GroupBy::Auto)?;
    Ok(AutomatonParts {
        edges: groups.expand(&grouped.edges),
        ..grouped
    })
}

#[cfg(test)]
mod tests;
