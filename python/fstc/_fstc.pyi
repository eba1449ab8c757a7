"""Type stubs for the fstc extension module (see the docstrings at run time)."""

from os import PathLike
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union, overload

__version__: str

class FstcError(ValueError):
    """An fstc operation failed; the message names the construct at fault."""

class Vocabulary:
    """A tokenizer's vocabulary: exact bytes per token id, specials, EOS ids."""

    @staticmethod
    def from_file(
        path: Union[str, PathLike[str]], eos_ids: Optional[Sequence[int]] = None
    ) -> Vocabulary: ...
    def __len__(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def eos_ids(self) -> List[int]: ...
    @property
    def fingerprint(self) -> int: ...
    def token_bytes(self, id: int) -> Optional[bytes]: ...
    def detokenize(self, tokens: Sequence[int]) -> bytes: ...
    def tokenize(self, text: str) -> List[int]: ...

class AnyAutomaton:
    """A compiled constraint over one vocabulary's token ids (immutable, shareable), either
    kind of automaton file: a token FSA (``kind == "fsa"``: regexes, JSON Schemas) or a token
    PDA (``kind == "pda"``: grammars). ``Matcher`` walks both."""

    def save(self, path: Union[str, PathLike[str]]) -> None: ...
    @staticmethod
    def load(path: Union[str, PathLike[str]]) -> AnyAutomaton: ...
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes) -> AnyAutomaton: ...
    @property
    def kind(self) -> Literal["fsa", "pda"]: ...
    @property
    def num_states(self) -> int: ...
    @property
    def num_accepting(self) -> int: ...
    @property
    def num_edges(self) -> int: ...
    @property
    def num_classes(self) -> int: ...
    @property
    def num_terminals(self) -> int: ...
    @property
    def num_stack_symbols(self) -> int: ...
    @property
    def vocab_size(self) -> int: ...
    @property
    def vocab_fingerprint(self) -> int: ...
    @property
    def eos_ids(self) -> List[int]: ...
    @property
    def size_bytes(self) -> int: ...
    def sample(
        self, count: int, seed: int = 0, max_tokens: int = 64
    ) -> List[Tuple[List[int], bool]]: ...

class LazyAutomaton:
    """A regex or JSON Schema compiled with ``lazy=True``: only the byte DFA is built;
    each state's tokens are composed the first time a matcher reaches it and cached for
    every matcher and copy (thread-safe). ``Matcher`` walks it exactly as the eager
    ``AnyAutomaton`` of the same constraint. No file form (no ``save``/``to_bytes``)."""

    @property
    def kind(self) -> Literal["lazy"]: ...
    @property
    def num_dfa_states(self) -> int: ...
    @property
    def num_cached_states(self) -> int: ...
    @property
    def vocab_size(self) -> int: ...
    @property
    def vocab_fingerprint(self) -> int: ...
    @property
    def eos_ids(self) -> List[int]: ...
    def sample(
        self, count: int, seed: int = 0, max_tokens: int = 64
    ) -> List[Tuple[List[int], bool]]: ...

Automaton = Union[AnyAutomaton, LazyAutomaton]

@overload
def compile_regex(
    pattern: str,
    vocab: Vocabulary,
    *,
    lazy: Literal[False] = False,
    dialect: Literal["regex", "ecmascript"] = "regex",
    dfa_state_limit: Optional[int] = None,
    token_edge_limit: Optional[int] = None,
    image_tokens: Optional[Sequence[int]] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
) -> AnyAutomaton: ...
@overload
def compile_regex(
    pattern: str,
    vocab: Vocabulary,
    *,
    lazy: Literal[True],
    dialect: Literal["regex", "ecmascript"] = "regex",
    dfa_state_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
) -> LazyAutomaton: ...
@overload
def compile_regex(
    pattern: str,
    vocab: Vocabulary,
    *,
    lazy: bool,
    dialect: Literal["regex", "ecmascript"] = "regex",
    dfa_state_limit: Optional[int] = None,
    token_edge_limit: Optional[int] = None,
    image_tokens: Optional[Sequence[int]] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
) -> Automaton: ...

