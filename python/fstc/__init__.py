"""fstc: token automata for constrained LLM decoding.

Compile a constraint for a tokenizer once (``compile_regex``, ``compile_json_schema``,
``compile_structural_tag``, ``compile_grammar``; ``lazy=True`` for a regex or schema used once: a ``LazyAutomaton``
that composes each state on first use), then mask each decoding step with a ``Matcher`` per sequence (``copy()`` forks one for a
beam): ``fill_bitmask`` writes the allowed tokens into an int32 bitmask (token t allowed
iff bit t % 32 of word t // 32 is set), ``accept_tokens`` advances. ``fstc.processors`` applies this to logits (numpy); ``fstc.hf`` and
``fstc.llama_cpp`` plug it into Hugging Face transformers and llama-cpp-python.
Compiled FSAs combine like OpenFst's machines (``intersect``, ``union``, ``difference``,
``complement``, ``equivalent``, ``shortest``, ``project``; ``export`` writes OpenFst files), and
``compile_expr`` compiles an expression over constraints in one step.
"""

from ._fstc import (
    AnyAutomaton,
    FstcError,
    LazyAutomaton,
    Matcher,
    SchemaWarning,
    Vocabulary,
    __version__,
    compile_expr,
    compile_grammar,
    compile_json_schema,
    compile_regex,
    compile_structural_tag,
    complement,
    difference,
    equivalent,
    export,
    fill_bitmasks,
    intersect,
    project,
    shortest,
    union,
)
from .bitmask import allocate_token_bitmask, bitmask_words, unpack_bitmask

__all__ = [
    "AnyAutomaton",
    "FstcError",
    "LazyAutomaton",
    "Matcher",
    "SchemaWarning",
    "Vocabulary",
    "__version__",
    "allocate_token_bitmask",
    "bitmask_words",
    "compile_expr",
    "compile_grammar",
    "compile_json_schema",
    "compile_regex",
    "compile_structural_tag",
    "complement",
    "difference",
    "equivalent",
    "export",
    "fill_bitmasks",
    "intersect",
    "project",
    "shortest",
    "union",
    "unpack_bitmask",
]
