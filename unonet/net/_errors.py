"""Link failures as exceptions whose text is one line a CLI can print.

Every way a link can end badly is one of these, so the session code needs one
``except LinkError`` per link and never shows a traceback to a player.
"""

from __future__ import annotations

import errno
import socket

__all__ = ["LinkError", "ConnectFailed", "LinkClosed", "LinkTimeout", "PeerViolation",
           "PeerRefused", "Untrusted", "BindFailed", "JoinFailed", "SeatProblem"]


class LinkError(Exception):
    """Base: the link is over (or never opened); ``str(exc)`` says why in one line.

    ``code`` is the wire error code that fits (spec §4.6), or ``"closed"``."""

    code = "closed"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class ConnectFailed(LinkError):
    """No TCP connection: refused, unreachable, unknown name or connect timeout.
    ``refused``: the machine answered that nothing listens there (its process is gone)."""

    code = "connect"
    refused = False

    def __init__(self, message: str, *, refused: bool = False, **kw) -> None:
        super().__init__(message, **kw)
        self.refused = refused


class LinkClosed(LinkError):
    """The peer closed the stream (cleanly between frames, or the connection died)."""


class LinkTimeout(LinkError):
    """A wait (handshake, hello, idle receive, send) ran past its limit."""

    code = "timeout"


class PeerViolation(LinkError):
    """The peer broke the protocol; we sent it an ``error`` (when we could) and closed.

    ``field`` is the offending field path (spec §4.6), ``error`` the decoder's
    ``RemoteProtocolError``."""

    def __init__(self, message: str, *, code: str, field: str | None = None,
                 error: Exception | None = None) -> None:
        super().__init__(message, code=code)
        self.field, self.error = field, error


class PeerRefused(LinkError):
    """The peer sent a fatal ``error`` message and closed: ``report`` is that message."""

    def __init__(self, message: str, *, report) -> None:
        super().__init__(message, code=report.code)
        self.report = report
        self.field = report.field


class Untrusted(LinkError):
    """Our own trust check refused the peer's key or hello (join code, pinned key).

    ``cause`` is the ``unonet.protocol.TrustError``; nothing more was sent."""

    def __init__(self, message: str, *, code: str, cause: Exception | None = None) -> None:
        super().__init__(message, code=code)
        self.cause = cause


class BindFailed(OSError):
    """We cannot listen where we were asked (a port in use, a ``--bind`` address this
    machine does not have): ``str()`` names the address and what to try.  An ``OSError``,
    so code that expected the socket's own error still catches it; the CLI makes it one
    line and exit status 2 (bad input)."""

    def __str__(self) -> str:
        return self.strerror or super().__str__()


# -- how a seat session ends (raised by the session, the election and the join path) --
class JoinFailed(Exception):
    """Joining or playing ended badly; ``str()`` is one line saying what and what to do.
    ``cheat``: the host failed a fair-play check."""

    def __init__(self, message: str, *, cheat: bool = False, code: str = "closed", cut_off: bool = False,
                 between: bool = False, refused: bool = False, goodbye: bool = False) -> None:
        super().__init__(message)
        self.cheat, self.code = cheat, code
        #: the host said goodbye (`leave`): it closed its table on purpose (q, a Ctrl-C), nothing
        #: failed - the screen says so plainly, not as a table problem (evening19); the match was
        #: not played out all the same (`join` exits 1, docs/network.md)
        self.goodbye = goodbye
        #: the host's own fatal ``error`` to us (`PeerRefused`): its word about our link, whatever
        #: its code says, never a finding of ours about the round (a scorekeeper disputes nothing)
        self.refused = refused
        #: the link to the host ended between matches (no goodbye from it): it may be only our
        #: link, and the host may hold our seat (spec §7): the election loop tries it again
        self.between = between
        #: an election found nobody (no successor answered, or nobody followed us): our own
        #: network may be what went, and the lost host may still hold our seat
        self.cut_off = cut_off


class SeatProblem(Exception):
    """The host failed a check this seat makes (``cheat``) or broke the session: the
    seat stops playing; ``str()`` names what and who."""

    def __init__(self, message: str, *, cheat: bool = False, code: str = "fair-play") -> None:
        super().__init__(message)
        self.cheat, self.code = cheat, code


def bind_failed(exc: OSError, what: str, bind: str | None, port: int) -> "BindFailed":
    """A failed bind as the line a person reads."""
    where = f"{bind or '0.0.0.0'}:{port}"
    if exc.errno == errno.EADDRINUSE:
        hint = (f"{what} port {port} is in use (another table or program holds it): give another "
                "--port, or --port 0 for any free one")
    elif exc.errno == errno.EADDRNOTAVAIL or isinstance(exc, socket.gaierror):
        hint = f"this machine has no address {bind!r}: give one of its own addresses to --bind, or leave it out"
    elif exc.errno in (errno.EACCES, errno.EPERM):
        hint = f"{what} port {port} needs privileges: use a port above 1023"
    else:
        hint = exc.strerror or str(exc)
    err = BindFailed(exc.errno or 0, f"cannot listen on {where}: {hint}")
    return err