def compile_grammar(
    text: str,
    vocab: Vocabulary,
    *,
    syntax: Literal["gbnf", "lark", "ebnf", "paper"] = "gbnf",
    node_limit: Optional[int] = None,
    token_edge_limit: Optional[int] = None,
    pop_limit: Optional[int] = None,
    config_limit: Optional[int] = None,
    require_deterministic: bool = False,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
) -> AnyAutomaton: ...

class SchemaWarning:
    """A schema keyword left out under ``lenient=True`` (the automaton does not enforce it)."""

    @property
    def pointer(self) -> str: ...
    @property
    def keyword(self) -> str: ...
    @property
    def message(self) -> str: ...

@overload
def compile_json_schema(
    schema: Union[str, bool, Dict[str, Any]],
    vocab: Vocabulary,
    *,
    lazy: Literal[False] = False,
    whitespace: Literal["flexible", "compact", "pretty"] = "flexible",
    max_whitespace: int = 8,
    indent: int = 2,
    escapes: Literal["canonical", "any"] = "canonical",
    additional_properties: bool = True,
    recursion_depth: Optional[int] = None,
    any_json_depth: Optional[int] = None,
    lenient: bool = False,
    dfa_state_limit: Optional[int] = None,
    token_edge_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
    ref_dir: Optional[Union[str, "PathLike[str]"]] = None,
) -> Tuple[AnyAutomaton, List[SchemaWarning]]: ...
@overload
def compile_json_schema(
    schema: Union[str, bool, Dict[str, Any]],
    vocab: Vocabulary,
    *,
    lazy: Literal[True],
    whitespace: Literal["flexible", "compact", "pretty"] = "flexible",
    max_whitespace: int = 8,
    indent: int = 2,
    escapes: Literal["canonical", "any"] = "canonical",
    additional_properties: bool = True,
    recursion_depth: Optional[int] = None,
    any_json_depth: Optional[int] = None,
    lenient: bool = False,
    dfa_state_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
    state_work_limit: Optional[int] = None,
    ref_dir: Optional[Union[str, "PathLike[str]"]] = None,
) -> Tuple[LazyAutomaton, List[SchemaWarning]]: ...
@overload
def compile_json_schema(
    schema: Union[str, bool, Dict[str, Any]],
    vocab: Vocabulary,
    *,
    lazy: bool,
    whitespace: Literal["flexible", "compact", "pretty"] = "flexible",
    max_whitespace: int = 8,
    indent: int = 2,
    escapes: Literal["canonical", "any"] = "canonical",
    additional_properties: bool = True,
    recursion_depth: Optional[int] = None,
    any_json_depth: Optional[int] = None,
    lenient: bool = False,
    dfa_state_limit: Optional[int] = None,
    token_edge_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
    state_work_limit: Optional[int] = None,
    ref_dir: Optional[Union[str, "PathLike[str]"]] = None,
) -> Tuple[Automaton, List[SchemaWarning]]: ...

@overload
def compile_structural_tag(
    spec: Union[str, Dict[str, Any]],
    vocab: Vocabulary,
    *,
    lazy: Literal[False] = False,
    whitespace: Literal["flexible", "compact", "pretty"] = "flexible",
    max_whitespace: int = 8,
    indent: int = 2,
    escapes: Literal["canonical", "any"] = "canonical",
    additional_properties: bool = True,
    recursion_depth: Optional[int] = None,
    any_json_depth: Optional[int] = None,
    lenient: bool = False,
    dfa_state_limit: Optional[int] = None,
    token_edge_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
) -> Tuple[AnyAutomaton, List[SchemaWarning]]: ...
@overload
def compile_structural_tag(
    spec: Union[str, Dict[str, Any]],
    vocab: Vocabulary,
    *,
    lazy: Literal[True],
    whitespace: Literal["flexible", "compact", "pretty"] = "flexible",
    max_whitespace: int = 8,
    indent: int = 2,
    escapes: Literal["canonical", "any"] = "canonical",
    additional_properties: bool = True,
    recursion_depth: Optional[int] = None,
    any_json_depth: Optional[int] = None,
    lenient: bool = False,
    dfa_state_limit: Optional[int] = None,
    state_work_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
) -> Tuple[LazyAutomaton, List[SchemaWarning]]: ...
@overload
def compile_structural_tag(
    spec: Union[str, Dict[str, Any]],
    vocab: Vocabulary,
    *,
    lazy: bool,
    whitespace: Literal["flexible", "compact", "pretty"] = "flexible",
    max_whitespace: int = 8,
    indent: int = 2,
    escapes: Literal["canonical", "any"] = "canonical",
    additional_properties: bool = True,
    recursion_depth: Optional[int] = None,
    any_json_depth: Optional[int] = None,
    lenient: bool = False,
    dfa_state_limit: Optional[int] = None,
    token_edge_limit: Optional[int] = None,
    state_work_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
) -> Tuple[Automaton, List[SchemaWarning]]: ...

