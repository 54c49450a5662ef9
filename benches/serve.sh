#!/usr/bin/env bash
# The serving bench: `rea environment-serve` beside a minimal stateful hyper
# server (serve/examples/hyper_ceiling.rs: the same recorded bytes from
# memory, an id index, PATCH as a shallow merge, POST with the next id,
# DELETE), in one run, printed as ratios. Servers are pinned to core 0 and
# wrk to core 1; each throughput case alternates the two servers
# (rea -> limit -> limit -> rea) and compares the means.
#
# It measures, on tests/fixtures/kinto/dev-a.har (products records):
#   throughput  item read, list read, create, PATCH, mixed GET/PATCH/GET;
#   data plane  into one fresh server: data/add of 1k, then 10k, then 100k rows
#               (wall time; the server's CPU seconds for the add; RSS right
#               after it and as a multiple of that add's payload), create
#               latency at those World sizes (the creates run after each add;
#               RSS after them is printed last, with their count); then
#               data/reset, data/add of 100k rows again, data/reset: its time,
#               and RSS once settled against the same server's RSS before
#               its first add (the fresh baseline, measured in this run);
#   memory      one fresh server: RSS before anything, after CREATES creates
#               (default 100k; and KB per created row), after one data/get of
#               them, after data/reset (settled), against that fresh RSS;
#   "settled":  RSS unchanged for a second, at most SETTLE_SECONDS (20);
#   start-up    time to listening and RSS on ../shared/fixtures/kinto/large.har;
#   routing     item-read throughput with 10 and 10,000 tools (generated captures).
#
# usage: benches/serve.sh [SECONDS]      (default 3 s per wrk measurement)
#   REA_BIN=path/to/rea          measure that binary (default: the release build)
#   REA_BEFORE=path/to/rea       also measure a second binary in the same run
#                                (before/after ratios); its lines say "before"
#   CEILING_BIN=path/to/limit    skip building serve/examples/hyper_ceiling
#   CREATES=N                    creates for the memory case (default 100000)
#   ROUTING_TOOLS=N              tools of the large routing capture (default 10000;
#                                its start-up is dominated by app-model inference)
#   ONLY="throughput data memory startup routing"   a subset of the sections
# needs: wrk (apt-get install wrk), curl, python3, taskset. Binds 127.0.0.1
# only; stops what it starts.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
duration="${1:-3}"
conns=16
creates="${CREATES:-100000}"
many_tools="${ROUTING_TOOLS:-10000}"
only="${ONLY:-throughput data memory startup routing}"
capture="tests/fixtures/kinto/dev-a.har"
large="${REA_LARGE_HAR:-../shared/fixtures/kinto/large.har}"
for tool in wrk curl python3 taskset; do
  command -v "$tool" >/dev/null || { echo "$tool is not installed" >&2; exit 2; }
