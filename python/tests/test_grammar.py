"""Grammars (token PDAs) through the same Matcher as regexes, against recognizers written
here for each language (no fstc code): allowed-token sets bit by bit on random walks at
widths past the vocabulary, rollback to any earlier step, validate_tokens, the stack limit,
forks, batch fills with FSAs, save/load round trips and grammar errors."""

from __future__ import annotations

import copy
import random
from typing import Callable, Dict, List

import numpy as np
import pytest
from conftest import bits_of

import fstc


def anbn_prefix(s: bytes) -> bool:
    """Whether s starts some a^n b^n (n >= 1)."""
    i = len(s) - len(s.lstrip(b"a"))
    rest = s[i:]
    return rest == b"b" * len(rest) and len(rest) <= i and (i > 0 or not s)


def anbn_complete(s: bytes) -> bool:
    n = len(s) // 2
    return n >= 1 and s == b"a" * n + b"b" * n


def parens_depths(s: bytes):
    """The nesting depth after each byte of a text over `(`, `)`, `x`, or None if a byte
    is another one or closes more than was opened."""
    depth, out = 0, []
    for c in s:
        if c not in b"()x":
            return None
        depth += {ord("("): 1, ord(")"): -1}.get(c, 0)
        if depth < 0:
            return None
        out.append(depth)
    return out


def parens_prefix(s: bytes) -> bool:
    """Whether s starts some `(` (x | nested)* `)`: it opens first and is never closed
    before its last byte."""
    d = parens_depths(s)
    return d is not None and (not s or (s[0:1] == b"(" and all(x > 0 for x in d[:-1])))


def parens_complete(s: bytes) -> bool:
    return bool(s) and parens_prefix(s) and parens_depths(s)[-1] == 0


GRAMMARS = {
    # name: (GBNF, alphabet, prefix test, completeness test)
    "anbn": ('root ::= "ab" | "a" root "b"', b"ab", anbn_prefix, anbn_complete),
    "parens": ('root ::= "(" ("x" | root)* ")"', b"()x", parens_prefix, parens_complete),
}


class Recognizer:
    """Allowed-token sets of a language given by a prefix test: a text token t is allowed
    after p iff p + bytes(t) starts a word; EOS iff p is a word."""

    def __init__(self, vocab: fstc.Vocabulary, alphabet: bytes, prefix, complete):
        self.prefix: Callable[[bytes], bool] = prefix
        self.complete: Callable[[bytes], bool] = complete
        self.eos = list(vocab.eos_ids)
        self.tokens: Dict[int, bytes] = {}
        for t in range(len(vocab)):
            b = vocab.token_bytes(t)
            if b and all(c in alphabet for c in b):
                self.tokens[t] = b

    def allowed(self, text: bytes) -> List[int]:
        out = [t for t, b in self.tokens.items() if self.prefix(text + b)]
        if self.complete(text):
            out.extend(self.eos)
        return sorted(out)


@pytest.fixture(scope="module", params=sorted(GRAMMARS))
def grammar(request, bytelevel):
    text, alphabet, prefix, complete = GRAMMARS[request.param]
    pda = fstc.compile_grammar(text, bytelevel)
    return pda, Recognizer(bytelevel, alphabet, prefix, complete)


def test_a_grammar_compiles_to_a_token_pda(grammar, bytelevel):
    pda, _ = grammar
    assert pda.kind == "pda"
    assert pda.vocab_size == len(bytelevel)
    assert pda.vocab_fingerprint == bytelevel.fingerprint
    assert pda.eos_ids == bytelevel.eos_ids
    assert pda.num_stack_symbols >= 1
    assert "kind=\"pda\"" in repr(pda)


