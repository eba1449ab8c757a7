//! XGrammar's `TagDispatch(("trigger", rule), ..., loop_after_dispatch=B, excludes=("s", ...))`:
//! free text in which a trigger hands the text to its rule. Read exactly as fstc-tags reads
//! a structural tag of type `triggered_tags` (docs/structural-tags.md): the free text *F*
//! is every UTF-8 text containing no trigger and no exclude, and the macro is
//! *F* (trigger rule *F*)\* (`loop_after_dispatch=true`, the default) or *F* (trigger
//! rule)? (`false`: nothing after the rule). XGrammar's own checks are kept: triggers
//! and excludes are non-empty and no exclude is a prefix of a trigger.

use std::sync::Arc;

use fstc_core::bytes::{Algebra, ByteDfa, Universe};

use super::ast::{Expr, Pos};
use super::lookahead::literal_dfa;
use crate::terminal_regex::dfa_bytes;

/// The arguments of one `TagDispatch(...)`.
pub(super) struct TagDispatch {
    /// `(trigger, rule, where the rule is named)`.
    pub pairs: Vec<(Vec<u8>, String, Pos)>,
    pub looping: bool,
    pub excludes: Vec<Vec<u8>>,
}

impl TagDispatch {
    pub fn new() -> TagDispatch {
        TagDispatch {
            pairs: Vec::new(),
            looping: true,
            excludes: Vec::new(),
        }
    }

    /// The expression the macro stands for and the bytes of its free text's automaton, or
    /// why it is malformed.
    pub fn expr(self) -> Result<(Expr, usize), String> {
        if self.pairs.iter().any(|p| p.0.is_empty()) {
            return Err("a trigger of `TagDispatch(...)` must be a non-empty string".into());
        }
        for e in &self.excludes {
            if e.is_empty() {
                return Err("an exclude of `TagDispatch(...)` must be a non-empty string".into());
            }
            if let Some(t) = self.pairs.iter().find(|p| p.0.starts_with(e)) {
                return Err(format!(
                    "the exclude {:?} of `TagDispatch(...)` is a prefix of the trigger {:?}, which could then never be written",
                    String::from_utf8_lossy(e),
                    String::from_utf8_lossy(&t.0)
                ));
            }
        }
        let banned = self.pairs.iter().map(|p| &p.0).chain(&self.excludes);
        let free = free_text(banned)?;
        let bytes = dfa_bytes(&free);
        let free = Expr::Dfa(Arc::new(free));
        let dispatch = Expr::Alt(
            (self.pairs.into_iter())
                .map(|(t, rule, at)| Expr::Seq(vec![Expr::Bytes(t), Expr::Ref(rule, Some(at))]))
                .collect(),
        );
        let (body, max) = match self.looping {
            true => (Expr::Seq(vec![dispatch, free.clone()]), None),
            false => (dispatch, Some(1)),
        };
        let rest = Expr::Repeat {
            expr: Box::new(body),
            min: 0,
            max,
            at: None,
        };
        Ok((Expr::Seq(vec![free, rest]), bytes))
    }
}

/// The UTF-8 texts containing none of `banned`.
fn free_text<'a>(banned: impl Iterator<Item = &'a Vec<u8>>) -> Result<ByteDfa, String> {
    let algebra = Algebra::new();
    let fail = |e: fstc_core::bytes::ByteDfaError| {
        format!("the free text of `TagDispatch(...)` could not be built: {e}")
    };
    let mut any = ByteDfa::empty_language();
    for b in banned {
        any = algebra.union(&any, &literal_dfa(b)).map_err(fail)?;
    }
    let all = ByteDfa::universe(Universe::Bytes);
    let containing = algebra.concat(&algebra.concat(&all, &any).map_err(fail)?, &all);
    let utf8 = ByteDfa::universe(Universe::Utf8);
    algebra
        .difference(&utf8, &containing.map_err(fail)?)
        .map_err(fail)
}
