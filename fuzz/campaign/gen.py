"""Campaign inputs for issue 27 (seed 27): mutated grammars, regexes, JSON Schemas,
automaton files and the issue's table rows; each a shell command line run by run.py (CAMPAIGN_DIR, default /tmp/fstc-campaign)."""
import json, os, random, glob
R = random.Random(27)
W = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
OUT = os.environ.get("CAMPAIGN_DIR", "/tmp/fstc-campaign")
os.makedirs(OUT, exist_ok=True)
V = f"{W}/testdata/gpt2/encoder.json"
PIECES = ['(', ')', '*', '+', '?', '{0,65535}', '{4294967295}', '|', '[', ']', '\\', '"', '\n',
          '(?=a)', '\\b', '\\p{L}', '[\\s\\S]', '\\w{0,300}', '/a+/', '%ignore ', 'x{', '}', ',',
          '{"$ref": "#"}', '"pattern": "\\\\w{0,99}\\\\b"', '"anyOf": [', '"items": ', '0' * 30]
def mutate(text):
    b = list(text)
    for _ in range(R.randint(1, 4)):
        op = R.random()
        i = R.randint(0, len(b))
        if op < 0.3 and b:
            del b[min(i, len(b) - 1)]
        elif op < 0.6:
            b[i:i] = list(R.choice(PIECES))
        elif op < 0.8 and b:
            j = R.randint(0, len(b) - 1); k = min(len(b), j + R.randint(1, 40))
            b[i:i] = b[j:k] * R.randint(2, 50)
        else:
            b[i:i] = list(R.choice(PIECES) * R.randint(50, 3000))
    return "".join(b)
cmds = []
def add(kind, args, files=()):
    n = len(cmds)
    paths = []
    for ext, text in files:
        p = f"{OUT}/in{n}.{ext}"
        open(p, "w" if isinstance(text, str) else "wb").write(text)
        paths.append(p)
    cmds.append((kind, [a.replace("{0}", paths[0]) if paths else a for a in args]))
def fstc(*a): return [f"{W}/target/release/fstc", *a]
gr = sorted((p, "lark" if p.endswith(".lark") else "ebnf" if p.endswith(".ebnf") else "gbnf")
      for p in glob.glob(f"{W}/**/*.gbnf", recursive=True) + glob.glob(f"{W}/**/*.lark", recursive=True)
      + glob.glob(f"{W}/**/*.ebnf", recursive=True) if "/target/" not in p)
for _ in range(130):
    p, syn = R.choice(gr)
    t = mutate(open(p, errors="replace").read())
    add("grammar/" + syn, fstc("compile", "grammar", "{0}", "--syntax", syn, "--vocab", V, "-o", f"{OUT}/o.fstc"), [(syn, t)])
for _ in range(30):  # Lark templates, deep and doubling
    n = R.randint(1, 40)
    arg = '"a"'
    for _ in range(n):
        arg = R.choice(["d{%s}", "t{%s}", "(\"c\" | %s)"]) % arg
    t = f'start: {arg}\nd{{x}}: x x\nt{{x}}: ("b" | "c" x)\n'
    add("grammar/lark-template", fstc("compile", "grammar", "{0}", "--syntax", "lark", "--vocab", V, "-o", f"{OUT}/o.fstc"), [("lark", mutate(t) if R.random() < 0.5 else t)])
rx = [open(p, "rb").read() for p in sorted(glob.glob(f"{W}/fuzz/corpus/regex/*"))]
for _ in range(90):
    d = R.choice(rx)
    pat = d[1:].decode("utf-8", "replace").replace("\0", "")
    if R.random() < 0.6:
        pat = mutate(pat)
    dialect = "ecmascript" if d[:1] and d[0] & 1 else "regex"
    extra = ["--dfa-state-limit", "10000000"] if R.random() < 0.4 else []
    add("regex/" + dialect, fstc("compile", "regex", "--dialect", dialect, "--vocab", V, "-o", f"{OUT}/o.fstc", *extra, "--", pat))
sc = sorted(p for p in glob.glob(f"{W}/**/*.json", recursive=True) if "/target/" not in p and ("schema" in p or "/json/tests" in p)
      and os.path.getsize(p) < 200_000)
