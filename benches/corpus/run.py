#!/usr/bin/env python3
"""Runs fstc (eager and per request), llguidance and outlines-core over the whole corpus.

Each engine lives in its own worker process (this file with --worker), holding its vocabulary
preloaded (fstc's vocabulary trie, llguidance's tokenizer, outlines-core's Vocabulary, each built
and warmed by one compile before any schema is timed). The parent hands the workers one schema
at a time, engine after engine on the same schema, and enforces the same limits on all: a
schema's compile + first mask + walks must end within --timeout seconds of the worker's CPU time
(and --wall-factor times that of wall time) and the worker's resident memory stay under --memory-gib, or the worker is killed (timed out / out of memory) and started
again. Every engine writes compact JSON (no whitespace, "," and ":" separators): fstc
`whitespace="compact"`, llguidance `whitespace_flexible=False, item_separator=",",
key_separator=":"`, outlines-core `whitespace_pattern=""`; each engine's other options are its
defaults. Writes <out>/results.csv (a row per schema and engine) and <out>/summary.md.

    benches/corpus/.venv/bin/python benches/corpus/run.py --vocab llama3 --out benches/corpus/out/llama3
"""

import argparse
import csv
import json
import os
import resource
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ENGINES = ["fstc-eager", "fstc-lazy", "llguidance", "outlines-core"]
WARMUP_SCHEMA = '{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}'


# --- worker side -----------------------------------------------------------------------------

class Fstc:
    def __init__(self, tokenizer, lazy):
        import fstc
        self.fstc, self.lazy = fstc, lazy
        self.vocab = fstc.Vocabulary.from_file(tokenizer)
        self.eos = self.vocab.eos_ids
        self.size = len(self.vocab)

    def compile(self, text):
        automaton, _warnings = self.fstc.compile_json_schema(
            text, self.vocab, lazy=self.lazy, whitespace="compact")
        return self.fstc.Matcher(automaton)

    def fill(self, m, bitmask):
        m.fill_bitmask(bitmask, 0)

    def consume(self, m, token):
        return m.accept_token(token)

    def reset(self, m):
        m.reset()


class Llguidance:
    OPTIONS = {"whitespace_flexible": False, "item_separator": ",", "key_separator": ":"}

    def __init__(self, tokenizer, eos):
        import llguidance
        import llguidance.numpy
        self.llg = llguidance
        self.tok = llguidance.LLTokenizer(tokenizer, eos_token=eos)
        self.eos, self.size = eos, self.tok.vocab_size

    def compile(self, text):
        grammar = self.llg.LLMatcher.grammar_from_json_schema(text, defaults=self.OPTIONS)
        m = self.llg.LLMatcher(self.tok, grammar, log_level=0)
        if m.is_error():
            raise ValueError(m.get_error())
        return m

    def fill(self, m, bitmask):
        self.llg.numpy.fill_next_token_bitmask(m, bitmask, 0)
        if m.is_error():
            raise ValueError(m.get_error())

    def consume(self, m, token):
        return m.consume_token(token) and not m.is_error()

    def reset(self, m):
        m.reset()


class Outlines:
    def __init__(self, tokenizer, vocab_of_fstc):
        import outlines_core
        self.oc = outlines_core
        v = vocab_of_fstc
        self.eos, self.size = v.eos_ids, len(v)
        tokens = {}
        for i in range(len(v)):
            b = v.token_bytes(i)
            if b is not None and i not in self.eos:
                tokens.setdefault(b, []).append(i)
        self.vocab = outlines_core.Vocabulary(self.eos[0], tokens)

    def compile(self, text):
        regex = self.oc.json_schema.build_regex_from_schema(text, whitespace_pattern="")
        return self.oc.Guide(self.oc.Index(regex, self.vocab))

    def fill(self, g, bitmask):
        g.write_mask_into(bitmask.ctypes.data, bitmask.size, 4)

    def consume(self, g, token):
        try:
            g.advance(token)
            return True
        except Exception:
            return False

    def reset(self, g):
        g.reset()


def make_engine(name, tokenizer):
    import fstc
    if name.startswith("fstc"):
        return Fstc(tokenizer, lazy=name == "fstc-lazy")
    vocab = fstc.Vocabulary.from_file(tokenizer)  # the EOS every engine is given
    if name == "llguidance":
        return Llguidance(tokenizer, vocab.eos_ids)
    return Outlines(tokenizer, vocab)


