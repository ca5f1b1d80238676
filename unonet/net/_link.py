"""A secure link over any ``trio.abc.Stream``: the ``SecureLink`` state machine
driven by real IO (h11's ``TrioHTTPWrapper`` shape).

``open_link`` runs the Noise XX handshake, asks the trust gates, exchanges and
checks ``hello`` and negotiates the version; the ``Link`` it returns sends and
receives whole messages.  Every wait is under a limit from ``Timeouts``.  A peer
that breaks the protocol is told why (an ``error`` message with its code and
field path) and the link is closed; every failure surfaces as a ``LinkError``
whose text is one line.
"""

from __future__ import annotations

import dataclasses
import errno
import math
import os
import socket
from typing import Any, AsyncIterator

import trio

from unonet.protocol import (
    CLOSED, HOST, NEED_DATA, PLAYER, ErrorReport, HandshakeComplete, Hello, Identity,
    LocalProtocolError, Message, PeerKey, RemoteProtocolError, SecureLink, TrustError,
)

from ._errors import (
    ConnectFailed, LinkClosed, LinkError, LinkTimeout, PeerRefused, PeerViolation, Untrusted,
)
from ._trust import HelloGate, KeyGate, accept_any, trust_code

__all__ = ["Link", "Timeouts", "open_link", "connect", "peer_address"]

RECEIVE_CHUNK = 65536 + 4
LINGER_BYTES = 1 << 20   # the most a closing link drains from a peer that keeps sending
WRITE_CHUNK = 1 << 16   # a write is timed a chunk at a time: a slow reader that reads is not "not reading"


@dataclasses.dataclass(frozen=True)
class Timeouts:
    """Seconds each wait may take (``None``: no limit, only for ``idle``).

    ``handshake`` covers the Noise handshake, both trust gates and the hello
    exchange together; ``idle`` is the longest ``receive()`` waits for a message
    (heartbeats come every second, so a live peer is never idle that long)."""

    connect: float = 5.0
    handshake: float = 10.0
    idle: float | None = 10.0
    send: float = 10.0


def peer_address(stream: trio.abc.Stream) -> str:
    """``host:port`` of a socket stream's peer, for messages; ``"peer"`` otherwise."""
    sock = getattr(stream, "socket", None)
    if sock is None:
        return "peer"
    try:
        addr = sock.getpeername()
    except OSError:
        return "peer"
    if sock.family == socket.AF_INET6:
        return f"[{addr[0]}]:{addr[1]}"
    if isinstance(addr, tuple):
        return f"{addr[0]}:{addr[1]}"
    return str(addr) or "peer"


