//! One decoding interface for every kind of token automaton.
//!
//! A decoder, a binding or a bench is written once against [`Matcher`]: the per-sequence
//! cursor that fills the mask of allowed tokens, consumes the sampled one, rolls back
//! rejected draft tokens and reports forced tokens. Token FSAs implement it through
//! [`Walker`](crate::walker::Walker) (borrowing the automaton) and
//! [`OwnedWalker`](crate::walker::OwnedWalker) (holding an `Arc`, for bindings that cannot
//! carry a lifetime); token PDAs through [`PdaWalker`](crate::pda_walker::PdaWalker) and
//! [`OwnedPdaWalker`](crate::pda_walker::OwnedPdaWalker). The shape follows llguidance's
//! `Matcher`: masks as `u32` words, token `t` allowed iff bit `t % 32` of word `t / 32`.

use std::fmt;

/// What went wrong in a matcher operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MatchErrorKind {
    /// The token is neither an edge of the current state nor an EOS id allowed there.
    TokenNotAllowed,
    /// The token id is not below the vocabulary size.
    OutOfVocabulary,
    /// The walk already ended with EOS; only a rollback or reset continues it.
    Finished,
    /// The mask has fewer bits than the vocabulary has tokens.
    MaskTooNarrow,
    /// More tokens were to be rolled back than were consumed.
    RollbackTooFar,
    /// A token PDA's token would push past the walker's stack limit.
    StackLimit,
    /// A nondeterministic token PDA's token would leave more live configurations than the
    /// walker's configuration limit (see `GlrWalkerOf::with_config_limit`).
    ConfigLimit,
    /// A lazy automaton's state, composed for this mask or token, passed the state work
    /// limit (`LazyAutomaton::set_state_work_limit`): a resource limit, not a refusal.
    ComposeLimit,
}

/// A matcher operation that cannot be done; the matcher is left as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchError {
    kind: MatchErrorKind,
    message: String,
}

impl MatchError {
    pub(crate) fn new(kind: MatchErrorKind, message: String) -> MatchError {
        MatchError { kind, message }
    }

    /// What went wrong.
    pub fn kind(&self) -> MatchErrorKind {
        self.kind
    }

    /// The same error with `context` before its message (e.g. the position of a token).
    pub(crate) fn context(self, context: &str) -> MatchError {
        MatchError {
            kind: self.kind,
            message: format!("{context}: {}", self.message),
        }
    }
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for MatchError {}

/// The number of mask words the vocabulary needs, or the error of a narrower `mask`.
pub(crate) fn mask_width(mask: &[u32], vocab_size: u32) -> Result<usize, MatchError> {
    let vocab = vocab_size as usize;
    let need = vocab.div_ceil(32);
    if mask.len() < need {
        return Err(MatchError::new(
            MatchErrorKind::MaskTooNarrow,
            format!(
                "mask has {} words ({} bits) but the vocabulary has {vocab} tokens; it needs \
                 at least {need} words",
                mask.len(),
                mask.len() * 32
            ),
        ));
    }
    Ok(need)
}

/// The error of a refused `token` at `place` (`"state 4"`, `"node 3 with 2 stack
/// symbols"`): outside a vocabulary of `vocab_size` ids, an EOS id where the text may not
/// end (`no_end` says why), or not among the tokens allowed there (`allowed`, a count
/// where the walker knows it).
pub(crate) fn refusal(
    token: u32,
    vocab_size: u32,
    is_eos: bool,
    place: &str,
    no_end: &str,
    allowed: Option<usize>,
) -> MatchError {
    if token >= vocab_size {
        return MatchError::new(
            MatchErrorKind::OutOfVocabulary,
            format!("token {token} is outside the vocabulary (vocab_size {vocab_size}), {place}"),
        );
    }
    let message = if is_eos {
        format!("EOS token {token} is not allowed {place}: {no_end}")
    } else {
        let count = allowed.map_or(String::new(), |n| format!(" ({n} tokens allowed there)"));
        format!("token {token} is not allowed {place}{count}")
    };
    MatchError::new(MatchErrorKind::TokenNotAllowed, message)
}

/// The error of rolling back `n` tokens when only `consumed` were.
pub(crate) fn rollback_too_far(n: usize, consumed: usize) -> MatchError {
    MatchError::new(
        MatchErrorKind::RollbackTooFar,
        format!("cannot roll back {n} tokens: only {consumed} consumed"),
    )
}

/// `consume_tokens` for any matcher: all of `tokens` or, if one is refused, none of
/// them, the error naming the position of the first refused token.
pub(crate) fn consume_all<M: Matcher + ?Sized>(
    m: &mut M,
    tokens: &[u32],
) -> Result<(), MatchError> {
    for (i, &t) in tokens.iter().enumerate() {
        if let Err(e) = m.consume(t) {
            // Cannot fail: exactly `i` tokens were consumed above.
            let _ = m.rollback(i);
            return Err(e.context(&format!("tokens[{i}]")));
        }
    }
    Ok(())
}

/// Where a token leads from a state of a finite-state matcher.
pub(crate) enum Step {
    /// To this state.
    To(u32),
    /// It is an EOS id allowed here: the walk ends.
    Eos,
}

/// What every walker rolls back through: one record per consumed token (EOS included),
/// from which the position before it is restored, and whether EOS ended the walk (EOS can
/// only be the last token, so any rollback undoes it).
#[derive(Clone, Debug)]
pub(crate) struct History<U> {
    records: Vec<U>,
    pub(crate) finished: bool,
}

impl<U> Default for History<U> {
    fn default() -> History<U> {
        History {
            records: Vec::new(),
            finished: false,
        }
    }
}

impl<U> History<U> {
    pub(crate) fn clear(&mut self) {
        self.records.clear();
        self.finished = false;
    }