def compile_expr(
    expr: Union[str, Dict[str, Any]],
    vocab: Vocabulary,
    *,
    boolean_level: Literal["bytes", "tokens"] = "bytes",
    state_limit: Optional[int] = None,
    base_dir: Optional[Union[str, PathLike[str]]] = None,
    whitespace: Literal["flexible", "compact", "pretty"] = "flexible",
    max_whitespace: int = 8,
    indent: int = 2,
    escapes: Literal["canonical", "any"] = "canonical",
    additional_properties: bool = True,
    recursion_depth: Optional[int] = None,
    any_json_depth: Optional[int] = None,
    lenient: bool = False,
    dfa_state_limit: Optional[int] = None,
    token_edge_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
) -> Tuple[AnyAutomaton, List[SchemaWarning]]: ...
def intersect(
    a: AnyAutomaton,
    b: AnyAutomaton,
    *,
    state_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
) -> AnyAutomaton: ...
def union(
    a: AnyAutomaton,
    b: AnyAutomaton,
    *,
    state_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
) -> AnyAutomaton: ...
def difference(
    a: AnyAutomaton,
    b: AnyAutomaton,
    *,
    state_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
) -> AnyAutomaton: ...
def complement(
    a: AnyAutomaton,
    vocab: Vocabulary,
    *,
    state_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
) -> AnyAutomaton: ...
def equivalent(
    a: AnyAutomaton,
    b: AnyAutomaton,
    *,
    state_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
) -> Optional[Tuple[List[int], bool]]: ...
def shortest(a: AnyAutomaton, *, time_budget: Optional[float] = None) -> Optional[List[int]]: ...
@overload
def project(
    a: AnyAutomaton,
    vocab: Vocabulary,
    *,
    format: Literal["att", "dot"] = "att",
    state_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
) -> str: ...
@overload
def project(
    a: AnyAutomaton,
    vocab: Vocabulary,
    *,
    format: Literal["fst"],
    state_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
) -> bytes: ...
@overload
def export(
    what: Union[AnyAutomaton, Vocabulary],
    *,
    format: Literal["fst"] = "fst",
    arc_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
) -> bytes: ...
@overload
def export(
    what: Union[AnyAutomaton, Vocabulary],
    *,
    format: Literal["att"],
    arc_limit: Optional[int] = None,
    time_budget: Optional[float] = None,
    memory_budget: Optional[int] = None,
) -> str: ...

class Matcher:
    """One sequence's position in a token automaton, eager or lazy (vLLM structured-output
    semantics)."""

    def __init__(
        self,
        automaton: Automaton,
        stack_limit: Optional[int] = None,
        config_limit: Optional[int] = None,
    ) -> None: ...
    def copy(self) -> Matcher: ...
    def __copy__(self) -> Matcher: ...
    def __deepcopy__(self, memo: Any) -> Matcher: ...
    def accept_tokens(self, tokens: Sequence[int]) -> bool: ...
    def accept_token(self, token: int) -> bool: ...
    def validate_tokens(self, tokens: Sequence[int]) -> int: ...
    def rollback(self, n: int) -> None: ...
    def fill_bitmask(self, bitmask: Any, index: int = 0) -> None: ...
    def allowed_tokens(self) -> List[int]: ...
    def is_terminated(self) -> bool: ...
    def is_accepting(self) -> bool: ...
    def only_eos_allowed(self) -> bool: ...
    def reset(self) -> None: ...
    def forced_tokens(self) -> List[int]: ...
    @property
    def num_accepted(self) -> int: ...
    @property
    def vocab_size(self) -> int: ...
    @property
    def automaton(self) -> Automaton: ...

def fill_bitmasks(
    matchers: Sequence[Matcher], bitmask: Any, indices: Optional[Sequence[int]] = None
) -> None: ...
