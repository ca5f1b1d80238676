"""unonet.net links over trio memory streams (one-byte trickling, virtual time)."""

from __future__ import annotations

import pytest
import trio

import unonet.net as N
import unonet.protocol as P

from .net_helpers import RawPeer, run, stream_pair


async def _open_pair(max_bytes=None, *, host_kw=None, joiner_kw=None, host_id=None,
                     joiner_id=None):
    a, b = stream_pair(max_bytes)
    host_id = host_id or P.Identity.generate()
    joiner_id = joiner_id or P.Identity.generate()
    out = {}

    async def host():
        out["host"] = await N.open_link(b, host_id, initiator=False, name="hal", **(host_kw or {}))

    async def joiner():
        out["joiner"] = await N.open_link(a, joiner_id, initiator=True, name="pat",
                                          **(joiner_kw or {}))

    async with trio.open_nursery() as n:
        n.start_soon(host)
        n.start_soon(joiner)
    return out["host"], out["joiner"], host_id, joiner_id


@pytest.mark.parametrize("max_bytes", [None, 1])
def test_open_exchange_and_close(max_bytes):
    async def main():
        host, joiner, host_id, joiner_id = await _open_pair(
            max_bytes, host_kw={"hello_fields": {"table": bytes(16)}})
        assert joiner.peer_name == "hal" and host.peer_name == "pat"
        assert joiner.peer_role == P.HOST and host.peer_role == P.PLAYER
        assert joiner.peer_id == host_id.fingerprint and host.peer_id == joiner_id.fingerprint
        assert joiner.peer_hello.table == bytes(16)
        assert host.version == joiner.version == P.PROTOCOL_VERSION
        assert host.handshake_hash == joiner.handshake_hash
        assert host.peer_fair_identity.sign_key == joiner_id.sign_public
        await joiner.send(P.Heartbeat(seq=1))
        await joiner.send(P.Leave(reason="bye"))
        assert await host.receive() == P.Heartbeat(seq=1)
        assert await host.receive() == P.Leave(reason="bye")
        await host.send(P.Turn(seq=2, seat=1))
        await host.aclose()
        got = [m async for m in joiner]
        assert got == [P.Turn(seq=2, seat=1)]
        with pytest.raises(N.LinkClosed, match="closed"):
            await joiner.receive()
        with pytest.raises(N.LinkClosed):
            await host.send(P.Heartbeat(seq=3))

    run(main)


def test_sender_may_not_send_what_its_role_forbids():
    async def main():
        host, joiner, *_ = await _open_pair()
        with pytest.raises(P.LocalProtocolError) as exc:
            await joiner.send(P.Turn(seq=1, seat=0))
        assert exc.value.code == "forbidden"
        await joiner.send(P.Heartbeat(seq=0))  # the link is still fine
        assert await host.receive() == P.Heartbeat(seq=0)

    run(main)


def test_wrong_join_code_refused_before_the_joiner_reveals_its_key():
    async def main():
        a, b = stream_pair()
        host_id, seen = P.Identity.generate(), []
        wrong = "0000-0000-00" if not host_id.join_code.startswith("0000") else "ZZZZ-ZZZZ-ZZ"

        async def host():
            with pytest.raises(N.PeerViolation) as exc:
                await N.open_link(b, host_id, initiator=False, name="hal",
                                  trust=lambda key: seen.append(key))
            assert exc.value.code == "truncated"

        async with trio.open_nursery() as n:
            n.start_soon(host)
            with pytest.raises(N.Untrusted) as exc:
                await N.open_link(a, P.Identity.generate(), initiator=True, name="pat",
                                  trust=N.require_join_code(wrong))
        assert exc.value.code == "code-mismatch"
        assert wrong in str(exc.value) and host_id.join_code not in str(exc.value)  # (never the answering key's code)
        assert seen == []  # the host never got XX message 3: it never learnt who called

    run(main)


def test_right_join_code_accepted_in_any_spelling():
    async def main():
        host_id = P.Identity.generate()
        code = host_id.join_code.lower().replace("-", " ").replace("1", "l").replace("0", "o")
        host, joiner, *_ = await _open_pair(host_id=host_id,
                                            joiner_kw={"trust": N.require_join_code(code)})
        assert joiner.peer_id == host_id.fingerprint

    run(main)


