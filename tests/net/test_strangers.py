"""A stranger on the LAN (no seat, no key the table knows) against a live table (lan7): what
it can make the table do costs that stranger's own link, never the seats' turns, and never
names an honest party.  Real sockets on loopback; the attack mounted with the project's own
classes, as an attacker would."""

from __future__ import annotations

from functools import partial

import pytest
import trio

import unonet.net as N
import unonet.protocol as P
from unonet.engine import make_rules
from unonet.net._game import HostGame, run_local_seat
from unonet.net._host import HostTable

from .net_helpers import run
from .session_helpers import config, live_table


class _TableSteps(trio.abc.Instrument):
    """Counts what happens inside each step of the host's table task (the one task that
    plays every seat's turn): ``most`` = the most history messages read back in one step."""

    def __init__(self, spool_reads: list) -> None:
        self.reads, self.inside, self.most, self.steps = spool_reads, False, 0, 0

    def before_task_step(self, task) -> None:
        if getattr(task.coro, "cr_code", None) is HostTable.run.__code__:
            self.inside, self.at = True, len(self.reads)

    def after_task_step(self, task) -> None:
        if self.inside:
            self.inside = False
            self.steps += 1
            self.most = max(self.most, len(self.reads) - self.at)


def test_a_stranger_attaching_as_a_scorekeeper_mid_match_costs_no_table_step_its_replay():
    """A stranger may attach as a scorekeeper in the middle of a match (spec §5 step 3) and is
    owed the match so far.  That replay used to be read back, decoded, encoded and encrypted
    inside one step of the table task: every attach stalled every seat's turn for as long as
    a whole match took to encode (a 3,000-message match: ~140 ms per attach; four strangers
    attaching in a loop cut a bot match's relayed batches from ~6,100 to 68 in 5 s, longest
    gap 17 -> 617 ms).  Now the link's own writer writes it a chunk at a time: no table step
    reads the history, and the stranger still gets the whole replay, then the live match."""
    reads: list = []
    steps = _TableSteps(reads)

    async def main():
        trio.lowlevel.add_instrument(steps)
        cfg = config(2, rules=make_rules("official", [], target=100_000), bots=1, autostart=True,
                     bot_pace=0.0, observers=4)
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            with trio.fail_after(60):
                while table.game is None or len(table.game.history) < 600:
                    await trio.sleep(0.02)
            spool = table.game.history
            read = spool._read

            def counted(i):  # the real read, counted (spool reads are where a replay's cost is)
                reads.append(i)
                return read(i)

            spool._read = counted
            got = []
            for attempt in range(3):  # three strangers, one after the other, each fed the match so far
                eye = await N.connect("127.0.0.1", table.port, P.Identity.generate(), name=f"eye{attempt}",
                                      role=P.OBSERVER, timeouts=N.Timeouts(idle=10.0))
                with trio.fail_after(30):
                    first = await eye.receive()
                    rejoin = await eye.receive()
                    while not isinstance(rejoin, P.Rejoin):
                        rejoin = await eye.receive()
                    replay = [await eye.receive() for _ in range(rejoin.at)]
                    live = await eye.receive()
                got.append((type(first).__name__, rejoin.seat, rejoin.at, len(replay),
                            replay[0].ev if isinstance(replay[0], P.Fair) else None, type(live).__name__))
                await eye.aclose()
            trio.lowlevel.remove_instrument(steps)
            return got, len(reads)

    got, total_reads = run(main)
    for first, seat, at, replayed, opening, _live in got:
        assert first == "Roster" and seat is None and at >= 600 and replayed == at and opening == "match-start"
    assert total_reads >= sum(g[2] for g in got)  # every replay was read back (by the writers)
    assert steps.steps > 100 and steps.most == 0, steps.most  # ... and not one message in a table step


# -- forged beacons against `unonet join --code` / `unonet score --code` --------------------------