def test_masks_equal_the_recognizers_sets_on_random_walks(grammar, bytelevel):
    pda, oracle = grammar
    rng = random.Random(13)
    words = fstc.bitmask_words(len(bytelevel))
    bitmask = np.full((3, words + 2), -1, dtype=np.int32)
    complete_walks = 0
    for _ in range(25):
        matcher = fstc.Matcher(pda)
        text, texts, masks = b"", [], []
        for _ in range(30):
            expected = oracle.allowed(text)
            matcher.fill_bitmask(bitmask, index=2)
            assert bits_of(bitmask[2]) == expected, text
            texts.append(text)
            masks.append(expected)
            assert matcher.is_accepting() == oracle.complete(text)
            text_allowed = [t for t in expected if t not in oracle.eos]
            assert matcher.only_eos_allowed() == (oracle.complete(text) and not text_allowed)
            # A draft: allowed tokens, then anything; validate_tokens is the recognizer's
            # accepted prefix and does not move.
            draft = [rng.choice(text_allowed or [0]) for _ in range(rng.randrange(3))]
            draft.append(rng.randrange(len(bytelevel) + 3))
            n, t = 0, text
            while n < len(draft) and draft[n] in oracle.allowed(t) and draft[n] not in oracle.eos:
                t += bytelevel.token_bytes(draft[n])
                n += 1
            if n < len(draft) and draft[n] in oracle.eos and oracle.complete(t):
                n += 1
            assert matcher.validate_tokens(draft) == n, (text, draft)
            assert matcher.num_accepted == len(texts) - 1
            if rng.random() < 0.15 and len(texts) > 1:
                k = rng.randrange(1, len(texts))
                matcher.rollback(k)
                del texts[-k:], masks[-k:]
                text = texts.pop()
                masks.pop()
                assert matcher.allowed_tokens() == oracle.allowed(text)
                continue
            pick = rng.choice(expected)
            assert matcher.accept_token(pick)
            if pick in oracle.eos:
                assert matcher.is_terminated() and oracle.complete(text)
                assert matcher.allowed_tokens() == []
                complete_walks += 1
                break
            text += bytelevel.token_bytes(pick)
    assert complete_walks > 0


def test_rejected_tokens_change_nothing(grammar, bytelevel):
    pda, oracle = grammar
    rng = random.Random(5)
    matcher = fstc.Matcher(pda)
    text = b""
    for _ in range(12):
        allowed = oracle.allowed(text)
        rejected = [t for t in rng.sample(range(len(bytelevel)), 40) if t not in allowed]
        for t in rejected + [len(bytelevel), -1, 2**40]:
            assert not matcher.accept_tokens([t])
        good = [t for t in allowed if t not in oracle.eos]
        if not good:
            break
        pick = rng.choice(good)
        # All or nothing: a good token followed by a rejected one consumes neither.
        assert not matcher.accept_tokens([pick, rejected[0]])
        assert matcher.allowed_tokens() == allowed
        assert matcher.accept_tokens([pick])
        text += bytelevel.token_bytes(pick)


def token_of(vocab: fstc.Vocabulary, text: bytes) -> int:
    return next(t for t in range(len(vocab)) if vocab.token_bytes(t) == text)


def test_stack_limit_is_an_error_with_the_rust_message(bytelevel):
    pda = fstc.compile_grammar(GRAMMARS["parens"][0], bytelevel)
    open_ = token_of(bytelevel, b"(")
    matcher = fstc.Matcher(pda, stack_limit=2)
    assert matcher.accept_tokens([open_, open_, open_])  # the outermost pushes nothing
    before = matcher.allowed_tokens()
    assert open_ not in before  # the limit is part of the language: the mask leaves it out
    with pytest.raises(fstc.FstcError, match="stack limit of 2"):
        matcher.accept_tokens([open_])
    assert matcher.num_accepted == 3 and matcher.allowed_tokens() == before
    # The default limit is far away; a copy keeps the limit.
    assert fstc.Matcher(pda).accept_tokens([open_] * 50)
    with pytest.raises(fstc.FstcError, match="stack limit"):
        copy.copy(matcher).accept_token(open_)


AMBIGUOUS = """
root ::= a | b
a    ::= "x" a | "x"
b    ::= "x" b | "x" "y"
"""


