//! The product of two token automata over their joint classes, explored breadth-first
//! from the pair of start states.

use std::collections::VecDeque;

use super::atoms::{JointClasses, Operand, DEAD};
use super::{past_memory, Clock, OpsError, OpsErrorKind};
use crate::automaton::{ClassParts, StateId, TokenAutomaton};
use crate::fast_hash::FastMap;

/// How a product state's acceptance follows from its components'.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    And,
    Or,
    AndNot,
    /// Accepting where exactly one accepts: the sequences that tell the operands apart.
    Xor,
}

impl Op {
    fn accepts(self, a: bool, b: bool) -> bool {
        match self {
            Op::And => a && b,
            Op::Or => a || b,
            Op::AndNot => a && !b,
            Op::Xor => a != b,
        }
    }

    /// Whether a pair with these dead components can still accept.
    fn alive(self, a: StateId, b: StateId) -> bool {
        match self {
            Op::And => a != DEAD && b != DEAD,
            Op::AndNot => a != DEAD,
            Op::Or | Op::Xor => a != DEAD || b != DEAD,
        }
    }

    /// Whether `b`'s moves can matter where `a` has none.
    fn reads_second(self) -> bool {
        matches!(self, Op::Or | Op::Xor)
    }
}

/// The reachable product: state 0 is the pair of starts; edges by joint class, sorted.
pub(crate) struct Product {
    pub(crate) accepting: Vec<bool>,
    pub(crate) edges: Vec<Vec<(u32, StateId)>>,
}

/// Bytes a product state holds while the product is explored: its pair, its entry in the
/// pair index (with the map's overhead), its edge list's header and acceptance.
const BYTES_PER_STATE: u64 = 8 + 24 + 24 + 1;

/// Bytes an edge of the product holds.
const BYTES_PER_EDGE: u64 = 8;

/// Explores the product of `a` and `b` under `op`, failing past `state_limit` states or
/// past `memory_limit` bytes of the product's tables.
pub(crate) fn explore<A: AsRef<[u32]>, B: AsRef<[u32]>>(
    name: &'static str,
    a: &Operand<'_, A>,
    b: &Operand<'_, B>,
    op: Op,
    (state_limit, memory_limit): (usize, usize),
    clock: Clock,
) -> Result<Product, OpsError> {
    let mut ids: FastMap<(StateId, StateId), StateId> = FastMap::default();
    let mut pairs = vec![(a.start(), b.start())];
    ids.insert(pairs[0], 0);
    let mut product = Product {
        accepting: Vec::new(),
        edges: Vec::new(),
    };
    let mut queue = VecDeque::from([0u32]);
    let mut candidates = Vec::new();
    let mut edges = 0u64;
    while let Some(id) = queue.pop_front() {
        clock.check()?;
        let held = pairs.len() as u64 * BYTES_PER_STATE + edges * BYTES_PER_EDGE;
        if held > memory_limit as u64 {
            return Err(past_memory(name, "its product states", held, memory_limit));
        }
        let (sa, sb) = pairs[id as usize];
        let accepts = op.accepts(a.is_accepting(sa), b.is_accepting(sb));
        candidates.clear();
        a.candidates(sa, &mut candidates);
        if op.reads_second() {
            b.candidates(sb, &mut candidates);
        }
        candidates.sort_unstable();
        candidates.dedup();
        let mut list = Vec::new();
        for &class in &candidates {
            let next = (a.step(sa, class), b.step(sb, class));
            if !op.alive(next.0, next.1) {
                continue;
            }
            let target = match ids.get(&next) {
                Some(&t) => t,
                None => {
                    let t = pairs.len() as StateId;
                    if pairs.len() >= state_limit {
                        return Err(OpsError::new(
                            name,
                            OpsErrorKind::TooManyStates { limit: state_limit },
                            format!(
                                "the {name} needs more than {state_limit} product states \
                                 (the state limit)"
                            ),
                        ));
                    }
                    ids.insert(next, t);
                    pairs.push(next);
                    queue.push_back(t);
                    t
                }
            };
            list.push((class, target));
        }
        edges += list.len() as u64;
        product.accepting.push(accepts);
        product.edges.push(list);
    }
    Ok(product)
}

/// Class parts of an automaton over the joint classes, with `like`'s vocabulary.
pub(crate) fn class_parts<W: AsRef<[u32]>>(
    like: &TokenAutomaton<W>,
    joint: &JointClasses,
    accepting: Vec<bool>,
    edges: Vec<Vec<(u32, StateId)>>,
) -> ClassParts {
    ClassParts {
        vocab_size: like.vocab_size(),
        vocab_fingerprint: like.vocab_fingerprint(),
        eos_ids: like.eos_ids().to_vec(),
        start: 0,
        accepting,
        num_classes: joint.len() as u32,
        class_of_token: joint.class_of.clone(),
        edges,
        terminals: Vec::new(),
    }
}