class Link:
    """One open link: ``send(msg)``, ``receive()``, ``async for msg in link``.

    Built by ``open_link``/``connect``/``serve`` only.  Concurrent ``send`` calls
    from several tasks are serialized; one task receives."""

    def __init__(self, stream: trio.abc.Stream, sl: SecureLink, *, name: str,
                 address: str, timeouts: Timeouts) -> None:
        self._stream, self._sl, self.timeouts = stream, sl, timeouts
        self.address = address
        self.name = name
        self._send_lock = trio.StrictFIFOLock()
        # one task reads the stream at a time: the receiver, or (closing after a fatal
        # `error`) the linger that drains it; a drain takes the stream over for good
        self._recv_lock = trio.StrictFIFOLock()
        self._draining = False
        self._closed = False
        self.wrote_at = trio.current_time()  # when the peer last took bytes from us (`_write`)
        self._send_broken = False   # a write failed (the peer reset us): what it sent is still readable
        # frames encrypted by `send_now`, not yet written: every write writes them first (their
        # nonces come before any later frame's)
        self._unsent: list[bytes] = []
        sock = getattr(stream, "socket", None)
        self._fd: int | None = sock.fileno() if hasattr(sock, "fileno") else None
        # how the other side is called in messages: a joiner talks to "the host"
        who = "host" if sl.role != HOST else "peer"
        self.peer_label = who if address == "peer" else f"{who} {address}"

    # -- what the handshake established --------------------------------------

    @property
    def role(self) -> str:
        return self._sl.role

    @property
    def peer_hello(self) -> Hello:
        assert self._sl.peer_hello is not None
        return self._sl.peer_hello

    @property
    def peer_role(self) -> str:
        return self.peer_hello.role

    @property
    def peer_name(self) -> str:
        return self.peer_hello.name

    @property
    def peer_static(self) -> bytes:
        assert self._sl.remote_static is not None
        return self._sl.remote_static

    @property
    def peer_id(self) -> bytes:
        """The peer's 32-byte fingerprint (spec §4.5)."""
        from unonet.protocol import fingerprint

        return fingerprint(self.peer_static)

    @property
    def peer_fair_identity(self):
        return self._sl.peer_fair_identity

    @property
    def version(self) -> int:
        assert self._sl.version is not None
        return self._sl.version

    @property
    def handshake_hash(self) -> bytes:
        assert self._sl.handshake_hash is not None
        return self._sl.handshake_hash

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def messages_sent(self) -> int:
        """Messages sent on this link so far, our hello the first (spec §5 step 5 `took`)."""
        return self._sl.messages_sent

    @property
    def last_bytes(self) -> bytes:
        """The msgpack bytes of the message ``receive`` returned last (as the peer encoded it)."""
        return self._sl.last_bytes

    # -- messages -----------------------------------------------------------

    async def send(self, msg: Message, plaintext: bytes | None = None) -> None:
        """Encrypt, pad, frame and write one message (``LinkError`` if the link is over;
        ``LocalProtocolError`` if ``msg`` is ours to fix: forbidden for our role, too big).
        ``plaintext``: ``msg`` already padded and encoded (`unonet.protocol.encode_plaintext`)."""
        async with self._send_lock:
            if self._closed or self._send_broken:
                raise LinkClosed(f"the link to {self.peer_label} is closed")
            try:
                data = self._sl.send(msg, plaintext)
            except LocalProtocolError as exc:
                if exc.code == "closed":
                    raise LinkClosed(f"the link to {self.peer_label} is closed") from None
                raise
            await self._write(self._after_unsent(data), f"sending {msg.TYPE} to {self.peer_label}")

    def send_now(self, msg: Message, plaintext: bytes | None = None) -> bool:
        """Encrypt and frame one message now, without waiting; `flush_now` writes it.  False
        (nothing done) when the link cannot take it this way: a write is under way, the link
        is closed or broken, or its stream is no socket; then ``send`` must.  Raises
        ``LocalProtocolError`` as ``send`` does for a message that is ours to fix."""
        if self._fd is None or self._closed or self._send_broken or self._send_lock.locked():
            return False
        try:
            self._unsent.append(self._sl.send(msg, plaintext))
        except LocalProtocolError as exc:
            if exc.code == "closed":
                return False
            raise
        return True

    def flush_now(self) -> bool:
        """Write the frames ``send_now`` made, as far as the socket takes them without waiting
        (one system call).  False if some are left: ``flush`` (or the next ``send``) writes them."""
        if not self._unsent or self._closed or self._send_broken:
            self._unsent.clear()  # (closed: never a write to a descriptor that may be another's now)
            return True
        if self._send_lock.locked() or self._fd is None:
            return False  # the write under way writes them first
        data = self._unsent[0] if len(self._unsent) == 1 else b"".join(self._unsent)
        try:
            n = os.write(self._fd, data)
        except BlockingIOError:
            n = 0
        except OSError:  # the peer reset us: as in `_write`, what it sent stays readable
            self._send_broken = True
            self._unsent.clear()
            return True
        self._unsent = [data[n:]] if n < len(data) else []
        if n:
            self.wrote_at = trio.current_time()
        return not self._unsent

    async def flush(self) -> None:
        """Write what ``send_now`` left, waiting as ``send`` does (``LinkError`` as there)."""
        async with self._send_lock:
            if self._closed or self._send_broken:
                self._unsent.clear()
                raise LinkClosed(f"the link to {self.peer_label} is closed")
            await self._write(self._after_unsent(b""), f"sending to {self.peer_label}")

    async def receive(self) -> Message:
        """The next message.  ``LinkClosed`` at the peer's close, ``LinkTimeout`` after
        ``timeouts.idle`` of silence, ``PeerViolation`` for a bad frame, ``PeerRefused``
        for a fatal ``error`` from the peer.  A non-fatal ``error`` is returned."""
        if self._closed:
            raise LinkClosed(f"the link to {self.peer_label} is closed")
        idle = self.timeouts.idle
        ev = await self._next_event(math.inf if idle is None else idle, "a message")
        if ev is CLOSED:
            await self.aclose()
            raise LinkClosed(f"{self.peer_label} closed the link")
        if isinstance(ev, ErrorReport) and ev.fatal:
            await self.aclose()
            raise PeerRefused(_refusal_text(self.peer_label, ev), report=ev)
        return ev

    def __aiter__(self) -> AsyncIterator[Message]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Message]:
        while True:
            try:
                msg = await self.receive()
            except LinkClosed:
                return
            yield msg

    async def drop(self, code: str, message: str = "", *, field: str | None = None,
                   ref: str | None = None) -> None:
        """Tell the peer what it did wrong (a fatal ``error``), then close.  Best effort:
        a peer that does not read within a second is just closed."""
        if not self._closed:
            report = ErrorReport(code=code, message=message[:256], field=field, ref=ref)
            with trio.move_on_after(1.0):
                try:
                    await self.send(report)
                except (LinkError, LocalProtocolError):
                    pass
            await self._linger()
        await self.aclose()

    async def finish_sending(self) -> None:
        """Half-close: the peer reads everything we sent, then the end of the stream; we
        may go on reading until it closes its side (a clean close, never a reset that
        could race our last messages).  Best effort; idempotent."""
        if self._closed or self._send_broken:
            return
        async with self._send_lock:
            if self._unsent:  # what `send_now` made goes before the end of the stream
                try:
                    await self._write(self._after_unsent(b""), f"sending to {self.peer_label}")
                except LinkError:
                    return
            self._send_broken = True  # nothing more may be sent
            with trio.move_on_after(1.0):
                try:
                    await self._stream.send_eof()
                except (AttributeError, trio.BrokenResourceError, trio.ClosedResourceError,
                        trio.BusyResourceError, OSError):
                    pass

    async def _linger(self, limit: float = 0.5) -> None:
        """After a fatal ``error``: half-close and read what the peer still sends (up to
        ``limit`` s and ``LINGER_BYTES``), so closing with unread input does not reset the
        connection and destroy the ``error`` before the peer has read it.

        The drain takes the stream over from the receiver (one reader at a time, never
        two: a receive under way ends first, or the close ends it); the receiver's next
        ``receive()`` is ``LinkClosed``."""
        if self._closed or self._draining:
            return
        self._draining = True
        deadline = trio.current_time() + limit
        with trio.move_on_at(deadline):
            async with self._send_lock:
                self._send_broken = True  # nothing more may be sent after the goodbye
                try:
                    await self._stream.send_eof()
                except (AttributeError, trio.BrokenResourceError, trio.ClosedResourceError,
                        trio.BusyResourceError, OSError):
                    pass
            async with self._recv_lock:
                drained = 0
                while drained < LINGER_BYTES:
                    try:
                        data = await self._stream.receive_some(RECEIVE_CHUNK)
                    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                        return
                    if not data:
                        return
                    drained += len(data)

    async def aclose(self) -> None:
        """Close the stream (idempotent); a clean close for the peer between frames."""
        if self._closed:
            return
        self._closed = True
        with trio.CancelScope(shield=True), trio.move_on_after(1.0):
            try:
                await self._stream.aclose()
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass

    async def __aenter__(self) -> "Link":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    # -- IO -------------------------------------------------------------------

    def _after_unsent(self, data: bytes) -> bytes:
        """``data`` after what ``send_now`` left unwritten (under the send lock only)."""
        if self._unsent:
            data = b"".join(self._unsent) + data
            self._unsent.clear()
        return data

    async def _write(self, data: bytes, doing: str) -> None:
        """Write ``data`` a chunk at a time: a peer that reads nothing for ``timeouts.send`` is
        not reading; one that reads slowly but steadily (a busy laptop catching up on a long
        replay) is, and `wrote_at` says when it last took something."""
        if not data:
            return
        try:
            if len(data) <= WRITE_CHUNK:
                with trio.fail_after(self.timeouts.send):
                    await self._stream.send_all(data)
                self.wrote_at = trio.current_time()
            else:
                view = memoryview(data)
                for start in range(0, len(view), WRITE_CHUNK):
                    with trio.fail_after(self.timeouts.send):
                        await self._stream.send_all(view[start:start + WRITE_CHUNK])
                    self.wrote_at = trio.current_time()
        except trio.TooSlowError:
            await self.aclose()
            raise LinkTimeout(f"timed out {doing} (it is not reading)") from None
        except trio.ClosedResourceError:
            await self.aclose()
            raise LinkClosed(f"connection lost while {doing}") from None
        except (trio.BrokenResourceError, OSError):
            # the peer closed (or reset) its end: we can no longer write, but what it sent
            # before closing is still in our receive buffer -- a host's last `match_over`
            # must stay readable, so the stream is not closed here (receive() ends it)
            self._send_broken = True
            raise LinkClosed(f"connection lost while {doing}") from None
        except BaseException:  # cancelled mid-write: the stream is in an unknown state
            await self.aclose()
            raise

    async def _next_event(self, limit: float, waiting_for: str):
        """Drive the state machine until it yields an event; read under ``limit``."""
        sl = self._sl
        try:
            try:
                ev = sl.next_event()  # a message read with the last chunk: no wait, so no timer
            except RemoteProtocolError as exc:
                await self._report(exc)
                raise
            if ev is not NEED_DATA:
                return ev
            with trio.fail_after(limit):
                while True:
                    await self._write(sl.data_to_send(), f"sending the handshake to {self.peer_label}")
                    sl.receive_data(await self._receive_chunk())
                    try:
                        ev = sl.next_event()
                    except RemoteProtocolError as exc:
                        await self._report(exc)
                        raise
                    if ev is not NEED_DATA:
                        return ev
        except trio.TooSlowError:
            await self._timed_out()
            raise LinkTimeout(
                f"timed out waiting for {waiting_for} from {self.peer_label} "
                f"({_seconds(limit)})") from None
        except RemoteProtocolError as exc:
            raise PeerViolation(_violation_text(self.peer_label, exc), code=exc.code,
                                field=exc.field, error=exc) from None

    async def _receive_chunk(self) -> bytes:
        """Bytes from the stream, read by one task at a time (``LinkClosed`` once the link
        is closing: a drain after a fatal ``error`` has taken the stream over)."""
        async with self._recv_lock:
            if self._closed or self._draining:
                raise LinkClosed(f"the link to {self.peer_label} is closed")
            try:
                return bytes(await self._stream.receive_some(RECEIVE_CHUNK))
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                await self.aclose()
                raise LinkClosed(f"connection to {self.peer_label} lost") from None

    async def _report(self, exc: RemoteProtocolError) -> None:
        """The peer broke the rules: write the `error` the state machine prepared, close."""
        report = self._sl.error_report()
        if report and not self._closed:
            with trio.move_on_after(1.0):
                try:
                    async with self._send_lock:  # our frames encrypted before it go first
                        await self._stream.send_all(self._after_unsent(report))
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass
            await self._linger()
        await self.aclose()

    async def _timed_out(self) -> None:
        with trio.move_on_after(1.0):
            try:
                if self._sl.peer_hello is not None and not self._closed:
                    await self.send(ErrorReport(code="timeout", message="no message in time"))
            except (LinkError, LocalProtocolError):
                pass
        await self.aclose()