def rss_kb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1])
    return 0


def allowed(bitmask, token):
    return (int(bitmask[0, token >> 5]) >> (token & 31)) & 1 == 1


def walk(engine, m, bitmask, tokens):
    """Masks along one instance (then EOS): (mask wall times ns, mask CPU times ns of the calling
    thread, None or the step rejected). CPU time is what a loaded machine does not inflate."""
    engine.reset(m)
    times, cpu, clock, cpu_clock = [], [], time.perf_counter_ns, time.thread_time_ns
    for step, token in enumerate(tokens + [None]):
        t0, c0 = clock(), cpu_clock()
        engine.fill(m, bitmask)
        times.append(clock() - t0)
        cpu.append(cpu_clock() - c0)
        if token is None:
            return times, cpu, None if any(allowed(bitmask, e) for e in engine.eos) else step
        if not allowed(bitmask, token) or not engine.consume(m, token):
            return times, cpu, step
    return times, cpu, None


def job(engine, bitmask, request, send):
    text = Path(request["schema"]).read_text()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # VmHWM restarts from the current resident size
    base = rss_kb("VmRSS")
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        m = engine.compile(text)
        engine.fill(m, bitmask)
    except Exception as e:  # the engine's refusal: its own error type and message
        send({"status": "refused", "error": f"{type(e).__name__}: {e}"[:400],
              "ms": (time.perf_counter() - t0) * 1e3, "cpu_ms": (time.process_time() - c0) * 1e3,
              "base_kb": base, "peak_kb": rss_kb("VmHWM")})
        return
    ttfm, cpu = (time.perf_counter() - t0) * 1e3, (time.process_time() - c0) * 1e3
    send({"status": "compiled", "ms": ttfm, "cpu_ms": cpu})
    masks, masks_cpu, outcomes = [], [], []
    for tokens in request["instances"]:
        try:
            times, cpu, rejected = walk(engine, m, bitmask, tokens)
        except Exception as e:
            times, cpu, rejected = [], [], f"{type(e).__name__}: {e}"[:200]
        masks += times
        masks_cpu += cpu
        outcomes.append(rejected)
    send({"status": "done", "masks": masks, "masks_cpu": masks_cpu, "rejected": outcomes,
          "base_kb": base, "peak_kb": rss_kb("VmHWM")})


