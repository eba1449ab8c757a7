//! Lark's templates (`_sep{x, sep}: x (sep x)*`, used as `_sep{item, ","}`), expanded in
//! place: each use becomes the template's body with its parameters replaced by the use's
//! arguments, so a template is the language of its body wherever it is used. A template
//! that uses itself is refused (its expansion would not end), and so is an expansion past
//! [`MAX_NODES`] (nested templates that each repeat their arguments grow exponentially).
//! Also: the messages of llguidance's extensions that are refused by name.

use crate::error::{PdaError, PdaErrorKind};
use crate::gbnf::{Expr, Pos};

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

/// Expands the template uses of one body.
pub(super) struct Expander<'a> {
    pub templates: &'a [Template],
    pub uses: &'a [Use],
    pub nodes: usize,
}

impl Expander<'_> {
    /// `e` with each parameter of `bindings` replaced by its argument and each template
    /// use by its expansion.
    pub fn expand(
        &mut self,
        e: &Expr,
        bindings: &[Binding],
        depth: usize,
    ) -> Result<Expr, PdaError> {
        self.count(1)?;
        Ok(match e {
            Expr::Ref(name, at) => {
                if let Some((_, arg, size)) = bindings.iter().find(|(p, _, _)| p == name) {
                    self.count(*size)?;
                    return Ok(arg.clone());
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
                    Some(i) => self.instance(i, bindings, depth)?,
                    None => Expr::Ref(name.clone(), *at),
                }
            }
            Expr::Seq(items) => Expr::Seq(self.all(items, bindings, depth)?),
            Expr::Alt(items) => Expr::Alt(self.all(items, bindings, depth)?),
            Expr::Repeat { expr, min, max, at } => Expr::Repeat {
                expr: Box::new(self.expand(expr, bindings, depth)?),
                min: *min,
                max: *max,
                at: *at,
            },
            other => other.clone(),
        })
    }

    /// Counts `n` more nodes of output, refusing past [`MAX_NODES`].
    fn count(&mut self, n: usize) -> Result<(), PdaError> {
        self.nodes += n;
        match self.nodes > MAX_NODES {
            true => Err(syntax(None, format!("the templates expand to more than {MAX_NODES} expression nodes; use rules instead of nesting templates that repeat their arguments"))),
            false => Ok(()),
        }
    }

    fn all(
        &mut self,
        items: &[Expr],
        bindings: &[Binding],
        depth: usize,
    ) -> Result<Vec<Expr>, PdaError> {
        items
            .iter()
            .map(|x| self.expand(x, bindings, depth))
            .collect()
    }

    /// Use `index` expanded, its arguments read with the caller's `bindings`.
    fn instance(
        &mut self,
        index: usize,
        bindings: &[Binding],
        depth: usize,
    ) -> Result<Expr, PdaError> {
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
        let args = self.all(&u.args, bindings, depth)?;
        let bound: Vec<Binding> = t
            .params
            .iter()
            .cloned()
            .zip(args)
            .map(|(p, a)| {
                let n = size(&a);
                (p, a, n)
            })
            .collect();
        self.expand(&t.body, &bound, depth + 1)
    }
}

/// A parameter, its argument and the argument's number of nodes.
type Binding = (String, Expr, usize);

/// The number of nodes of `e`.
fn size(e: &Expr) -> usize {
    match e {
        Expr::Seq(v) | Expr::Alt(v) => 1 + v.iter().map(size).sum::<usize>(),
        Expr::Repeat { expr, .. } => 1 + size(expr),
        _ => 1,
    }
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