def test_bad_join_code_text_fails_before_connecting():
    with pytest.raises(P.InvalidJoinCodeError):
        N.require_join_code("7KQ2")


def test_host_refusing_a_key_sends_nothing():
    async def main():
        a, b = stream_pair()
        joiner_id = P.Identity.generate()

        def refuse(key):
            assert key.remote_static == joiner_id.static_public
            raise P.TrustError("not on the guest list")

        async def host():
            with pytest.raises(N.Untrusted, match="guest list"):
                await N.open_link(b, P.Identity.generate(), initiator=False, name="hal",
                                  trust=refuse)

        async with trio.open_nursery() as n:
            n.start_soon(host)
            with pytest.raises(N.LinkClosed, match="before its hello .did it refuse our key"):
                await N.open_link(a, joiner_id, initiator=True, name="pat")

    run(main)


def test_tofu_by_name_refuses_a_changed_key(tmp_path):
    known = P.KnownPeers(tmp_path / "known_peers.json")
    host_id = P.Identity.generate()

    async def attempt(joiner_id):
        a, b = stream_pair()
        res = {}

        async def host():
            try:
                link = await N.open_link(b, host_id, initiator=False, name="hal",
                                         check_hello=N.pin_hello_name(known))
                res["host"] = link
                await link.aclose()
            except N.LinkError as exc:
                res["host"] = exc

        async with trio.open_nursery() as n:
            n.start_soon(host)
            joiner = await N.open_link(a, joiner_id, initiator=True, name="pat")
            try:
                res["joiner"] = await joiner.receive()
            except N.LinkError as exc:
                res["joiner"] = exc
        return res

    async def main():
        pat = P.Identity.generate()
        first = await attempt(pat)
        assert isinstance(first["host"], N.Link) and isinstance(first["joiner"], N.LinkClosed)
        again = await attempt(pat)
        assert isinstance(again["host"], N.Link) and isinstance(again["joiner"], N.LinkClosed)
        impostor = await attempt(P.Identity.generate())
        assert isinstance(impostor["host"], N.Untrusted)
        assert impostor["host"].code == "key-changed" and "KEY CHANGED" in str(impostor["host"])
        assert isinstance(impostor["joiner"], N.PeerRefused)
        assert impostor["joiner"].code == "key-changed"

    run(main)


def test_wrong_version_gets_a_version_error():
    async def main():
        a, b = stream_pair()
        raw = RawPeer(a)

        async def peer():
            await raw.handshake(hello=None)

        async def host():
            with pytest.raises(N.PeerViolation) as exc:
                await N.open_link(b, P.Identity.generate(), initiator=False, name="hal")
            assert exc.value.code == "version" and "no protocol version" in str(exc.value)

        async with trio.open_nursery() as n:
            n.start_soon(host)
            await raw.flush()
            while not isinstance(ev := await raw.next_event(), P.PeerKey):
                pass
            raw.sl.accept_peer()
            await raw.flush()
            assert isinstance(await raw.next_event(), P.HandshakeComplete)
            # a range wholly above ours, whatever ours is
            await raw.send_unchecked(raw.hello_with_versions(P.PROTOCOL_VERSION + 3, P.PROTOCOL_VERSION + 1))
            raw.sl._hello_sent = True
            # our own link refuses the host's hello too (no common version); read raw frames
            reader = P.FrameReader()
            frames = []
            while True:
                data = await a.receive_some(70000)
                reader.receive_data(bytes(data))
                while isinstance(fr := reader.next_frame(), bytes):
                    frames.append(fr)
                if fr is P.CLOSED:
                    break
            msgs = [P.decode_plaintext(raw.sl._recv_cs.decrypt_with_ad(b"", fr)) for fr in frames]
        assert msgs[0].TYPE == "hello"
        assert msgs[1] == P.ErrorReport(code="version", message=f"{P.MIN_PROTOCOL_VERSION}..{P.PROTOCOL_VERSION}",
                                        field="hello.v",
                                        ref="hello")

    run(main)


