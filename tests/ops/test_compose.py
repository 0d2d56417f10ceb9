"""The compose files as the tests bring them up (tests/ops/test_compose_caddy.py,
test_compose_cluster.py): the tests' override of each (tests/ops/containers/*.standins.yaml) swaps
every service's image for one built here and changes nothing else, as podman-compose 1.6 merges
them; and each network's ip_range, from which a container without a fixed address gets one, holds
neither the gateway nor a fixed address (else Crisp, or a node, started first, takes the proxy's
and the proxy does not start)."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Any

import podman as pm
import pytest
from composestack import CLUSTER, COMPOSE, OVERRIDES, Stack


@pytest.mark.parametrize("file", [COMPOSE, CLUSTER], ids=lambda f: f.name)
def test_override_swaps_images_only_and_ip_range_keeps_fixed_addresses_out(file: Path) -> None:
    """The tests' override changes every service's image and nothing else, to a name with the
    compose file's name and tag (without the registry's digest). The network's ip_range (for
    containers without a fixed address) holds neither the gateway nor a fixed address."""
    pm.podman_or_skip()
    env = {"CRISP_DOMAIN": "localhost", "POSTGRES_PASSWORD": "x"}
    merged = Stack("crisptestconfig", file, OVERRIDES[file], env).config()
    alone = Stack("crisptestconfig", file, None, env).config()
    services: dict[str, Any] = merged["services"]  # type: ignore[assignment]
    for name, service in alone["services"].items():  # type: ignore[attr-defined]
        swapped = services[name]["image"]
        assert swapped.startswith("localhost/crisp-test/"), (name, swapped)
        assert swapped.rsplit("/", 1)[1] == service["image"].split("@")[0].rsplit("/", 1)[-1]
        assert {**services[name], "image": service["image"]} == service, name
    assert {k: v for k, v in merged.items() if k != "services"} == {
        k: v for k, v in alone.items() if k != "services"
    }
    [network] = alone["networks"].values()  # type: ignore[attr-defined]
    [config] = network["ipam"]["config"]
    subnet = ipaddress.ip_network(config["subnet"])
    pool = ipaddress.ip_network(config["ip_range"])
    assert pool.subnet_of(subnet) and next(subnet.hosts()) not in pool  # type: ignore[arg-type]
    fixed = [
        ipaddress.ip_address(net["ipv4_address"])
        for service in alone["services"].values()  # type: ignore[attr-defined]
        if isinstance(service.get("networks"), dict)
        for net in service["networks"].values()
        if isinstance(net, dict) and "ipv4_address" in net
    ]
    assert fixed and all(a in subnet and a not in pool for a in fixed), fixed