def worker(name, tokenizer):
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything an engine prints goes to stderr, not into the protocol

    def send(msg):
        out.write(json.dumps(msg) + "\n")

    engine = make_engine(name, tokenizer)
    import numpy as np
    bitmask = np.zeros((1, (engine.size + 31) // 32), dtype=np.int32)
    engine.fill(engine.compile(WARMUP_SCHEMA), bitmask)
    send({"status": "ready", "rss_kb": rss_kb("VmRSS")})
    for line in sys.stdin:
        job(engine, bitmask, json.loads(line), send)


# --- parent side -----------------------------------------------------------------------------

class Worker:
    """One engine's worker process; killed and restarted after a timeout or a memory overrun."""

    def __init__(self, name, tokenizer, args, log):
        self.name, self.tokenizer, self.args, self.log = name, tokenizer, args, log
        self.proc = None

    def start(self):
        limit = int(self.args.memory_gib * 2**30)

        def limits():  # a backstop: the parent's resident-size check ends a runaway first
            resource.setrlimit(resource.RLIMIT_AS, (limit + 8 * 2**30, limit + 8 * 2**30))

        env = dict(os.environ)
        if self.args.threads:
            env["RAYON_NUM_THREADS"] = str(self.args.threads)
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", self.name, "--tokenizer", self.tokenizer],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
            preexec_fn=limits, env=env)
        self.buf = b""  # bytes read from the worker past its last whole message
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)
        ready = self.read(600, float("inf"))
        if ready.get("status") != "ready":
            raise RuntimeError(f"{self.name} worker did not start: {ready}")

    def rss(self):
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                return next((int(l.split()[1]) for l in f if l.startswith("VmRSS")), 0)
        except OSError:
            return 0

    def cpu_seconds(self):
        try:
            with open(f"/proc/{self.proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            return 0.0

    def read(self, seconds, limit_kb, watch=None):
        """The worker's next message, or {"status": "timeout"|"oom"|"crashed"}: timed out when
        the worker spent `seconds` of CPU time on the request, or `--wall-factor` times that in
        wall time (so a loaded machine does not turn slow compiles into time-outs)."""
        deadline = time.monotonic() + seconds * self.args.wall_factor
        cpu_deadline = self.cpu_seconds() + seconds
        while True:
            rss = self.rss()
            if watch is not None:
                watch["peak_kb"] = max(watch.get("peak_kb", 0), rss)
            if rss > limit_kb:
                return self.kill("oom", f"resident {rss // 1024} MiB")
            left = deadline - time.monotonic()
            if self.cpu_seconds() > cpu_deadline:
                return self.kill("timeout", "CPU time limit")
            if left <= 0:
                return self.kill("timeout", "wall time backstop")
            if b"\n" in self.buf or self.sel.select(timeout=min(left, 0.01)):
                if b"\n" not in self.buf:
                    chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
                    if not chunk:
                        rc = self.proc.wait()
                        self.proc = None
                        return {"status": "crashed", "error": f"worker exit status {rc}"}
                    self.buf += chunk
                    continue
                line, _, self.buf = self.buf.partition(b"\n")
                return json.loads(line)

    def kill(self, status, why):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.proc = None
        return {"status": status, "error": why}

    def run(self, schema, instances):
        """One schema: status, time to first mask, mask times, instance outcomes, memory."""
        if self.proc is None:
            self.start()
        request = {"schema": str(schema), "instances": instances}
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()
        limit_kb = self.args.memory_gib * 2**20
        start, watch = self.cpu_seconds(), {}
        first = self.read(self.args.timeout, limit_kb, watch)
        result = dict(first)
        if first["status"] == "compiled":
            left = self.args.timeout - (self.cpu_seconds() - start)
            done = self.read(max(left, 0), limit_kb, watch)
            if done["status"] == "done":
                result.update({k: v for k, v in done.items() if k != "status"})
            else:
                result["walk"] = done["status"]  # compiled, but its walks passed a limit
        result.setdefault("peak_kb", watch.get("peak_kb", 0))
        return result

    def stop(self):
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait()


def pct(values, q):
    """The nearest-rank percentile q (0..100) of values."""
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q / 100 * len(s) + 0.5)) - 1))]


def tokenized(tokenizer, ids, per_schema):
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(tokenizer)
    out = {}
    for sid in ids:
        path = HERE / "instances" / f"{sid}.json"
        texts = [i["text"] for i in json.loads(path.read_text())] if path.exists() else []
        out[sid] = [tok.encode(t, add_special_tokens=False).ids for t in texts[:per_schema]]
    return out


def tokenizer_path(name):
    for base in (HERE.parents[2] / "shared" / "vocabs", HERE.parent / "vocabs"):
        if (base / name / "tokenizer.json").exists():
            return str(base / name / "tokenizer.json")
    if Path(name).is_file():
        return name
    sys.exit(f"no tokenizer.json for {name}")


def run_all(args, out):
    shard, shards = map(int, args.shard.split("/"))
    manifest = [e for n, e in enumerate(json.loads((HERE / "manifest.json").read_text()))
                if (not args.only or any(o in e["id"] for o in args.only.split(",")))
                and n % shards == shard]
    tokenizer = tokenizer_path(args.vocab)
    instances = tokenized(tokenizer, [e["id"] for e in manifest], args.instances)
    engines = args.engines.split(",")
    logs = {e: open(out / f"{e}.stderr", "w") for e in engines}
    workers = {e: Worker(e, tokenizer, args, logs[e]) for e in engines}
    rows = []
    raw = open(out / "rows.jsonl", "w")  # every measurement, for --summarize over shards
    with open(out / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["schema", "bytes", "lines", "engine", "status", "ttfm_ms", "ttfm_cpu_ms", "walk", "masks",
                    "mask_p50_us", "mask_p99_us", "mask_max_us", "mask_cpu_p99_us", "mask_cpu_max_us", "instances", "accepted",
                    "rejected_at", "base_rss_mb", "peak_rss_mb", "error"])
        for n, entry in enumerate(manifest):
            schema = HERE / "schemas" / f"{entry['id']}.json"
            for e in engines:
                r = workers[e].run(schema, instances[entry["id"]])
                r.update(schema=entry["id"], engine=e)
                rows.append(r)
                w.writerow(csv_row(entry, r))
                f.flush()
                raw.write(json.dumps(r) + "\n")
                raw.flush()
                print(f"[{n + 1}/{len(manifest)}] {entry['id']} {e}: {r['status']} "
                      f"{r.get('ms', 0):.1f} ms ({r.get('cpu_ms', 0):.1f} ms CPU) {r.get('walk', '')}", file=sys.stderr)
    for wk in workers.values():
        wk.stop()
    return rows, manifest, tokenizer