def _free_udp_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _forger(dport: int, real: P.Beacon, impostors: list[tuple[str, int]], task_status=trio.TASK_STATUS_IGNORED,
                  tables: int = 64):
    """A stranger that hears every probe (it listens on the discovery port, as hosts do) and
    answers it at once, nonce echoed, from 16 addresses of its own: 64 tables of its own (its
    keys, the real table's name) and copies of the real beacon (its key, its code) pointing
    at ``impostors`` (addresses where a stranger's tarpit accepts and never speaks, or nobody
    listens); between probes it keeps sending them all as periodic beacons."""
    fields = {f: getattr(real, f) for f in real.__dataclass_fields__}
    fakes = [type(real)(**{**fields, "fp": P.Identity.generate().fingerprint, "table": i.to_bytes(16, "big")})
             for i in range(tables)]
    copies = [(src, type(real)(**{**fields, "port": port})) for src, port in impostors]
    senders = {}
    for k in range(16):
        sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
        sock.setsockopt(trio.socket.SOL_SOCKET, trio.socket.SO_BROADCAST, 1)
        await sock.bind((f"127.0.1.{1 + k}", 0))
        senders[k] = sock
    for src, _ in copies:
        sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
        sock.setsockopt(trio.socket.SOL_SOCKET, trio.socket.SO_BROADCAST, 1)
        await sock.bind((src, 0))
        senders[src] = sock
    ear = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    ear.setsockopt(trio.socket.SOL_SOCKET, trio.socket.SO_REUSEADDR, 1)
    await ear.bind(("127.255.255.255", dport))

    async def send_all(to, nonce=None):
        for i, fake in enumerate(fakes):
            await senders[i // 4].sendto(P.encode_datagram(fake if nonce is None else
                                                           type(fake)(**{**fields, **_f(fake), "nonce": nonce})), to)
        for src, copy in copies:
            await senders[src].sendto(P.encode_datagram(copy if nonce is None else
                                                        type(copy)(**{**_f(copy), "nonce": nonce})), to)

    async def answer():
        while True:
            data, src = await ear.recvfrom(2048)
            try:
                msg = P.decode_datagram(data)
            except P.RemoteProtocolError:
                continue
            if isinstance(msg, P.Probe):
                await send_all(src, msg.nonce)

    try:
        async with trio.open_nursery() as n:
            n.start_soon(answer)
            task_status.started()
            while True:
                await send_all(("127.255.255.255", dport))
                await trio.sleep(0.05)
    finally:
        ear.close()
        for s in senders.values():
            s.close()


def _f(b) -> dict:
    return {f: getattr(b, f) for f in b.__dataclass_fields__}


def test_a_join_with_a_code_finds_its_table_through_a_flood_of_forged_and_copied_beacons():
    """A stranger answers every probe first with 64 tables of its own under the real table's
    name (16 addresses, 4 each: the joiner's bounds) and copies of the real beacon -- the real
    key, the real join code -- pointing at its own tarpit (accepts, never speaks) and at an
    address nobody listens on.  Before, discovery listed the first 64 it heard and ignored the
    code: `unonet join --code C` failed with "65 tables found" (or "no table found").  Now a
    joiner with a code lists only beacons of that code (the flood counts for nothing), tries
    every listing of it at once and joins the one whose host proves the key.  Without a code
    the joiner is told the tables apart, never joined to one silently."""
    from unonet.net._join import JoinFailed, reach_table

    dport = _free_udp_port()

    async def main():
        cfg = config(3, dealer_only=True, announce=True, discovery_port=dport)
        async with live_table(cfg) as table:
            tarpit = trio.socket.socket()
            await tarpit.bind(("127.0.0.7", 0))
            tarpit.listen(16)  # the kernel completes the TCP handshake; nobody ever speaks
            impostors = [("127.0.0.7", tarpit.getsockname()[1]), ("127.0.0.8", 9)]
            async with trio.open_nursery() as n:
                await n.start(_forger, dport, table.beacon(), impostors)
                with trio.fail_after(60):  # (a hang guard, not a timing)
                    link, found = await reach_table(None, P.Identity.generate(), name="pat", code=table.join_code,
                                                    bind="127.0.0.1", discovery_port=dport)
                    seat = await link.receive()
                    await link.aclose()
                    try:
                        await reach_table(None, P.Identity.generate(), name="kim", bind="127.0.0.1",
                                          discovery_port=dport)
                        uncoded = None
                    except JoinFailed as exc:
                        uncoded = exc
                n.cancel_scope.cancel()
            tarpit.close()
            return table, link.peer_id, found, seat, uncoded

    table, peer, found, seat, uncoded = run(main)
    assert peer == table.peer_id and found.address == "127.0.0.1" and found.port == table.port
    assert isinstance(seat, P.SeatAssignment)
    assert uncoded is not None and uncoded.code == "choose" and "tables found; name one" in str(uncoded)


def test_a_stranger_flooding_heartbeats_from_an_observer_place_is_read_at_an_observers_pace():
    """A stranger in an observer place (or a lobby seat) sends heartbeats as fast as its link
    takes them: before, the host decrypted and handled every one (four such strangers: ~4,400
    a second, two thirds of a core; the seats' turns held only because the machine had it to
    spare).  Now a link with no seat in play is read at most ``QUIET_RATE`` messages a second
    after a burst of ``QUIET_BURST``: the rest waits in TCP, at the stranger's cost.  (An upper
    bound on what the host read, measured on trio's clock: it holds on any machine.)  The
    honest observer beside it reads the match live, and the match goes on."""
    from unonet.net._host import QUIET_BURST, QUIET_RATE

    async def main():
        cfg = config(2, rules=make_rules("official", [], target=100_000), bots=1, autostart=True,
                     bot_pace=0.01, observers=4)
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            handled: dict = {}
            on_message = table._on_message

            def counted(peer, msg):  # the table's own handler, counted per peer
                handled[peer.name] = handled.get(peer.name, 0) + 1
                return on_message(peer, msg)

            table._on_message = counted
            flooder = await N.connect("127.0.0.1", table.port, P.Identity.generate(), name="flood",
                                      role=P.OBSERVER, timeouts=N.Timeouts(idle=30.0))
            honest = await N.connect("127.0.0.1", table.port, P.Identity.generate(), name="eye",
                                     role=P.OBSERVER, timeouts=N.Timeouts(idle=30.0))
            sent, seen = [0], []
            async with trio.open_nursery() as n:
                async def flood():
                    while True:
                        await flooder.send(P.Heartbeat(seq=sent[0] % (1 << 32)))
                        sent[0] += 1

                async def drain(link, into):
                    try:
                        async for m in link:
                            into.append(m)
                    except N.LinkError:
                        pass

                n.start_soon(drain, flooder, [])
                n.start_soon(drain, honest, seen)
                t0 = trio.current_time()
                n.start_soon(flood)
                await trio.sleep(2.0)
                elapsed = trio.current_time() - t0
                read = handled.get("flood", 0)
                n.cancel_scope.cancel()
            await flooder.aclose()
            await honest.aclose()
            return sent[0], read, elapsed, seen

    sent, read, elapsed, seen = run(main)
    assert sent > read  # the stranger wrote more than the host read: TCP holds it back
    assert read <= QUIET_BURST + QUIET_RATE * elapsed + 2, (read, elapsed)
    assert sum(isinstance(m, P.Fair) for m in seen) > 10  # the honest observer follows the match meanwhile


