"""Runs the campaign: each command under ulimit -v 3000000 and timeout 10 (wall), with
/usr/bin/time for CPU and max RSS; mutated automaton files made first (checksum left as is
for half, recomputed by nothing: the loader's checks are what is exercised)."""
import json, os, random, subprocess, time
R = random.Random(27)
OUT = os.environ.get("CAMPAIGN_DIR", "/tmp/fstc-campaign")
W = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
F = f"{W}/target/release/fstc"
V = f"{W}/testdata/gpt2/encoder.json"
for k, pat in enumerate([r"[a-z]+@[a-z]+\.com", r"\d{3}-\d{4}"]):
    subprocess.run([F, "compile", "regex", pat, "--vocab", V, "-o", f"{OUT}/base{k}.fstc"], check=True)
cmds = json.load(open(f"{OUT}/cmds.json"))
rows = []
for i, c in enumerate(cmds):
    kind, args = c[0], c[1]
    if len(c) == 3:
        _, src, n = args
        data = bytearray(open(src, "rb").read())
        for _ in range(R.randint(1, 6)):
            j = R.randrange(len(data))
            data[j] = R.choice([0, 0xFF, 0x7F, R.randrange(256)])
        path = f"{OUT}/file{n}.fstc"
        open(path, "wb").write(data)
        args = [a.replace("{0}", path) for a in c[2]]
    shell = "ulimit -v 3000000; exec /usr/bin/time -f 'TIME %U %S %e %M' timeout 10 " + " ".join(
        "'" + a.replace("'", "'\\''") + "'" for a in args)
    t0 = time.time()
    p = subprocess.run(["bash", "-c", shell], capture_output=True)
    err = p.stderr.decode("utf-8", "replace")
    tl = [l for l in err.splitlines() if l.startswith("TIME ")]
    u, s, e, m = (tl[-1].split()[1:] if tl else ["0", "0", "0", "0"])
    msg = [l for l in err.splitlines() if not l.startswith("TIME ") and "Command exited" not in l and "Command terminated" not in l]
    rows.append({"i": i, "kind": kind, "rc": p.returncode, "cpu": float(u) + float(s), "wall": float(e),
                 "rss_mb": int(m) / 1024, "panic": "panicked" in err, "msg": (msg[0] if msg else "")[:160]})
    print(i, kind, p.returncode, rows[-1]["cpu"], rows[-1]["wall"], int(rows[-1]["rss_mb"]), rows[-1]["msg"][:80], flush=True)
json.dump(rows, open(f"{OUT}/results.json", "w"))
