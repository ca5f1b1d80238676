"""A sans-IO secure link: framing + Noise XX + codec + session rules.

What ``unonet.net`` wraps around a TCP stream (h11's ``Connection`` shape):

    link = SecureLink(identity, role=PLAYER, initiator=True)
    write(link.data_to_send())
    while True:
        ev = link.next_event()
        write(link.data_to_send())          # handshake replies, if any
        if ev is NEED_DATA: link.receive_data(await read()); continue
        if isinstance(ev, PeerKey):         # check trust (join code, known_peers) now
            link.accept_peer()  or  link.reject_peer("key changed"); close
            write(link.data_to_send())      # initiator: XX message 3, only now
        if isinstance(ev, HandshakeComplete):
            write(link.send(link.hello(name=...)))
        ...

Trust gating: the initiator's XX message 3 reveals its static key, so the
link stops after message 2 and asks the caller (``PeerKey``) before writing
it; a rejected responder never learns who called.  The responder asks too,
once message 3 has proved the initiator's key, and delivers nothing (and
sends nothing) until the caller accepts.

Every failure is a ``ProtocolError``; after one the link is dead for good
(state ``ERROR``), which is what the spec requires for a failed decrypt or an
exhausted nonce.  The link enforces the session rules the schema can't: hello
first, a version both sides speak, a hello signature bound to this handshake,
and each message only from a role allowed to send it.
"""

from __future__ import annotations

import dataclasses
import re

from ._codec import decode_plaintext_kept, encode_plaintext
from ._errors import LocalProtocolError, ProtocolError, RemoteProtocolError
from ._framing import CLOSED, MAX_FRAME, NEED_DATA, FrameReader, encode_frame
from ._identity import Identity, fingerprint, hello_binding, verify_signature
from ._messages import (
    FEATURES, MIN_PROTOCOL_VERSION, PLAYER_FAIR_EVENTS, PROTOCOL_VERSION, ErrorReport, Fair, Hello,
)
from ._noise import NOISE_PROTOCOL, CipherState, HandshakeState, KeyPair
from ._schema import _CONTROL, HOST, MESSAGE_TYPES, ROLES, Message

__all__ = ["SecureLink", "HandshakeComplete", "PeerKey", "HANDSHAKE", "AWAIT_PEER", "OPEN",
           "ERROR", "PROLOGUE",
           "negotiate_version", "may_send"]

PROLOGUE = b"unonet link\x00"
_TOKEN = re.compile(r"[a-z0-9][a-z0-9+._-]{0,31}\Z")


class _State(type):
    def __repr__(cls) -> str:
        return cls.__name__


class HANDSHAKE(metaclass=_State):
    pass


class AWAIT_PEER(metaclass=_State):
    """The peer's static key is known; waiting for ``accept_peer``/``reject_peer``."""


class OPEN(metaclass=_State):
    pass


class ERROR(metaclass=_State):
    pass


@dataclasses.dataclass(frozen=True)
class PeerKey:
    """The peer's Noise static key, proved by the handshake so far.

    Decide trust now: ``link.accept_peer()`` or ``link.reject_peer(reason)``.
    For the initiator nothing of its own identity has been sent yet."""

    remote_static: bytes

    @property
    def peer_id(self) -> bytes:
        return fingerprint(self.remote_static)


@dataclasses.dataclass(frozen=True)
class HandshakeComplete:
    """The handshake is done and the peer's key was accepted; send hello now."""

    remote_static: bytes
    handshake_hash: bytes

    @property
    def peer_id(self) -> bytes:
        return fingerprint(self.remote_static)


def negotiate_version(
    their_min: int, their_max: int, our_min: int = MIN_PROTOCOL_VERSION,
    our_max: int = PROTOCOL_VERSION,
) -> int:
    """Highest version both speak, or ``RemoteProtocolError(code="version")``."""
    v = min(their_max, our_max)
    if v < max(their_min, our_min):
        raise RemoteProtocolError(
            f"no common protocol version: peer speaks {their_min}..{their_max}, "
            f"we speak {our_min}..{our_max}", code="version", field="hello.v", value=their_max,
        )
    return v