sc += sorted(glob.glob(f"{W}/fuzz/corpus/json_schema/*"))
for _ in range(110):
    t = mutate(open(R.choice(sc), errors="replace").read())
    opts = R.choice([[], [], ["--whitespace", "pretty", "--indent", str(R.choice([1, 1000000, 2**32]))],
                     ["--recursion-depth", str(R.choice([3, 300, 100000]))], ["--any-json-depth", str(R.choice([8, 100000]))],
                     ["--dfa-state-limit", "10000000"], ["--escapes", "any"]])
    add("json", fstc("compile", "json-schema", "{0}", "--vocab", V, "-o", f"{OUT}/o.fstc", *opts), [("json", t)])
# the table rows and last session's leftovers
defs = {f"d{i}": {"$ref": f"#/$defs/d{i+1}"} for i in range(5000)}; defs["d5000"] = {"type": "integer"}
add("row/alias5000", fstc("compile", "json-schema", "{0}", "--vocab", V, "-o", f"{OUT}/o.fstc"), [("json", json.dumps({"$ref": "#/$defs/d0", "$defs": defs}))])
for d in ["8", "100000"]:
    add("row/any-json-depth", fstc("compile", "json-schema", "--any-json", "--any-json-depth", d, "--vocab", V, "-o", f"{OUT}/o.fstc"))
for i in ["1000000", str(2**32)]:
    add("row/indent", fstc("compile", "json-schema", "{0}", "--whitespace", "pretty", "--indent", i, "--vocab", V, "-o", f"{OUT}/o.fstc"), [("json", '{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}')])
add("row/items-ref-300", fstc("compile", "json-schema", "{0}", "--recursion-depth", "300", "--vocab", V, "-o", f"{OUT}/o.fstc"), [("json", '{"items": {"$ref": "#"}, "minItems": 1}')])
add("row/literal30000", fstc("compile", "grammar", "{0}", "--vocab", V, "-o", f"{OUT}/o.fstc"), [("gbnf", 'root ::= "' + "ab" * 15000 + '"\n')])
add("row/chain20000", fstc("compile", "grammar", "{0}", "--vocab", V, "-o", f"{OUT}/o.fstc"), [("gbnf", "root ::= r0\n" + "".join(f'r{i} ::= "a" r{i+1}\n' for i in range(20000)) + 'r20000 ::= "b"\n')])
add("row/alts20000", fstc("compile", "grammar", "{0}", "--vocab", V, "-o", f"{OUT}/o.fstc"), [("gbnf", "root ::= " + " | ".join(f'"w{i}"' for i in range(20000)) + "\n")])
add("row/w10000", fstc("compile", "regex", r"\w{0,10000}", "--dfa-state-limit", "10000000", "--vocab", V, "-o", f"{OUT}/o.fstc"))
add("row/ecma-slow", fstc("compile", "regex", r"((?:([\s\S])?\b\p{L}){10,11})*", "--dialect", "ecmascript", "--dfa-state-limit", "10000000", "--vocab", V, "-o", f"{OUT}/o.fstc"))
add("row/json-pattern", fstc("compile", "json-schema", "{0}", "--vocab", V, "-o", f"{OUT}/o.fstc"), [("json", json.dumps({"type": "string", "pattern": r"((?:([\s\S])?\b\p{L}){10,11})*"}))])
big = json.dumps({"enum": [f"v{i:012}" for i in range(300000)]})
add("row/json-5MB-mem1e6", fstc("compile", "json-schema", "{0}", "--memory-budget", "1000000", "--vocab", V, "-o", f"{OUT}/o.fstc"), [("json", big)])
# automaton files: mutate compiled files, then info / sample / check
base = []
for k, pat in enumerate([r"[a-z]+@[a-z]+\.com", r"\d{3}-\d{4}"]):
    base.append(f"{OUT}/base{k}.fstc")
for _ in range(40):
    src = R.choice(base)
    op = R.choice(["info", "sample", "check"])
    args = {"info": ["info", "{0}"], "sample": ["sample", "{0}", "--vocab", V, "-n", "3"], "check": ["check", "{0}", "--vocab", V, "--text", "ab@cd.com"]}[op]
    cmds.append(("file/" + op, ("MUTATE", src, len(cmds)), fstc(*args)))
with open(f"{OUT}/cmds.json", "w") as f:
    json.dump(cmds, f)
print(len(cmds))
