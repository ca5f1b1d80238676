"""Discovery on loopback only (--bind 127.0.0.1), on a free port of its own; the
namespace tests (tests/net/test_lan_rig.py) cover real broadcast between machines."""

from __future__ import annotations

import dataclasses
import os
import socket

import msgpack
import trio

import unonet.net as N
import unonet.protocol as P

from .net_helpers import run

LO = "127.0.0.1"


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind((LO, 0))
        return s.getsockname()[1]


def beacon(**kw) -> P.Beacon:
    base = dict(v=P.PROTOCOL_VERSION, vmin=P.MIN_PROTOCOL_VERSION,
                table=os.urandom(16), name="Den", host="ann", port=4000, seats=4,
                taken=1, rules="official", fp=P.Identity.generate().fingerprint)
    base.update(kw)
    return P.Beacon(**base)


def test_loopback_targets_stay_on_loopback():
    # pure: computes target lists from given interfaces, sends nothing (the addresses are data)
    assert N.broadcast_targets(LO) == ["127.255.255.255"]
    lo = N.Interface("lo", LO, "255.0.0.0", "127.255.255.255", True, True)
    eth = N.Interface("eth0", "10.77.0.5", "255.255.255.0", "10.77.0.255", True, False)
    down = N.Interface("eth1", "10.9.0.5", "255.255.255.0", "10.9.0.255", False, False)
    assert N.broadcast_targets(None, [lo, eth, down]) == [
        "255.255.255.255", "127.255.255.255", "10.77.0.255"]
    assert N.broadcast_targets("10.77.0.5", [lo, eth]) == ["10.77.0.255"]


def test_join_code_from_a_beacon_fingerprint():
    ident = P.Identity.generate()
    assert N.fingerprint_code(ident.fingerprint) == ident.join_code


def test_probe_is_answered_at_once_by_unicast():
    port = free_udp_port()
    b = beacon()

    async def main():
        async with trio.open_nursery() as n:
            targets = await n.start(lambda task_status: N.announce(
                lambda: b, port=port, bind=LO, interval=3600, task_status=task_status))
            assert targets == ["127.255.255.255"]
            await trio.sleep(0.05)  # the first periodic beacon is gone: only a probe answers
            start = trio.current_time()
            seen = []
            found = await N.discover(1.0, port=port, bind=LO, on_found=lambda t: seen.append(
                trio.current_time() - start))
            n.cancel_scope.cancel()
        assert len(found) == 1
        t = found[0]
        assert t.probed and t.address == LO and t.port == 4000 and t.compatible
        assert t.version == P.PROTOCOL_VERSION
        assert t.beacon == b and t.join_code == N.fingerprint_code(b.fp)
        assert seen and seen[0] < 0.5

    run(main)


def test_periodic_beacons_are_heard_and_deduplicated():
    port = free_udp_port()
    b = beacon()

    async def main():
        async with trio.open_nursery() as n:
            # a joiner-only socket on the discovery port hears the beacons, not probes
            sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            await sock.bind(("127.255.255.255", port))
            await n.start(lambda task_status: N.announce(
                lambda: b, port=port, bind=LO, interval=0.05, task_status=task_status))
            got = []
            with trio.move_on_after(0.5):
                while len(got) < 3:
                    data, _ = await sock.recvfrom(2048)
                    got.append(P.decode_datagram(data))
            sock.close()
            found = await N.discover(0.3, port=port, bind=LO)
            n.cancel_scope.cancel()
        assert got == [b, b, b]
        assert len(found) == 1 and found[0].probed

    run(main)


def test_malformed_datagrams_are_ignored_and_incompatible_tables_listed():
    port = free_udp_port()
    old = beacon(name="Old", v=P.PROTOCOL_VERSION + 2, vmin=P.PROTOCOL_VERSION + 1)

    async def main():
        async with trio.open_nursery() as n:
            await n.start(lambda task_status: N.announce(
                lambda: old, port=port, bind=LO, interval=3600, task_status=task_status))
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as junk:
                for data in (b"\xff" * 50, b"", msgpack.packb({"t": "probe", "v": 1}),
                             msgpack.packb({"t": "hello"}), bytes(1500),
                             P.encode_datagram(beacon(name="Forged"))):
                    junk.sendto(data, (LO, port))
            await trio.sleep(0.05)
            found = await N.discover(0.5, port=port, bind=LO)
            n.cancel_scope.cancel()
        assert [t.beacon.name for t in found] == ["Old"]
        assert not found[0].compatible and found[0].version is None

    run(main)