def test_a_datagram_flood_at_the_discovery_port_is_read_at_a_bounded_rate_and_the_table_still_found():
    """A stranger floods the host's discovery port with probes and junk from 8 addresses.
    Every probe answer was capped (20 a second) but every datagram was read and decoded: ~80,000
    a second cost the host 60% of a core.  Now the host reads at most ``MAX_READS_PER_SECOND``
    datagrams a second in all (the kernel drops the rest unread); its periodic beacons go on,
    so a joiner listening meanwhile still finds the table.  (An upper bound on what the host
    decoded, on trio's clock.)"""
    import os
    import socket

    import unonet.net._discovery as D

    dport = _free_udp_port()

    async def main():
        cfg = config(3, dealer_only=True, announce=True, discovery_port=dport)
        async with live_table(cfg) as table:
            decoded = [0]
            decode = D.decode_datagram

            def counted(data):  # the real decoder, counted when the host's answering task calls it
                if "answer" in trio.lowlevel.current_task().name:
                    decoded[0] += 1
                return decode(data)

            D.decode_datagram = counted
            try:
                socks = []
                for k in range(8):
                    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    s.bind((f"127.0.9.{k + 1}", 0))
                    s.setblocking(False)
                    socks.append(s)
                probe = P.encode_datagram(P.Probe(v=P.PROTOCOL_VERSION, vmin=P.MIN_PROTOCOL_VERSION,
                                                  nonce=b"\x01" * 8))
                junk = os.urandom(1200)
                sent = [0]
                found: list = []
                async with trio.open_nursery() as n:
                    async def flood():
                        while True:
                            for s in socks:
                                for d in (probe, junk):
                                    try:
                                        s.sendto(d, ("127.0.0.1", dport))
                                        sent[0] += 1
                                    except BlockingIOError:
                                        pass
                            await trio.sleep(0)

                    async def look():
                        found.extend(await N.discover(1.5, port=dport, bind="127.0.0.1"))

                    t0 = trio.current_time()
                    n.start_soon(flood)
                    await trio.sleep(0.5)
                    await look()
                    elapsed = trio.current_time() - t0
                    n.cancel_scope.cancel()
                for s in socks:
                    s.close()
            finally:
                D.decode_datagram = decode
            return table, sent[0], decoded[0], elapsed, found

    table, sent, decoded, elapsed, found = run(main)
    assert sent > 10 * decoded  # most of the flood was never read
    assert decoded <= D.MAX_READS_PER_SECOND * (elapsed + 1) + 2, (decoded, elapsed)
    assert any(t.beacon.fp == table.peer_id and t.port == table.port for t in found)


# -- a stranger at the elected host's address ------------------------------------------------------

async def _stranger_at(port: int, successor_id: bytes, tally: dict) -> None:
    """One round of a stranger's attack on an elected table at 127.0.0.1:``port``: it asks for
    a seat, then attaches as a scorekeeper and reports an election with a head of its own
    making, then hands over a ledger of another match, then just holds a half-open connection."""
    from unonet.protocol._messages import LedgerEntry

    try:
        link = await N.connect("127.0.0.1", port, P.Identity.generate(), name="b", timeouts=N.Timeouts(idle=5.0))
        with trio.fail_after(5):
            while True:
                await link.receive()
    except N.PeerRefused as exc:
        tally.setdefault("as a player", []).append(exc.code)
    except (N.LinkError, trio.TooSlowError):
        pass
    for lie in ("head", "ledger"):
        try:
            eye = await N.connect("127.0.0.1", port, P.Identity.generate(), name="eye", role=P.OBSERVER,
                                  timeouts=N.Timeouts(idle=5.0))
            if lie == "head":
                await eye.send(P.Election(term=1, host=successor_id, head=bytes(32), rounds=1))
            else:
                await eye.send(P.Ledger(match=bytes(16), rounds=1, head=bytes(32),
                                        entries=(LedgerEntry(round=1, winner=0, points=(), hash=bytes(32)),)))
            with trio.fail_after(5):
                while True:
                    await eye.receive()
        except N.PeerRefused as exc:
            tally.setdefault(f"lying ({lie})", []).append(exc.code)
        except (N.LinkError, trio.TooSlowError):
            pass
    sock = trio.socket.socket()
    try:
        await sock.connect(("127.0.0.1", port))
        tally.setdefault("half-open", []).append(sock)
    except OSError:
        sock.close()