def _seconds(limit: float) -> str:
    return f"{limit:g} s"


def _violation_text(peer: str, exc: RemoteProtocolError) -> str:
    if exc.code == "version":
        return f"{peer} speaks no protocol version we speak: {exc}"
    if exc.code == "truncated":
        return f"{peer} closed the link in the middle of a frame or the handshake"
    return f"{peer} broke the protocol ({exc.code}): {exc}"


def _refusal_text(peer: str, report: ErrorReport) -> str:
    what = report.message or report.code
    if report.code == "version":
        return f"{peer} refused our protocol version: it speaks {report.message or '?'}"
    if report.code == "full":
        # why, when it is more than "full": no more observers, or a match under way (a
        # stranger, or a seat the table no longer holds for this key, comes too late)
        why = f" ({report.message})" if report.message.startswith(("the table admits", "the match has started")) else ""
        return f"{peer} refused us: the table is full{why}"
    where = f" [{report.field}]" if report.field else ""
    return f"{peer} refused us ({report.code}){where}: {what}"


async def open_link(
    stream: trio.abc.Stream, identity: Identity, *, initiator: bool, name: str,
    role: str | None = None, trust: KeyGate = accept_any, check_hello: HelloGate | None = None,
    hello_fields: dict[str, Any] | None = None, timeouts: Timeouts = Timeouts(),
    address: str | None = None,
) -> Link:
    """Handshake, trust, hello and version over ``stream``; the open ``Link``.

    The initiator (the joiner, role ``player`` by default) stops after Noise
    message 2 and calls ``trust(PeerKey)``: a refused host never learns who
    called.  The responder (the host) calls ``trust`` after message 3 and says
    nothing, not even ``hello``, before accepting.  ``check_hello(hello,
    remote_static)`` then sees the peer's verified hello (names, signing key).
    Both gates refuse by raising ``TrustError`` -> ``Untrusted``.  On any failure
    the stream is closed."""
    role = role or (PLAYER if initiator else HOST)
    sl = SecureLink(identity, role=role, initiator=initiator)
    link = Link(stream, sl, name=name, address=address or peer_address(stream),
                timeouts=timeouts)
    try:
        await _establish(link, sl, trust, check_hello, name, hello_fields or {})
    except LinkClosed as exc:
        await link.aclose()
        if initiator and sl.remote_static is not None:  # it had our key: maybe refused it
            raise LinkClosed(f"{link.peer_label} closed the link before its hello "
                             "(did it refuse our key?)") from None
        raise exc
    except BaseException:
        await link.aclose()
        raise
    return link