def test_discover_drops_malformed_and_foreign_datagrams():
    port = free_udp_port()

    real = P.encode_datagram(beacon(name="Real"))

    async def main():
        async def noise():
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
                for _ in range(5):
                    for data in (b"garbage", msgpack.packb({"t": "beacon"}),
                                 P.encode_datagram(P.Probe(
                    v=P.PROTOCOL_VERSION, vmin=P.MIN_PROTOCOL_VERSION, nonce=bytes(8))),
                                 real):
                        s.sendto(data, ("127.255.255.255", port))
                    await trio.sleep(0.05)

        async with trio.open_nursery() as n:
            n.start_soon(noise)
            found = await N.discover(0.4, port=port, bind=LO)
        assert [t.beacon.name for t in found] == ["Real"] and not found[0].probed

    run(main)


def test_probe_answers_are_rate_limited():
    port = free_udp_port()

    async def main():
        async with trio.open_nursery() as n:
            await n.start(lambda task_status: N.announce(
                lambda: beacon(), port=port, bind=LO, interval=3600, task_status=task_status))
            with trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM) as s:
                await s.bind((LO, 0))
                probe = P.encode_datagram(P.Probe(
                    v=P.PROTOCOL_VERSION, vmin=P.MIN_PROTOCOL_VERSION, nonce=bytes(8)))
                for _ in range(100):
                    await s.sendto(probe, (LO, port))
                answers = 0
                while True:
                    with trio.move_on_after(0.3) as quiet:
                        await s.recvfrom(2048)
                        answers += 1
                    if quiet.cancelled_caught:
                        break
            n.cancel_scope.cancel()
        assert 1 <= answers <= 2 * 20

    run(main)


