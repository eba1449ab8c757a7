"""Writes testdata/openfst/*.fst with Pynini (pip install pynini), for fst-core's
`ops_openfst` tests: acceptors that OpenFst itself wrote, read by `fstc compile fst`.

    python3 testdata/make_pynini_fixture.py

date.fst: `[0-9]{4}-[0-9]{2}-[0-9]{2}` in Pynini's byte mode (labels are byte values).
words.fst: `(é|中文)+x` in Pynini's utf8 mode (labels are code points).
Both optimized (epsilon-free, determinized, minimized), as Pynini users write them.
"""
import os

import pynini

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "openfst")
os.makedirs(here, exist_ok=True)

digit = pynini.union(*"0123456789")
date = digit**4 + "-" + digit**2 + "-" + digit**2
date.optimize()
date.write(os.path.join(here, "date.fst"))

word = pynini.union(pynini.accep("é", token_type="utf8"), pynini.accep("中文", token_type="utf8"))
words = pynini.closure(word, 1) + pynini.accep("x", token_type="utf8")
words.optimize()
words.write(os.path.join(here, "words.fst"))
