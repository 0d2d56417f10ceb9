"""The server says each thing once: one list of error codes (the ``error`` message's and every
refusal's), one token bucket, and the limits and the protocol's error module import no room."""

from __future__ import annotations

import re
import typing

from paths import ROOT

from crisp.server.wire import protocol
from crisp.server.wire.errors import ErrorCode

SERVER = ROOT / "crisp" / "server"
IMPORT = re.compile(r"^\s*(?:from|import) (crisp\.[\w.]+)", re.MULTILINE)


def imports_of(path: typing.Any) -> set[str]:
    return set(IMPORT.findall(path.read_text()))


def test_the_error_message_and_refusals_share_one_list_of_codes() -> None:
    assert protocol.Error.model_fields["code"].annotation is ErrorCode
    schema = protocol.Error.model_json_schema()["properties"]["code"]
    assert schema["enum"] == list(typing.get_args(ErrorCode))


def test_there_is_one_token_bucket() -> None:
    defined = [p for p in SERVER.rglob("*.py") if "class TokenBucket" in p.read_text()]
    assert [p.relative_to(SERVER).as_posix() for p in defined] == ["limits/bucket.py"]


def test_the_limits_and_the_wire_vocabulary_import_no_room() -> None:
    leaves = [*(SERVER / "limits").glob("*.py")]
    leaves += [SERVER / "wire" / name for name in ("errors.py", "roomcode.py", "protocol.py")]
    reaching = {
        p.relative_to(SERVER).as_posix(): sorted(i for i in imports_of(p) if ".rooms" in i)
        for p in leaves
    }
    assert {k: v for k, v in reaching.items() if v} == {}
