//! `fstc.compile_expr`: an expression over constraints (text form, JSON form, or the JSON
//! form as a `dict`) into one token automaton through `fstc-expr`.

use fstc_expr::{Expr, ExprCompiler, Level};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::automaton::AnyAutomaton;
use crate::errors::fstc_error;
use crate::ints::{optional_usize, Int};
use crate::json::{json_text, schema_warnings, JsonOptions, SchemaWarning};
use crate::vocab::Vocabulary;

/// Compiles an expression over constraints into one token FSA for `vocab` (a token PDA
/// when a `grammar` leaf is intersected with regular operands); returns
/// `(automaton, warnings)`. `expr` is the text form (`'intersect(regex("[a-z]+"),
/// json("schema.json"), max_tokens(200))'`), the JSON form as text, or the JSON form as
/// a `dict` (`{"intersect": [{"regex": "[a-z]+"}, {"max_tokens": 200}]}`). `concat`,
/// `star` and `repeat` combine texts before the one composition (a token may span two
/// parts); `intersect`, `union`, `difference` and `complement` are exact on texts and on
/// tokens (`boolean_level` "bytes" or "tokens" gives the same automaton). Relative file
/// names (`json`, `fst`, `automaton`) are read from `base_dir`, else the working
/// directory. The JSON options apply to every schema; `dfa_state_limit` bounds every byte
/// automaton, `token_edge_limit` every composition, `state_limit` every token operation.
/// `time_budget` (seconds, default 10) and `memory_budget` (bytes of automata, default
/// 1 GiB) bound the whole compile as in `compile_json_schema`: past either it raises
/// `FstcError` naming the call being built.
/// Errors raise `FstcError` naming the column or JSON pointer of the call at fault. The
/// GIL is released while compiling.
#[pyfunction]
#[pyo3(signature = (
    expr, vocab, *, boolean_level = "bytes", state_limit = None, base_dir = None,
    whitespace = "flexible", max_whitespace = Int::new(8), indent = Int::new(2),
    escapes = "canonical", additional_properties = true, recursion_depth = None,
    any_json_depth = None, lenient = false, dfa_state_limit = None, token_edge_limit = None,
    time_budget = None, memory_budget = None
))]
#[allow(clippy::too_many_arguments)]
pub fn compile_expr(
    py: Python<'_>,
    expr: &Bound<'_, PyAny>,
    vocab: &Vocabulary,
    boolean_level: &str,
    state_limit: Option<Int>,
    base_dir: Option<std::path::PathBuf>,
    whitespace: &str,
    max_whitespace: Int,
    indent: Int,
    escapes: &str,
    additional_properties: bool,
    recursion_depth: Option<Int>,
    any_json_depth: Option<Int>,
    lenient: bool,
    dfa_state_limit: Option<Int>,
    token_edge_limit: Option<Int>,
    time_budget: Option<f64>,
    memory_budget: Option<Int>,
) -> PyResult<(AnyAutomaton, Vec<SchemaWarning>)> {
    let level = match boolean_level {
        "bytes" => Level::Bytes,
        "tokens" => Level::Tokens,
        other => {
            return Err(PyValueError::new_err(format!(
                "boolean_level must be \"bytes\" or \"tokens\", got {other:?}"
            )))
        }
    };
    let options = JsonOptions {
        whitespace,
        max_whitespace,
        indent,
        escapes,
        additional_properties,
        recursion_depth,
        any_json_depth,
        lenient,
        dfa_state_limit,
        time_budget,
        memory_budget,
    }
    .options()?
    .int("token_edge_limit", token_edge_limit.as_ref())?;
    let config = options.apply(|o| fstc_json::Config::new().with_options(o))?;
    let mut compiler = ExprCompiler::new().configure(config).boolean_level(level);
    if let Some(n) = optional_usize(state_limit, "state_limit")? {
        compiler = compiler.state_limit(n);
    }
    if let Some(dir) = base_dir {
        compiler = compiler.base_dir(dir);
    }
    let parsed = if expr.is_instance_of::<PyString>() {
        Expr::parse_any(&expr.extract::<String>()?)
    } else {
        Expr::from_json(&json_text(expr, "the expression")?)
    }
    .map_err(fstc_error)?;
    let compiled = py
        .detach(|| compiler.compile_any_with_trie(&parsed, &vocab.trie()))
        .map_err(fstc_error)?;
    let automaton = AnyAutomaton::from_any(compiled.automaton);
    Ok((automaton, schema_warnings(compiled.warnings)))
}
