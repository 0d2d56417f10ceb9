"""The shape of a move or of the host's options as it arrives from a phone, checked with pydantic
(the rules come later, in the engine): a strict model, and the check that names the first field
that does not fit."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from crisp.server.seam import BadFields


class StrictFields(BaseModel):
    """Fields from a phone: unknown ones are refused, and no type is coerced."""

    model_config = ConfigDict(extra="forbid", strict=True)


def checked(model: type[StrictFields], fields: dict[str, Any], drop_none: bool) -> dict[str, Any]:
    """``fields`` as ``model`` stores them (without the None ones if ``drop_none``); raises
    ``BadFields`` naming the first field that does not fit."""
    try:
        return model.model_validate(fields).model_dump(exclude_none=drop_none)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "message"
        raise BadFields(where, first["msg"]) from err