def test_config_limit_bounds_a_nondeterministic_matcher_and_its_compile(bytelevel):
    # After `x` the text may be in `a` or in `b` (each a call): two configurations.
    pda = fstc.compile_grammar(AMBIGUOUS, bytelevel)
    x, y = token_of(bytelevel, b"x"), token_of(bytelevel, b"y")
    eos = bytelevel.eos_ids[0]
    assert fstc.Matcher(pda).accept_tokens([x, x, y, eos])
    matcher = fstc.Matcher(pda, config_limit=1)
    before = matcher.allowed_tokens()
    assert x in before  # a resource limit, not part of the language: the mask keeps it
    with pytest.raises(fstc.FstcError, match="configuration limit of 1"):
        matcher.accept_tokens([x])
    assert matcher.num_accepted == 0 and matcher.allowed_tokens() == before
    with pytest.raises(fstc.FstcError, match="configuration limit"):
        copy.copy(matcher).accept_token(x)
    assert fstc.Matcher(pda, config_limit=2).accept_tokens([x, x, y, eos])
    # At compile time: one token already leads from one configuration to two.
    with pytest.raises(fstc.FstcError, match="config_limit"):
        fstc.compile_grammar(AMBIGUOUS, bytelevel, config_limit=1)
    assert fstc.compile_grammar(AMBIGUOUS, bytelevel, config_limit=2).kind == "pda"
    # Or refused outright, the conflict listed (`--require-deterministic`).
    with pytest.raises(fstc.FstcError, match="not deterministic"):
        fstc.compile_grammar(AMBIGUOUS, bytelevel, require_deterministic=True)


def test_forks_move_independently_and_share_history(bytelevel):
    pda = fstc.compile_grammar(GRAMMARS["anbn"][0], bytelevel)
    a, b = token_of(bytelevel, b"a"), token_of(bytelevel, b"b")
    m = fstc.Matcher(pda)
    assert m.accept_tokens([a, a])
    fork = m.copy()
    assert fork.accept_tokens([b, b] + bytelevel.eos_ids[:1]) and fork.is_terminated()
    assert not m.is_terminated() and m.num_accepted == 2
    assert m.validate_tokens([b, b, b]) == 2
    fork.rollback(5)
    assert fork.allowed_tokens() == fstc.Matcher(pda).allowed_tokens()
    m.reset()
    assert m.num_accepted == 0 and m.allowed_tokens() == fork.allowed_tokens()


def test_batch_fill_mixes_pdas_and_fsas(bytelevel):
    pda = fstc.compile_grammar(GRAMMARS["parens"][0], bytelevel)
    fsa = fstc.compile_regex(r"\(x*\)", bytelevel)
    rng = random.Random(2)
    matchers = []
    for i in range(16):
        m = fstc.Matcher(pda if i % 2 else fsa)
        for _ in range(rng.randrange(6)):
            allowed = [t for t in m.allowed_tokens() if t not in bytelevel.eos_ids]
            if not allowed:
                break
            m.accept_token(rng.choice(allowed))
        matchers.append(m)
    words = fstc.bitmask_words(len(bytelevel)) + 1
    batch = np.full((len(matchers), words), -1, dtype=np.int32)
    order = list(range(len(matchers)))
    rng.shuffle(order)
    fstc.fill_bitmasks(matchers, batch, order)
    for m, row in zip(matchers, order):
        one = np.zeros((1, words), dtype=np.int32)
        m.fill_bitmask(one)
        assert (batch[row] == one[0]).all()
        assert bits_of(one[0]) == m.allowed_tokens()


