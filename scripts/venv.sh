# Sourced by scripts/test and scripts/serve (and by hand: `. scripts/venv.sh` makes ./.venv).
# Makes the virtual environment $venv from the lock files $locks (every file hash-checked by pip),
# and installs this package into it in editable mode, with the build backend from
# requirements-build.lock (so pip never fetches setuptools). This is done once: a stamp in the
# venv holds the hash of the lock files and pyproject.toml, and while they are unchanged nothing is
# installed, so a second run needs no network and runs no pip at all.
#   venv   default $CRISP_VENV or ./.venv            (scripts/serve: $CRISP_SERVE_VENV or ./.venv-serve)
#   locks  default "requirements-dev.lock requirements-build.lock"
#                                                    (scripts/serve: requirements.lock, runtime only)
here=$(pwd)
venv="${venv:-${CRISP_VENV:-$here/.venv}}"
locks="${locks:-requirements-dev.lock requirements-build.lock}"
crisp_stamp="$venv/.crisp-stamp"
# shellcheck disable=SC2086  # $locks is a list of file names
crisp_want=$(cat $locks pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$crisp_stamp" 2>/dev/null)" != "$crisp_want" ]; then
  echo "== setting up $venv from $locks (once; this needs the package index)" >&2
  crisp_pip="$venv/bin/python -m pip --disable-pip-version-check --quiet"
  # The stamp is written only when every step worked: a failed setup is tried again next time.
  # shellcheck disable=SC2046,SC2086
  if "${PYTHON:-python3}" -m venv --clear "$venv" \
    && $crisp_pip install --require-hashes --no-deps $(printf -- '-r %s ' $locks) \
    && $crisp_pip install --no-deps --no-build-isolation --editable .; then
    echo "$crisp_want" > "$crisp_stamp"
    echo "== $venv is ready" >&2
  else
    echo "== setting up $venv failed (is the package index reachable?); the next run tries again" >&2
    false
  fi
fi
