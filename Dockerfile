# Crisp, the game server, in a small image: Python 3.11 slim, the package and its runtime
# dependencies from requirements.lock (hash-checked), nothing else: no compiler, no dev tools, no
# source tree, and no pip or setuptools in the final image.
#
#   docker build -t crisp .
#   docker run -d --name crisp -p 8000:8000 -v crisp-data:/data crisp
#
# The SQLite file is /data/crisp.sqlite3, in the volume. compose.yaml runs it behind Caddy (HTTPS).
# tests/ops/test_dockerfile.py checks this file.
#
# Both stages start from the same base, pinned by digest (python:3.11.15-slim-bookworm, the
# multi-platform index), so that a rebuild gets the same system. To move to a newer one:
#   docker buildx imagetools inspect python:3.11-slim-bookworm
# and put the new tag and digest in BASE's default.
#
# BASE may name another Debian bookworm image with Python 3.11 where that one cannot be pulled
# (podman, no registry: docs/operating.md); a base without pip (Debian's python3 and python3-venv)
# gets one the way python:slim has it, in /usr/local, by a virtual environment there. VERSION and
# REVISION (the source's git commit) fill the OCI labels:
#   docker build --build-arg VERSION=0.1.0 --build-arg REVISION=$(git rev-parse HEAD) -t crisp .
ARG BASE=python:3.11.15-slim-bookworm@sha256:d29f48a31a8b408ed19272ca1e7b10ebae13b240a27e862d3d4217c528e2e0c3

# -- build: a wheel of the package, with the build backend of requirements-build.lock ------------
FROM ${BASE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore
WORKDIR /src
COPY pyproject.toml README.md LICENSE requirements.lock requirements-build.lock ./
COPY crisp ./crisp
RUN (command -v pip >/dev/null || python -m venv /usr/local) \
    && pip install --require-hashes --no-deps -r requirements-build.lock \
    && pip wheel --no-deps --no-build-isolation --wheel-dir /wheels .

# -- the image ----------------------------------------------------------------------------------
FROM ${BASE}
# Before the RUN below, whose cache key they are part of: podman's layer cache keys a LABEL by its
# text alone, and would keep the labels of an earlier build with other values.
ARG VERSION=unknown
ARG REVISION=unknown
LABEL org.opencontainers.image.title="Crisp" \
      org.opencontainers.image.description="Self-hostable server for Crisp, the card game for 2 to 8 phones" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
COPY --from=build /src/requirements.lock /tmp/requirements.lock
COPY --from=build /wheels /tmp/wheels
# The runtime dependencies exactly as locked (every file hash-checked), the package's wheel, a
# check that they fit together; then pip, setuptools and wheel go (and ensurepip's copies of
# them), and an unprivileged user that owns /data is created before the VOLUME, so that a new
# named volume starts out owned by that user.
RUN export PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore \
    && (command -v pip >/dev/null || python -m venv /usr/local) \
    && pip install --require-hashes --no-deps -r /tmp/requirements.lock \
    && pip install --no-deps /tmp/wheels/*.whl \
    && pip check \
    && pip uninstall --yes setuptools wheel pip \
    && rm -rf /tmp/wheels /tmp/requirements.lock /usr/local/lib/python3.11/ensurepip/_bundled \
    && groupadd --system --gid 10001 crisp \
    && useradd --system --uid 10001 --gid crisp --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin crisp \
    && mkdir -p -m 700 /data \
    && chown crisp:crisp /data
ENV CRISP_HOST=0.0.0.0 \
    CRISP_PORT=8000 \
    CRISP_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8000
# Numeric, so that runtimes that insist on a non-root user (runAsNonRoot) can verify it.
USER 10001:10001
# slim has no curl: Python's urllib asks the server itself, where it listens: CRISP_HOST (every
# interface, 0.0.0.0 or ::, is asked on loopback) and CRISP_PORT. Any answer but 2xx, or none,
# fails. The server leaves these requests out of its access log (CRISP_ACCESS_LOG_HEALTHZ).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD python -c "import os, urllib.request; h = os.environ.get('CRISP_HOST', '0.0.0.0'); h = {'0.0.0.0': '127.0.0.1', '': '127.0.0.1', '::': '::1'}.get(h, h); h = '[' + h + ']' if ':' in h else h; urllib.request.urlopen('http://' + h + ':' + os.environ.get('CRISP_PORT', '8000') + '/healthz', timeout=4)" || exit 1
CMD ["crisp", "serve"]
