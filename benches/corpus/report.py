"""The Markdown summary of a corpus run (run.py's rows: one per schema and engine)."""

import platform
from collections import defaultdict

from run import pct

STATUSES = ["compiled", "refused", "timeout", "oom", "crashed"]


def ms(v):
    if v is None:
        return "–"
    return f"{v * 1e3:.0f} µs" if v < 1 else f"{v:.1f} ms" if v < 1000 else f"{v / 1e3:.1f} s"


def us(v):
    if v is None:
        return "–"
    return f"{v:.1f} µs" if v < 1000 else f"{v / 1e3:.2f} ms"


def mib(kb):
    return f"{kb / 1024:.0f} MiB"


def engine_lines(rows, engines):
    """The per-engine table: counts, time to first mask, masks, instances, memory."""
    by = defaultdict(list)
    for r in rows:
        by[r["engine"]].append(r)
    table = [["", *engines]]
    counts, ttfm, cpu, masks, masks_cpu, walks, mem = [], [], [], [], [], [], []
    for e in engines:
        rs = by[e]
        n = {s: sum(r["status"] == s for r in rs) for s in STATUSES}
        counts.append(" / ".join(str(n[s]) for s in STATUSES))
        t = [r["ms"] for r in rs if r["status"] == "compiled"]
        ttfm.append(" / ".join(ms(pct(t, q)) for q in (50, 90, 99)) + f" / {ms(max(t) if t else None)}")
        c = [r["cpu_ms"] for r in rs if r["status"] == "compiled"]
        cpu.append(" / ".join(ms(pct(c, q)) for q in (50, 90, 99)) + f" / {ms(max(c) if c else None)}")
        m = [x / 1e3 for r in rs for x in r.get("masks", [])]
        masks.append(" / ".join(us(pct(m, q)) for q in (50, 99)) + f" / {us(max(m) if m else None)} ({len(m)})")
        m = [x / 1e3 for r in rs for x in r.get("masks_cpu", [])]
        masks_cpu.append(" / ".join(us(pct(m, q)) for q in (50, 90, 99, 99.9)) + f" / {us(max(m) if m else None)}")
        outcomes = [x for r in rs for x in r.get("rejected", [])]
        cut = sum(1 for r in rs if r.get("walk"))
        walks.append(f"{sum(x is None for x in outcomes)} / {len(outcomes)}" + (f" ({cut} cut by a limit)" if cut else ""))
        grow = [max(0, r["peak_kb"] - r["base_kb"]) for r in rs if r.get("base_kb")]
        peaks = [r["peak_kb"] for r in rs if r.get("peak_kb")]
        mem.append(f"{mib(pct(grow, 50) or 0)} / {mib(max(grow) if grow else 0)} / {mib(max(peaks) if peaks else 0)}")
    table.append(["compiled / refused / timed out / out of memory / crashed", *counts])
    table.append(["time to first mask p50 / p90 / p99 / max (compiled schemas), wall", *ttfm])
    table.append(["the same in the worker's CPU time", *cpu])
    table.append(["mask p50 / p99 / max along valid instances, Python call included (masks)", *masks])
    table.append(["the same in the calling thread's CPU time p50 / p90 / p99 / p99.9 / max", *masks_cpu])
    table.append(["instances accepted / walked", *walks])
    table.append(["memory above the preloaded worker p50 / max; worker peak RSS max", *mem])
    return table


def ratio_lines(rows, engines, key, clock, peer="llguidance"):
    """Per schema, each fstc mode's time to first mask over the peer's, on schemas both compile."""
    ttfm = defaultdict(dict)
    for r in rows:
        if r["status"] == "compiled":
            ttfm[r["schema"]][r["engine"]] = max(r[key], 0.01)  # CPU time ticks can read 0
    lines = []
    for e in engines:
        if not e.startswith("fstc") or peer not in engines:
            continue
        ratios = [t[e] / t[peer] for t in ttfm.values() if e in t and peer in t]
        if ratios:
            faster = sum(x < 1 for x in ratios)
            lines.append(f"- {e} / {peer}, time to first mask ({clock}) per schema, on the {len(ratios)} schemas "
                         f"both compile: p50 {pct(ratios, 50):.1f}×, p90 {pct(ratios, 90):.1f}×, "
                         f"max {max(ratios):.0f}×; {e} faster on {faster}.")
    return lines


def by_kind_lines(rows, manifest, engines):
    kind = {m["id"]: m["kind"] for m in manifest}
    table = [["kind (schemas)", *engines]]
    for k in sorted(set(kind.values())):
        n = sum(1 for v in kind.values() if v == k)
        cells = []
        for e in engines:
            rs = [r for r in rows if r["engine"] == e and kind[r["schema"]] == k]
            t = [r["ms"] for r in rs if r["status"] == "compiled"]
            cells.append(f"{len(t)} compiled, p50 {ms(pct(t, 50))}, max {ms(max(t) if t else None)}")
        table.append([f"{k} ({n})", *cells])
    return table


def markdown(table):
    out = ["| " + " | ".join(table[0]) + " |", "|" + "---|" * len(table[0])]
    out += ["| " + " | ".join(row) + " |" for row in table[1:]]
    return "\n".join(out)


def summary(rows, manifest, args, tokenizer, started, load_before, load_after):
    engines = args.engines.split(",")
    lines = [
        f"Corpus run of {started}: {len(manifest)} schemas, vocabulary `{tokenizer}`, "
        f"{args.timeout:g} s of CPU time ({args.timeout * args.wall_factor:g} s wall) and "
        f"{args.memory_gib:g} GiB per schema and engine, RAYON_NUM_THREADS="
        f"{args.threads or 'default'}, up to {args.instances} instances walked per schema; "
        f"{platform.node()} load average {load_before[0]:.1f} at the start, {load_after[0]:.1f} at the end.",
        "",
        markdown(engine_lines(rows, engines)),
        "",
        *ratio_lines(rows, engines, "ms", "wall"),
        *ratio_lines(rows, engines, "cpu_ms", "CPU"),
        "",
        "Time to first mask by kind of schema:",
        "",
        markdown(by_kind_lines(rows, manifest, engines)),
        "",
    ]
    return "\n".join(lines)