def test_save_and_load_round_trip(tmp_path, bytelevel):
    pda = fstc.compile_grammar(GRAMMARS["parens"][0], bytelevel)
    path = tmp_path / "parens.fstc"
    pda.save(path)
    for loaded in (fstc.AnyAutomaton.load(path), fstc.AnyAutomaton.from_bytes(pda.to_bytes())):
        assert loaded.kind == "pda"
        assert loaded.to_bytes() == pda.to_bytes() == path.read_bytes()
        assert (loaded.num_states, loaded.num_edges, loaded.num_stack_symbols) == (
            pda.num_states,
            pda.num_edges,
            pda.num_stack_symbols,
        )
        for tokens, _ in pda.sample(8, seed=3, max_tokens=20):
            a, b = fstc.Matcher(pda), fstc.Matcher(loaded)
            assert a.accept_tokens(tokens) and b.accept_tokens(tokens)
            assert a.allowed_tokens() == b.allowed_tokens()
    corrupt = bytearray(pda.to_bytes())
    corrupt[len(corrupt) // 2] ^= 0x10
    with pytest.raises(fstc.FstcError):
        fstc.AnyAutomaton.from_bytes(bytes(corrupt))


def test_samples_are_words_of_the_language(grammar, bytelevel):
    pda, oracle = grammar
    walks = pda.sample(30, seed=1, max_tokens=40)
    assert any(complete for _, complete in walks)
    for tokens, complete in walks:
        text = bytelevel.detokenize(tokens)
        assert oracle.prefix(text)
        assert oracle.complete(text) or not complete


@pytest.mark.parametrize(
    "text,needles",
    [
        ('root ::= "a" |\n  ( "b"', ["grammar line 2, column"]),
        ('root ::= "a" item\n', ["item"]),
        ('root ::= [a-', ["grammar line 1, column"]),
        ("", ["root"]),
        ('root ::= "a" | "a" "b"\nx ::= root x', []),
    ],
)
def test_grammar_errors_carry_the_compilers_message(bytelevel, text, needles):
    try:
        fstc.compile_grammar(text, bytelevel)
    except fstc.FstcError as e:
        for needle in needles:
            assert needle in str(e)
    else:
        assert not needles, "expected an error"


def test_bad_options_are_value_errors(bytelevel):
    with pytest.raises(ValueError, match="unknown grammar syntax"):
        fstc.compile_grammar('root ::= "a"', bytelevel, syntax="yacc")
    assert fstc.compile_grammar('S → "ab" | "a" S "b"', bytelevel, syntax="paper").kind == "pda"
    assert fstc.compile_grammar('start: "a"+\n%ignore " "', bytelevel, syntax="lark").kind == "pda"
    assert fstc.compile_grammar('root ::= a.b\na.b ::= "\\e"', bytelevel, syntax="ebnf").kind == "pda"
    with pytest.raises(fstc.FstcError, match="priorities"):
        fstc.compile_grammar('start.2: "a"', bytelevel, syntax="lark")
    with pytest.raises(fstc.FstcError, match="node_limit"):
        fstc.compile_grammar(GRAMMARS["parens"][0], bytelevel, node_limit=1)


def test_mutated_grammars_compile_or_raise_fstc_error(bytelevel):
    """Random edits of a grammar: each compiles to a PDA or raises FstcError, never
    anything else (no crash, no hang)."""
    base = 'root ::= "[" ws ( item ( "," ws item )* )? "]"\nitem ::= [0-9]{1,3} | root | "\\"" [a-z]* "\\""\nws ::= " "?\n'
    alphabet = '()[]{}|*+?"\\:=,-^ \n#axroot09'
    rng = random.Random(11)
    outcomes = {"ok": 0, "error": 0}
    for _ in range(150):
        text = list(base)
        for _ in range(rng.randrange(1, 4)):
            i = rng.randrange(len(text) + 1)
            op = rng.randrange(3)
            if op == 0 and i < len(text):
                del text[i]
            elif op == 1:
                text.insert(i, rng.choice(alphabet))
            elif i < len(text):
                text[i] = rng.choice(alphabet)
        try:
            pda = fstc.compile_grammar("".join(text), bytelevel)
            assert pda.kind == "pda"
            outcomes["ok"] += 1
        except fstc.FstcError as e:
            assert str(e)
            outcomes["error"] += 1
    assert outcomes["ok"] > 0 and outcomes["error"] > 0, outcomes


def test_mutated_pda_files_are_refused_never_crash(bytelevel):
    data = fstc.compile_grammar(GRAMMARS["anbn"][0], bytelevel).to_bytes()
    rng = random.Random(4)
    for _ in range(200):
        bad = bytearray(data)
        bad[rng.randrange(len(bad))] ^= 1 << rng.randrange(8)
        with pytest.raises(fstc.FstcError):
            fstc.AnyAutomaton.from_bytes(bytes(bad))
    for n in (0, 7, len(data) // 2, len(data) - 4):
        with pytest.raises(fstc.FstcError):
            fstc.AnyAutomaton.from_bytes(data[:n])
