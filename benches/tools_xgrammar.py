"""XGrammar and llguidance's Python package on the tools bench's structures (the same tools, spec, Lark and
walks as benches/benches/tools/main.rs, written again here): compile CPU time (time.process_time, so a loaded
machine does not inflate it), first mask and mask times along the walks. XGrammar compiles with one thread and no
cache. Mask times include the Python call (llguidance's compute_logit_bias builds a bytes object per call, so
only its compile column compares).

    TOOLS=1,8,32,128 BOUNDED_TOOLS=1,8,32,128 VENV/bin/python benches/tools_xgrammar.py

VENV: a virtualenv with xgrammar, llguidance, numpy and torch; Llama 3's tokenizer.json from ../shared/vocabs.
"""
import json, os, sys, time, statistics
import xgrammar as xgr, llguidance
from llguidance import LLTokenizer, LLMatcher

def tool(i, bounded):
    def s(extra):
        v = {"type": "string"}
        if bounded and not extra: v["maxLength"] = 200
        v.update(extra); return v
    k = i % 8
    if k == 0: name, props, req = "get_weather", {"location": s({}), "unit": {"enum": ["celsius", "fahrenheit", f"kelvin_{i}"]}}, ["location"]
    elif k == 1: name, props, req = "search_web", {"query": s({}), "max_results": {"type": "integer", "minimum": 1, "maximum": 10 + i}, "safe_search": {"type": "boolean"}}, ["query"]
    elif k == 2: name, props, req = "send_email", {"to": s({}), "subject": s({}), "body": s({}), "cc": {"type": "array", "items": s({}), "maxItems": 3 + i % 5}, "priority": {"enum": ["low", "normal", "high", f"p{i}"]}}, ["to", "subject", "body"]
    elif k == 3: name, props, req = "create_event", {"title": s({}), "start": s({"format": "date-time"}), "duration_minutes": {"type": "integer", "minimum": 5, "maximum": 480 + i}, "attendees": {"type": "array", "items": s({})}}, ["title", "start"]
    elif k == 4: name, props, req = "convert_currency", {"amount": {"type": "number"}, "from": s({"pattern": "^[A-Z]{3}$"}), "to": s({"pattern": "^[A-Z]{3}$"}), "round_to": {"type": "integer", "minimum": 0, "maximum": i % 7 + 2}}, ["amount", "from", "to"]
    elif k == 5: name, props, req = "get_stock_price", {"symbol": s({"pattern": "^[A-Z]{1,5}$"}), "exchange": {"enum": ["NYSE", "NASDAQ", "LSE", f"X{i}"]}}, ["symbol"]
    elif k == 6: name, props, req = "translate", {"text": s({}), "source_lang": s({"minLength": 2, "maxLength": 5}), "target_lang": {"enum": ["en", "fr", "de", "es", "ja", f"l{i}"]}}, ["text", "target_lang"]
    else: name, props, req = "set_reminder", {"message": s({}), "date": s({"format": "date"}), "repeat": {"enum": ["none", "daily", "weekly", f"every_{i}_days"]}}, ["message", "date"]
    return f"{name}_{i}", {"type": "object", "properties": props, "required": req, "additionalProperties": False}

BEGIN, END = '<tool_call>\n{"name": "', '}\n</tool_call>'
EXAMPLES = ['{"location":"Oslo"}', '{"query":"rust automata","max_results":3}', '{"to":"ann@example.com","subject":"Hi","body":"See you at 5."}',
            '{"title":"Review","start":"2026-11-27T15:00:00Z","duration_minutes":30}', '{"amount":12.5,"from":"EUR","to":"USD"}',
            '{"symbol":"ACME","exchange":"NYSE"}', '{"text":"Bonjour","target_lang":"en"}', '{"message":"Call Bob","date":"2026-12-01","repeat":"weekly"}']

def spec(n, bounded):
    tags = [{"begin": f'{BEGIN}{tool(i, bounded)[0]}", "arguments": ', "content": {"type": "json_schema", "json_schema": tool(i, bounded)[1]}, "end": END} for i in range(n)]
    return {"type": "structural_tag", "format": {"type": "triggered_tags", "triggers": ["<tool_call>"], "tags": tags}}

