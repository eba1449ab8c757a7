"""The README's "Use from Python" examples run as written and print what they show."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import REPO


def test_readme_python_examples_run_as_written():
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Use from Python", 1)[1].split("\n## ", 1)[0]
    # Each ```python block is followed by the ```console block of its output.
    pairs = re.findall(r"```python\n(.*?)```\s*```console\n(.*?)```", section, re.S)
    assert len(pairs) == 2, "expected the main example and the lazy one"
    for code, shown in pairs:
        run = subprocess.run(
            [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300
        )
        assert run.returncode == 0, run.stderr
        assert run.stdout == shown
