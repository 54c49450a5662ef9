#!/usr/bin/env python3
"""Write mitmproxy's own reading of native flow files as reference JSON.

Run it inside mitmdump 12.2.3, so the reading is mitmdump's own (its
unchanged `mitmproxy.io.tnetstring` decoder, and `FlowReader` for the
HTTP view):

    REA_MITM_REFERENCE="OUT_DIR FILE.mitm [FILE.mitm ...]" \
        mitmdump --no-server -q --set confdir=<empty temp dir> -s mitm_reference.py

(mitmdump loads the script, the script writes OUT_DIR/<stem>.json for every
file and shuts mitmdump down; `--no-server` opens no listener). With
mitmproxy 12.2.3 importable, `python3 mitm_reference.py OUT_DIR FILE...` does
the same without mitmdump.

Each reference holds, per top-level tnetstring: its byte offset and length,
and its value in a typed form: null/true/false as JSON, {"int": decimal},
{"float": repr}, {"str": text}, {"bytes": [length, sha256 hex]}, lists as
arrays and dictionaries as {"dict": [[key, value], ...]} in the order
upstream's dict keeps. Plus, per flow, the HTTP facts `FlowReader` gives
(method, URL parts, headers, raw content, status, trailers, WebSocket
message count), bytes again as [length, sha256].
"""
import hashlib
import json
import os
import sys


def typed(v):
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, str):
        return {"str": v}
    if isinstance(v, bytes):
        return {"bytes": [len(v), hashlib.sha256(v).hexdigest()]}
    if isinstance(v, list):
        return [typed(x) for x in v]
    if isinstance(v, dict):
        return {"dict": [[typed(k), typed(x)] for k, x in v.items()]}
    raise TypeError(type(v))


def digest(b):
    return None if b is None else [len(b), hashlib.sha256(b).hexdigest()]


def headers(h):
    return None if h is None else [[digest(k), digest(v)] for k, v in h.fields]


def http_facts(f):
    from mitmproxy import http

    if not isinstance(f, http.HTTPFlow):
        return {"type": f.type}
    q, r = f.request, f.response
    out = {
        "type": f.type,
        "id": f.id,
        "request": {
            "method": q.method,
            "scheme": q.scheme,
            "host": q.host,
            "port": q.port,
            "path": q.path,
            "http_version": q.http_version,
            "headers": headers(q.headers),
            "content": digest(q.raw_content),
            "trailers": headers(q.trailers),
        },
        "response": None,
        "websocket_messages": None if f.websocket is None else len(f.websocket.messages),
    }
    if r is not None:
        out["response"] = {
            "status_code": r.status_code,
            "reason": r.reason,
            "http_version": r.http_version,
            "headers": headers(r.headers),
            "content": digest(r.raw_content),
            "trailers": headers(r.trailers),
        }
    return out


def reference(path):
    from mitmproxy import io as mio
    from mitmproxy import version
    from mitmproxy.io import tnetstring

    items = []
    with open(path, "rb") as fp:
        size = os.fstat(fp.fileno()).st_size
        while fp.tell() < size:
            start = fp.tell()
            value = tnetstring.load(fp)
            items.append({"offset": start, "length": fp.tell() - start, "value": typed(value)})
    with open(path, "rb") as fp:
        facts = [http_facts(f) for f in mio.FlowReader(fp).stream()]
    return {
        "file": os.path.basename(path),
        "sha256": hashlib.sha256(open(path, "rb").read()).hexdigest(),
        "reader": f"mitmproxy {version.VERSION} mitmproxy.io.tnetstring + FlowReader",
        "items": items,
        "http": facts,
    }


def write_all(out_dir, paths):
    os.makedirs(out_dir, exist_ok=True)
    for path in paths:
        stem = os.path.splitext(os.path.basename(path))[0]
        parent = os.path.basename(os.path.dirname(os.path.abspath(path)))
        name = f"{parent}-{stem}.json"
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as fp:
            json.dump(reference(path), fp, ensure_ascii=False, separators=(",", ":"))
            fp.write("\n")


class Dump:
    """The mitmdump addon: writes the references once mitmdump runs, then stops it."""

    def running(self):
        from mitmproxy import ctx

        try:
            spec = os.environ["REA_MITM_REFERENCE"].split()
            write_all(spec[0], spec[1:])
        finally:
            ctx.master.shutdown()


addons = [Dump()]

if __name__ == "__main__":
    write_all(sys.argv[1], sys.argv[2:])
