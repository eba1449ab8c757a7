//! Lark's templates (`_sep{x, sep}: x (sep x)*`, used as `_sep{item, ","}`), expanded in
//! place: each use becomes the template's body with its parameters replaced by the use's
//! arguments, so a template is the language of its body wherever it is used. A template
//! that uses itself is refused (its expansion would not end), and so is an expansion past
//! [`MAX_NODES`] (nested templates that each repeat their arguments grow exponentially),
//! past the nesting a rule may be written with, or past the compile's budgets.
//! Also: the messages of llguidance's extensions that are refused by name.

use crate::budget::Budget;
use crate::error::{PdaError, PdaErrorKind};
use crate::gbnf::{fmt_rule_at, Expr, Pos, MAX_NESTING};

/// Most nested template uses in one expansion.
const MAX_DEPTH: usize = 16;
/// Most expression nodes all expansions may produce.
const MAX_NODES: usize = 1_000_000;

/// A template definition `name{params}: body`.
pub(super) struct Template {
    pub name: String,
    pub params: Vec<String>,
    pub body: Expr,
    pub at: Pos,
}

/// A template use `name{args}`, written in a body as `Ref("%use{index}")`.
pub(super) struct Use {
    pub name: String,
    pub args: Vec<Expr>,
    pub at: Pos,
}

/// The name a body holds for use `index`.
pub(super) fn use_ref(index: usize) -> String {
    format!("%use{index}")
}

/// Whether the `{` at the start of `rest` opens a repetition (`{2}`, `{,3}`, `{ 1, 2 }`),
/// not template arguments.
pub(super) fn is_repetition(rest: &str) -> bool {
    rest[1..]
        .trim_start_matches([' ', '\t'])
        .starts_with(|c: char| c.is_ascii_digit() || c == ',')
}

/// Expands the template uses of each body, within the compile's budgets and the nesting
/// a rule may be written with.
pub(super) struct Expander<'a> {
    pub templates: &'a [Template],
    pub uses: &'a [Use],
    pub budget: &'a Budget,
    /// The rule whose body is being expanded, and where it is, for messages.
    pub rule: (&'a str, Option<Pos>),
    /// Nodes produced so far, by every expansion.
    pub nodes: usize,
}

/// Most levels of `Seq`, `Alt` and `Repeat` an expanded body may have: what a body read
/// at the reader's nesting limit may have (a group is at most an `Alt` of `Seq`s, a
/// repetition operator one `Repeat`), so the walks after reading stay within the stack.
const MAX_LEVELS: usize = 2 * MAX_NESTING + 2;

