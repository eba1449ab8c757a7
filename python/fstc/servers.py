"""What the vLLM and SGLang backends share: an fstc ``Vocabulary`` from the server's
tokenizer object, and one compile per request kind with a cache.

Servers hand a backend a tokenizer object, not a file, and each request brings its own
constraint, so per-request compiles are lazy (``lazy=True``: only the byte DFA is built;
states are composed when first reached). Grammars compile eagerly (fstc has no lazy
grammar compile). Nothing here imports a server package.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
from collections import OrderedDict
from typing import Any, Iterable, Sequence, Tuple, Union

from ._fstc import (
    AnyAutomaton,
    FstcError,
    LazyAutomaton,
    Vocabulary,
    compile_grammar,
    compile_json_schema,
    compile_regex,
    compile_structural_tag,
)

Automaton = Union[AnyAutomaton, LazyAutomaton]

#: The request kinds both servers send (SGLang's ``ebnf`` is ``grammar`` here).
KINDS = ("json", "json_object", "regex", "grammar", "choice", "structural_tag")


def tokenizer_json(tokenizer: Any) -> str:
    """The ``tokenizer.json`` text of a Hugging Face fast tokenizer (what fstc reads to
    get every id's exact bytes). Anything else is a ``TypeError`` naming its type: fstc
    needs the tokenizer's own vocabulary file, and a slow tokenizer has none in memory."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None or not hasattr(backend, "to_str"):
        raise TypeError(
            f"fstc needs a Hugging Face fast tokenizer (one with backend_tokenizer), got "
            f"{type(tokenizer).__module__}.{type(tokenizer).__qualname__}; load the model "
            "with its tokenizer.json"
        )
    return backend.to_str()


def vocabulary_from_tokenizer(tokenizer: Any, eos_ids: Iterable[int]) -> Vocabulary:
    """An fstc ``Vocabulary`` for a fast tokenizer, whose EOS (the tokens allowed only
    where the constraint is complete) are ``eos_ids``."""
    eos = sorted({int(t) for t in eos_ids})
    if not eos:
        raise ValueError("fstc needs at least one EOS/stop token id for the vocabulary")
    text = tokenizer_json(tokenizer)
    fd, path = tempfile.mkstemp(prefix="fstc-vocab-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        return Vocabulary.from_file(path, eos_ids=eos)
    finally:
        os.unlink(path)


def grammar_syntax(text: str) -> str:
    """``"gbnf"`` if some rule is written with ``::=`` (GBNF/XGrammar EBNF), else
    ``"lark"`` (the two syntaxes vLLM and SGLang users send as a grammar)."""
    for line in text.splitlines():
        code = line.split("#", 1)[0]
        if "::=" in code:
            return "gbnf"
    return "lark"


def choice_regex(choices: Sequence[str]) -> str:
    """A regex matching exactly one of ``choices``: every ASCII character other than a
    letter, digit or space is written as ``\\xHH``, so no choice text is regex syntax."""
    if not choices:
        raise ValueError("a choice constraint needs at least one choice")

    def escape(s: str) -> str:
        plain = lambda c: not c.isascii() or c.isalnum() or c == " "  # noqa: E731
        return "".join(c if plain(c) else f"\\x{ord(c):02X}" for c in s)

    return "(?:" + "|".join(escape(str(c)) for c in choices) + ")"


def compile_request(
    kind: str, spec: Any, vocab: Vocabulary, *, whitespace: str = "flexible"
) -> Automaton:
    """Compiles one request's constraint. ``kind`` is one of ``KINDS``; ``spec`` is the
    schema (JSON text or object), the regex, the grammar text, the choices (a list or
    its JSON text), or the structural tag (XGrammar's JSON, either spelling); ignored for
    ``json_object``. Errors are ``FstcError``/``ValueError``
    with fstc's message."""
    if kind == "json":
        automaton, _warnings = compile_json_schema(spec, vocab, lazy=True, whitespace=whitespace)
        return automaton
    if kind == "json_object":
        automaton, _warnings = compile_json_schema(
            {"type": "object"}, vocab, lazy=True, whitespace=whitespace
        )
        return automaton
    if kind == "regex":
        return compile_regex(spec, vocab, lazy=True)
    if kind == "structural_tag":
        automaton, _warnings = compile_structural_tag(
            spec, vocab, lazy=True, whitespace=whitespace
        )
        return automaton
    if kind == "grammar":
        return compile_grammar(spec, vocab, syntax=grammar_syntax(spec))
    if kind == "choice":
        choices = json.loads(spec) if isinstance(spec, str) else spec
        if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
            raise ValueError(f"a choice constraint is a list of strings, got {spec!r}")
        return compile_regex(choice_regex(choices), vocab, lazy=True)
    raise ValueError(f"fstc cannot compile a {kind!r} constraint (it compiles {', '.join(KINDS)})")


class CompileCache:
    """Compiled automata by (vocabulary fingerprint, EOS ids, kind, spec, whitespace),
    least recently used dropped past ``capacity``. Automata are immutable and shared by
    every matcher, so a repeated constraint compiles once. Thread-safe; two threads
    compiling the same key at once both compile, and one result is kept."""

    def __init__(self, capacity: int = 256):
        self.capacity = capacity
        self._items: "OrderedDict[Tuple[Any, ...], Automaton]" = OrderedDict()
        self._lock = threading.Lock()

    def get(
        self, kind: str, spec: Any, vocab: Vocabulary, *, whitespace: str = "flexible"
    ) -> Automaton:
        text = spec if isinstance(spec, str) else json.dumps(spec, sort_keys=True)
        key = (vocab.fingerprint, tuple(vocab.eos_ids), kind, text, whitespace)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit
        automaton = compile_request(kind, spec, vocab, whitespace=whitespace)
        with self._lock:
            self._items[key] = automaton
            self._items.move_to_end(key)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)
        return automaton

    def __len__(self) -> int:
        return len(self._items)


#: A grammar text naming an automaton file loaded at start-up instead of a grammar.
FILE_PREFIX = "@fstc:"


def load_automata(folder: "str | os.PathLike[str]", vocab: Vocabulary) -> "dict[str, AnyAutomaton]":
    """Every ``NAME.fstc`` in ``folder`` (compiled ahead with ``fstc compile ... -o``), by
    NAME. A file compiled for another vocabulary or other EOS ids is a ``ValueError``
    naming it: its token ids would mean other tokens."""
    automata = {}
    for entry in sorted(os.listdir(folder)):
        if not entry.endswith(".fstc"):
            continue
        path = os.path.join(folder, entry)
        automaton = AnyAutomaton.load(path)
        if automaton.vocab_fingerprint != vocab.fingerprint or automaton.eos_ids != vocab.eos_ids:
            raise ValueError(
                f"{path} was compiled for vocabulary {automaton.vocab_fingerprint:016x} with EOS "
                f"{automaton.eos_ids}, not the server's ({vocab.fingerprint:016x}, EOS "
                f"{vocab.eos_ids}): compile it with the model's tokenizer.json"
            )
        automata[entry[: -len(".fstc")]] = automaton
    return automata


def check_version(package: str, version: str, known: Sequence[str]) -> None:
    """Raises ``RuntimeError`` unless ``version``'s ``major.minor`` is one of ``known``:
    the adapters patch or subclass a server's internals, which change between releases,
    so an unknown release fails here, loudly, not mid-request."""
    m = re.match(r"(\d+)\.(\d+)", version)
    minor = f"{m.group(1)}.{m.group(2)}" if m else version
    if minor not in known:
        releases = " or ".join(f"{k}.x" for k in known)
        raise RuntimeError(
            f"fstc's {package} backend knows {package} {releases}, not {version}: its "
            f"structured-output internals may differ. Install a known {package} or an fstc "
            f"release that knows {version}."
        )


__all__ = [
    "FILE_PREFIX",
    "KINDS",
    "CompileCache",
    "FstcError",
    "check_version",
    "choice_regex",
    "compile_request",
    "grammar_syntax",
    "load_automata",
    "tokenizer_json",
    "vocabulary_from_tokenizer",
]