def test_joiner_reports_a_host_that_speaks_no_common_version():
    async def main():
        a, b = stream_pair()
        raw = RawPeer(b, role=P.HOST, initiator=False)

        async def host():
            await raw.flush()
            while not isinstance(await raw.next_event(), P.PeerKey):
                pass
            raw.sl.accept_peer()
            assert isinstance(await raw.next_event(), P.HandshakeComplete)
            await raw.send_unchecked(raw.hello_with_versions(9, 7, name="future"))
            await raw.read_all()

        async with trio.open_nursery() as n:
            n.start_soon(host)
            with pytest.raises(N.PeerViolation) as exc:
                await N.open_link(a, P.Identity.generate(), initiator=True, name="pat")
        assert exc.value.code == "version"
        assert str(exc.value).startswith("host speaks no protocol version we speak")

    run(main)


@pytest.mark.parametrize("garbage,code", [
    (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "too-large"),
    (b"\x00\x00\x00\x00", "too-large"),
    (b"\x00\x00\x00\x20" + bytes(32), "auth"),
    (b"\x00\x00\x01\x00" + bytes(10), "truncated"),
])
def test_garbage_before_the_handshake(garbage, code):
    async def main():
        a, b = stream_pair()

        async def host():
            with pytest.raises(N.PeerViolation) as exc:
                await N.open_link(b, P.Identity.generate(), initiator=False, name="hal")
            assert exc.value.code == code

        async with trio.open_nursery() as n:
            n.start_soon(host)
            await a.send_all(garbage)
            await a.send_stream.aclose()
            # nothing comes back: no reply to an unauthenticated peer
            assert await a.receive_some(100) == b""

    run(main)


async def _raw_player_against_host(action, **host_kw):
    """Open a raw player against a real host link; ``action(raw)`` misbehaves; returns
    (the host's exception, what the raw player read back)."""
    a, b = stream_pair()
    raw = RawPeer(a)
    res = {}

    async def host():
        link = await N.open_link(b, P.Identity.generate(), initiator=False, name="hal", **host_kw)
        try:
            while True:
                await link.receive()
        except N.LinkError as exc:
            res["exc"] = exc

    async with trio.open_nursery() as n:
        n.start_soon(host)
        await raw.handshake()
        await action(raw)
        received = await raw.read_all()
    return res["exc"], received


def _errors(received):
    return [m for m in received if isinstance(m, P.ErrorReport)]


def test_oversized_frame_after_the_handshake():
    async def act(raw):
        await raw.stream.send_all((70000).to_bytes(4, "big") + bytes(100))

    exc, got = run(_raw_player_against_host, act)
    assert isinstance(exc, N.PeerViolation) and exc.code == "too-large"
    assert exc.field == "frame.length"
    assert [(e.code, e.field) for e in _errors(got)] == [("too-large", "frame.length")]


def test_truncated_frame_then_close():
    async def act(raw):
        await raw.stream.send_all((300).to_bytes(4, "big") + bytes(100))
        await raw.stream.send_stream.aclose()

    exc, _ = run(_raw_player_against_host, act)
    assert isinstance(exc, N.PeerViolation) and exc.code == "truncated"


def test_forbidden_message_for_the_role():
    async def act(raw):
        await raw.send_unchecked(P.Turn(seq=1, seat=0))

    exc, got = run(_raw_player_against_host, act)
    assert isinstance(exc, N.PeerViolation) and exc.code == "forbidden"
    assert [(e.code, e.field, e.ref) for e in _errors(got)] == [("forbidden", "t", "turn")]


def test_malformed_field_reported_with_its_path():
    async def act(raw):
        import msgpack

        body = msgpack.packb({"t": "heartbeat", "seq": -1}, use_bin_type=True)
        await raw.send_unchecked(None, plaintext=body + bytes(256 - len(body)))

    exc, got = run(_raw_player_against_host, act)
    assert exc.code == "malformed" and exc.field == "heartbeat.seq"
    assert [(e.code, e.field) for e in _errors(got)] == [("malformed", "heartbeat.seq")]


