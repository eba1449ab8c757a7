//! Left recursion, rewritten before the rules become DFAs (a rule that calls itself before
//! reading a byte would make the PDA loop).
//!
//! - Direct: `A ::= A x1 | A x2 | y1 | y2` becomes `A ::= (y1 | y2) (x1 | x2)*`. A tail
//!   that ends with `A` itself (`A ::= A "+" A | n`, the usual ambiguous operator rule)
//!   ends with the bases instead (`n ("+" n)*`): the same language, since every `A` is a
//!   base followed by tails, and the rule needs no stack for it.
//! - Indirect: the rules that call each other first (`A ::= B "x" | "a"`, `B ::= A "y" |
//!   "b"`) are rewritten in order of definition by substitution (`B ::= B "x" "y" | "a" "y"
//!   | "b"`), then each one's direct left recursion as above (the textbook construction).
//!
//! Only calls at the very start of an alternative are seen here; `hidden.rs` first brings
//! forward the calls that come after items that may be empty.

use std::collections::HashMap;

use crate::budget::Budget;
use crate::error::{PdaError, PdaErrorKind};
use crate::gbnf::{fmt_rule_at, Expr, RuleDef};

/// One alternative of a body: its sequence of items.
type Alternative = Vec<Expr>;

/// Most alternatives a rule may have after substitution.
const MAX_ALTERNATIVES: usize = 4096;

/// A body's alternatives, each as its sequence of items.
pub(super) fn alternatives(body: &Expr) -> Vec<Vec<Expr>> {
    let alts: &[Expr] = match body {
        Expr::Alt(a) => a,
        other => std::slice::from_ref(other),
    };
    alts.iter()
        .map(|alt| match alt {
            Expr::Seq(items) => items.clone(),
            other => vec![other.clone()],
        })
        .collect()
}

fn to_expr(alts: Vec<Vec<Expr>>) -> Expr {
    Expr::Alt(alts.into_iter().map(Expr::Seq).collect())
}

/// The rule an alternative calls first, if it starts with a call.
fn leading(alt: &[Expr]) -> Option<&str> {
    match alt.first() {
        Some(Expr::Ref(n, _)) => Some(n),
        _ => None,
    }
}

/// The alternatives of `def` (given as `alts`) without direct left recursion, as the
/// bases (the alternatives that do not start with it) and the repetition of its tails that
/// follows each; `None` when it has none.
fn remove_direct(
    def: &RuleDef,
    alts: &[Vec<Expr>],
) -> Result<Option<(Vec<Alternative>, Expr)>, PdaError> {
    let name = def.name.as_str();
    let (tails, bases): (Vec<&Vec<Expr>>, Vec<&Vec<Expr>>) =
        alts.iter().partition(|a| leading(a) == Some(name));
    if tails.is_empty() {
        return Ok(None);
    }
    if bases.is_empty() {
        return Err(PdaError::new(
            PdaErrorKind::LeftRecursion,
            format!(
                "{} is left-recursive in every alternative: no alternative starts without `{name}`, so it can never start",
                fmt_rule_at(name, def.at)
            ),
        ));
    }
    let base = Expr::Alt(bases.iter().map(|b| Expr::Seq(b.to_vec())).collect());
    let tails = tails
        .iter()
        .map(|t| {
            let mut rest = t[1..].to_vec();
            if matches!(rest.last(), Some(Expr::Ref(n, _)) if n == name) {
                rest.pop();
                rest.push(base.clone());
            }
            Expr::Seq(rest)
        })
        .collect();
    let repeat = Expr::Repeat {
        expr: Box::new(Expr::Alt(tails)),
        min: 0,
        max: None,
        at: None,
    };
    Ok(Some((bases.into_iter().cloned().collect(), repeat)))
}

