#!/usr/bin/env bash
# Scores `rea environment-serve` with the shared fidelity harness on every
# developer pair (Kinto, WordPress, MLflow from ../shared/fixtures, and every
# folder of tests/fixtures/ that holds a dev-a.har and a dev-b.har), both
# directions, and prints a table: fidelity.py's score and
# `rea environment-check`'s for each direction.
#
#   bash tests/fidelity/pairs.sh            # uses target/release/rea
#   REA=target/debug/rea bash tests/fidelity/pairs.sh
#   KEEP=DIR bash tests/fidelity/pairs.sh   # keep every report (text + JSON) in DIR
#
# Needs ../shared beside the repo (fixtures and fidelity.py) and the venv from
# tests/python/setup.sh (created here when missing). Build the binary first:
# `cargo build --release --bin rea`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
shared="${SHARED:-$root/../shared}"
rea="${REA:-$root/target/release/rea}"
case "$rea" in /*) ;; *) rea="$root/$rea" ;; esac
if [ ! -x "$rea" ]; then
  echo "no rea binary at $rea; run: cargo build --release --bin rea (or set REA=...)" >&2
  exit 2
fi
harness="$shared/fidelity/fidelity.py"
[ -f "$harness" ] || { echo "no fidelity harness at $harness" >&2; exit 2; }
bash "$root/tests/python/setup.sh"
python="$root/.venv/bin/python"
out="${KEEP:-$(mktemp -d)}"
mkdir -p "$out"

disagree() { # request ordinals whose verdicts differ between the two JSON reports
  "$python" -c '
import json, sys
a = {r["i"]: r["verdict"] for r in json.load(open(sys.argv[1]))["requests"]}
b = {r["i"]: r["verdict"] for r in json.load(open(sys.argv[2]))["requests"]}
d = sorted(i for i in set(a) | set(b) if a.get(i) != b.get(i))
print(",".join(map(str, d)) if d else "none")' "$1" "$2" 2>/dev/null || echo "?"
}

score() { # the last line of a report: "fidelity: NN.N% (M/N)" -> "NN.N% (M/N)"
  sed -n 's/^fidelity: //p' "$1" | tail -1
}

printf '%-10s %-14s %-18s %-18s %s\n' app direction fidelity.py environment-check disagreeing
apps="kinto wordpress mlflow"
for dir in "$root"/tests/fixtures/*/; do
  app="$(basename "$dir")"
  case " $apps " in *" $app "*) continue ;; esac
  [ -f "$dir/dev-a.har" ] && [ -f "$dir/dev-b.har" ] && apps="$apps $app"
done
fixtures() { # the pair's folder: the project's copy when it has both sessions, else ../shared
  if [ -f "$root/tests/fixtures/$1/dev-a.har" ] && [ -f "$root/tests/fixtures/$1/dev-b.har" ]; then
    echo "$root/tests/fixtures/$1"
  else
    echo "$shared/fixtures/$1"
  fi
}
for app in $apps; do
  for pair in "dev-a dev-b" "dev-b dev-a"; do
    set -- $pair
    train="$(fixtures "$app")/$1.har"
    scored="$(fixtures "$app")/$2.har"
    tag="$app-$1-$2"
    "$python" "$harness" --train "$train" --heldout "$scored" \
      --serve "'$rea' environment-serve {capture} --port {port}" \
      --json "$out/$tag.fidelity.json" > "$out/$tag.fidelity.txt" 2>&1 || true
    "$rea" environment-check "$train" --against "$scored" > "$out/$tag.check.txt" 2>&1 || true
    "$rea" environment-check "$train" --against "$scored" --json > "$out/$tag.check.json" 2>/dev/null || true
    printf '%-10s %-14s %-18s %-18s %s\n' "$app" "$1->$2" \
      "$(score "$out/$tag.fidelity.txt")" "$(score "$out/$tag.check.txt")" \
      "$(disagree "$out/$tag.fidelity.json" "$out/$tag.check.json")"
  done
done
if [ -n "${KEEP:-}" ]; then
  echo "reports in $out"
else
  rm -rf "$out"
fi
