"""Where a table is: ``HOST[:PORT]`` parsed, the one table to join picked from what discovery
found, and a found table as one line.  Shared by the join path, `unonet list` and the CLI
(below the command-line modules, which import it)."""

from __future__ import annotations

import ipaddress

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
    _check_host(host, text)
    return host, port


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.")


def _check_host(host: str, text: str) -> None:
    """A host that cannot be one is bad input (never looked up): numbers and dots must be an
    IPv4 address, anything with a colon an IPv6 address, else a host name's letters."""
    if ":" in host:
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ValueError(f"bad address {text!r}: {host!r} is not an IPv6 address") from None
    elif all(c.isdigit() or c == "." for c in host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            raise ValueError(f"bad address {text!r}: not an IPv4 address (four numbers 0..255, "
                             "like 192.168.1.20)") from None
    elif (len(host) > 253 or not set(host) <= _NAME_CHARS
          or any(not 0 < len(label) <= 63 or label[0] == "-" or label[-1] == "-"
                 for label in host.rstrip(".").split("."))):
        raise ValueError(f"bad address {text!r}: not a host name or address")


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