def csv_row(entry, r):
    masks = [t / 1e3 for t in r.get("masks", [])]
    masks_cpu = [t / 1e3 for t in r.get("masks_cpu", [])]
    rejected = [x for x in r.get("rejected", []) if x is not None]
    fmt = lambda v: "" if v is None else f"{v:.3f}"
    return [entry["id"], entry["bytes"], entry["lines"], r["engine"], r["status"],
            fmt(r.get("ms")) if r["status"] in ("compiled", "refused") else "",
            fmt(r.get("cpu_ms")) if r["status"] in ("compiled", "refused") else "", r.get("walk", ""), len(masks), fmt(pct(masks, 50)), fmt(pct(masks, 99)),
            fmt(max(masks) if masks else None), fmt(pct(masks_cpu, 99)),
            fmt(max(masks_cpu) if masks_cpu else None), len(r.get("rejected", [])),
            len(r.get("rejected", [])) - len(rejected), ";".join(map(str, rejected)),
            fmt(r.get("base_kb", 0) / 1024), fmt(r.get("peak_kb", 0) / 1024),
            r.get("error", "").replace("\n", " ")]


def summarize(args):
    """One summary over several runs (shards of one corpus run, same options)."""
    rows = [json.loads(line) for d in args.summarize for line in open(Path(d) / "rows.jsonl")]
    ids = {r["schema"] for r in rows}
    manifest = [e for e in json.loads((HERE / "manifest.json").read_text()) if e["id"] in ids]
    engines = list(dict.fromkeys(r["engine"] for r in rows))
    args.engines = ",".join(engines)
    meta = [json.loads((Path(d) / "meta.json").read_text()) for d in args.summarize]
    from report import summary
    text = summary(rows, manifest, args, meta[0]["tokenizer"], min(m["started"] for m in meta),
                   max((m["load_before"] for m in meta), key=lambda l: l[0]),
                   max((m["load_after"] for m in meta), key=lambda l: l[0]))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.md").write_text(text)
    print(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--tokenizer", help=argparse.SUPPRESS)
    ap.add_argument("--vocab", default="llama3", help="a folder name in ../shared/vocabs, or a tokenizer.json")
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="CPU seconds per schema and engine (compile, first mask, walks)")
    ap.add_argument("--wall-factor", type=float, default=4.0,
                    help="a request also times out after this many times --timeout in wall time")
    ap.add_argument("--memory-gib", type=float, default=8.0, help="resident memory per worker")
    ap.add_argument("--threads", type=int, default=1,
                    help="RAYON_NUM_THREADS for the workers (0: the library's default)")
    ap.add_argument("--instances", type=int, default=3, help="instances walked per schema")
    ap.add_argument("--only", help="comma-separated substrings of schema ids to keep")
    ap.add_argument("--shard", default="0/1", help="K/N: only the schemas whose index is K modulo N")
    ap.add_argument("--out", required=False, help="output folder")
    ap.add_argument("--summarize", nargs="+", metavar="DIR",
                    help="write the summary of these runs' rows.jsonl together (shards) to --out")
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker, args.tokenizer)
    if args.summarize:
        return summarize(args)
    out = Path(args.out or HERE / "out" / args.vocab)
    out.mkdir(parents=True, exist_ok=True)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load = os.getloadavg()
    rows, manifest, tokenizer = run_all(args, out)
    (out / "meta.json").write_text(json.dumps({"tokenizer": tokenizer, "started": started,
                                               "load_before": load, "load_after": os.getloadavg(),
                                               "argv": sys.argv}))
    from report import summary
    text = summary(rows, manifest, args, tokenizer, started, load, os.getloadavg())
    (out / "summary.md").write_text(text)
    print(text)


if __name__ == "__main__":
    sys.exit(main())
