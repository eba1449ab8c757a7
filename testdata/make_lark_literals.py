"""Writes testdata/lark/literals.json: how Python Lark itself reads generated string
literals, ranges and regex terminals, for fstc-pda's `lark_literals` test.

    python3 testdata/make_lark_literals.py [COUNT]     # needs `pip install lark` (1.3.1 used)

Each case is a one-rule grammar `start: ITEM`. Lark builds its terminal (or refuses the
grammar: "error", with "zero_width" when the reason is a terminal that matches the empty text); for a terminal, every sample text is recorded with whether the terminal's
regex (`Pattern.to_regexp()`, as Lark compiles it) matches it in full. Samples are the
literal's own text, the texts its escapes could stand for, and small edits of them.
Deterministic (seeded); COUNT cases of each kind (default 250).
"""
import json
import os
import random
import re
import sys
import warnings

import lark

warnings.simplefilter("ignore")

# Pieces of a literal's source text, each with the texts it might stand for.
PIECES = [
    ("a", ["a", "A"]),
    ("é", ["é"]),
    (" ", [" "]),
    ("'", ["'"]),
    (".", [".", "x"]),
    ("\\\\", ["\\", "\\\\"]),
    ('\\"', ['"', '\\"']),
    ("\\'", ["'", "\\'"]),
    ("\\a", ["\x07", "\\a"]),
    ("\\b", ["\x08", "\\b"]),
    ("\\v", ["\x0b", "\\v"]),
    ("\\0", ["\x00", "\\0"]),
    ("\\e", ["\x1b", "\\e"]),
    ("\\d", ["1", "\\d"]),
    ("\\é", ["é", "\\é"]),
    ("\\.", [".", "\\.", "x"]),
    ("\\/", ["/", "\\/"]),
    ("\\n", ["\n", "\\n"]),
    ("\\t", ["\t", "\\t"]),
    ("\\r", ["\r", "\\r"]),
    ("\\f", ["\x0c", "\\f"]),
    ("\\x41", ["A", "\\x41"]),
    ("\\x2e", [".", "x"]),
    ("\\x2a", ["*", ""]),
    ("\\x5c", ["\\", ""]),

    ("\\u00e9", ["é", "\\u00e9"]),
    ("\\u00E9", ["é"]),

    ("\\U0001F600", ["\U0001F600"]),

    ("\\U0000004a", ["J"]),
]
# Malformed or out of range: each piece drawn from these with probability 1/25.
BAD_PIECES = [
    ("\\x4", ["\\x4", "x4"]),
    ("\\xg1", ["xg1"]),
    ("\\u12", ["\\u12"]),
    ("\\U00110000", ["?"]),
    ("\\ud800", ["?"]),
]
# Only in regexes (a string ends at a plain `"`).
REGEX_PIECES = [
    ('"', ['"']),
    ("\\\\\"", ['"', '\\"']),
    ("[ab]", ["a", "b"]),
    ("+", ["", "a"]),
    (" #c\\n", ["", " #c\n"]),
]


def literal(rng, pieces):
    chosen = [
        rng.choice(BAD_PIECES if rng.random() < 0.04 else pieces) for _ in range(rng.randint(1, 4))
    ]
    source = "".join(p for p, _ in chosen)
    samples = {""}
    for _, meanings in chosen:
        samples = {s + m for s in samples for m in meanings}
        if len(samples) > 8:
            samples = set(rng.sample(sorted(samples), 8))
    return source, sorted(samples)


def edits(texts):
    out = set(texts)
    for t in texts:
        if t:
            out.add(t[:-1])
            out.add(t + "a")
            out.add(t.upper())
    return sorted(s for s in out if not any(0xD800 <= ord(c) <= 0xDFFF for c in s))


def read(grammar, samples):
    try:
        parser = lark.Lark(grammar, parser="lalr", lexer="basic")
    except Exception as e:  # Lark's GrammarError, re.error, AssertionError, ...
        return {"error": type(e).__name__, "zero_width": "zero-width" in str(e)}
    terminals = [t for t in parser.terminals if t.name not in ("$END",)]
    if len(terminals) != 1:
        return {"error": "terminals: %d" % len(terminals)}
    regexp = terminals[0].pattern.to_regexp()
    try:
        compiled = re.compile(regexp)
    except re.error as e:
        return {"error": "re.error"}
    return {"samples": [[s, compiled.fullmatch(s) is not None] for s in samples]}


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 250
    rng = random.Random(22)
    cases = []
    for _ in range(count):
        source, meanings = literal(rng, PIECES)
        flag = rng.choice(["", "", "i"])
        grammar = 'start: "%s"%s\n' % (source, flag)
        cases.append(dict(grammar=grammar, **read(grammar, edits(meanings))))
    for _ in range(count):
        source, meanings = literal(rng, PIECES + REGEX_PIECES)
        flag = rng.choice(["", "", "i", "x", "s"])
        grammar = "start: /%s/%s\n" % (source, flag)
        cases.append(dict(grammar=grammar, **read(grammar, edits(meanings))))
    ends = [p for p in PIECES if len(p[1][0]) == 1] + [("^", ["^"]), ("]", ["]"]), ("-", ["-"]), ("[", ["["])]
    for _ in range(count // 4):
        (lo, lo_m), (hi, hi_m) = rng.choice(ends), rng.choice(ends)
        grammar = 'start: "%s".."%s"\n' % (lo, hi)
        probes = ["a", "z", "A", "-", "]", "^", "é", "0", "\\", '"', "ab", "]]", "a]"] + lo_m + hi_m
        cases.append(dict(grammar=grammar, **read(grammar, edits(probes))))
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lark", "literals.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"lark": lark.__version__, "cases": cases}, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    errors = sum("error" in c for c in cases)
    print("%d cases (%d refused by Lark) -> %s" % (len(cases), errors, out))


if __name__ == "__main__":
    main()