def test_list_cli_on_loopback(tmp_path):
    import json
    import subprocess
    import sys

    port = free_udp_port()
    host = subprocess.Popen(
        [sys.executable, os.path.join(os.path.dirname(__file__), "beacon_host.py"), "--bind", LO,
         "--port", str(port), "--seconds", "20", "--name", "Loop table"],
        stdout=subprocess.PIPE, text=True)
    try:
        info = json.loads(host.stdout.readline())
        out = subprocess.run([sys.executable, "-m", "unonet", "list", "--bind", LO, "--port",
                              str(port), "--json", "--timeout", "0.5"],
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        rows = [json.loads(line) for line in out.stdout.splitlines()]
        assert len(rows) == 1
        assert rows[0]["name"] == "Loop table" and rows[0]["port"] == info["port"]
        assert rows[0]["join_code"] == info["join_code"] and rows[0]["version"]["compatible"]
        text = subprocess.run([sys.executable, "-m", "unonet", "list", "--bind", LO, "--port",
                               str(port), "--timeout", "0.5"], capture_output=True, text=True,
                              timeout=30)
        assert "Loop table" in text.stdout and info["join_code"] in text.stdout
    finally:
        host.kill()
        host.wait()
        host.stdout.close()
    none = subprocess.run([sys.executable, "-m", "unonet", "list", "--bind", LO, "--port",
                           str(port), "--timeout", "0.3"], capture_output=True, text=True, timeout=30)
    assert none.returncode == 0 and none.stdout.startswith("no tables found within 0.3 s")
    bad = subprocess.run([sys.executable, "-m", "unonet", "list", "--bind", "192.0.2.254",
                          "--timeout", "0.3"], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "cannot listen" in bad.stderr and "Traceback" not in bad.stderr


def test_a_table_in_an_election_still_announces_itself_as_playing():
    """play8: the elected host of a second election sat in its 6 s wait with the state
    "electing", which no beacon may carry: its screen said "!! beacon.state: expected one of
    lobby, playing, ended (got 'electing')" and the old host's person, starting `unonet
    join` again, was told "no table found".  A table in an election holds a match: it says
    "playing"."""
    from .session_helpers import config, live_table

    async def main():
        async with live_table(config(3)) as table:
            table.state = "electing"  # (what `SuccessorTable` sets until play resumes)
            b = table.beacon()
            assert b.state == "playing"
            assert P.decode_datagram(P.encode_datagram(b)).state == "playing"

    run(main)


def test_a_join_that_found_no_table_looks_once_more_before_giving_up():
    """A host started a moment before the joiner on a loaded machine did not announce itself
    within the joiner's 1 s look; the next try found it.  Here the host starts only once a
    third probe arrives - one that only a second look sends - so without that second look
    the join finds nothing, and with it, the table."""
    from unonet.net._join import look_for_tables

    port = free_udp_port()
    b = beacon()

    async def main():
        ear = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        ear.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        await ear.bind(("127.255.255.255", port))
        probes = []
        async with trio.open_nursery() as n:
            async def late_host():
                while len(probes) < 3:  # (the joiner sends two probes a look)
                    data, _src = await ear.recvfrom(4096)
                    if isinstance(P.decode_datagram(data), P.Probe):
                        probes.append(data)
                await n.start(lambda task_status: N.announce(
                    lambda: b, port=port, bind=LO, interval=3600, task_status=task_status))

            n.start_soon(late_host)
            found = await look_for_tables(0.5, port=port, bind=LO)
            n.cancel_scope.cancel()
        ear.close()
        assert len(probes) >= 3
        assert [t.beacon for t in found] == [b]

    run(main)

    async def nobody():
        return await look_for_tables(0.2, port=free_udp_port(), bind=LO)

    assert run(nobody) == []


def test_a_beacon_the_system_has_no_buffer_for_is_skipped_not_the_end_of_the_table():
    """macOS and Windows fail a datagram send with ENOBUFS when an interface's queue is full (a
    LAN flooded by a stranger); Linux drops the datagram quietly and says nothing, so the real
    error cannot be made here and a stand-in socket says it.  The periodic beacon's send raised
    it, which ended `announce` and with it the host's table; now that target is skipped, the
    others still get the beacon, and the next one goes a second later."""
    import errno

    from unonet.net._discovery import _send_all_targets

    class Full:
        def __init__(self) -> None:
            self.sent = []

        async def sendto(self, data, address):
            if address[0] == "10.77.0.255":
                raise OSError(errno.ENOBUFS, "No buffer space available")
            self.sent.append(address)

    async def main():
        sock = Full()
        n = await _send_all_targets(sock, b"beacon", ["10.77.0.255", "127.255.255.255"], 47777)
        return n, sock.sent

    n, sent = run(main)
    assert n == 1 and sent == [("127.255.255.255", 47777)]


def test_a_probe_whose_prober_is_gone_before_the_answer_does_not_end_the_table(monkeypatch):
    """Windows fails the next ``recvfrom`` with WSAECONNRESET when a datagram the socket sent
    came back port-unreachable: a stranger that probes and closes its socket at once ended the
    table's `announce` (and so the host).  Linux reports the same ICMP error on ``recvfrom``
    with IP_RECVERR set, so the table's real sockets are given it here: the ICMP error is real."""
    import unonet.net._discovery as D

    made = D._udp_socket

    def reporting():
        sock = made()
        sock.setsockopt(socket.IPPROTO_IP, 11, 1)  # IP_RECVERR (Linux): ICMP errors on recvfrom
        return sock

    monkeypatch.setattr(D, "_udp_socket", reporting)
    port = free_udp_port()
    b = beacon()
    probe = P.encode_datagram(P.Probe(v=P.PROTOCOL_VERSION, vmin=P.MIN_PROTOCOL_VERSION, nonce=os.urandom(8)))

    async def main():
        async with trio.open_nursery() as n:
            await n.start(lambda task_status: N.announce(
                lambda: b, port=port, bind=LO, interval=3600, task_status=task_status))
            for _ in range(3):  # each prober gone before its answer: three port-unreachables
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                    s.bind((LO, 0))
                    s.sendto(probe, (LO, port))
                await trio.sleep(0.05)
            found = await N.discover(1.0, port=port, bind=LO)  # the table still answers
            n.cancel_scope.cancel()
        return found

    found = run(main)
    assert len(found) == 1 and found[0].beacon == b


def test_a_join_code_no_table_announces_says_which_tables_are_there():
    """evening17: Hal's table went on under Ana, elected; Ben, who had joined with Hal's code,
    quit (q) and ran the same `unonet join --code <Hal's code>` to take his seat back: "no
    table found on this network (is a host running? ...)", with the table announcing itself
    beside him under Ana's code.  The join says what it heard, and joins nothing."""
    from unonet.fingerprint import fingerprint_code
    from unonet.net._join import JoinFailed, reach_table

    port = free_udp_port()
    b = beacon(name="Hal's table", host="Ana")
    old_code = P.Identity.generate().join_code  # the host the joiner's code names is gone

    async def main():
        async with trio.open_nursery() as n:
            await n.start(lambda task_status: N.announce(
                lambda: b, port=port, bind=LO, interval=3600, task_status=task_status))
            try:
                await reach_table(None, P.Identity.generate(), name="Ben", code=old_code, bind=LO,
                                  discovery_port=port, timeout=0.5)
            except JoinFailed as exc:
                failed = exc
            n.cancel_scope.cancel()
        return failed

    failed = run(main)
    text = str(failed)
    assert not text.startswith("no table found"), text
    assert text.startswith(f"no table on this network announces join code {old_code}; heard instead: "
                           f"Hal's table at {LO}:4000 (host Ana, code {fingerprint_code(b.fp)})"), text
    assert "\n" not in text, text  # (the full-screen client says a failed join in its first line only)