    /// Number of tokens consumed, EOS included.
    pub(crate) fn len(&self) -> usize {
        self.records.len()
    }

    /// Records a consumed token; `eos` when it ended the walk.
    pub(crate) fn push(&mut self, record: U, eos: bool) {
        self.records.push(record);
        self.finished |= eos;
    }

    /// The error of consuming `token` once EOS has ended the walk (`at`: where it ended,
    /// for the message), else nothing.
    pub(crate) fn check_open(
        &self,
        token: u32,
        at: impl FnOnce() -> String,
    ) -> Result<(), MatchError> {
        if !self.finished {
            return Ok(());
        }
        Err(MatchError::new(
            MatchErrorKind::Finished,
            format!(
                "cannot consume token {token}: the walk already ended with EOS{}",
                at()
            ),
        ))
    }

    /// Forgets the last `n` tokens and returns the record of the earliest of them, what
    /// the walker restores (`None` for `n == 0`); past the start an error, changing nothing.
    pub(crate) fn rollback(&mut self, n: usize) -> Result<Option<U>, MatchError> {
        if n > self.records.len() {
            return Err(rollback_too_far(n, self.records.len()));
        }
        if n == 0 {
            return Ok(None);
        }
        self.records.truncate(self.records.len() - n + 1);
        self.finished = false;
        Ok(self.records.pop())
    }
}

/// The error of a token PDA walker's token that would leave `depth` stack symbols, past
/// `limit` (`at`: where, for the message).
pub(crate) fn stack_limit_error(token: u32, at: &str, depth: usize, limit: usize) -> MatchError {
    MatchError::new(
        MatchErrorKind::StackLimit,
        format!(
            "token {token}{at} would leave {depth} symbols on the stack, past the walker's \
             stack limit of {limit} (see with_stack_limit)"
        ),
    )
}

/// A finite-state matcher's position and the history it rolls back through, shared by
/// the token FSA walker and the lazy matcher: the state, and the state before each
/// consumed token.
#[derive(Clone, Debug)]
pub(crate) struct Trail {
    /// The current state (after EOS, the accepting state EOS was consumed in).
    pub(crate) state: u32,
    pub(crate) history: History<u32>,
}

impl Trail {
    pub(crate) fn new(start: u32) -> Trail {
        Trail {
            state: start,
            history: History::default(),
        }
    }

    pub(crate) fn reset(&mut self, start: u32) {
        self.state = start;
        self.history.clear();
    }

    /// Whether EOS ended the walk.
    pub(crate) fn finished(&self) -> bool {
        self.history.finished
    }

