"""The type stubs name every parameter as the extension does: an option renamed in Rust
(``sample(count)``, ``dialect=``...) cannot leave a stale name in ``_fstc.pyi``."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import fstc
from fstc import _fstc

STUBS = Path(fstc.__file__).with_name("_fstc.pyi")


def stub_parameters():
    """Parameter names (``self`` left out) of every stub function and method, the
    overloads of one name merged in first-seen order."""
    tree = ast.parse(STUBS.read_text())
    found = {}

    def add(name, fn):
        args = fn.args
        names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
        merged = found.setdefault(name, [])
        merged.extend(n for n in names if n != "self" and n not in merged)

    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            add(node.name, node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if not isinstance(item, ast.FunctionDef):
                    continue
                if "property" not in {getattr(d, "id", None) for d in item.decorator_list}:
                    add(f"{node.name}.{item.name}", item)
    return found


def runtime_parameters(dotted):
    obj = _fstc
    for part in dotted.split("."):
        obj = getattr(obj, part)
    if dotted.endswith(".__init__"):
        obj = getattr(_fstc, dotted.split(".")[0])
    return [p for p in inspect.signature(obj).parameters if p != "self"]


def test_stub_parameters_are_the_extensions():
    checked = 0
    for name, names in stub_parameters().items():
        if name.split(".")[-1].startswith("__") and not name.endswith(".__init__"):
            continue
        try:
            runtime = runtime_parameters(name)
        except (ValueError, TypeError):
            continue  # no text signature (a property getter, a dunder)
        assert sorted(runtime) == sorted(names), name
        checked += 1
    # The compile functions, Matcher() and the automata's sample are among them.
    assert checked >= 8