def samples(n):
    first, last = tool(0, False)[0], tool(n - 1, False)[0]
    return [f'Let me check the weather first. <tool_call>\n{{"name": "{first}", "arguments": {{"location":"Paris, France","unit":"celsius"}}}}\n</tool_call>\nI asked for it; the answer comes next.',
            f'Sure.<tool_call>\n{{"name": "{last}", "arguments": {EXAMPLES[(n - 1) % 8]}}}\n</tool_call> Done, anything else?',
            "No tool is needed: 2 < 3 and <b>bold</b> is just text."]

def lark(n, bounded):
    out = '%llguidance {}\nstart: (pre call)* TAIL?\npre[lazy]: /(.|\\n)*<tool_call>/\nTAIL: /(.|\\n)+/ & ~/(.|\\n)*<tool_call>(.|\\n)*/\ncall: '
    out += " | ".join(f'{json.dumps(chr(10) + "{" + chr(34) + "name" + chr(34) + ": " + chr(34) + tool(i, bounded)[0] + chr(34) + ", " + chr(34) + "arguments" + chr(34) + ": ")} args_{i} {json.dumps(END)}' for i in range(n)) + "\n"
    for i in range(n):
        sch = dict(tool(i, bounded)[1]); sch["x-guidance"] = {"whitespace_flexible": False, "item_separator": ",", "key_separator": ":"}
        out += f"args_{i}: %json {json.dumps(sch)}\n"
    return out

HERE = os.path.dirname(os.path.abspath(__file__))
tok = LLTokenizer(open(os.path.join(HERE, "..", "..", "shared", "vocabs", "llama3", "tokenizer.json")).read())
V = tok.vocab_size
words = [tok.decode_bytes([i]) for i in range(V)]
t0 = time.process_time()
info = xgr.TokenizerInfo(words, xgr.VocabType.RAW, vocab_size=V, stop_token_ids=[128001])
print(f"setup: xgrammar TokenizerInfo {1000*(time.process_time()-t0):.0f} ms CPU", flush=True)

def xg_run(n, bounded, walks):
    compiler = xgr.GrammarCompiler(info, max_threads=1, cache_enabled=False)
    t0 = time.process_time()
    compiled = compiler.compile_structural_tag(json.dumps(spec(n, bounded)))
    compile = time.process_time() - t0
    bitmask = xgr.allocate_token_bitmask(1, V)
    masks = []; first = None
    for w in walks:
        m = xgr.GrammarMatcher(compiled)
        for t in w[:200]:
            t1 = time.perf_counter(); m.fill_next_token_bitmask(bitmask); dt = time.perf_counter() - t1
            if first is None: first = dt
            masks.append(dt)
            if not m.accept_token(t): raise RuntimeError(f"xgrammar refused token {t} at {len(masks)}")
    return compile, first, masks

def llg_run(n, bounded, walks):
    t0 = time.process_time()
    g = llguidance.grammar_from("lark", lark(n, bounded))
    m = LLMatcher(tok, g)
    compile = time.process_time() - t0
    masks = []; first = None
    for w in walks:
        m = LLMatcher(tok, g)
        for t in w[:200]:
            t1 = time.perf_counter(); m.compute_logit_bias(); dt = time.perf_counter() - t1
            if first is None: first = dt
            masks.append(dt)
            if not m.consume_token(t): raise RuntimeError(f"llguidance refused token {t} at {len(masks)}")
    return compile, first, masks

def q(xs, p): xs = sorted(xs); return xs[min(len(xs) - 1, int(p * len(xs)))]
print("| tools | engine | compile CPU ms | 1st mask µs | mask p50 µs | mask p99 µs | masks |\n|---|---|---:|---:|---:|---:|---:|")
for bounded, var in ((False, "TOOLS"), (True, "BOUNDED_TOOLS")):
    for n in [int(x) for x in os.environ.get(var, "1,8,32,128").split(",") if x]:
        walks = [tok.tokenize_bytes(s.encode()) for s in samples(n)]
        for name, run in (("xgrammar 0.2.8", xg_run), ("llguidance 1.7.6 (Python)", llg_run)):
            try:
                c, f, ms = run(n, bounded, walks)
                print(f"| {n}{' bounded' if bounded else ''} | {name} | {1000*c:.1f} | {1e6*f:.0f} | {1e6*q(ms,.5):.1f} | {1e6*q(ms,.99):.0f} | {len(ms)} |", flush=True)
            except Exception as e:
                print(f"| {n}{' bounded' if bounded else ''} | {name} | {type(e).__name__}: {str(e)[:200]} |", flush=True)
