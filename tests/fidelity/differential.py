#!/usr/bin/env python3
"""Differential check of rea's port of the fidelity rules (tests/environment_check.rs).

    python3 differential.py HARNESS_DIR OUT_DIR TRAIN.har SCORED.har TAG [SEED]

Builds a scripted candidate for the scored session: the recorded answers, in order,
with the candidate's own ids (uuids and 32-hex tokens the train capture does not show,
replaced consistently), its own clock (epoch milliseconds and ISO date-times shifted)
and some deliberate faults (a status, a missing member, a changed value, a reversed
array). Replays the session through fidelity.py's own scoring loop
(`fidelity.score_session`, no server) against that candidate, and writes
OUT_DIR/TAG.candidate.json (the answers, in sending order) and OUT_DIR/TAG.python.json
(per request: ordinal, verdict, the path+query and body the candidate was sent). The
Rust test replays the same answers through `rea_serve::check::score_session` and
requires the same verdicts and the same requests.
"""
import base64
import datetime
import json
import os
import random
import re
import sys

ID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|"
                   r"(?<![0-9a-zA-Z])[0-9a-f]{32}(?![0-9a-zA-Z])")
ISO_RE = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$")


def main() -> int:
    harness, out_dir, train_path, scored_path, tag = sys.argv[1:6]
    seed = int(sys.argv[6]) if len(sys.argv) > 6 else 7
    sys.path.insert(0, harness)
    import fidelity as fid  # noqa: E402

    rng = random.Random(seed)
    train, scored = fid.load_har(train_path), fid.load_har(scored_path)
    train_text = "\n".join(t for e in train for t in (e.request_text(), e.response_text()))
    ids: dict = {}

    def fresh(tok: str) -> str:
        if tok not in ids:
            hexdigits = "0123456789abcdef"
            new = "".join(rng.choice(hexdigits) if c != "-" else "-" for c in tok.lower())
            ids[tok] = new if tok == tok.lower() else new.upper()
        return ids[tok]

    def own_ids(text: str) -> str:
        return ID_RE.sub(lambda m: m.group(0) if m.group(0) in train_text else fresh(m.group(0)), text)

    def own_clock(doc):
        if isinstance(doc, dict):
            return {k: own_clock(v) for k, v in doc.items()}
        if isinstance(doc, list):
            return [own_clock(v) for v in doc]
        if isinstance(doc, int) and not isinstance(doc, bool) and 10 ** 12 <= doc < 4 * 10 ** 12:
            return doc + 3 * 86_400_000 + 1234
        if isinstance(doc, str):
            m = ISO_RE.match(doc)
            if m:
                try:
                    t = datetime.datetime.fromisoformat(m.group(1)) + datetime.timedelta(days=2, seconds=17)
                    return t.strftime("%Y-%m-%dT%H:%M:%S") + (m.group(2) or "") + (m.group(3) or "")
                except ValueError:
                    return doc
            return own_ids(doc)
        return doc

    def fault(doc):
        """One deliberate difference somewhere in the document."""
        paths = []

        def walk(d, p):
            if isinstance(d, dict):
                for k, v in d.items():
                    paths.append((p, k))
                    walk(v, p + [k])
            elif isinstance(d, list):
                if len(d) > 1:
                    paths.append((p, None))
                for i, v in enumerate(d):
                    walk(v, p + [i])

        walk(doc, [])
        if not paths:
            return doc
        parent_path, key = rng.choice(paths)
        parent = doc
        for step in parent_path:
            parent = parent[step]
        if key is None:
            parent.reverse()
        elif rng.random() < 0.5:
            del parent[key]
        elif isinstance(parent[key], str):
            parent[key] = parent[key] + "x"
        elif isinstance(parent[key], bool):
            parent[key] = not parent[key]
        elif isinstance(parent[key], (int, float)):
            parent[key] = parent[key] + 1
        else:
            parent[key] = None
        return doc

    answers = []
    for ex in scored:
        if ex.status == 0:
            continue
        status = ex.status
        headers = [(k, own_ids(v)) for k, v in ex.resp_headers
                   if k.lower() not in ("content-length", "content-encoding", "transfer-encoding")]
        body = ex.resp_body
        doc = fid.parse_json(body) if body and not ex.resp_binary else fid.MISSING
        if doc is not fid.MISSING:
            doc = own_clock(doc)
            if rng.random() < 0.15:
                doc = fault(doc)
            body = json.dumps(doc, ensure_ascii=False).encode("utf-8")
        elif body and not ex.resp_binary:
            body = own_ids(body.decode("utf-8", "replace")).encode("utf-8")
        if rng.random() < 0.05:
            status = status + 1
        answers.append({"status": status, "headers": headers,
                        "body": base64.b64encode(body).decode("ascii")})

    sent = []

    def send(method, target, headers, body):
        a = answers[len(sent)]
        sent.append({"path": target, "body": body.decode("utf-8", "replace") if body else None,
                     "headers": [[k, v] for k, v in headers]})
        return fid.Answer(a["status"], [tuple(h) for h in a["headers"]], base64.b64decode(a["body"]))

    out, _state = fid.score_session(train, scored, send)
    rows = [{"i": r["i"], "verdict": r["verdict"], "reason": r["reason"]} for r in out["requests"]]
    for row, s in zip(rows, sent):
        row.update(s)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, f"{tag}.candidate.json"), "w", encoding="utf-8") as fh:
        json.dump(answers, fh)
    with open(os.path.join(out_dir, f"{tag}.python.json"), "w", encoding="utf-8") as fh:
        json.dump(rows, fh, ensure_ascii=False)
    matched = sum(r["verdict"] == "match" for r in rows)
    print(f"{tag}: {matched}/{len(rows)} matched by fidelity.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
