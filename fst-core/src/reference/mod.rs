//! The paper's construction on rustfst, kept as an oracle for the fast path.
//!
//! T_V (tokens to bytes) is composed with the byte acceptor A_R, projected onto its
//! input (tokens), freed of epsilons, determinized and minimized, all with rustfst's
//! general algorithms. It is slow and memory-hungry on real vocabularies; its value is
//! that it shares no code with `crate::compose`, so the tests can check that both give
//! the same automaton.

use rustfst::algorithms::compose::compose;
use rustfst::algorithms::determinize::determinize;
use rustfst::algorithms::rm_epsilon::rm_epsilon;
use rustfst::algorithms::tr_compares::{ILabelCompare, OLabelCompare};
use rustfst::algorithms::{project, tr_sort, ProjectType};
use rustfst::fst_impls::VectorFst;
use rustfst::fst_traits::{CoreFst, ExpandedFst};
use rustfst::semirings::{Semiring, TropicalWeight};
use rustfst::Trs;

use crate::automaton::{AutomatonParts, StateId};
use crate::compose::{ComposeError, ComposeErrorKind};
use crate::labels::label_token;
use crate::minimize::minimize;
use crate::vocab::{fingerprint, TokenVocabulary};

mod detokenizer;
pub use detokenizer::{detokenizer_dot, detokenizing_fst};

/// The token automaton of `byte_fsa` (an acceptor over byte labels) through the
/// detokenizing transducer `detokenizer` (token labels in, byte labels out) of `vocab`,
/// computed as the paper does and canonically numbered by `crate::minimize::minimize`.
///
/// Labels follow `crate::labels`. Weights are ignored except that a final weight
/// other than zero marks an accepting state.
pub fn compose_reference<V: TokenVocabulary + ?Sized>(
    byte_fsa: &VectorFst<TropicalWeight>,
    detokenizer: &VectorFst<TropicalWeight>,
    vocab: &V,
) -> Result<AutomatonParts, ComposeError> {
    let vocab_size = u32::try_from(vocab.len()).map_err(|_| {
        ComposeError::new(
            ComposeErrorKind::InvalidInput,
            format!(
                "the vocabulary has {} ids, more than token ids (u32) can number",
                vocab.len()
            ),
        )
    })?;
    let mut tv = detokenizer.clone();
    tr_sort(&mut tv, OLabelCompare {});
    let mut ar = byte_fsa.clone();
    tr_sort(&mut ar, ILabelCompare {});

    let mut composed: VectorFst<TropicalWeight> =
        compose::<TropicalWeight, VectorFst<_>, VectorFst<_>, VectorFst<_>, _, _>(&tv, &ar)
            .map_err(|e| rustfst_error("compose", e))?;
    project(&mut composed, ProjectType::ProjectInput);
    rm_epsilon(&mut composed).map_err(|e| rustfst_error("rm_epsilon", e))?;
    let mut det: VectorFst<TropicalWeight> =
        determinize(&composed).map_err(|e| rustfst_error("determinize", e))?;
    rustfst::algorithms::minimize(&mut det).map_err(|e| rustfst_error("minimize", e))?;

    let start = det.start().ok_or_else(ComposeError::empty_language)?;
    let n = det.num_states();
    let mut accepting = Vec::with_capacity(n);
    let mut edges = Vec::with_capacity(n);
    for s in 0..n as StateId {
        let weight = det
            .final_weight(s)
            .map_err(|e| rustfst_error("final_weight", e))?;
        accepting.push(weight.is_some_and(|w| !w.is_zero()));
        let trs = det.get_trs(s).map_err(|e| rustfst_error("get_trs", e))?;
        let mut list = Vec::with_capacity(trs.len());
        for tr in trs.trs() {
            let token = label_token(tr.ilabel).ok_or_else(|| {
                ComposeError::new(
                    ComposeErrorKind::Reference,
                    format!("an epsilon arc survived rm_epsilon at state {s}"),
                )
            })?;
            if token >= vocab_size {
                return Err(ComposeError::new(
                    ComposeErrorKind::InvalidInput,
                    format!(
                        "the detokenizer reads token label {} (token {token}), \
                         but the vocabulary has only {vocab_size} ids",
                        tr.ilabel
                    ),
                ));
            }
            list.push((token, tr.nextstate));
        }
        edges.push(list);
    }
    let mut eos_ids = vocab.eos_ids().to_vec();
    eos_ids.sort_unstable();
    eos_ids.dedup();
    let parts = minimize(AutomatonParts {
        vocab_size,
        vocab_fingerprint: fingerprint(vocab),
        eos_ids,
        start,
        accepting,
        edges,
        terminals: Vec::new(),
    });
    if !parts.accepting.iter().any(|&a| a) {
        return Err(ComposeError::empty_language());
    }
    Ok(parts)
}

fn rustfst_error(algorithm: &str, error: impl std::fmt::Display) -> ComposeError {
    ComposeError::new(
        ComposeErrorKind::Reference,
        format!("rustfst {algorithm} failed on the reference path: {error}"),
    )
}