async def _establish(link: Link, sl: SecureLink, trust: KeyGate, check_hello: HelloGate | None,
                     name: str, hello_fields: dict[str, Any]) -> None:
    deadline = trio.current_time() + link.timeouts.handshake
    await link._write(sl.data_to_send(), f"sending the handshake to {link.peer_label}")
    waiting = "the handshake"
    while True:
        ev = await link._next_event(max(0.0, deadline - trio.current_time()), waiting)
        await link._write(sl.data_to_send(), f"sending the handshake to {link.peer_label}")
        if isinstance(ev, PeerKey):
            try:
                trust(ev)
            except TrustError as exc:
                sl.reject_peer(str(exc))
                raise Untrusted(str(exc), code=trust_code(exc), cause=exc) from None
            sl.accept_peer()
            await link._write(sl.data_to_send(), f"sending the handshake to {link.peer_label}")
        elif isinstance(ev, HandshakeComplete):
            await link._write(sl.send(sl.hello(name=name, **hello_fields)),
                              f"sending hello to {link.peer_label}")
            waiting = "hello"
        elif isinstance(ev, Hello):
            if check_hello is not None:
                try:
                    check_hello(ev, sl.remote_static)
                except TrustError as exc:
                    await link.drop(trust_code(exc), str(exc))
                    raise Untrusted(str(exc), code=trust_code(exc), cause=exc) from None
            return
        elif ev is CLOSED:
            hint = " (did it refuse our key?)" if waiting == "hello" and sl.initiator else ""
            raise LinkClosed(f"{link.peer_label} closed the link before its {waiting}{hint}")
        else:  # pragma: no cover - the state machine yields nothing else before hello
            raise AssertionError(ev)


