# Crisp, the game server, in a small image: Python 3.11 slim, the package and its runtime
# dependencies, nothing else (no compiler, no dev tools, no source tree).
#
#   docker build -t crisp .
#   docker run -d --name crisp -p 8000:8000 -v crisp-data:/data crisp
#
# The SQLite file is /data/crisp.sqlite3, in the volume. tests/test_dockerfile.py checks this file.

# -- build: a wheel of the package, and the versions the tests ran with ---------------------------
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md LICENSE requirements-dev.lock ./
COPY crisp ./crisp
# Every "name==version" line of the lock file, without its hashes: a constraints file. It pins the
# server's dependencies to the tested versions; constraints install nothing by themselves, so none
# of the lock's dev tools come along.
RUN sed -n 's/^\([A-Za-z0-9][A-Za-z0-9._-]*==[^ ;\\]*\).*/\1/p' requirements-dev.lock > constraints.txt
RUN pip wheel --no-cache-dir --disable-pip-version-check --no-deps --wheel-dir /wheels .

# -- the image ----------------------------------------------------------------------------------
FROM python:3.11-slim
LABEL org.opencontainers.image.title="Crisp" \
      org.opencontainers.image.description="Self-hostable server for Crisp, the card game for 2 to 8 phones" \
      org.opencontainers.image.licenses="MIT"
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
COPY --from=build /wheels /tmp/wheels
COPY --from=build /src/constraints.txt /tmp/constraints.txt
# The package and its runtime dependencies (no extras); then an unprivileged user that owns /data,
# created before the VOLUME so that a new named volume starts out owned by that user.
RUN pip install --no-cache-dir --disable-pip-version-check --root-user-action=ignore \
        --constraint /tmp/constraints.txt /tmp/wheels/*.whl \
    && rm -rf /tmp/wheels /tmp/constraints.txt \
    && groupadd --system --gid 10001 crisp \
    && useradd --system --uid 10001 --gid crisp --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin crisp \
    && mkdir -p /data \
    && chown crisp:crisp /data
ENV CRISP_HOST=0.0.0.0 \
    CRISP_PORT=8000 \
    CRISP_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8000
# Numeric, so that runtimes that insist on a non-root user (runAsNonRoot) can verify it.
USER 10001:10001
# slim has no curl: Python's urllib asks the server itself (any answer but 2xx, or none, fails).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('CRISP_PORT', '8000') + '/healthz', timeout=4)" || exit 1
CMD ["crisp", "serve"]
