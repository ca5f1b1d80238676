"""Where a table is: ``HOST[:PORT]`` parsed, the one table to join picked from what discovery
found, and a found table as one line.  Shared by the join path, `unonet list` and the CLI
(below the command-line modules, which import it)."""

from __future__ import annotations

from ._discovery import FoundTable
from ._errors import JoinFailed

__all__ = ["DEFAULT_PORT", "parse_address", "pick_table", "table_line"]

DEFAULT_PORT = 47800


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``HOST``, ``HOST:PORT`` or ``[V6]:PORT`` -> (host, port); ValueError in one line."""
    host, port = text, default_port
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise ValueError(f"bad address {text!r}: missing ']'")
        host, rest = text[1:end], text[end + 1:]
        if rest:
            if not rest.startswith(":"):
                raise ValueError(f"bad address {text!r}")
            port = _port(rest[1:], text)
    elif text.count(":") == 1:
        host, p = text.split(":")
        port = _port(p, text)
    if not host:
        raise ValueError(f"bad address {text!r}: no host")
    return host, port


def _port(p: str, text: str) -> int:
    if not p.isdigit() or not 1 <= int(p) <= 65535:
        raise ValueError(f"bad port in {text!r}: a number 1..65535")
    return int(p)


def pick_table(found: list[FoundTable]) -> FoundTable:
    """Without an address: the one compatible table found, or a one-line error listing
    what was found (the client's picker asks instead)."""
    usable = [t for t in found if t.compatible]
    if len(usable) == 1:
        return usable[0]
    if not found:
        raise JoinFailed("no table found on this network (is a host running? where broadcast is "
                         "blocked, give its address: unonet join HOST[:PORT])", code="none")
    if not usable:
        raise JoinFailed("no compatible table found: " + "; ".join(table_line(t) for t in found),
                         code="version")
    lines = "\n  ".join(table_line(t) for t in usable)
    raise JoinFailed(f"{len(usable)} tables found; name one as HOST:PORT:\n  {lines}", code="choose")


def table_line(t: FoundTable) -> str:
    b = t.beacon
    rules = b.rules + (f" +{','.join(b.house)}" if b.house else "") + (" teams" if b.teams else "")
    compat = f"v{t.version}" if t.compatible else f"INCOMPATIBLE (speaks v{b.vmin}..v{b.v})"
    return (f"{b.name!s:<20} {t.address}:{b.port:<6} {b.taken}/{b.seats} seats  {rules}  "
            f"to {b.target}  {b.state}  code {t.join_code}  host {b.host}  {compat}")