def _refused(exc: BaseException) -> bool:
    seen: list[BaseException] = [exc]
    while seen:
        e = seen.pop()
        if isinstance(e, ConnectionRefusedError) or getattr(e, "errno", None) == errno.ECONNREFUSED:
            return True
        seen.extend(getattr(e, "exceptions", ()))
        if e.__cause__ is not None:
            seen.append(e.__cause__)
    return False


async def connect(host: str, port: int, identity: Identity, *, name: str,
                  timeouts: Timeouts = Timeouts(), **kw: Any) -> Link:
    """TCP to ``host:port``, then ``open_link`` as the initiator (keywords as there)."""
    where = f"{host}:{port}"
    try:
        with trio.fail_after(timeouts.connect):
            stream = await trio.open_tcp_stream(host, port)
    except trio.TooSlowError:
        raise ConnectFailed(f"timed out connecting to {where}", code="timeout") from None
    except OSError as exc:
        if _refused(exc):
            raise ConnectFailed(f"connection refused by {where} (is a table open there?)", refused=True) from None
        if isinstance(exc, socket.gaierror):
            raise ConnectFailed(f"cannot resolve {host!r}: {exc.strerror or exc}") from None
        raise ConnectFailed(f"cannot connect to {where}: {exc.strerror or exc}") from None
    return await open_link(stream, identity, initiator=True, name=name, timeouts=timeouts,
                           address=where, **kw)
