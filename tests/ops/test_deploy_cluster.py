"""The scale-out deployment files: deploy/haproxy.cfg is what
crisp/server/run/balancer.py
makes, HAProxy itself accepts it, and compose.cluster.yaml runs PostgreSQL, the nodes the
configuration names (each with its own node id, all on the one database) and HAProxy with it."""

from __future__ import annotations

import re
import subprocess

import pytest
from paths import ROOT

from crisp.server.run.balancer import COMPOSE, haproxy_bin

CFG = ROOT / "deploy" / "haproxy.cfg"
COMPOSE_FILE = ROOT / "compose.cluster.yaml"


def test_deploy_haproxy_cfg_is_generated() -> None:
    assert CFG.read_text() == COMPOSE, (
        "run: python -m crisp.server.run.balancer > deploy/haproxy.cfg"
    )


def test_haproxy_accepts_the_configuration() -> None:
    found = haproxy_bin()
    if found is None:
        pytest.fail("HAProxy is not installed (.ci/run installs it)")
    done = subprocess.run(
        [found, "-c", "-f", str(CFG)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ALERT" not in done.stdout + done.stderr


def test_compose_runs_the_nodes_the_balancer_names() -> None:
    text = COMPOSE_FILE.read_text()
    servers = re.findall(r"(?m)^    server (\S+) (\S+):8000$", CFG.read_text())
    assert [name for name, _ in servers] == ["node1", "node2", "node3"]
    for name, host in servers:
        assert re.search(rf"(?m)^  {host}:$", text), f"compose has no service {host}"
        assert f"CRISP_NODE_ID: {name}" in text
    assert 'CRISP_DATABASE_URL: "postgresql://' in text
    assert "./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in text
    assert re.search(r"(?m)^  postgres:$", text) and "pg_isready" in text


def test_the_shipped_proxies_keep_the_metrics_inside() -> None:
    """/metrics is for the operator's monitoring: Caddy (compose.yaml) answers it 404 itself and
    HAProxy (compose.cluster.yaml, --workers) denies it before any node sees it."""
    caddy = (ROOT / "deploy" / "Caddyfile").read_text(encoding="utf-8")
    haproxy = (ROOT / "deploy" / "haproxy.cfg").read_text(encoding="utf-8")
    assert "respond /metrics 404" in caddy.split("reverse_proxy")[0]
    assert "respond /admin/* 404" in caddy.split("reverse_proxy")[0]
    frontend = haproxy.split("frontend crisp")[1].split("backend nodes")[0]
    assert "http-request deny deny_status 404 if { path /metrics }" in frontend
    assert "http-request deny deny_status 404 if { path_beg /admin/ }" in frontend