@pytest.mark.slow
def test_a_stranger_at_the_elected_hosts_address_costs_nothing_and_names_nobody_honest():
    """The host dies in round 2; while the match resumes at the successor's address, a stranger
    keeps coming there (and had 1,000 connections waiting in its listen queue before the
    host died): for a seat (refused `forbidden`: only the seats' own keys), as a
    scorekeeper with an election report off the match's chain (turned away, not a cheat), as a
    scorekeeper handing over another match's ledger (its own lie: refused `fair-play`, naming
    it), and with half-open connections.  The match plays on at the elected table; the elected
    host's operator reads the stranger's doings as a few lines naming the stranger -- before,
    every attempt was one more line saying the lost host "may have told it another story"
    (20 attempts: 20 such lines)."""
    from .test_election import Joiner, _match_with_joiners

    tally: dict = {}
    js = [Joiner("a"), Joiner("b")]

    def on_lost(j) -> None:
        j.on_lost = None

    async def main():
        lost = trio.Event()
        js[1].on_lost = lambda j: lost.set()
        async with trio.open_nursery() as n:
            async def attack():
                while js[0].listeners is None or js[0].side is None or js[0].side.game is None:
                    await trio.sleep(0.05)
                port = listener_port(js[0].listeners)
                # before the election: 1,000 connections from 10 addresses wait in the successor's
                # listen queue (nobody accepts there yet), each with half a handshake frame
                for k in range(1000):
                    sock = trio.socket.socket()
                    try:
                        await sock.bind((f"127.0.{60 + k % 10}.1", 0))
                        await sock.connect(("127.0.0.1", port))
                        await sock.send((32).to_bytes(4, "big") + bytes(10))
                    except OSError:
                        sock.close()
                        continue
                    tally.setdefault("queued before", []).append(sock)
                await lost.wait()
                t0 = trio.current_time()
                for _ in range(20):
                    await _stranger_at(port, js[0].side.peer_id if js[0].side else b"", tally)
                tally["seconds"] = [None] * int(trio.current_time() - t0)
            n.start_soon(attack)
            # (a target no match reaches while the stranger comes: a match of 500 was once over
            # before its first try had an answer, and the test failed)
            await _match_with_joiners(("--players", "4", "--bots", "1", "--target", "100000"), js,
                                      until=lambda: "seconds" in tally)
            n.cancel_scope.cancel()
        for s in tally.get("half-open", []) + tally.get("queued before", []):
            s.close()

    from unonet.net._serve import listener_port
    trio.run(main)
    # the match plays on at the elected table through it all: neither player ended
    assert all(j.error is None and j.result is None for j in js), [(str(j.error), j.result) for j in js]
    assert len(js[1].links) > 1 and js[1].links[-1].peer_id == js[0].side.peer_id  # (b plays at a's table)
    assert set(tally.get("as a player", [])) <= {"forbidden", "full"} and tally.get("as a player")
    assert set(tally.get("lying (ledger)", [])) <= {"fair-play", "unexpected"}
    said = [x for x in js[0].out if x.get("t") in ("problem", "refused")]
    about_stranger = [x for x in said if "eye" in x.get("text", "") or "(b)" in x.get("text", "")
                      or x.get("text", "").startswith("b (")]
    cheats = [x for x in said if x.get("cheat")]
    assert all("scorekeeper eye" in x["text"] for x in cheats), cheats  # only the stranger, for its own lie
    story = [x for x in said if "another story" in x.get("text", "")]
    windows = 1 + len(tally.get("seconds", [])) // 10 + 1
    assert len(story) <= 5 * windows, len(story)  # a few lines every 10 s, not one per attempt
    print(f"\nstranger at the elected host: {({k: len(v) for k, v in tally.items()})}; "
          f"{len(about_stranger)} operator lines about it; {len(story)} mention another story")