/// The rules of one cycle of leading calls (`members`, in order of definition) rewritten
/// by substitution, then direct removal; each body or the error its rule gets.
/// Polled against `budget` as alternatives are substituted (the items of the alternatives
/// held counted as growing memory).
fn rewrite_cycle(
    defs: &[RuleDef],
    members: &[usize],
    out: &mut [Result<Expr, PdaError>],
    budget: &Budget,
) -> Result<(), PdaError> {
    let mut alts: HashMap<&str, Vec<Vec<Expr>>> = HashMap::new();
    for (pos, &i) in members.iter().enumerate() {
        let def = &defs[i];
        let earlier: HashMap<&str, usize> = members[..pos]
            .iter()
            .map(|&j| (defs[j].name.as_str(), j))
            .collect();
        let mut mine = alternatives(&def.body);
        // Substitute earlier members' (already rewritten) alternatives while one leads.
        while mine
            .iter()
            .any(|a| leading(a).is_some_and(|n| earlier.contains_key(n)))
        {
            let mut next = Vec::new();
            for alt in mine {
                // Only earlier members are in `alts` yet.
                match leading(&alt).and_then(|n| alts.get(n)) {
                    Some(theirs) => {
                        for beta in theirs {
                            next.push([beta.as_slice(), &alt[1..]].concat());
                        }
                    }
                    None => next.push(alt),
                }
            }
            let items: usize = next.iter().map(Vec::len).sum();
            let held = || items * std::mem::size_of::<Expr>();
            budget.poll(next.len(), held, || rewriting(def))?;
            mine = next;
            if mine.len() > MAX_ALTERNATIVES {
                out[i] = Err(PdaError::new(
                    PdaErrorKind::LeftRecursion,
                    format!(
                        "{} is indirectly left-recursive, and rewriting it needs more than {MAX_ALTERNATIVES} alternatives; start some of its rules with a literal",
                        fmt_rule_at(&def.name, def.at)
                    ),
                ));
                return Ok(());
            }
        }
        // Each base followed by the repetition: alternatives that later members substitute.
        let rewritten = match remove_direct(def, &mine) {
            Ok(Some((bases, repeat))) => bases
                .into_iter()
                .map(|mut b| {
                    b.push(repeat.clone());
                    b
                })
                .collect(),
            Ok(None) => mine,
            Err(e) => {
                out[i] = Err(e);
                return Ok(());
            }
        };
        out[i] = Ok(to_expr(rewritten.clone()));
        alts.insert(def.name.as_str(), rewritten);
    }
    Ok(())
}

/// What the rewriting of `def` is doing, for a budget's message.
fn rewriting(def: &RuleDef) -> String {
    format!(
        "rewriting the left recursion of {}",
        fmt_rule_at(&def.name, def.at)
    )
}

/// Every rule's body with its left recursion rewritten (the body unchanged when it has
/// none), or the error of a rule that cannot be rewritten (which counts only if used);
/// polled against `budget` rule by rule.
pub(super) fn rewrite(
    defs: &[RuleDef],
    budget: &Budget,
) -> Result<Vec<Result<Expr, PdaError>>, PdaError> {
    let index: HashMap<&str, usize> = defs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.name.as_str(), i))
        .collect();
    let leads: Vec<Vec<usize>> = defs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            budget.tick(|| rewriting(d))?;
            let mut out: Vec<usize> = alternatives(&d.body)
                .iter()
                .filter_map(|a| index.get(leading(a)?).copied())
                .filter(|&j| j != i)
                .collect();
            out.sort_unstable();
            out.dedup();
            Ok(out)
        })
        .collect::<Result<_, PdaError>>()?;
    let mut out: Vec<Result<Expr, PdaError>> = Vec::with_capacity(defs.len());
    for d in defs {
        budget.tick(|| rewriting(d))?;
        out.push(match remove_direct(d, &alternatives(&d.body)) {
            Ok(Some((bases, repeat))) => Ok(Expr::Seq(vec![to_expr(bases), repeat])),
            Ok(None) => Ok(d.body.clone()),
            Err(e) => Err(e),
        });
    }
    let (_, members) = super::components(&leads);
    for mut group in members.into_iter().filter(|g| g.len() > 1) {
        group.sort_unstable();
        rewrite_cycle(defs, &group, &mut out, budget)?;
    }
    Ok(out)
}
