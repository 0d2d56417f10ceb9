#!/usr/bin/env bash
# Builds localhost/crisp-debian-base:bookworm, the base the container tests build on where no
# image registry can be reached: a minimal Debian bookworm root file system made by mmdebstrap
# from the machine's Debian sources, with Python 3 (and venv), CA certificates, netbase and
# tzdata, imported into podman's store. Does nothing if the image is already there.
# Usage: debian-base.sh [IMAGE]   (default localhost/crisp-debian-base:bookworm)
set -euo pipefail
image="${1:-localhost/crisp-debian-base:bookworm}"
if podman image exists "$image"; then
  echo "== $image: already built"
  exit 0
fi
start=$(date +%s%N)
work=$(mktemp -d "${TMPDIR:-/var/tmp}/crisp-debian-base.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "== building $image with mmdebstrap"
mmdebstrap --quiet --variant=minbase \
  --include=python3,python-is-python3,python3-venv,ca-certificates,netbase,tzdata \
  bookworm "$work/rootfs.tar"
podman import --quiet "$work/rootfs.tar" "$image" >/dev/null
end=$(date +%s%N)
size=$(podman image inspect "$image" --format '{{.Size}}')
awk -v i="$image" -v t="$((end - start))" -v s="$size" \
  'BEGIN { printf "== %s: built in %.1f s, %.0f MB\n", i, t / 1e9, s / 1e6 }'
