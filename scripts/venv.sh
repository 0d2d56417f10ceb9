# Sourced by scripts/test and scripts/serve: make ./.venv (or $CRISP_VENV) from the lock file the
# first time, and again whenever the lock file changes; then install this package into it.
here=$(pwd)
venv="${CRISP_VENV:-$here/.venv}"
stamp="$venv/.crisp-lock-sha"
want=$(sha256sum requirements-dev.lock | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "== setting up $venv from requirements-dev.lock" >&2
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet --require-hashes -r requirements-dev.lock
  echo "$want" > "$stamp"
fi
"$venv/bin/python" -m pip install --quiet --no-deps --no-build-isolation -e . 2>/dev/null \
  || "$venv/bin/python" -m pip install --quiet --no-deps -e .
