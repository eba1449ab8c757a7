"""The README's "Use from Python" example runs as written and prints what it shows."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import REPO


def test_readme_python_example_runs_as_written():
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Use from Python", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    shown = re.search(r"```console\n(.*?)```", section, re.S).group(1)
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == shown
