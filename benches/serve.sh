#!/usr/bin/env bash
# Serving throughput: requests/s and p50/p99 latency of `rea environment-serve`
# for an item read, a list read and a create at 16 connections (wrk), beside a
# minimal hyper server answering the same bytes in the same run; then RSS and
# start-up time on the 30 MiB capture ../shared/fixtures/kinto/large.har.
#
# usage: benches/serve.sh [SECONDS]      (default 5 s per measurement)
#        REA_BIN=path/to/rea benches/serve.sh   measures that binary instead of
#        the release build (e.g. a baseline build, for before/after ratios in
#        one session); CEILING_BIN=path/to/hyper_ceiling likewise skips its build.
# needs: wrk (apt-get install wrk), curl. Binds 127.0.0.1 only; stops what it starts.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
duration="${1:-5}"
conns=16
threads=2
capture="tests/fixtures/kinto/dev-a.har"
large="${REA_LARGE_HAR:-../shared/fixtures/kinto/large.har}"
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 2; }

if [ -z "${REA_BIN:-}" ]; then
  cargo build --release --quiet --bin rea
fi
if [ -z "${CEILING_BIN:-}" ]; then
  cargo build --release --quiet -p rea-serve --example hyper_ceiling
fi
rea="${REA_BIN:-$root/target/release/rea}"
ceiling="${CEILING_BIN:-$root/target/release/examples/hyper_ceiling}"
work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_port() {
  for _ in $(seq 1 600); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  echo "nothing listens on $1" >&2; return 1
}

base="/v1/buckets/shop/collections/products/records"
item="$base/prod-001"
list="$base"
# The create body the capture sent (a full product).
python3 - "$capture" "$work/create.json" <<'PY'
import json, sys
har = json.load(open(sys.argv[1]))
for e in har["log"]["entries"]:
    r = e["request"]
    if r["method"] == "POST" and r["url"].endswith("/products/records"):
        open(sys.argv[2], "w").write(r["postData"]["text"]); break
PY
cat > "$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$work/create.json", "rb"); wrk.body = f:read("*a"); f:close()
LUA

port="$(free_port)"
"$rea" environment-serve "$capture" --port "$port" 2>"$work/rea.log" & pids+=($!)
wait_port "$port"
url="http://127.0.0.1:$port"
curl -sf "$url$item" -o "$work/item.json"
curl -sf "$url$list" -o "$work/list.json"
curl -sf -X POST -H 'Content-Type: application/json' --data-binary "@$work/create.json" "$url$base" -o "$work/created.json"
curl -sf -X POST "$url/agentenv" -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"data/reset"}' >/dev/null

cport="$(free_port)"
"$ceiling" "$cport" "GET:$item=$work/item.json" "GET:$list=$work/list.json" "POST:$base=$work/created.json" 2>/dev/null & pids+=($!)
wait_port "$cport"
curl_cmp() { cmp -s <(curl -s "$1") "$2" || { echo "the ceiling does not answer the same bytes for $1" >&2; exit 1; }; }
curl_cmp "http://127.0.0.1:$cport$item" "$work/item.json"
curl_cmp "http://127.0.0.1:$cport$list" "$work/list.json"

measure() { # label url [script]
  local label="$1" target="$2" script="${3:-}"
  local out
  if [ -n "$script" ]; then
    out="$(wrk -t"$threads" -c"$conns" -d"${duration}s" --latency -s "$script" "$target")"
  else
    out="$(wrk -t"$threads" -c"$conns" -d"${duration}s" --latency "$target")"
  fi
  local rps p50 p99 errors
  rps="$(awk '/^Requests\/sec/ {print $2}' <<<"$out")"
  p50="$(awk '$1=="50%" {print $2}' <<<"$out")"
  p99="$(awk '$1=="99%" {print $2}' <<<"$out")"
  errors="$(awk '/Non-2xx or 3xx responses/ {print $5}' <<<"$out")"
  printf '%-22s %12s %10s %10s %s\n' "$label" "$rps" "$p50" "$p99" "${errors:+non-2xx: $errors}"
}

echo "# $conns connections, $threads wrk threads, ${duration}s each; $(nproc) cores"
printf '%-22s %12s %10s %10s\n' "case" "req/s" "p50" "p99"
measure "rea item read" "$url$item"
measure "hyper item (ceiling)" "http://127.0.0.1:$cport$item"
measure "rea list read" "$url$list"
measure "hyper list (ceiling)" "http://127.0.0.1:$cport$list"
measure "rea create" "$url$base" "$work/post.lua"
measure "hyper create (ceiling)" "http://127.0.0.1:$cport$base" "$work/post.lua"
echo "# item $(wc -c <"$work/item.json") bytes, list $(wc -c <"$work/list.json") bytes, created $(wc -c <"$work/created.json") bytes"
rss="$(awk '/VmRSS/ {print $2}' "/proc/${pids[0]}/status")"
echo "# rea RSS after the run on dev-a: $((rss / 1024)) MiB"

if [ -f "$large" ]; then
  kill "${pids[0]}" 2>/dev/null || true
  lport="$(free_port)"
  start=$(date +%s.%N)
  "$rea" environment-serve "$large" --port "$lport" 2>"$work/large.log" & lpid=$!; pids+=($lpid)
  wait_port "$lport"
  ready=$(date +%s.%N)
  rss="$(awk '/VmRSS/ {print $2}' "/proc/$lpid/status")"
  hwm="$(awk '/VmHWM/ {print $2}' "/proc/$lpid/status")"
  printf '# large.har (%s bytes): start-up to listening %.2f s; RSS %d MiB (peak %d MiB)\n' \
    "$(stat -c %s "$large")" "$(echo "$ready - $start" | bc)" "$((rss / 1024))" "$((hwm / 1024))"
  grep -E "^environment|ready in" "$work/large.log" | sed 's/^/# /'
else
  echo "# $large not found: skipped the start-up measurement"
fi