@pytest.mark.parametrize("tail", [b"\x01", b"", bytes(256)])
def test_bad_padding_is_malformed(tail):
    async def act(raw):
        body = P.encode_message(P.Heartbeat(seq=1))
        pad = bytes(256 - len(body) - len(tail)) + tail if len(tail) < 2 else tail
        await raw.send_unchecked(None, plaintext=body + pad if tail else body)

    exc, got = run(_raw_player_against_host, act)
    assert exc.code == "malformed" and exc.field == "padding"
    assert [e.field for e in _errors(got)] == ["padding"]


def test_garbage_ciphertext_is_a_decrypt_error():
    async def act(raw):
        await raw.stream.send_all(P.encode_frame(bytes(64)))

    exc, got = run(_raw_player_against_host, act)
    assert exc.code == "decrypt"
    assert [e.code for e in _errors(got)] == ["decrypt"]


def test_peer_that_never_speaks_times_out_in_the_handshake():
    async def main():
        a, b = stream_pair()
        start = trio.current_time()
        with pytest.raises(N.LinkTimeout, match="timed out waiting for the handshake from peer"):
            await N.open_link(b, P.Identity.generate(), initiator=False, name="hal",
                              timeouts=N.Timeouts(handshake=4))
        assert trio.current_time() - start == pytest.approx(4)

    run(main, autojump=True)


def test_peer_that_stops_before_hello_times_out():
    async def main():
        a, b = stream_pair()
        raw = RawPeer(a)

        async def silent_after_handshake():
            await raw.flush()
            while not isinstance(await raw.next_event(), P.PeerKey):
                pass
            raw.sl.accept_peer()
            await raw.flush()
            await trio.sleep_forever()

        async with trio.open_nursery() as n:
            n.start_soon(silent_after_handshake)
            with pytest.raises(N.LinkTimeout, match="waiting for hello from peer"):
                await N.open_link(b, P.Identity.generate(), initiator=False, name="hal",
                                  timeouts=N.Timeouts(handshake=5))
            n.cancel_scope.cancel()

    run(main, autojump=True)


def test_idle_peer_times_out_and_is_told():
    async def main():
        host, joiner, *_ = await _open_pair(host_kw={"timeouts": N.Timeouts(idle=3)},
                                            joiner_kw={"timeouts": N.Timeouts(idle=None)})
        start = trio.current_time()
        with pytest.raises(N.LinkTimeout, match=r"waiting for a message from peer .*\(3 s\)"):
            await host.receive()
        assert trio.current_time() - start == pytest.approx(3)
        with pytest.raises(N.PeerRefused) as exc:
            await joiner.receive()
        assert exc.value.code == "timeout"

    run(main, autojump=True)


def test_drop_reaches_the_peer_as_one_line():
    async def main():
        host, joiner, *_ = await _open_pair()
        await host.drop("full", "all 4 seats are taken")
        with pytest.raises(N.PeerRefused, match="the table is full") as exc:
            await joiner.receive()
        assert exc.value.report.message == "all 4 seats are taken"
        assert "\n" not in str(exc.value)

    run(main)


def test_a_refusal_because_the_match_has_started_says_so():
    """Between a full lobby and a match under way the player's next step differs (wait for
    the next match, or ask for a seat): the one line names which."""
    async def main():
        host, joiner, *_ = await _open_pair()
        await host.drop("full", "the match has started: no seat is free")
        with pytest.raises(N.PeerRefused) as exc:
            await joiner.receive()
        assert str(exc.value).endswith("refused us: the table is full (the match has started: no seat is free)")

    run(main)


def test_non_fatal_error_is_a_message():
    async def main():
        host, joiner, *_ = await _open_pair()
        note = P.ErrorReport(code="out-of-turn", message="not your turn", fatal=False)
        await host.send(note)
        assert await joiner.receive() == note
        await host.send(P.Heartbeat(seq=1))
        assert await joiner.receive() == P.Heartbeat(seq=1)

    run(main)


def test_send_to_a_peer_that_does_not_read_times_out():
    async def main():
        host, joiner, *_ = await _open_pair(host_kw={"timeouts": N.Timeouts(send=2)})
        # memory streams without a reader buffer forever; a lockstep stream blocks
        a, b = trio.testing.lockstep_stream_pair()
        host._stream = a
        with pytest.raises(N.LinkTimeout, match="not reading"):
            await host.send(P.Heartbeat(seq=1))
        assert host.closed

    run(main, autojump=True)