@pytest.mark.slow
def test_unonet_join_and_score_with_a_code_play_and_record_through_forged_beacons():
    """The programs themselves under the forger of the test above: `unonet join --code` plays
    the match at the real table and `unonet score --code` records it (exit 0 both); without a
    code `unonet join` names the tables it found in one line and exits 1, no traceback."""
    import time

    from .session_helpers import finish, first_json, lines, reaped, unonet

    dport = _free_udp_port()
    host = unonet("host", "--no-ui", "--json", "--bind", "127.0.0.1", "--port", "0", "--discovery-port", str(dport),
                  "--players", "3", "--bots", "1", "--target", "60", "--bot-pace", "0.01")
    with reaped(host):
        opened = first_json(host)
        code, port = opened["join_code"], opened["port"]

        async def main():
            # the forger copies what the real table's beacons say (its key, so its join code)
            got = await N.discover(1.5, port=dport, bind="127.0.0.1")
            beacon = next(t.beacon for t in got if t.port == port)
            async with trio.open_nursery() as n:
                await n.start(_forger, dport, beacon, [("127.0.0.8", 9)])
                procs = {}
                common = ("--no-ui", "--json", "--bind", "127.0.0.1", "--discovery-port", str(dport))
                procs["plain"] = unonet("join", *common, "--bot", "--name", "kim")
                procs["score"] = unonet("score", *common, "--code", code, "--name", "eye")
                procs["join"] = unonet("join", *common, "--bot", "--code", code, "--name", "pat")
                with reaped(*procs.values()):
                    deadline = time.monotonic() + 180
                    while any(p.poll() is None for p in procs.values()) and time.monotonic() < deadline:
                        await trio.sleep(0.2)
                    ends = {k: finish(p, 5) for k, p in procs.items()}
                n.cancel_scope.cancel()
            return ends

        ends = trio.run(main)
        host.wait(timeout=60)
    rc, out, err = ends["join"]
    assert rc == 0, (out[-2000:], err[-2000:])
    assert any(x.get("t") == "match-over" for x in lines(out))
    rc, out, err = ends["score"]
    assert rc == 0, (out[-2000:], err[-2000:])
    rc, out, err = ends["plain"]
    assert rc == 1 and "tables found; name one" in err and "Traceback" not in err, err


# -- bad bytes from strangers against a live match ------------------------------------------------

async def _raw_stranger(port: int, what: str, role=P.PLAYER) -> None:
    """One stranger's bad bytes over real TCP: before, inside or after a valid handshake."""
    from .net_helpers import RawPeer

    stream = await trio.open_tcp_stream("127.0.0.1", port)
    try:
        if what == "huge length":
            await stream.send_all((0x7FFFFFFF).to_bytes(4, "big") + bytes(64))
        elif what == "zero length":
            await stream.send_all(bytes(4))
        elif what == "truncated handshake":
            await stream.send_all((32).to_bytes(4, "big") + bytes(10))
        else:
            raw = RawPeer(stream, role=role)
            with trio.fail_after(10):
                await raw.handshake(name="b")  # (a seated player's name)
                if what == "garbage after hello":
                    await stream.send_all((300).to_bytes(4, "big") + bytes(300))
                elif what == "truncated frame":
                    await stream.send_all((300).to_bytes(4, "big") + bytes(100))
                elif what == "huge length after hello":
                    await stream.send_all((70000).to_bytes(4, "big") + bytes(100))
                elif what == "second hello":
                    await raw.send_unchecked(raw.sl.hello(name="b"))
                elif what == "host's message":
                    await raw.send_unchecked(P.Turn(seq=1, seat=0))
                elif what == "seat message as observer":
                    await raw.send_unchecked(P.Ready(round=1))
                elif what == "election out of the blue":
                    await raw.send_unchecked(P.Election(term=1, host=bytes(32), head=bytes(32), rounds=0))
                await raw.read_all()
    except (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError, OSError):
        pass
    finally:
        await stream.aclose()


def test_bad_bytes_from_strangers_mid_match_are_refused_in_one_line_each_and_the_match_plays_on():
    """Oversized, zero and truncated frame lengths before the handshake; garbage, a truncated
    frame and an oversized length after a valid one; a second hello; a host's message from a
    player; a seat's message and an election out of the blue from an observer -- each from a
    stranger, several times, during a match.  The match plays on (two more rounds), every
    refusal is one line (no traceback, no exception class), and nothing is said of an honest
    seat: no line calls anyone a cheat."""
    kinds = ["huge length", "zero length", "truncated handshake", "garbage after hello", "truncated frame",
             "huge length after hello", "second hello", "host's message", "seat message as observer",
             "election out of the blue"]

    async def main():
        # (a target no match reaches while the stranger comes: a match of 150 points was once
        # over, its table closed, before the 30th try, which CI then failed as "connection refused")
        cfg = config(2, rules=make_rules("official", [], target=100_000), bots=1, autostart=True, bot_pace=0.01)
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            with trio.fail_after(120):
                while table.state != "playing" or table.game is None:
                    await trio.sleep(0.02)
                for _ in range(3):
                    for what in kinds:
                        role = P.OBSERVER if "observer" in what or "election" in what else P.PLAYER
                        await _raw_stranger(table.port, what, role)
                # the match plays on afterwards: two more rounds are dealt
                after = table.game.round_no
                while table.game.round_no < after + 2:
                    assert table.result is None and table.state == "playing", (table.state, table.result)
                    await trio.sleep(0.05)
            return table.events

    events = run(main)
    told = [e for e in events if e.kind in ("refused", "problem", "left")]
    assert told and all("\n" not in e.text and "Traceback" not in e.text for e in told)
    assert not any(name in e.text for e in told for name in ("Error:", "Exception", "BusyResource"))
    assert not any(e.data.get("cheat") for e in events)


def _open_fds() -> int:
    import os

    return len(os.listdir("/proc/self/fd"))


