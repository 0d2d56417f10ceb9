"""What the wire models of every game share: a strict object (unknown fields refused, a field that
may be left out is never null), and the union of everything the server sends in a room of the
game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, ClassVar, Union

from pydantic import BaseModel, ConfigDict, Field, model_validator

from crisp.server.wire import protocol as P


class WireObject(BaseModel):
    """A message or object of the protocol: unknown fields are refused. The fields named in
    ``omitted_not_null`` may be left out, but are never null when present."""

    model_config = ConfigDict(extra="forbid")
    omitted_not_null: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="after")
    def _present_means_not_null(self) -> Any:
        for name in self.omitted_not_null & self.model_fields_set:
            if getattr(self, name) is None:
                raise ValueError(f"{name} is left out when it does not apply, never null")
        return self


def server_messages(events: Sequence[type[BaseModel]]) -> Any:
    """The union of the server's own messages and a game's ``events``, by ``type``."""
    return Annotated[
        Union[(*P.SERVER_TYPES, *events)],
        Field(discriminator="type"),
    ]
