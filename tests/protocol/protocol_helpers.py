"""Test helpers: a ConnectionPair of SecureLinks over a fake network (h11 style)."""

from __future__ import annotations

import os

import unonet.protocol as P


def pump(src: P.SecureLink, dst: P.SecureLink, chunk: int | None = None,
         approve: bool = True) -> list:
    """Move src's pending bytes into dst (in ``chunk``-sized pieces); return dst's events."""
    data = src.data_to_send()
    return feed(dst, data, chunk, approve)


def feed(dst: P.SecureLink, data: bytes, chunk: int | None = None, approve: bool = True) -> list:
    """Feed dst; with ``approve`` a ``PeerKey`` is accepted at once (and recorded)."""
    events = []
    pieces = [data] if not chunk else [data[i:i + chunk] for i in range(0, len(data), chunk)]
    for piece in pieces:
        if piece:
            dst.receive_data(piece)
        while True:
            ev = dst.next_event()
            if ev is P.NEED_DATA:
                break
            events.append(ev)
            if isinstance(ev, P.PeerKey):
                if not approve:
                    return events
                dst.accept_peer()
    return events


class ConnectionPair:
    """A host and a player (or observer) link, handshaken and hello'd."""

    def __init__(self, *, role: str = P.PLAYER, chunk: int | None = None, hello: bool = True,
                 host_id: P.Identity | None = None, peer_id: P.Identity | None = None):
        self.host_identity = host_id or P.Identity.generate()
        self.peer_identity = peer_id or P.Identity.generate()
        self.peer = P.SecureLink(self.peer_identity, role=role, initiator=True)
        self.host = P.SecureLink(self.host_identity, role=P.HOST, initiator=False)
        self.chunk = chunk
        self.host_events = pump(self.peer, self.host, chunk)       # -> e
        self.peer_events = pump(self.host, self.peer, chunk)       # <- e, ee, s, es
        self.host_events += pump(self.peer, self.host, chunk)      # -> s, se
        if hello:
            self.host_events += feed(self.host, self.peer.send(self.peer.hello(name="pat")), chunk)
            self.peer_events += feed(self.peer, self.host.send(self.host.hello(name="hal")), chunk)

    def to_host(self, msg) -> list:
        return feed(self.host, self.peer.send(msg), self.chunk)

    def to_peer(self, msg) -> list:
        return feed(self.peer, self.host.send(msg), self.chunk)


def fair_vector_events() -> list:
    """One of every fair event, as protocol/make_vectors.py builds them for the vectors."""
    import importlib.util
    import pathlib

    spec = importlib.util.spec_from_file_location(
        "mv", pathlib.Path(__file__).resolve().parents[2] / "protocol" / "make_vectors.py")
    mv = importlib.util.module_from_spec(spec)
    before = os.environ.get("UNONET_PURE")
    try:
        spec.loader.exec_module(mv)
    finally:  # (the script sets UNONET_PURE for its own run: not for the tests after this one)
        if before is None:
            os.environ.pop("UNONET_PURE", None)
        else:
            os.environ["UNONET_PURE"] = before
    return [ev for _, ev in mv.fair_events()]