@pytest.mark.slow
def test_two_thousand_half_open_connections_keep_the_hosts_descriptors_bounded_and_the_door_open():
    """A stranger holds 2,000 connections from 40 addresses, each with half a handshake frame
    and then silence (the kernel completes every TCP handshake; the host accepts each).  The
    host never holds more than its handshake bounds (64 pending) of them: its descriptors stay
    within that of where they were, while two players and a scorekeeper still get in and the
    match they start is played out.  (The held connections are this process's own too: they
    are counted apart.)"""
    import resource

    from unonet.net._serve import MAX_PENDING

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 4096:  # (raised for this test when the hard limit allows: it is put back below)
        if hard != resource.RLIM_INFINITY and hard < 4096:
            pytest.skip(f"2,000 held connections need a descriptor limit of 4096 (the hard limit is {hard})")
        resource.setrlimit(resource.RLIMIT_NOFILE, (4096, hard))

    async def main():
        cfg = config(3, rules=make_rules("official", [], target=100), bots=1, autostart=True, bot_pace=0.01,
                     hold_seats=1.0)
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            base = _open_fds()
            held, most = [], 0
            for a in range(40):
                for _ in range(50):
                    sock = trio.socket.socket()
                    try:
                        await sock.bind((f"127.0.{20 + a}.1", 0))
                        await sock.connect(("127.0.0.1", table.port))
                        await sock.send((32).to_bytes(4, "big") + bytes(10))
                    except OSError:
                        sock.close()
                        continue
                    held.append(sock)
                await trio.sleep(0.01)
                most = max(most, _open_fds() - len(held) - base)
            eye = await N.connect("127.0.0.1", table.port, P.Identity.generate(), name="eye", role=P.OBSERVER,
                                  timeouts=N.Timeouts(idle=30.0))
            first = await eye.receive()
            pat = await N.connect("127.0.0.1", table.port, P.Identity.generate(), name="pat")
            seat = await pat.receive()
            most = max(most, _open_fds() - len(held) - base)
            await pat.aclose()  # (its seat goes to a bot when the match needs it: the table plays on)
            with trio.fail_after(120):
                while table.result is None:
                    await trio.sleep(0.1)
                    most = max(most, _open_fds() - len(held) - base)
            await eye.aclose()
            for s in held:
                s.close()
            return len(held), most, first, seat, table.result

    try:
        n, most, first, seat, result = run(main)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert n == 2000
    assert isinstance(first, P.Roster) and isinstance(seat, P.SeatAssignment) and result is not None
    assert most <= MAX_PENDING + 8, most
    print(f"\n2,000 half-open connections held: the host's own descriptors at most {most} above its start")


def test_a_code_whose_host_runs_two_tables_asks_which_one_and_joins_neither():
    """One host, one key, two tables (two `unonet host` under one identity): both prove the
    code's key.  A join with the code must not pick one at random: it names both, in one
    screen, and joins neither (the seats the tries took are given back)."""
    from unonet.net._join import JoinFailed, reach_table

    dport = _free_udp_port()
    ident = P.Identity.generate()

    async def main():
        async with trio.open_nursery() as n:
            tables = []
            for name in ("Den", "Loft"):
                cfg = config(3, dealer_only=True, announce=True, discovery_port=dport, name=name)
                table = HostTable(cfg, ident, on_event=lambda e: None)
                await n.start(table.run)
                tables.append(table)
            try:
                await reach_table(None, P.Identity.generate(), name="pat", code=ident.join_code, bind="127.0.0.1",
                                  discovery_port=dport)
                failed = None
            except JoinFailed as exc:
                failed = exc
            with trio.fail_after(10):
                while any(t.book.taken for t in tables):
                    await trio.sleep(0.02)
            n.cancel_scope.cancel()
        return failed

    failed = run(main)
    assert failed is not None and failed.code == "choose", failed
    assert "runs 2 tables; name one" in str(failed) and "Den" in str(failed) and "Loft" in str(failed)


async def _forward(listen: tuple[str, int], to: tuple[str, int], task_status=trio.TASK_STATUS_IGNORED):
    """The host's second address (a laptop on wifi and on cable): whatever connects at
    ``listen`` reaches the host at ``to``, byte for byte."""
    server = trio.socket.socket()
    server.setsockopt(trio.socket.SOL_SOCKET, trio.socket.SO_REUSEADDR, 1)
    await server.bind(listen)
    server.listen(16)
    listener = trio.SocketListener(server)

    async def pipe(a, b):
        try:
            while data := await a.receive_some(65536):
                await b.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            with trio.move_on_after(1) as _:
                await b.aclose()

    async def handle(client):
        try:
            upstream = await trio.open_tcp_stream(*to)
        except OSError:
            await client.aclose()
            return
        async with trio.open_nursery() as n:
            n.start_soon(pipe, client, upstream)
            n.start_soon(pipe, upstream, client)

    async with listener:
        task_status.started()
        await trio.serve_listeners(handle, [listener])