impl Expander<'_> {
    /// `e` (at `level` of its rule's expanded body) with each parameter of `bindings`
    /// replaced by its argument and each template use by its expansion, and the levels of
    /// the result.
    pub fn expand(
        &mut self,
        e: &Expr,
        bindings: &[Binding],
        depth: usize,
        level: usize,
    ) -> Result<(Expr, usize), PdaError> {
        self.count(1, level)?;
        Ok(match e {
            Expr::Ref(name, at) => {
                if let Some(b) = bindings.iter().find(|b| b.param == *name) {
                    self.count(b.size, level + b.levels - 1)?;
                    return Ok((b.arg.clone(), b.levels));
                }
                if let Some(t) = self.templates.iter().find(|t| t.name == *name) {
                    let what = format!(
                        "`{name}` is a template ({}): use it with arguments, `{name}{{...}}`",
                        t.at
                    );
                    return Err(syntax(*at, what));
                }
                match name
                    .strip_prefix("%use")
                    .and_then(|i| i.parse::<usize>().ok())
                {
                    Some(i) => self.instance(i, bindings, depth, level)?,
                    None => (Expr::Ref(name.clone(), *at), 1),
                }
            }
            Expr::Seq(items) => {
                let (items, levels) = self.all(items, bindings, depth, level + 1)?;
                (Expr::Seq(items), levels + 1)
            }
            Expr::Alt(items) => {
                let (items, levels) = self.all(items, bindings, depth, level + 1)?;
                (Expr::Alt(items), levels + 1)
            }
            Expr::Repeat { expr, min, max, at } => {
                let (inner, levels) = self.expand(expr, bindings, depth, level + 1)?;
                let repeat = Expr::Repeat {
                    expr: Box::new(inner),
                    min: *min,
                    max: *max,
                    at: *at,
                };
                (repeat, levels + 1)
            }
            other => (other.clone(), 1),
        })
    }

    /// Counts `n` more nodes of output reaching down to `level`: refused past
    /// [`MAX_NODES`] or [`MAX_LEVELS`], and polled against the budgets (each node held
    /// about twice, for the slack of vectors, as the reader counts).
    fn count(&mut self, n: usize, level: usize) -> Result<(), PdaError> {
        self.nodes = self.nodes.saturating_add(n);
        let (name, at) = self.rule;
        let rule = || fmt_rule_at(name, at);
        if self.nodes > MAX_NODES {
            return Err(syntax(None, format!("the template uses of {} expand past {MAX_NODES} expression nodes in all; use rules instead of nesting templates that repeat their arguments", rule())));
        }
        if level > MAX_LEVELS {
            return Err(syntax(None, format!("the template uses of {} expand to groups and repetition operators nested deeper than a rule may be written (about {MAX_NESTING} deep); use rules instead of nesting templates in templates' arguments", rule())));
        }
        let held = self.nodes.saturating_mul(2 * std::mem::size_of::<Expr>());
        let place = || format!("expanding the template uses of {}", rule());
        self.budget.poll(n, || held, place)
    }

    fn all(
        &mut self,
        items: &[Expr],
        bindings: &[Binding],
        depth: usize,
        level: usize,
    ) -> Result<(Vec<Expr>, usize), PdaError> {
        let mut levels = 0;
        let mut out = Vec::with_capacity(items.len());
        for x in items {
            let (e, l) = self.expand(x, bindings, depth, level)?;
            levels = levels.max(l);
            out.push(e);
        }
        Ok((out, levels))
    }

    /// Use `index` (at `level`) expanded, its arguments read with the caller's `bindings`
    /// at the use's level (where they are written).
    fn instance(
        &mut self,
        index: usize,
        bindings: &[Binding],
        depth: usize,
        level: usize,
    ) -> Result<(Expr, usize), PdaError> {
        let u = &self.uses[index];
        let Some(t) = self.templates.iter().find(|t| t.name == u.name) else {
            return Err(syntax(
                Some(u.at),
                format!(
                    "`{}{{...}}` uses a template that is not defined (a definition `{}{{x}}: ...`)",
                    u.name, u.name
                ),
            ));
        };
        if t.params.len() != u.args.len() {
            return Err(syntax(
                Some(u.at),
                format!(
                    "template `{}` ({}) takes {} arguments, given {}",
                    t.name,
                    t.at,
                    t.params.len(),
                    u.args.len()
                ),
            ));
        }
        if depth >= MAX_DEPTH {
            return Err(syntax(Some(u.at), format!("template `{}` expands more than {MAX_DEPTH} uses deep: a template that uses itself is not supported (write a rule)", t.name)));
        }
        let mut bound = Vec::with_capacity(t.params.len());
        for (param, arg) in t.params.iter().zip(&u.args) {
            let (arg, levels) = self.expand(arg, bindings, depth, level)?;
            let size = size(&arg);
            bound.push(Binding {
                param: param.clone(),
                arg,
                size,
                levels,
            });
        }
        self.expand(&t.body, &bound, depth + 1, level)
    }
}

/// A parameter, its argument, and the argument's number of nodes and of levels.
pub(super) struct Binding {
    param: String,
    arg: Expr,
    size: usize,
    levels: usize,
}

/// The number of nodes of `e`, without recursion (an argument's nesting is bounded only
/// by [`MAX_LEVELS`] once expanded).
fn size(e: &Expr) -> usize {
    let mut work = vec![e];
    let mut n = 0;
    while let Some(e) = work.pop() {
        n += 1;
        match e {
            Expr::Seq(v) | Expr::Alt(v) => work.extend(v),
            Expr::Repeat { expr, .. } => work.push(expr),
            _ => {}
        }
    }
    n
}

fn syntax(at: Option<Pos>, what: String) -> PdaError {
    let msg = match at {
        Some(p) => format!("grammar {p}: {what}"),
        None => format!("grammar: {what}"),
    };
    PdaError::new(PdaErrorKind::Syntax, msg)
}

/// Why the llguidance extension starting with `c` (at `rest`) in a body is refused.
pub(super) fn llguidance_only(c: u8, rest: &str) -> String {
    let word: String = rest[1..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    match c {
        b'<' => "special tokens (`<|eos|>`, `<[128000]>`, llguidance's) are not supported: they name token ids of one vocabulary, not text".to_string(),
        b'@' => "grammar references (`@name`, llguidance's) are not supported: a grammar here is one text".to_string(),
        b'~' => "negation (`~X`, llguidance's) is not supported".to_string(),
        b'&' => "intersection (`X & Y`, llguidance's) is not supported".to_string(),
        _ => match word.as_str() {
            "json" => "`%json {...}` stands for a rule's text: write it in a rule (`value: %json {...}`)".to_string(),
            "regex" => "structured regexes (`%regex {...}`, llguidance's) are not supported: write a /regex/ terminal".to_string(),
            _ => format!("expected a name, a \"string\" or a /regex/, found `%{word}`"),
        },
    }
}
