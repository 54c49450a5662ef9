#!/usr/bin/env bash
# Creates .venv at the repo root (idempotent) and installs the pinned Python
# clients the serving tests drive. Safe to run again: it only installs when
# requirements.txt changed since the last successful install.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/.venv"
req="$here/requirements.txt"
stamp="$venv/.rea-requirements"
python="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
if [ -f "$stamp" ] && cmp -s "$req" "$stamp"; then
  exit 0
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
cp "$req" "$stamp"