@pytest.mark.parametrize("coded", [True, False], ids=["code", "no-code"])
def test_a_join_to_a_host_heard_at_two_addresses_says_hello_once(coded):
    """One host heard at two addresses (its beacon from each of its networks): a join with its
    code tries both at once, and only the first to prove the key goes on to say hello -- the
    host never sees two hellos under one key racing for one seat (it kept one and refused the
    other as "its key already holds seat N", and when it kept the one the joiner had dropped,
    the join failed).  Without a code, two listings of one beacon are one table, not "2 tables
    found; name one"."""
    from unonet.net._join import reach_table

    dport = _free_udp_port()

    async def main():
        cfg = config(3, dealer_only=True, announce=True, discovery_port=dport)
        async with live_table(cfg) as table:
            async with trio.open_nursery() as n:
                await n.start(_forward, ("127.0.0.2", table.port), ("127.0.0.1", table.port))
                await n.start(partial(_forger, tables=0), dport, table.beacon(), [("127.0.0.2", table.port)])
                seated = []
                for k in range(3):
                    with trio.fail_after(30):  # (a hang guard, not a timing)
                        link, found = await reach_table(None, P.Identity.generate(), name=f"pat{k}",
                                                        code=table.join_code if coded else None, bind="127.0.0.1",
                                                        discovery_port=dport)
                        seated.append((link, await link.receive()))
                        await trio.sleep(1.0)  # (a try that went on would be at the host by now)
                taken = table.book.taken
                for link, _ in seated:
                    await link.aclose()
                n.cancel_scope.cancel()
            return table, [s for _, s in seated], taken

    table, seated, taken = run(main)
    assert all(isinstance(s, P.SeatAssignment) for s in seated), seated
    assert taken == 3, taken
    refused = [e.text for e in table.events if e.kind == "refused"]
    assert not refused, refused


# -- a stranger's election reports at an elected table are not kept after it left ------------------

@pytest.mark.slow
def test_a_stranger_reporting_elections_at_an_elected_table_leaves_nothing_behind_when_it_goes():
    """At the elected host, a stranger attaches as a scorekeeper again and again, each time
    reports the election (the right term and host: the roster names the host) with more rounds
    than the table completed -- the case the table keeps the report for, waiting for the
    ledger -- and hangs up.  Each report went into `SuccessorTable.ahead` and stayed there, its
    `Peer` with its closed link and outbox, for as long as the table lived (40 connections: 40
    gone peers kept); now a peer that goes is forgotten.  The match plays on meanwhile."""
    import gc

    from unonet.net._election import SuccessorTable
    from .test_election import Joiner, _match_with_joiners

    js = [Joiner("a"), Joiner("b")]
    seen: dict = {}

    async def main():
        lost = trio.Event()
        js[1].on_lost = lambda j: lost.set()
        async with trio.open_nursery() as n:
            async def attack():
                while js[0].listeners is None or js[0].side is None or js[0].side.game is None:
                    await trio.sleep(0.05)
                port = listener_port(js[0].listeners)
                await lost.wait()
                successor_id = js[0].side.peer_id
                while not [o for o in gc.get_objects() if isinstance(o, SuccessorTable)]:
                    await trio.sleep(0.05)
                tables = [o for o in gc.get_objects() if isinstance(o, SuccessorTable)]
                tries = 0
                while tries < 40:
                    try:
                        eye = await N.connect("127.0.0.1", port, P.Identity.generate(), name="eye",
                                              role=P.OBSERVER, timeouts=N.Timeouts(idle=5.0))
                    except N.LinkError:
                        await trio.sleep(0.05)
                        continue
                    tries += 1
                    async with eye:
                        try:
                            await eye.send(P.Election(term=1, host=successor_id, head=bytes(32), rounds=2**32 - 1))
                            with trio.move_on_after(0.2):
                                while True:
                                    await eye.receive()
                        except N.LinkError as exc:
                            seen.setdefault("ends", []).append(str(exc))
                await trio.sleep(0.5)  # (the host reads each hang-up)
                seen["tries"] = tries
                seen["kept"] = sum(1 for t in tables for p in [*t.ahead, *t.observers] if p.gone)
                seen["ahead"] = sum(len(t.ahead) for t in tables)
            n.start_soon(attack)
            # (a target no match reaches while it lasts: a match of 5000 points was once over
            # before the 40th try, and its table no longer answered -- the test timed out in CI)
            await _match_with_joiners(("--players", "4", "--bots", "1", "--target", "100000"), js,
                                      until=lambda: "kept" in seen)
            n.cancel_scope.cancel()

    from unonet.net._serve import listener_port
    trio.run(main)
    # the match plays on meanwhile: neither player ended (a follower between its links, or the
    # elected one whose table runs beside its old seat side, may hold no game at that moment)
    assert all(j.error is None and j.result is None for j in js), [(str(j.error), j.result) for j in js]
    assert seen.get("tries") == 40, seen
    assert seen["kept"] == 0, seen  # before: 40 gone strangers' peers kept by the elected table
    print(f"\nstranger reporting elections: {seen}")


# -- a stranger coming and going in the lobby -------------------------------------------------------

