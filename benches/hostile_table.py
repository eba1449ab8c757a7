"""Issue 27's table rerun: every hostile input of the issue, through the `fstc` command and
through the Python package, each in its own process; prints one markdown row per input with
its outcome (the exit code, or the Python exception's type), the first line of the message,
CPU and wall seconds and peak RSS, and exits 1 unless every row ends as documented within
the limits (default 10 s of wall time and 1 GiB).

    cargo build --release -p fstc
    pip install ./python                      # the release extension, into PYTHON's environment
    python3 benches/hostile_table.py [--fstc target/release/fstc] [--python python3]
                                     [--vocab testdata/gpt2/encoder.json] [--seconds 10] [--mib 1024]

Outcomes as documented (docs/cli.md, docs/python.md): the CLI exits 0 with a result or 2 with
a message starting `error:`; Python returns or raises `fstc.FstcError` (a `ValueError`)
naming the argument or the construct. A signal, a panic, a timeout or any other exit code
or exception fails the row.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python" / "tests"))
from forge import forged  # noqa: E402

ALIASES = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(5000)}
ALIASES["d5000"] = {"type": "integer"}
ALIAS_CHAIN = json.dumps({"$ref": "#/$defs/d0", "$defs": ALIASES})
ONE_PROPERTY = '{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}'
ITEMS_REF = '{"items": {"$ref": "#"}, "minItems": 1}'
LITERAL = 'root ::= "' + "ab" * 15000 + '"\n'
CHAIN = "root ::= r0\n" + "".join(f'r{i} ::= "a" r{i + 1}\n' for i in range(20000)) + 'r20000 ::= "b"\n'
ALTERNATIVES = "root ::= " + " | ".join(f'"w{i}"' for i in range(20000)) + "\n"

# (row, the CLI's arguments after `fstc` with {V} the vocabulary, {O} an output file and
# {F} a file holding `text`; the file's text; the exit code documented for it)
CLI_ROWS = [
    ("5,000 `$ref` aliases", ["compile", "json-schema", "{F}"], ALIAS_CHAIN, 2),
    ("`--any-json-depth 8`", ["compile", "json-schema", "--any-json", "--any-json-depth", "8"], None, 2),
    ("`--any-json-depth 100000`", ["compile", "json-schema", "--any-json", "--any-json-depth", "100000"], None, 2),
    ("`--indent 1000000`", ["compile", "json-schema", "{F}", "--whitespace", "pretty", "--indent", "1000000"],
     ONE_PROPERTY, 2),
    ("`--indent 2^32`", ["compile", "json-schema", "{F}", "--whitespace", "pretty", "--indent", str(2**32)],
     ONE_PROPERTY, 2),
    ("`items: $ref #` `--recursion-depth 300`", ["compile", "json-schema", "{F}", "--recursion-depth", "300"],
     ITEMS_REF, 2),
    ("GBNF 30,000-character literal", ["compile", "grammar", "{F}"], LITERAL, 0),
    ("GBNF chain of 20,000 rules", ["compile", "grammar", "{F}"], CHAIN, 0),
    ("GBNF 20,000 alternatives", ["compile", "grammar", "{F}"], ALTERNATIVES, 0),
    ("`\\w{0,10000}` `--dfa-state-limit 10000000`",
     ["compile", "regex", r"\w{0,10000}", "--dfa-state-limit", "10000000"], None, 2),
    ("header claiming 2^31 tokens: `info`", ["info", "{FORGED}"], None, 2),
    ("header claiming 2^31 tokens: `sample -n 3 --max-tokens 30`",
     ["sample", "{FORGED}", "-n", "3", "--max-tokens", "30"], None, 2),
]

# The Python rows: (row, code run after PRELUDE, "result" or the exception's type documented).
PRELUDE = """
import json, sys, threading, fstc
V = fstc.Vocabulary.from_file(sys.argv[1])
FORGED = open(sys.argv[2], "rb").read()
digits = fstc.compile_regex("[0-9]{1,6}", V)
lazy_digits = fstc.compile_regex("[0-9]{1,6}(,[0-9]{1,6})*", V, lazy=True)
"""
THREADS = """
m = fstc.Matcher(lazy_digits)
one = V.tokenize("1")[0]
rows = fstc.allocate_token_bitmask(4, lazy_digits.vocab_size)
errors = []
def work(k):
    try:
        for _ in range(200):
            m.fill_bitmask(rows, k)
            if m.accept_tokens([one]):
                m.rollback(1)
            m.validate_tokens([one, one])
    except Exception as e:
        errors.append(e)
threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
[t.start() for t in threads]
[t.join() for t in threads]
if errors:
    raise errors[0]
"""
PY_ROWS = [
    ("5,000 `$ref` aliases", f"fstc.compile_json_schema({ALIAS_CHAIN!r}, V)", "FstcError"),
    ("`any_json_depth=12` eager", "fstc.compile_json_schema({}, V, any_json_depth=12, lazy=False)", "FstcError"),
    ("`any_json_depth=12` lazy", "fstc.compile_json_schema({}, V, any_json_depth=12, lazy=True)", "result"),
    ("`any_json_depth=100000` lazy", "fstc.compile_json_schema({}, V, any_json_depth=100000, lazy=True)",
     "FstcError"),
    ("`indent=2**40`", f"fstc.compile_json_schema({ONE_PROPERTY!r}, V, whitespace='pretty', indent=2**40)",
     "FstcError"),
    ("`items: $ref #` `recursion_depth=300`", f"fstc.compile_json_schema({ITEMS_REF!r}, V, recursion_depth=300)",
     "FstcError"),
    ("GBNF 30,000-character literal", f"fstc.compile_grammar({LITERAL!r}, V)", "result"),
    ("GBNF chain of 20,000 rules", f"fstc.compile_grammar({CHAIN!r}, V)", "result"),
    ("GBNF 20,000 alternatives", f"fstc.compile_grammar({ALTERNATIVES!r}, V)", "result"),
    ("`\\w{0,10000}` `dfa_state_limit=10**7`", r"fstc.compile_regex(r'\w{0,10000}', V, dfa_state_limit=10**7)",
     "FstcError"),
    ("header claiming 2^31 tokens", "fstc.AnyAutomaton.from_bytes(FORGED).sample(3, max_tokens=30)", "FstcError"),
    ("`rollback(-1)`", "fstc.Matcher(digits).rollback(-1)", "FstcError"),
    ("`fill_bitmask(bm, -1)`",
     "fstc.Matcher(digits).fill_bitmask(fstc.allocate_token_bitmask(1, digits.vocab_size), -1)", "FstcError"),
    ("`accept_tokens([2**64])` (not a token: False)", "assert fstc.Matcher(digits).accept_tokens([2**64]) is False",
     "result"),
    ("`stack_limit=-1`", "fstc.Matcher(digits, stack_limit=-1)", "FstcError"),
    ("`dfa_state_limit=-1`", "fstc.compile_regex('a', V, dfa_state_limit=-1)", "FstcError"),
    ("`token_bytes(-1)`", "V.token_bytes(-1)", "FstcError"),
    ("`detokenize([vocab_size])`", "V.detokenize([len(V)])", "FstcError"),
    ("one lazy matcher from 4 threads", THREADS, "result"),
]

RUN_ROW = """
try:
    exec(compile(open(sys.argv[3]).read(), "row", "exec"))
    print("OUTCOME result")
except Exception as e:
    print("OUTCOME", type(e).__name__, (str(e).splitlines() or [""])[0])
"""


def run(argv, timeout):
    """Runs `argv`, killed after `timeout` s; returns (exit code, -signal or None on a timeout, stdout,
    stderr, CPU s, wall s, peak RSS MiB), the CPU time and peak RSS the child's own from wait4."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(argv, stdout=out, stderr=err)
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                p.kill()
                _, status, usage = os.wait4(p.pid, 0)
                status = None
                break
            time.sleep(0.01)
        p.returncode = 0  # reaped here, not by Popen
        wall = time.monotonic() - start
        code = None if status is None else os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
    cpu = usage.ru_utime + usage.ru_stime
    return code, text[0], text[1], cpu, wall, usage.ru_maxrss / 1024


