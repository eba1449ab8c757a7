"""The Python examples of README.md and docs/python.md run as written and print what they show."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import REPO

# Each page and how many examples it has: a ```python block followed by the ```text block of its output.
PAGES = {"README.md": 1, "docs/python.md": 4}


@pytest.mark.parametrize("page", sorted(PAGES))
def test_python_examples_run_as_written(page):
    text = (REPO / page).read_text()
    pairs = re.findall(r"```python\n(.*?)```\s*```text\n(.*?)```", text, re.S)
    assert len(pairs) == PAGES[page], f"{page}: each ```python block is followed by a ```text block"
    assert len(pairs) == text.count("```python\n"), f"{page}: a ```python block without its output"
    for code, shown in pairs:
        run = subprocess.run(
            [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300
        )
        assert run.returncode == 0, run.stderr
        assert run.stdout == shown
