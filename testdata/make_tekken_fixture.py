#!/usr/bin/env python3
"""Writes testdata/tekken/: a small tekken.json and mistral-common's own reading of it.

    python3 testdata/make_tekken_fixture.py        # in an environment with mistral-common

Made from `mistral_common/data/tekken_240911.json` of mistral-common 1.13.1 (the version this
was run with; it is recorded in expected.json): its pattern and the first 700 entries of its
vocabulary (the 256 single bytes and the first merges, so the ranks stay a valid byte-pair
encoding). The real file (format v3) has no `special_tokens`; the fixture has a list as later
formats do: the 20 names mistral-common gives v3 files, "[IMG]" marked not a control token,
then two more, and `default_num_special_tokens` = 24 so mistral-common adds two fillers
(`<SPECIAL_22>`, `<SPECIAL_23>`). `default_vocab_size` = 24 + 600, so the last 100 entries are
cut by the reader, as the real file's last 18,928 are.

tekken/expected.json is `tekken_dump.py` on the fixture (bytes per id, specials, EOS,
tokenizations of its texts), which detok's tests compare with.
"""
import json
import os
import sys
from importlib.metadata import version
from pathlib import Path

import mistral_common
from mistral_common.tokens.tokenizers.tekken import Tekkenizer

sys.path.insert(0, os.path.dirname(__file__))
from tekken_dump import dump  # noqa: E402

KEPT = 700
NUM_SPECIAL = 24
VOCAB_SIZE = NUM_SPECIAL + 600
NOT_CONTROL = "[IMG]"
MORE = ["[ARGS]", "[CALL_ID]"]


def main() -> None:
    src = Path(mistral_common.__file__).parent / "data" / "tekken_240911.json"
    real = json.loads(src.read_text(encoding="utf-8"))
    config = dict(real["config"])
    config.update(
        num_vocab_tokens=KEPT,
        default_vocab_size=VOCAB_SIZE,
        default_num_special_tokens=NUM_SPECIAL,
        version="v7",
    )
    names = [t["token_str"] for t in Tekkenizer.DEPRECATED_SPECIAL_TOKENS] + MORE
    specials = [
        {"rank": i, "token_str": name, "is_control": name != NOT_CONTROL}
        for i, name in enumerate(names)
    ]
    fixture = {
        "config": config,
        "vocab": real["vocab"][:KEPT],
        "special_tokens": specials,
    }
    out = Path(__file__).parent / "tekken"
    out.mkdir(exist_ok=True)
    (out / "tekken.json").write_text(json.dumps(fixture, indent=1) + "\n", encoding="utf-8")
    expected = dump(str(out / "tekken.json"))
    expected["made_from"] = f"{src.name} of mistral-common {version('mistral-common')}"
    (out / "expected.json").write_text(
        json.dumps(expected, ensure_ascii=False, indent=0) + "\n", encoding="utf-8"
    )


if __name__ == "__main__":
    main()
