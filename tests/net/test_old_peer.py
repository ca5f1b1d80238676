"""An old peer (protocol version 3: round 1's dealer drawn from the match id alone, which the
last joiner could grind; version 2 had no round history or co-sign waivers; version 1 drew the
dealer with MT19937) meets this unonet over real loopback: both sides refuse the link with one
line naming both version ranges (spec §4.4), never a false cry of cheat over another dealer."""

from __future__ import annotations

import socket

import trio

import unonet.protocol as P

from .net_helpers import RawPeer, run
from .session_helpers import finish, first_json, reaped, unonet

OLD = 3  # the version before round 1's dealer was drawn from the seat reveals (fair-play.md §11.16)
OURS = f"{P.MIN_PROTOCOL_VERSION}..{P.PROTOCOL_VERSION}"


def _free_udp() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_bump_leaves_the_old_version_out():
    assert P.MIN_PROTOCOL_VERSION > OLD


def test_a_host_refuses_an_old_joiner_with_a_version_error_and_one_line():
    host = unonet("host", "--no-ui", "--json", "--bind", "127.0.0.1", "--port", "0",
                  "--discovery-port", str(_free_udp()), "--players", "3")
    with reaped(host):
        port = first_json(host)["port"]

        async def main():
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            raw = RawPeer(stream)
            with trio.fail_after(10):
                await raw.handshake(hello=lambda r: r.hello_with_versions(OLD, OLD, name="old"))
                got = await raw.read_all()
            await stream.aclose()
            return got

        got = run(main)
        refused = first_json(host)  # the operator's line about it (stdout: --json)
        for _ in range(5):  # after the lobby's
            if refused["t"] == "refused":
                break
            refused = first_json(host)
        host.terminate()
        finish(host, 20)
    errors = [m for m in got if isinstance(m, P.ErrorReport)]
    assert errors == [P.ErrorReport(code="version", message=OURS, field="hello.v", ref="hello")], got
    assert refused["t"] == "refused" and refused["code"] == "version", refused
    text = refused["text"]
    assert "\n" not in text and "protocol version" in text and f"{OLD}..{OLD}" in text and OURS in text, text
    assert "Traceback" not in host.err_path.read_text()


def test_a_joiner_refuses_an_old_host_with_a_version_error_and_one_line():
    async def main():
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = listeners[0].socket.getsockname()[1]
        joiner = unonet("join", "--no-ui", "--bind", "127.0.0.1", f"127.0.0.1:{port}")
        with reaped(joiner):
            with trio.fail_after(20):
                stream = await listeners[0].accept()
                raw = RawPeer(stream, role=P.HOST, initiator=False)
                await raw.flush()
                while not isinstance(await raw.next_event(), P.PeerKey):
                    pass
                raw.sl.accept_peer()
                assert isinstance(await raw.next_event(), P.HandshakeComplete)
                await raw.send_unchecked(raw.hello_with_versions(OLD, OLD, name="old"))
                raw.sl._hello_sent = True
                got = await raw.read_all()
                while joiner.poll() is None:
                    await trio.sleep(0.05)
            await stream.aclose()
        for lst in listeners:
            await lst.aclose()
        return got, joiner

    got, joiner = run(main)
    code, _out, err = finish(joiner, 5)
    errors = [m for m in got if isinstance(m, P.ErrorReport)]
    assert [(e.code, e.message) for e in errors] == [("version", OURS)], got
    assert code == 1 and "Traceback" not in err, (code, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "protocol version" in lines[0] and f"{OLD}..{OLD}" in lines[0], err