def test_a_stranger_coming_and_going_in_the_lobby_is_a_few_lines_and_players_who_stay_are_all_shown():
    """A stranger takes a free seat in the lobby (a newcomer is a newcomer) and says goodbye, 60
    times, then attaches as a scorekeeper and hangs up, 20 times: before, every visit was a
    "took seat" and a "left" line on the operator's screen (300 visits in 10 s: 600 lines).
    Now an address whose visits keep ending is a few lines every 10 s, the next one shown saying
    how many were not; six players who came from that same address before and stay are all shown
(its own address is all a stranger can quieten: on a LAN that is its own machine)."""
    from .session_helpers import join

    async def main():
        async with live_table(config(8, observers=4)) as table:
            stay = []
            for i in range(6):
                link = await join(table, f"p{i}")
                await link.receive()
                stay.append(link)
            t0 = trio.current_time()
            for i in range(60):
                s = await join(table, f"x{i}")
                await s.receive()  # its seat
                await s.send(P.Leave(reason="just looking"))
                await s.aclose()
            for i in range(20):
                eye = await join(table, f"eye{i}", role=P.OBSERVER)
                await eye.receive()  # the roster
                await eye.aclose()
            await trio.sleep(0.3)  # (the host reads the last hang-ups)
            elapsed = trio.current_time() - t0
            for link in stay:
                await link.aclose()
            return table.events, elapsed

    events, elapsed = run(main)
    visits = [e for e in events if e.kind in ("joined", "left") and (" x" in " " + e.text or "eye" in e.text)]
    windows = int(elapsed // 10) + 1
    assert len(visits) <= 2 * 5 * windows, (len(visits), elapsed)  # before: 140
    assert {e.data.get("name") for e in events if e.kind == "joined"} >= {f"p{i}" for i in range(6)}
    print(f"\n80 lobby visits in {elapsed:.1f} s: {len(visits)} lines")


# -- a stranger's fake table, answering a joiner or a scorekeeper out of order -------------------------

@pytest.mark.parametrize("prog, script, said", [
    ("join", "rejoin for another seat", "the host sent a rejoin for seat 0 (we hold seat 1)"),
    ("join", "election out of the blue", "the host sent an election, but none is under way"),
    ("join", "epochs backwards", "the host sent roster epoch 2 after epoch 5"),
    ("score", "rejoin for a seat", "the host sent a rejoin for seat 1 (we watch, holding no seat)"),
    ("score", "ledger out of the blue", "the host sent ledger, which an observer does not expect"),
])
def test_a_fake_table_that_answers_out_of_order_ends_join_and_score_in_one_line(prog, script, said):
    """A stranger runs a table of its own (its own key: a joiner that picked it, or typed its
    address, meets it) and answers with host messages out of order.  `unonet join` and `unonet
    score` end in one line naming what came, exit 1, never a traceback (19 such scripts were
    tried by hand, each against both: all ended so; an observer was told "a seat does not
    expect" and "we hold seat None" before)."""
    from unonet.protocol._messages import LedgerEntry, PlayerEntry

    from .session_helpers import finish, reaped, unonet

    table, host = bytes(range(16)), P.Identity.generate()

    def roster(me: bytes, epoch: int = 1) -> P.Roster:
        return P.Roster(table=table, epoch=epoch, host=host.fingerprint, rules="official",
                        players=(PlayerEntry(seat=0, id=host.fingerprint, name="hal"), PlayerEntry(seat=1, id=me, name="pat")))

    def messages(me: bytes) -> list:
        seat = [P.SeatAssignment(seat=1, id=me)] if prog == "join" else []
        return seat + {
            "rejoin for another seat": [roster(me), P.Rejoin(table=table, seat=0)],
            "election out of the blue": [roster(me), P.Election(term=1, host=me, head=bytes(32), rounds=0)],
            "epochs backwards": [roster(me, 5), roster(me, 2)],
            "rejoin for a seat": [roster(me), P.Rejoin(table=table, seat=1, round=5, at=2**32 - 1)],
            "ledger out of the blue": [roster(me), P.Ledger(match=bytes(16), rounds=3, head=bytes(32), entries=(
                LedgerEntry(round=1, winner=0, points=(), hash=bytes(32)),))],
        }[script]

    async def fake(link: N.Link) -> None:
        try:
            for m in messages(link.peer_id):
                await link.send(m)
            with trio.move_on_after(10):
                while True:
                    await link.receive()
        except N.LinkError:
            pass

    async def main():
        listeners = await N.open_listeners(0, "127.0.0.1")
        port = listeners[0].socket.getsockname()[1]
        async with trio.open_nursery() as n:
            await n.start(partial(N.serve, fake, listeners, host, name="hal", hello_fields={"table": table}))
            args = ("--bot", "--name", "pat") if prog == "join" else ("--name", "eye")
            with reaped(unonet(prog, "--no-ui", "--json", *args, f"127.0.0.1:{port}")) as (proc,), \
                    trio.fail_after(60):
                while proc.poll() is None:
                    await trio.sleep(0.05)
                end = finish(proc, 5)
            n.cancel_scope.cancel()
        return end

    rc, out, err = trio.run(main)
    assert rc == 1 and "Traceback" not in err, err
    assert said in err.strip().splitlines()[-1], err