done
if [ -z "${REA_BIN:-}" ]; then cargo build --release --quiet --bin rea; fi
if [ -z "${CEILING_BIN:-}" ]; then cargo build --release --quiet -p rea-serve --example hyper_ceiling; fi
rea="${REA_BIN:-$root/target/release/rea}"
limit="${CEILING_BIN:-$root/target/release/examples/hyper_ceiling}"
work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
wants() { [[ " $only " == *" $1 "* ]]; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_port() {
  for _ in $(seq 1 "${wait_tries:-1200}"); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.025
  done
  echo "nothing listens on $1" >&2; return 1
}
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.3f", ($14 + $15) / hz}' "/proc/$1/stat"; } # a process's CPU seconds
rss_mib() { awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }
# start BIN CAPTURE [FLAGS...]: starts rea on core 0; sets $port and $pid.
start() {
  local bin="$1" cap="$2"; shift 2
  port="$(free_port)"
  taskset -c 0 "$bin" environment-serve "$cap" --port "$port" "$@" 2>>"$work/rea.log" & pid=$!
  pids+=("$pid")
  wait_port "$port"
}
stop() { # a graceful stop, then a forced one (a server busy with a long data/add)
  kill "$1" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
rpc() { # port method [params-file]   (a data/add is given ADD_SECONDS, default 60)
  if [ -n "${3:-}" ]; then
    curl -s -o "$work/rpc.out" -w '%{time_total}' -X POST "http://127.0.0.1:$1/agentenv" \
      --max-time "${ADD_SECONDS:-60}" -H 'Content-Type: application/json' --data-binary "@$3" || echo timeout
  else
    curl -s -o "$work/rpc.out" -w '%{time_total}' -X POST "http://127.0.0.1:$1/agentenv" \
      -H 'Content-Type: application/json' -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$2\"}"
  fi
}
# wrk_run URL [SCRIPT] [CONNS] [PID]: prints "req/s mean-latency-us non2xx
# cpu-us-per-request median-latency-us requests" (the server's user+system CPU time
# per answered request, read from /proc/PID/stat: steadier than req/s on a
# shared machine; the median is steadier than the mean, which a shared
# machine's stalls dominate)
wrk_run() {
  local target="$1" script="${2:-}" c="${3:-$conns}" spid="${4:-}" out t0=0 t1=0
  [ -n "$spid" ] && t0="$(awk '{print $14 + $15}' "/proc/$spid/stat")"
  out="$(taskset -c 1 wrk -t1 -c"$c" -d"${duration}s" --latency ${script:+-s "$script"} "$target")"
  [ -n "$spid" ] && t1="$(awk '{print $14 + $15}' "/proc/$spid/stat")"
  awk -v ticks="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" '
    /^Requests\/sec/ {rps=$2}
    /requests in/ {n=$1}
    /Non-2xx or 3xx responses/ {bad=$5}
    $1=="Latency" && !lat {v=$2; u=v; gsub(/[0-9.]/,"",u); gsub(/[a-z]/,"",v);
      lat = (u=="ms") ? v*1000 : (u=="s") ? v*1000000 : v}
    $1=="50%" {v=$2; u=v; gsub(/[0-9.]/,"",u); gsub(/[a-z]/,"",v);
      p50 = (u=="ms") ? v*1000 : (u=="s") ? v*1000000 : v}
    END {printf "%s %s %s %.1f %s %s\n", rps, lat, bad+0, n ? ticks * 1000000 / hz / n : 0, p50+0, n+0}' <<<"$out"
}
# server_ms PORT OPERATION: the server's own time for the last data-plane
# call of OPERATION (the journal's duration_ms: from the body read to the
# reply text, without the HTTP round trip)
server_ms() {
  curl -s "http://127.0.0.1:$1/_rea/requests?surface=data-plane&limit=1000" | python3 -c '
import json, sys
op = sys.argv[1]
entries = json.load(sys.stdin)
entries = entries.get("entries", entries) if isinstance(entries, dict) else entries
hits = [e for e in entries if e.get("request", {}).get("operation") == op]
print(max(hits, key=lambda e: e["id"])["duration_ms"] if hits else "n/a")' "$2" 2>/dev/null || echo n/a
}
# settle PID: waits until the freed World is given back (the retiring
# thread runs at low priority: on a busy machine 3 s were not enough), that
# is until RSS holds still for a second, for at most SETTLE_SECONDS (20).
settle() {
  local last now
  last="$(rss_mib "$1")"
  for _ in $(seq 1 "${SETTLE_SECONDS:-20}"); do
    sleep 1; now="$(rss_mib "$1")"
    [ "$now" = "$last" ] && return 0
    last="$now"
  done
}
ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f'{a/b:.2f}' if b else 'n/a')" "$1" "$2"; }
mean() { python3 -c "import sys; v=[float(x) for x in sys.argv[1:]]; print(f'{sum(v)/len(v):.0f}')" "$@"; }
mean1() { python3 -c "import sys; v=[float(x) for x in sys.argv[1:]]; print(f'{sum(v)/len(v):.1f}')" "$@"; }

base="/v1/buckets/shop/collections/products/records"
item="$base/prod-001"
# The bodies the capture sent: a create (a full product) and a PATCH.
python3 - "$capture" "$work" <<'PY'
import json, sys
har = json.load(open(sys.argv[1]))
out = sys.argv[2]
for e in har["log"]["entries"]:
    r = e["request"]
    if r["method"] == "POST" and r["url"].endswith("/products/records"):
        open(f"{out}/create.json", "w").write(r["postData"]["text"])
    if r["method"] == "PATCH" and "/products/records/" in r["url"]:
        open(f"{out}/patch.json", "w").write(r["postData"]["text"])
PY
cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$work/create.json", "rb"); wrk.body = f:read("*a"); f:close()
LUA
cat >"$work/patch.lua" <<LUA
wrk.method = "PATCH"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$work/patch.json", "rb"); wrk.body = f:read("*a"); f:close()
LUA
cat >"$work/mixed.lua" <<LUA
local f = io.open("$work/patch.json", "rb"); local body = f:read("*a"); f:close()
local n = 0
request = function()
  n = n + 1
  if n % 3 == 2 then
    return wrk.format("PATCH", "$item", {["Content-Type"] = "application/json"}, body)
  end
  return wrk.format("GET", "$item")
end
LUA
# A create script that stops each thread after its share of CREATES responses.
cat >"$work/creates.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$work/create.json", "rb"); wrk.body = f:read("*a"); f:close()
local n = 0
response = function(status, headers, body)
  n = n + 1
  if n >= $creates then wrk.thread:stop() end