def may_send(role: str, msg: Message | type[Message]) -> bool:
    """The schema's sender table; a player's ``fair`` message may only carry the
    events a player originates (``PLAYER_FAIR_EVENTS``)."""
    if role not in msg.SENDERS:
        return False
    if role != HOST and isinstance(msg, Fair):
        return msg.ev in PLAYER_FAIR_EVENTS
    return True


class SecureLink:
    def __init__(
        self, identity: Identity, *, role: str, initiator: bool, prologue: bytes = PROLOGUE,
        max_frame: int = MAX_FRAME, _ephemeral: KeyPair | None = None,
    ) -> None:
        if role not in ROLES:
            raise LocalProtocolError("unknown role", code="internal", value=role)
        self.identity, self.role, self.initiator = identity, role, initiator
        self.state: type = HANDSHAKE
        self.error: ProtocolError | None = None
        self.remote_static: bytes | None = None
        self.handshake_hash: bytes | None = None
        self.peer_hello: Hello | None = None
        self.version: int | None = None
        self._hello_sent = False
        #: the msgpack bytes of the last message received (unpadded), for a reader that keeps it
        self.last_bytes = b""
        self._last_type: str | None = None
        self._pending: list = []
        self._reader = FrameReader(max_frame)
        self._out = bytearray()
        self._send_cs: CipherState | None = None
        self._report_cs: CipherState | None = None  # kept after a peer's fault, for one `error`
        self._recv_cs: CipherState | None = None
        self._hs: HandshakeState | None = HandshakeState(
            NOISE_PROTOCOL, initiator=initiator, prologue=prologue, s=identity.noise, e=_ephemeral
        )
        if initiator:
            self._out += encode_frame(self._hs.write_message(b""))

    # -- bytes in / bytes out ---------------------------------------------

    def data_to_send(self) -> bytes:
        """Bytes the link itself produced (handshake); write them after every call."""
        out = bytes(self._out)
        self._out.clear()
        return out

    def receive_data(self, data: bytes) -> None:
        """Bytes from the stream; ``b""`` means the peer closed it."""
        self._reader.receive_data(data)

    def next_event(self):
        """``NEED_DATA``, ``CLOSED``, ``HandshakeComplete`` or a ``Message``."""
        if self.state is ERROR:
            assert self.error is not None
            raise self.error
        if self._pending:
            return self._pending.pop(0)
        if self.state is AWAIT_PEER:
            raise LocalProtocolError("accept_peer() or reject_peer() the peer's key first",
                                     code="unexpected")
        try:
            while True:
                frame = self._reader.next_frame()
                if frame is NEED_DATA or frame is CLOSED:
                    if frame is CLOSED and self.state is HANDSHAKE:
                        raise RemoteProtocolError("peer closed the link during the handshake",
                                                  code="truncated")
                    return frame
                if self.state is HANDSHAKE:
                    ev = self._handshake_step(frame)
                    if ev is not None:
                        return ev
                    continue
                return self._receive_message(frame)
        except LocalProtocolError as exc:  # raised while processing peer input
            raise self._fail(exc._reraise_as_remote()) from None
        except RemoteProtocolError as exc:
            raise self._fail(exc) from None

    def send(self, msg: Message, plaintext: bytes | None = None) -> bytes:
        """Encrypt and frame one message; returns the bytes to write.  ``plaintext``: the
        message already encoded by `encode_plaintext` (a broadcast encodes once for every link)."""
        if self.state is not OPEN:
            raise LocalProtocolError(
                f"cannot send in state {self.state!r}"
                + (f" (link failed: {self.error})" if self.error else ""), code="closed",
            )
        if not self._hello_sent and not isinstance(msg, Hello):
            raise LocalProtocolError("the first message on a link must be hello",
                                     code="unexpected", value=msg.TYPE)
        if not may_send(self.role, msg):
            what = f"{msg.TYPE} {msg.ev}" if isinstance(msg, Fair) else msg.TYPE
            raise LocalProtocolError(f"a {self.role} may not send {what}",
                                     code="forbidden", field="t", value=msg.TYPE)
        if plaintext is None:
            plaintext = encode_plaintext(msg)
        assert self._send_cs is not None
        try:
            ct = self._send_cs.encrypt_with_ad(b"", plaintext)
        except LocalProtocolError as exc:
            raise self._fail(exc) from None
        if isinstance(msg, Hello):
            self._hello_sent = True
        return encode_frame(ct)

    @property
    def messages_sent(self) -> int:
        """Messages sent on this link so far, our hello the first (the next one's Noise
        nonce): what a host's heartbeat `took` counts of them (spec §5 step 5)."""
        return self._send_cs.n if self._send_cs is not None else 0

    def accept_peer(self) -> None:
        """Trust the key in the last ``PeerKey``: the initiator now writes XX message 3
        (read ``data_to_send``); ``HandshakeComplete`` is the next event either way."""
        if self.state is not AWAIT_PEER:
            raise LocalProtocolError(f"no peer key awaits approval (state {self.state!r})",
                                     code="unexpected")
        hs = self._hs
        if hs is not None:  # initiator: message 3 reveals our static key, only now
            self._out += encode_frame(hs.write_message(b""))
            assert hs.complete
            self._send_cs, self._recv_cs = hs.split()
            self.handshake_hash = hs.handshake_hash
            self._hs = None
        self.state = OPEN
        assert self.remote_static is not None and self.handshake_hash is not None
        self._pending.append(HandshakeComplete(remote_static=self.remote_static,
                                               handshake_hash=self.handshake_hash))

    def reject_peer(self, reason: str = "peer key not trusted") -> LocalProtocolError:
        """Refuse the key in the last ``PeerKey``; the link is dead (close the stream).
        Returns the recorded error; nothing more is ever written."""
        if self.state is not AWAIT_PEER:
            raise LocalProtocolError(f"no peer key awaits approval (state {self.state!r})",
                                     code="unexpected")
        self._out.clear()
        return self._fail(LocalProtocolError(reason, code="untrusted"))

    def hello(self, *, name: str, **fields) -> Hello:
        """Our signed hello for this session (after ``HandshakeComplete``)."""
        if self.handshake_hash is None:
            raise LocalProtocolError("hello needs a completed handshake", code="unexpected")
        sig = self.identity.sign(hello_binding(self.handshake_hash, self.identity.static_public,
                                               self.identity.seal_public))
        fields.setdefault("features", FEATURES)  # (what this code understands within the version)
        return Hello(
            v=PROTOCOL_VERSION, vmin=MIN_PROTOCOL_VERSION, role=self.role, name=name,
            sign_key=self.identity.sign_public, seal_key=self.identity.seal_public, sig=sig,
            cert=self.identity.fair_identity().public.cert, **fields,
        )

    @property
    def peer_fair_identity(self):
        """The peer's ``unonet.fair.PublicIdentity`` (hello's keys, its Noise static key and
        certificate); None before the hello, or when the hello's certificate is missing or
        does not verify."""
        if self.peer_hello is None or self.peer_hello.cert is None or self.remote_static is None:
            return None
        from unonet.fair import PublicIdentity

        try:
            return PublicIdentity(self.peer_hello.sign_key, self.peer_hello.seal_key, self.remote_static,
                                  self.peer_hello.cert)
        except ValueError:
            return None

    # -- internals ----------------------------------------------------------

    def error_report(self) -> bytes:
        """After the peer broke the rules (a ``RemoteProtocolError`` from ``next_event``):
        the framed `error` message telling it why (spec §4.6), or ``b""`` when none can be
        sent (the handshake never finished, our hello was not sent, or it was our fault).
        At most once; close the stream after writing it."""
        cs, self._report_cs = self._report_cs, None
        exc = self.error
        if cs is None or not isinstance(exc, RemoteProtocolError):
            return b""
        if exc.code == "version":
            text = f"{MIN_PROTOCOL_VERSION}..{PROTOCOL_VERSION}"
        else:
            text = _CONTROL.sub("?", str(exc))[:256]
        field = exc.field[:96] if exc.field and not _CONTROL.search(exc.field) else None
        ref = self._last_type if self._last_type in MESSAGE_TYPES else None
        report = ErrorReport(code=exc.code if _TOKEN.match(exc.code) else "malformed",
                             message=text, field=field, ref=ref)
        try:
            return encode_frame(cs.encrypt_with_ad(b"", encode_plaintext(report)))
        except ProtocolError:  # nonce exhausted: nothing more can be said
            return b""

    def _fail(self, exc: ProtocolError) -> ProtocolError:
        if isinstance(exc, RemoteProtocolError) and self._hello_sent:
            self._report_cs = self._send_cs
        self.state = ERROR
        self.error = exc
        self._send_cs = self._recv_cs = None
        self._hs = None
        self._pending.clear()
        return exc

    def _handshake_step(self, frame: bytes) -> HandshakeComplete | None:
        hs = self._hs
        assert hs is not None
        if hs.is_my_turn_to_write():
            raise RemoteProtocolError("handshake message out of turn", code="auth")
        try:
            payload = hs.read_message(frame)
        except RemoteProtocolError as exc:
            if exc.code == "decrypt":
                raise RemoteProtocolError("Noise handshake failed: peer's message did not "
                                          "authenticate (wrong protocol or tampering)",
                                          code="auth") from None
            raise
        if payload:
            raise RemoteProtocolError("unexpected handshake payload", code="auth",
                                      value=len(payload))
        if hs.rs is not None and (hs.complete or self.initiator):
            # initiator after message 2 (before writing 3), or responder after 3
            self.remote_static = hs.rs
            if hs.complete:
                self._send_cs, self._recv_cs = hs.split()
                self.handshake_hash = hs.handshake_hash
                self._hs = None
            self.state = AWAIT_PEER
            return PeerKey(remote_static=self.remote_static)
        if not hs.complete:
            self._out += encode_frame(hs.write_message(b""))
        return None

    def _receive_message(self, frame: bytes) -> Message:
        assert self._recv_cs is not None
        plaintext = self._recv_cs.decrypt_with_ad(b"", frame)
        self._last_type = None
        msg, self.last_bytes = decode_plaintext_kept(plaintext)
        self._last_type = msg.TYPE
        if self.peer_hello is None:
            if not isinstance(msg, Hello):
                raise RemoteProtocolError("the first message on a link must be hello",
                                          code="unexpected", field="t", value=msg.TYPE)
            self._accept_hello(msg)
            return msg
        if isinstance(msg, Hello):
            raise RemoteProtocolError("hello sent twice", code="unexpected", field="t",
                                      value=msg.TYPE)
        if not may_send(self.peer_hello.role, msg):
            what = f"{msg.TYPE} {msg.ev}" if isinstance(msg, Fair) else msg.TYPE
            raise RemoteProtocolError(f"a {self.peer_hello.role} may not send {what}",
                                      code="forbidden", field="t", value=msg.TYPE)
        return msg

    def _accept_hello(self, hello: Hello) -> None:
        assert self.handshake_hash is not None and self.remote_static is not None
        if (hello.role == HOST) == (self.role == HOST):
            raise RemoteProtocolError(
                f"a {self.role} only talks to " + ("players and observers" if self.role == HOST
                                                    else "a host"),
                code="forbidden", field="hello.role", value=hello.role,
            )
        binding = hello_binding(self.handshake_hash, self.remote_static, hello.seal_key)
        if not verify_signature(hello.sign_key, hello.sig, binding):
            raise RemoteProtocolError("hello signature does not verify for this session",
                                      code="auth", field="hello.sig")
        self.version = negotiate_version(hello.vmin, hello.v)
        self.peer_hello = hello
