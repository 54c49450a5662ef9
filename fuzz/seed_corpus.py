"""Seeds fuzz/corpus/ from tests/fixtures (run from the repository root:
`python3 fuzz/seed_corpus.py`). Small inputs keep executions fast: whole
small fixtures, the first entries of larger HARs, the first events of the
qlogs, and the protobuf bodies of the gRPC captures."""
import base64, json, os, shutil

F = "tests/fixtures"
C = "fuzz/corpus"

def put(target, name, data):
    os.makedirs(f"{C}/{target}", exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(f"{C}/{target}/{name}", mode) as f:
        f.write(data)

def har_head(path, n):
    har = json.load(open(path))
    har["log"]["entries"] = har["log"]["entries"][:n]
    har["log"].pop("pages", None)
    return json.dumps(har, indent=1) + "\n"

for name in ["formats/protobuf-http1.har", "formats/grpc-web.har", "formats/ws-h2.har", "secrets/tokens.har"]:
    put("har_json", name.replace("/", "-"), open(f"{F}/{name}").read())
put("har_json", "kinto-dev-a-head.har", har_head(f"{F}/kinto/dev-a.har", 6))
put("har_json", "empty-log.har", '{"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": []}}\n')

for name in ["httpbin-test.saz"]:
    put("saz", name, open(f"{F}/formats/saz/{name}", "rb").read())

for name in ["protobuf-http1.mitm", "grpc-web.mitm", "ws-h2.mitm"]:
    put("mitmproxy", name, open(f"{F}/formats/{name}", "rb").read())

for run in ["clean", "loss"]:
    for side in ["client", "origin"]:
        q = json.load(open(f"{F}/formats/qlog/{run}/{side}.qlog"))
        for t in q.get("traces", []):
            t["events"] = t.get("events", [])[:40]
        put("qlog", f"{run}-{side}-head.qlog", json.dumps(q, indent=1) + "\n")

n = 0
for name in ["formats/grpc-native.har", "formats/protobuf-http1.har", "formats/grpc-web.har"]:
    for e in json.load(open(f"{F}/{name}"))["log"]["entries"]:
        for body in [e["request"].get("postData", {}), e["response"].get("content", {})]:
            text = body.get("text")
            if not text or n >= 12:
                continue
            raw = base64.b64decode(text) if body.get("encoding") == "base64" else text.encode()
            if 0 < len(raw) <= 4096:
                put("protobuf", f"{name.split('/')[-1][:-4]}-{n}.bin", raw)
                n += 1
put("protobuf", "api.pb", open(f"{F}/formats/api.pb", "rb").read())

put("end_to_end", "secrets-tokens.har", open(f"{F}/secrets/tokens.har").read())
put("end_to_end", "kinto-dev-a-head.har", har_head(f"{F}/kinto/dev-a.har", 14))
put("end_to_end", "wordpress-dev-a-head.har", har_head(f"{F}/wordpress/dev-a.har", 10))
put("end_to_end", "mlflow-dev-a-head.har", har_head(f"{F}/mlflow/dev-a.har", 10))
put("end_to_end", "protobuf-http1.har", open(f"{F}/formats/protobuf-http1.har").read())