end
LUA

echo "# rea bench: ${duration}s per wrk case, $conns connections, servers on core 0, wrk on core 1 ($(nproc) cores)"
bins=("after:$rea")
if [ -n "${REA_BEFORE:-}" ]; then bins=("before:$REA_BEFORE" "after:$rea"); fi

throughput() { # label bin
  local label="$1" bin="$2"
  start "$bin" "$capture"; local rport="$port" rpid="$pid"
  curl -sf "http://127.0.0.1:$rport$item" -o "$work/item.json"
  curl -sf "http://127.0.0.1:$rport$base" -o "$work/list.json"
  local lport; lport="$(free_port)"
  taskset -c 0 "$limit" "$lport" "$base" "$work/item.json" "$work/list.json" /data id 2>/dev/null & local lpid=$!
  pids+=("$lpid"); wait_port "$lport"
  cmp -s <(curl -s "http://127.0.0.1:$lport$item") "$work/item.json" \
    || echo "# note: the limit server's item bytes differ from rea's" >&2
  printf '%-8s %-8s %10s %10s %7s %10s %10s %9s %9s %7s\n' "" case "rea req/s" "limit" ratio "rea mean" "limit" "rea CPU" "limit" "ratio"
  local case url script
  for case in item list patch mixed create; do
    case "$case" in
      item) url="$item"; script="";;
      list) url="$base"; script="";;
      patch) url="$item"; script="$work/patch.lua";;
      mixed) url="$item"; script="$work/mixed.lua";;
      create) url="$base"; script="$work/post.lua";;
    esac
    local r1 l1 l2 r2
    r1=($(wrk_run "http://127.0.0.1:$rport$url" "$script" "$conns" "$rpid"))
    l1=($(wrk_run "http://127.0.0.1:$lport$url" "$script" "$conns" "$lpid"))
    l2=($(wrk_run "http://127.0.0.1:$lport$url" "$script" "$conns" "$lpid"))
    r2=($(wrk_run "http://127.0.0.1:$rport$url" "$script" "$conns" "$rpid"))
    local rr lr rc lc
    rr="$(mean "${r1[0]}" "${r2[0]}")"; lr="$(mean "${l1[0]}" "${l2[0]}")"
    rc="$(mean1 "${r1[3]}" "${r2[3]}")"; lc="$(mean1 "${l1[3]}" "${l2[3]}")"
    # Ratios as rea / limit for throughput, limit / rea for CPU per request.
    printf '%-8s %-8s %10s %10s %7s %8sus %8sus %7sus %7sus %7s%s\n' "$label" "$case" "$rr" "$lr" "$(ratio "$rr" "$lr")x" \
      "$(mean "${r1[1]}" "${r2[1]}")" "$(mean "${l1[1]}" "${l2[1]}")" "$rc" "$lc" "$(ratio "$lc" "$rc")x" \
      "$( [ "$((r1[2] + r2[2]))" -gt 0 ] && echo "  rea non-2xx: $((r1[2] + r2[2]))" )"
  done
  stop "$rpid"; stop "$lpid"
}

# rows N FILE: a data/add request of N product rows (the capture's first
# product with new ids), in the data/get shape the server exported.
rows() {
  python3 - "$1" "$2" "$work/export.json" "$base" <<'PY'
import json, sys
n, out, export, base = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
tables = json.load(open(export))["result"]["parts"][0]["data"]
# The products table: its rows name the collection path, or the table is
# named after the path's last two literal segments (one collection path).
name, sample = None, None
for table, rows in tables.items():
    sample = next((r for r in rows if isinstance(r, dict) and r.get("_collection") == base), None)
    if sample is None and table == "_".join(base.strip("/").split("/")[-2:]) and rows:
        sample = rows[0]
    if sample is not None:
        name = table
        break
data = {name: [dict(sample, id=f"row-{i:06d}") for i in range(n)]}
json.dump({"jsonrpc": "2.0", "id": 1, "method": "data/add",
           "params": {"parts": [{"kind": "data", "data": data}]}}, open(out, "w"))
PY
}

