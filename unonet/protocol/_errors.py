"""Who broke the rules? The h11 split, so the network layer knows whom to blame.

``LocalProtocolError`` means *we* tried to build or send something invalid (a
bug on our side); ``RemoteProtocolError`` means the peer sent it (drop or blame
the peer).  Both carry a short machine ``code`` (the same strings the ``error``
message uses on the wire) and, when a single field is at fault, its path and the
offending value, so a log line says exactly what was wrong.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ProtocolError", "LocalProtocolError", "RemoteProtocolError"]

_MISSING = object()


def _short_repr(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ProtocolError(Exception):
    """Abstract base: catch this to handle any wire-level failure."""

    def __init__(
        self,
        message: str,
        *,
        code: str = "malformed",
        field: str | None = None,
        value: Any = _MISSING,
    ) -> None:
        if type(self) is ProtocolError:
            raise TypeError("ProtocolError is abstract; raise Local- or RemoteProtocolError")
        self.code = code
        self.field = field
        self.value = None if value is _MISSING else value
        self.has_value = value is not _MISSING
        detail = message
        if field is not None:
            detail = f"{field}: {detail}"
        if value is not _MISSING:
            detail = f"{detail} (got {_short_repr(value)})"
        super().__init__(detail)

    def _as(self, cls: type[ProtocolError]) -> ProtocolError:
        new = cls.__new__(cls)
        Exception.__init__(new, *self.args)
        new.code, new.field, new.value, new.has_value = (
            self.code, self.field, self.value, self.has_value,
        )
        return new


class LocalProtocolError(ProtocolError):
    """We tried to build, encode or send something the protocol forbids."""

    def _reraise_as_remote(self) -> RemoteProtocolError:
        return self._as(RemoteProtocolError)  # type: ignore[return-value]


class RemoteProtocolError(ProtocolError):
    """The peer sent something the protocol forbids; the link should drop it."""