def verdict(ok, cpu, wall, rss, args):
    if not ok:
        return "FAIL (outcome)"
    if wall > args.seconds:
        return f"FAIL (over {args.seconds:g} s)"
    if rss > args.mib:
        return f"FAIL (over {args.mib} MiB)"
    return "ok"


def cli_rows(args, tmp, forged_path):
    for name, argv, text, expected in CLI_ROWS:
        path = tmp / ("input.gbnf" if argv[:2] == ["compile", "grammar"] else "input.json")
        if text is not None:
            path.write_text(text)
        argv = [a.replace("{F}", str(path)).replace("{FORGED}", str(forged_path)) for a in argv]
        if argv[0] in ("compile", "sample"):
            argv += ["--vocab", args.vocab]
        if argv[0] == "compile":
            argv += ["-o", str(tmp / "out.fstc")]
        code, _, err, cpu, wall, rss = run([args.fstc, *argv], 3 * args.seconds)
        message = (err.strip().splitlines() or [""])[0]
        ok = code == expected and "panicked" not in err and (code == 0 or message.startswith("error:"))
        outcome = "timeout" if code is None else f"exit {code}"
        yield ("CLI", name, outcome, message, cpu, wall, rss, verdict(ok, cpu, wall, rss, args))


def python_rows(args, tmp, forged_path):
    for name, code_text, expected in PY_ROWS:
        # In a file: a row's text (200 KB of schema) is past the limit of one argument.
        (tmp / "row.py").write_text(code_text)
        argv = [args.python, "-c", PRELUDE + RUN_ROW, args.vocab, str(forged_path), str(tmp / "row.py")]
        code, out, err, cpu, wall, rss = run(argv, 3 * args.seconds)
        line = next((ln for ln in out.splitlines() if ln.startswith("OUTCOME ")), "")
        kind, _, message = line[len("OUTCOME "):].partition(" ")
        ok = code == 0 and kind == expected
        outcome = ("timeout" if code is None else f"signal {-code}" if code < 0 else
                   kind or f"exit {code}: {(err.strip().splitlines() or [''])[-1]}")
        yield ("Python", name, outcome, message, cpu, wall, rss, verdict(ok, cpu, wall, rss, args))


def forged_file(args, tmp):
    """A compiled automaton file whose header claims 2^31 tokens, checksum recomputed."""
    path = tmp / "digits.fstc"
    subprocess.run([args.fstc, "compile", "regex", "[0-9]{1,6}", "--vocab", args.vocab, "-o", str(path)],
                   check=True, capture_output=True)
    out = tmp / "forged.fstc"
    out.write_bytes(forged(path.read_bytes(), {6: 2**31}))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fstc", default=str(REPO / "target" / "release" / "fstc"))
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--vocab", default=str(REPO / "testdata" / "gpt2" / "encoder.json"))
    parser.add_argument("--seconds", type=float, default=10.0, help="wall time allowed a row")
    parser.add_argument("--mib", type=float, default=1024.0, help="peak RSS allowed a row")
    parser.add_argument("--only", choices=["cli", "python"], help="one surface's rows")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; vocabulary {args.vocab}\n")
    print("| surface | input | outcome | message | CPU s | wall s | peak MiB | |")
    print("|---|---|---|---|---|---|---|---|")
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        forged_path = forged_file(args, tmp)
        rows = [] if args.only == "python" else list(cli_rows(args, tmp, forged_path))
        rows += [] if args.only == "cli" else list(python_rows(args, tmp, forged_path))
        for row in rows:
            surface, name, outcome, message, cpu, wall, rss, judged = row
            message = re.sub(r"\s+", " ", message.replace("|", "\\|"))[:110]
            print(f"| {surface} | {name} | {outcome} | {message} | {cpu:.2f} | {wall:.2f} | {rss:.0f} | {judged} |",
                  flush=True)
            failed += judged != "ok"
    print(f"\n{failed} row(s) failed" if failed else "\nevery row ended as documented within the limits")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