data_plane() { # label bin
  local label="$1" bin="$2"
  start "$bin" "$capture"; local rport="$port" rpid="$pid"
  local fresh; fresh="$(rss_mib "$rpid")"
  curl -s -X POST "http://127.0.0.1:$rport/agentenv" -H 'Content-Type: application/json' \
    -d '{"jsonrpc":"2.0","id":1,"method":"data/get"}' -o "$work/export.json"
  printf '%-8s %-10s %10s %10s %12s %10s %14s %14s %14s\n' "" rows "data/add" "(CPU)" "payload" "RSS" "create mean" "create p50" "RSS after them"
  local n t size c1 p50s=()
  for n in 1000 10000 100000; do
    [ -f "$work/add-$n.json" ] || rows "$n" "$work/add-$n.json"
    size="$(stat -c %s "$work/add-$n.json")"
    local c0; c0="$(cpu_s "$rpid")"
    t="$(rpc "$rport" data/add "$work/add-$n.json")"
    local cpu; cpu="$(python3 -c "print(f'{$(cpu_s "$rpid") - $c0:.3f}')")"
    if [ "${t##*timeout}" != "$t" ]; then
      printf '%-8s %-10s %10s %10s MiB  (data/add took longer than %s s: stopped here)\n' "$label" "$n" "timeout" "$((size / 1048576))" "${ADD_SECONDS:-60}"
      stop "$rpid"; return
    fi
    grep -q '"error"' "$work/rpc.out" && echo "# data/add $n: $(head -c 300 "$work/rpc.out")" >&2
    local added; added="$(rss_mib "$rpid")" # before the creates below add rows of their own
    c1=($(wrk_run "http://127.0.0.1:$rport$base" "$work/post.lua" 1))
    printf '%-8s %-10s %9.3fs %9ss %10s MiB %6s MiB (%sx payload) %12sus %12sus %9s MiB (%s creates)\n' "$label" "$n" "$t" "$cpu" "$((size / 1048576))" "$added" "$(ratio "$added" "$((size / 1048576))")" "${c1[1]}" "${c1[4]}" "$(rss_mib "$rpid")" "${c1[5]}"
    p50s+=("${c1[4]}")
  done
  printf '%-8s create latency at 100k entities / at 1k (median): %sx\n' "$label" "$(ratio "${p50s[2]}" "${p50s[0]}")"
  rpc "$rport" data/reset >/dev/null
  t="$(rpc "$rport" data/add "$work/add-100000.json")"
  local r0; r0="$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$rport/agentenv")"
  t="$(rpc "$rport" data/reset)"
  sleep 1; settle "$rpid" # the replaced World is freed in the background
  printf '%-8s data/reset at 100k entities: %.2f ms (an HTTP round trip: %.2f ms; in the server: %s ms); RSS fresh %s MiB (this server, before its adds), after the reset %s MiB (%sx fresh)\n' \
    "$label" "$(python3 -c "print($t*1000)")" "$(python3 -c "print($r0*1000)")" "$(server_ms "$rport" data/reset)" "$fresh" "$(rss_mib "$rpid")" "$(ratio "$(rss_mib "$rpid")" "$fresh")"
  stop "$rpid"
}

memory() { # label bin
  local label="$1" bin="$2"
  start "$bin" "$capture"; local rport="$port" rpid="$pid"
  local fresh; fresh="$(rss_mib "$rpid")"
  local t0 t1
  t0=$(date +%s.%N)
  taskset -c 1 wrk -t1 -c"$conns" -d"${CREATE_SECONDS:-40}s" -s "$work/creates.lua" "http://127.0.0.1:$rport$base" >/dev/null
  t1=$(date +%s.%N)
  local after; after="$(rss_mib "$rpid")" # before the data/get below renders them all
  local count; count="$(curl -s -X POST "http://127.0.0.1:$rport/agentenv" -H 'Content-Type: application/json' \
    -d '{"jsonrpc":"2.0","id":1,"method":"data/get"}' | python3 -c 'import json,sys; r=json.load(sys.stdin)["result"]["parts"][0]["data"]; print(sum(len(v) for v in r.values() if isinstance(v, list)))')"
  local got; got="$(rss_mib "$rpid")"
  local rt; rt="$(rpc "$rport" data/reset)"
  sleep 1; settle "$rpid" # the replaced World is freed in the background
  printf '%-8s data/reset at %s entities: %.2f ms (in the server: %s ms)\n' "$label" "$count" "$(python3 -c "print($rt*1000)")" "$(server_ms "$rport" data/reset)"
  printf '%-8s RSS fresh %s MiB; after %s creates (%s rows, %.1f s) %s MiB (%s KB per created row); after a data/get of them %s MiB; after data/reset %s MiB (%sx fresh)\n' \
    "$label" "$fresh" "$creates" "$count" "$(echo "$t1 - $t0" | bc)" "$after" \
    "$(python3 -c "print(f'{($after - $fresh) * 1048576 / 1000 / max($count, 1):.1f}')")" "$got" "$(rss_mib "$rpid")" "$(ratio "$(rss_mib "$rpid")" "$fresh")"
  stop "$rpid"
}