    /// Records a consumed token that led by `step`.
    pub(crate) fn take(&mut self, step: Step) {
        let eos = matches!(step, Step::Eos);
        self.history.push(self.state, eos);
        if let Step::To(next) = step {
            self.state = next;
        }
    }

    /// Undoes the last `n` consumed tokens; fails, changing nothing, past the start.
    pub(crate) fn rollback(&mut self, n: usize) -> Result<(), MatchError> {
        if let Some(state) = self.history.rollback(n)? {
            self.state = state;
        }
        Ok(())
    }

    /// How many leading tokens of `tokens` `step(state, token)` accepts from here.
    pub(crate) fn validate(
        &self,
        tokens: &[u32],
        step: impl Fn(u32, u32) -> Option<Step>,
    ) -> usize {
        if self.finished() {
            return 0;
        }
        let mut state = self.state;
        for (i, &t) in tokens.iter().enumerate() {
            match step(state, t) {
                Some(Step::To(next)) => state = next,
                Some(Step::Eos) => return i + 1,
                None => return i,
            }
        }
        tokens.len()
    }
}

/// The two holders of a walker `$of<A>` of a `$automaton<W>`, each with `new` at the start
/// (by `$of::at_start`): `$borrowed` borrows the automaton (one loaded automaton serves any
/// number of walkers), `$owned` shares it through an `Arc` (for holders that cannot carry a
/// lifetime: language bindings, decoders keeping walkers in long-lived structs).
macro_rules! walker_holders {
    ($of:ident, $automaton:ident, $borrowed:ident, $owned:ident) => {
        #[doc = concat!("A [`", stringify!($of), "`] borrowing its automaton.")]
        pub type $borrowed<'a, W = Vec<u32>> = $of<&'a $automaton<W>>;

        #[doc = concat!("A [`", stringify!($of), "`] sharing its automaton through an `Arc`.")]
        pub type $owned<W = Vec<u32>> = $of<std::sync::Arc<$automaton<W>>>;

        impl<'a, W: AsRef<[u32]>> $borrowed<'a, W> {
            /// A walker at the start, nothing consumed.
            pub fn new(automaton: &'a $automaton<W>) -> $borrowed<'a, W> {
                $of::at_start(automaton)
            }
        }

        impl<W: AsRef<[u32]>> $owned<W> {
            /// A walker at the start of a shared automaton, nothing consumed.
            pub fn new(automaton: std::sync::Arc<$automaton<W>>) -> $owned<W> {
                $of::at_start(automaton)
            }
        }
    };
}
pub(crate) use walker_holders;

/// Implements [`Matcher`] for a walker `$walker<A>` over `A: Deref<Target = $automaton<W>>`
/// by its inherent methods of the same names (which callers use without importing the
/// trait), and `vocab_size` by its automaton field `$field`: one forwarding impl for
/// every walker kind.
macro_rules! matcher_by_inherent_methods {
    ($walker:ident, $automaton:ident, $field:ident) => {
        impl<W, A> $crate::matcher::Matcher for $walker<A>
        where
            W: AsRef<[u32]>,
            A: std::ops::Deref<Target = $automaton<W>>,
        {
            fn vocab_size(&self) -> u32 {
                self.$field.vocab_size()
            }
            fn reset(&mut self) {
                $walker::reset(self)
            }
            fn fill_mask(&self, mask: &mut [u32]) -> Result<(), $crate::matcher::MatchError> {
                $walker::fill_mask(self, mask)
            }
            fn is_allowed(&self, token: u32) -> bool {
                $walker::is_allowed(self, token)
            }
            fn consume(&mut self, token: u32) -> Result<(), $crate::matcher::MatchError> {
                $walker::consume(self, token)
            }
            fn consume_tokens(
                &mut self,
                tokens: &[u32],
            ) -> Result<(), $crate::matcher::MatchError> {
                $walker::consume_tokens(self, tokens)
            }
            fn rollback(&mut self, n: usize) -> Result<(), $crate::matcher::MatchError> {
                $walker::rollback(self, n)
            }
            fn validate_tokens(&self, tokens: &[u32]) -> usize {
                $walker::validate_tokens(self, tokens)
            }
            fn forced_tokens(&self) -> Vec<u32> {
                $walker::forced_tokens(self)
            }
            fn is_accepting(&self) -> bool {
                $walker::is_accepting(self)
            }
            fn is_finished(&self) -> bool {
                $walker::is_finished(self)
            }
            fn only_eos_allowed(&self) -> bool {
                $walker::only_eos_allowed(self)
            }
            fn num_consumed(&self) -> usize {
                $walker::num_consumed(self)
            }
        }
    };
}
pub(crate) use matcher_by_inherent_methods;

/// The decoding interface: a position in a constraint over token ids, with the history
/// needed to roll back.
///
/// Contract (checked for every implementation by the `matcher_contract` tests):
/// - `fill_mask` accepts any mask of at least `vocab_size` bits, writes every word, sets
///   exactly the tokens `consume` accepts (bits past the vocabulary stay 0) and fails on a
///   narrower mask without touching it;
/// - EOS ids are allowed exactly where `is_accepting`; consuming one makes
///   `is_finished` true, after which the mask is empty and `consume` fails;
/// - a failed `consume`, `consume_tokens` or `rollback` changes nothing;
/// - `rollback(n)` after `n` consumed tokens restores the earlier state exactly (its mask
///   included);
/// - `validate_tokens` is the length of the prefix `consume_tokens` would accept, without
///   moving;
/// - `forced_tokens` are tokens `consume_tokens` accepts, each the only allowed token;
/// - `only_eos_allowed` is true exactly when the mask holds EOS ids and nothing else.
pub trait Matcher {
    /// Number of token ids of the vocabulary: the minimum mask width in bits.
    fn vocab_size(&self) -> u32;

    /// Back to the start with nothing consumed.
    fn reset(&mut self);

    /// Writes the allowed tokens into `mask`: bit `t % 32` of word `t / 32` is set exactly
    /// when token `t` may come next.
    fn fill_mask(&self, mask: &mut [u32]) -> Result<(), MatchError>;

    /// Whether `token` may come next.
    fn is_allowed(&self, token: u32) -> bool;

    /// Consumes one token; an EOS id where accepting finishes the walk.
    fn consume(&mut self, token: u32) -> Result<(), MatchError>;

    /// Consumes all of `tokens` or, if one is not allowed, none of them.
    fn consume_tokens(&mut self, tokens: &[u32]) -> Result<(), MatchError>;

    /// Undoes the last `n` consumed tokens (EOS included).
    fn rollback(&mut self, n: usize) -> Result<(), MatchError>;

    /// How many leading tokens of `tokens` would be accepted from here, without moving.
    fn validate_tokens(&self, tokens: &[u32]) -> usize;

    /// Tokens the constraint forces from here, which a decoder may append without
    /// sampling.
    fn forced_tokens(&self) -> Vec<u32>;

    /// Whether EOS may be consumed here (or was).
    fn is_accepting(&self) -> bool;

    /// Whether EOS is the only token allowed now (accepting, not finished, no text token in
    /// the mask): a decoder can stop without sampling. A query of the position, not a
    /// mask fill.
    fn only_eos_allowed(&self) -> bool;

    /// Whether EOS has been consumed: nothing more is allowed.
    fn is_finished(&self) -> bool;

    /// Number of tokens consumed since the start, EOS included: how far `rollback` can go.
    fn num_consumed(&self) -> usize;

    /// Words of the narrowest mask `fill_mask` accepts.
    fn mask_words(&self) -> usize {
        (self.vocab_size() as usize).div_ceil(32)
    }
}

/// A [`Matcher`] a binding or a server can hold per sequence whatever the automaton kind,
/// as `Box<dyn DynMatcher>`: moved and shared across threads (a batch mask fill) and
/// forked (beam search, parallel sampling). Every `Clone + Send + Sync` matcher is one.
pub trait DynMatcher: Matcher + Send + Sync {
    /// A copy at the same position with the same history (it can roll back as far),
    /// sharing the automaton; the two then move independently.
    fn fork(&self) -> Box<dyn DynMatcher>;
}

impl<T: Matcher + Clone + Send + Sync + 'static> DynMatcher for T {
    fn fork(&self) -> Box<dyn DynMatcher> {
        Box::new(self.clone())
    }
}
