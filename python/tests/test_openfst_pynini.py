"""fstc's OpenFst files opened by OpenFst itself, through Pynini, and Pynini's files read by
fstc. Pynini is not a test dependency (``pip install pynini`` to run these): where it is
missing the module is skipped. OpenFst's own composition and optimization of fstc's token
acceptor with fstc's T_V give the byte acceptor ``fstc.project`` writes, and an acceptor
Pynini writes compiles to the token automaton of the equal regex."""

from __future__ import annotations

import pytest

import fstc

pynini = pytest.importorskip("pynini")

#: Patterns and the same languages built with Pynini (byte mode).
ABC = lambda: pynini.union("a", "b", "c")  # noqa: E731
CASES = [
    ("[a-c]+x", lambda: pynini.closure(ABC(), 1) + "x"),
    ("(ab|ba){1,3}", lambda: pynini.closure(pynini.union("ab", "ba"), 1, 3)),
    ("a(bc)*|cab", lambda: pynini.union("a" + pynini.closure("bc"), "cab")),
]


def read(data: bytes):
    fst = pynini.Fst.read_from_string(data)
    assert fst.verify()
    return fst


def test_openfst_composes_fstc_exports_into_fstcs_projection(bytelevel):
    tv = read(fstc.export(bytelevel))
    assert not tv.properties(pynini.ACCEPTOR, True)
    for pattern, _ in CASES:
        a = fstc.compile_regex(pattern, bytelevel)
        acceptor = read(fstc.export(a))
        assert acceptor.properties(pynini.ACCEPTOR, True) == pynini.ACCEPTOR, pattern
        assert acceptor.num_states() == a.num_states, pattern
        # The texts of A by OpenFst alone: the output side of A ∘ T_V, made a minimal DFA.
        composed = pynini.compose(acceptor.copy().arcsort("olabel"), tv.copy().arcsort("ilabel"))
        texts = composed.project("output").rmepsilon().optimize()
        projected = read(fstc.project(a, bytelevel, format="fst"))
        assert texts.num_states() > 0, pattern
        assert pynini.equivalent(texts, projected.optimize()), pattern
        # fstc's AT&T text is the binary file's machine: its arcs, then its final states.
        lines = [line.split("\t") for line in fstc.export(a, format="att").splitlines()]
        arcs = sum(acceptor.num_arcs(s) for s in acceptor.states())
        finals = sum(acceptor.final(s) != pynini.Weight.zero("tropical") for s in acceptor.states())
        assert sum(len(f) >= 4 for f in lines) == arcs and sum(len(f) <= 2 for f in lines) == finals, pattern

def test_acceptors_pynini_writes_compile_like_the_equal_regex(bytelevel, tmp_path):
    for pattern, build in CASES:
        path = tmp_path / "pattern.fst"
        build().optimize().write(str(path))
        expr = f'fst("{path.name}", labels="bytes")'
        from_pynini, _ = fstc.compile_expr(expr, bytelevel, base_dir=str(tmp_path))
        from_regex = fstc.compile_regex(pattern, bytelevel)
        assert from_pynini.to_bytes() == from_regex.to_bytes(), pattern