startup() { # label bin
  local label="$1" bin="$2"
  [ -f "$large" ] || { echo "# $large not found: skipped start-up"; return; }
  local t0 t1; t0=$(date +%s.%N)
  start "$bin" "$large"; t1=$(date +%s.%N)
  local hwm; hwm="$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$pid/status")"
  local mib=$(( $(stat -c %s "$large") / 1048576 ))
  printf '%-8s start-up on large.har (%s MiB): ready in %.2f s (%s s of CPU); RSS %s MiB (%sx the capture), peak %s MiB\n' \
    "$label" "$mib" "$(echo "$t1 - $t0" | bc)" "$(cpu_s "$pid")" "$(rss_mib "$pid")" "$(ratio "$(rss_mib "$pid")" "$mib")" "$hwm"
  stop "$pid"
}

# tools N FILE: a capture with N distinct GET endpoints (literal paths).
tools_capture() {
  python3 - "$1" "$2" <<'PY'
import json, sys
n, out = int(sys.argv[1]), sys.argv[2]
words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
def name(i):
    s = []
    while True:
        s.append(words[i % 10]); i //= 10
        if i == 0: break
    return "-".join(s)
entries = []
for i in range(n):
    body = json.dumps({"name": name(i), "ok": True})
    entries.append({
        "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1,
        "request": {"method": "GET", "url": f"http://127.0.0.1:9/api/{name(i)}/status", "httpVersion": "HTTP/1.1",
                    "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                     "headers": [{"name": "Content-Type", "value": "application/json"}], "cookies": [],
                     "content": {"size": len(body), "mimeType": "application/json", "text": body},
                     "redirectURL": "", "headersSize": -1, "bodySize": len(body)},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}})
json.dump({"log": {"version": "1.2", "creator": {"name": "bench", "version": "1"}, "entries": entries}}, open(out, "w"))
print(f"/api/{name(n - 1)}/status")
PY
}

routing() { # label bin
  local label="$1" bin="$2" n path rps=() cpu=() t0 t1 tools
  for n in 10 "$many_tools"; do
    [ -f "$work/tools-$n.har" ] || tools_capture "$n" "$work/tools-$n.har" >"$work/tools-$n.path"
    path="$(cat "$work/tools-$n.path")"
    t0=$(date +%s.%N); wait_tries=12000 start "$bin" "$work/tools-$n.har" --template-rule none; t1=$(date +%s.%N)
    tools="$(grep -o '[0-9]* tools' "$work/rea.log" | tail -1)"
    # A distinct query on each request: a repeated line would be answered
    # from the reply cache without routing.
    cat >"$work/route.lua" <<LUA
local n = 0
request = function() n = n + 1; return wrk.format("GET", "$path?r=" .. n) end
LUA
    local r; r=($(wrk_run "http://127.0.0.1:$port$path" "$work/route.lua" "$conns" "$pid"))
    rps+=("${r[0]}")
    printf '%-8s routing with %5s tools (%s): %10s req/s, %7sus mean, %6sus CPU per request; start-up %.2f s\n' \
      "$label" "$n" "$tools" "${r[0]}" "${r[1]}" "${r[3]}" "$(echo "$t1 - $t0" | bc)"
    cpu+=("${r[3]}")
    stop "$pid"
  done
  printf '%-8s routing: %s tools at %sx the throughput of 10, %sx the CPU per request\n' \
    "$label" "$many_tools" "$(ratio "${rps[1]}" "${rps[0]}")" "$(ratio "${cpu[1]}" "${cpu[0]}")"
}

for section in throughput data memory startup routing; do
  wants "$section" || continue
  echo "## $section"
  for entry in "${bins[@]}"; do
    case "$section" in
      throughput) throughput "${entry%%:*}" "${entry#*:}";;
      data) data_plane "${entry%%:*}" "${entry#*:}";;
      memory) memory "${entry%%:*}" "${entry#*:}";;
      startup) startup "${entry%%:*}" "${entry#*:}";;
      routing) routing "${entry%%:*}" "${entry#*:}";;
    esac
  done
done
