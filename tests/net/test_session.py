"""The session against a live host on loopback: seats, roster, heartbeats, leaving, and
every bad peer (spec §4.6, §5). Real sockets, real Noise; no game needed here."""

from __future__ import annotations

import pytest
import trio

import unonet.net as N
import unonet.protocol as P
from unonet.net._seats import SeatBook, Sitter, TableFull

from .net_helpers import RawPeer, run
from .session_helpers import config, join, live_table, receive_until, refused


# -- the seat book (pure) ------------------------------------------------------------

def _sit(book, name, seat=None):
    return book.sit(lambda s: Sitter(s, name, "remote", bytes([s]) * 32, None), seat=seat)


def test_seats_go_lowest_first_and_bots_keep_the_highest():
    book = SeatBook(4, reserved=1)
    assert [_sit(book, n).seat for n in "abc"] == [0, 1, 2]
    try:
        _sit(book, "d")
    except TableFull as exc:
        assert "all 4 seats are taken" in str(exc)
    else:
        raise AssertionError("a fourth person sat in the bot's seat")
    assert book.empty() == [3]


def test_teams_are_even_and_odd_seats_and_need_an_even_count():
    book = SeatBook(6, teams=True)
    assert [book.team(s) for s in range(6)] == [0, 1, 0, 1, 0, 1]
    for bad in (3, 5, 2):
        try:
            SeatBook(bad, teams=True)
        except ValueError as exc:
            assert "even number" in str(exc)
        else:
            raise AssertionError(f"teams accepted {bad} players")


def test_roster_epoch_grows_with_every_change():
    book = SeatBook(3)
    r0 = book.roster(table=b"t" * 16, host=b"h" * 32, rules="official", house=(), target=500,
                     scoring="standard")
    _sit(book, "a")
    r1 = book.roster(table=b"t" * 16, host=b"h" * 32, rules="official", house=(), target=500,
                     scoring="standard")
    book.stand(0)
    r2 = book.roster(table=b"t" * 16, host=b"h" * 32, rules="official", house=(), target=500,
                     scoring="standard")
    assert r0.epoch < r1.epoch < r2.epoch
    assert [p.name for p in r1.players] == ["a"] and r2.players == ()
    P.encode_message(r1)  # it is a valid wire message


# -- a live host ------------------------------------------------------------------------

def test_joiner_gets_seat_then_roster_then_heartbeats():
    async def main():
        async with live_table(config(3, dealer_only=True)) as table:
            link = await join(table, "ana")
            seat, _ = await receive_until(link, P.SeatAssignment)
            assert seat.seat == 0 and seat.id == link.peer_id or seat.seat == 0
            roster, _ = await receive_until(link, P.Roster)
            assert [(p.seat, p.name) for p in roster.players] == [(0, "ana")]
            assert roster.host == P.fingerprint(link.peer_static)
            hb, _ = await receive_until(link, P.Heartbeat, limit=2.5)
            assert hb.seq >= 0
            await link.aclose()

    run(main)


def test_seat_id_is_the_joiners_own_fingerprint_and_host_sits_at_zero():
    async def main():
        async with live_table(config(3)) as table:
            ident = P.Identity.generate()
            link = await N.connect("127.0.0.1", table.port, ident, name="ben")
            seat, _ = await receive_until(link, P.SeatAssignment)
            assert seat.seat == 1 and seat.id == P.fingerprint(ident.static_public)
            roster, _ = await receive_until(link, P.Roster)
            assert [p.seat for p in roster.players] == [0, 1]
            await link.aclose()

    run(main)


async def seated(table, *names):
    """Links of players who joined one after the other, each once it has its roster."""
    links = []
    for n in names:
        links.append(await join(table, n))
        await receive_until(links[-1], P.Roster)
    return links


def test_full_table_refuses_with_full_and_one_line():
    async def main():
        async with live_table(config(2, dealer_only=True)) as table:
            a, b = await seated(table, "a", "b")
            c = await join(table, "c")
            try:
                await receive_until(c, P.Roster)
            except N.PeerRefused as exc:
                assert exc.code == "full"
                assert str(exc) == f"host 127.0.0.1:{table.port} refused us: the table is full"
            else:
                raise AssertionError("a third player got a seat at a two-seat table")
            await a.aclose()
            await b.aclose()

    run(main)


def test_a_leaver_frees_its_seat_and_everyone_gets_a_new_roster():
    async def main():
        async with live_table(config(3, dealer_only=True)) as table:
            a, b = await seated(table, "a", "b")
            r, _ = await receive_until(a, P.Roster)
            assert len(r.players) == 2
            await b.send(P.Leave(reason="bye"))
            await b.aclose()
            with trio.fail_after(5):
                while True:
                    r2, _ = await receive_until(a, P.Roster)
                    if len(r2.players) == 1:
                        break
            assert r2.epoch > r.epoch and r2.players[0].name == "a"
            assert table.book.empty() == [1, 2]
            await a.aclose()

    run(main)


def test_same_name_twice_gets_a_distinct_name():
    async def main():
        async with live_table(config(3, dealer_only=True)) as table:
            a, b = await seated(table, "sam", "sam")
            r = table.roster()
            assert sorted(p.name for p in r.players) == ["sam", "sam-2"]
            await a.aclose()
            await b.aclose()

    run(main)


async def _bad_peer_case(table, action):
    """A good player stays seated while a raw peer misbehaves; returns what the raw peer
    received and the good player's link."""
    good = await join(table, "good")
    await receive_until(good, P.Roster)
    stream = await trio.open_tcp_stream("127.0.0.1", table.port)
    raw = RawPeer(stream)
    with trio.fail_after(5):
        got = await action(raw)
    return got, good


async def _still_served(good: N.Link) -> None:
    hb, _ = await receive_until(good, P.Heartbeat, limit=3)
    assert isinstance(hb, P.Heartbeat)
    await good.send(P.Heartbeat(seq=1))


def _errors(received):
    return [m for m in received if isinstance(m, P.ErrorReport)]


def test_bad_peers_get_an_error_with_its_code_and_the_table_carries_on():
    async def malformed(raw):  # a msgpack map that is no message
        await raw.handshake(name="mal")
        await raw.send_unchecked(None, plaintext=P.encode_plaintext(P.Heartbeat(seq=0))[:0] + b"\x81\xa1t\xa3zzz")
        return await raw.read_all()

    async def oversized(raw):  # a frame header over the cap
        await raw.handshake(name="big")
        await raw.stream.send_all(b"\xff\xff\xff\xff")
        return await raw.read_all()

    async def forbidden(raw):  # a player sending what only the host sends
        await raw.handshake(name="forb")
        await raw.send_unchecked(P.Roster(table=b"t" * 16, epoch=9, host=b"h" * 32, players=(), rules="x"))
        return await raw.read_all()

    async def unexpected(raw):  # a message that has no place in the lobby
        await raw.handshake(name="early")
        await raw.send_unchecked(P.Election(term=1, host=b"h" * 32, head=bytes(32), rounds=0))
        return await raw.read_all()

    async def wrong_version(raw):
        await raw.handshake(hello=lambda r: r.hello_with_versions(200, 100, name="future"))
        return await raw.read_all()

    async def unauthenticated(raw):  # garbage instead of a Noise handshake: closed, no word
        await raw.stream.send_all(b"\x00\x20" + b"\x01" * 32)
        return await raw.read_all()

    cases = {"malformed": (malformed, "malformed"), "oversized": (oversized, "too-large"),
             "forbidden": (forbidden, "forbidden"), "unexpected": (unexpected, "unexpected"),
             "version": (wrong_version, "version"), "unauthenticated": (unauthenticated, None)}

    async def main():
        async with live_table(config(4, dealer_only=True)) as table:
            for name, (action, code) in cases.items():
                got, good = await _bad_peer_case(table, action)
                errs = _errors(got)
                if code is None:
                    assert errs == [], name
                else:
                    assert [e.code for e in errs] == [code], (name, got)
                    assert errs[0].fatal
                await _still_served(good)
                assert [s.name for s in table.book.seats if s is not None] == ["good"], name
                await good.aclose()
                with trio.fail_after(3):
                    while table.book.taken:
                        await trio.sleep(0.01)

    run(main)


def test_a_silent_peer_is_dropped_and_its_seat_freed():
    async def main():
        cfg = config(3, dealer_only=True)
        async with live_table(cfg, timeouts=N.Timeouts(idle=0.5)) as table:
            stream = await trio.open_tcp_stream("127.0.0.1", table.port)
            raw = RawPeer(stream)
            await raw.handshake(name="mute")
            with trio.fail_after(5):
                while table.book.taken == 0:
                    await trio.sleep(0.01)
                got = await raw.read_all()  # we never answer heartbeats
            assert [e.code for e in _errors(got)] == ["timeout"]
            with trio.fail_after(3):
                while table.book.taken:
                    await trio.sleep(0.01)

    run(main)


# -- bots give way to people in the lobby -----------------------------------------------

def _start_filling(table) -> None:
    """The operator's start key at a table without a match driver: the empty seats get bots
    (as before a deal), and the table stays in its lobby."""
    table.start()


async def _until(pred, limit: float = 5.0) -> None:
    with trio.fail_after(limit):
        while not pred():
            await trio.sleep(0.01)


def test_a_friend_arriving_between_matches_takes_a_bots_seat_not_a_bots_seat_reserved():
    from unonet.net._game import run_local_seat

    async def main():
        async with live_table(config(4, bots=1), local_seat=run_local_seat(None)) as table:
            a = await join(table, "ana")
            await receive_until(a, P.Roster)
            _start_filling(table)
            await _until(lambda: table.book.full)
            kinds = [(s.seat, s.kind) for s in table.book.seats]
            assert kinds == [(0, "host"), (1, "remote"), (2, "bot"), (3, "bot")], kinds
            filled = next(p for p in table.peers if p.seat == 2)
            ben = await join(table, "ben")
            seat, _ = await receive_until(ben, P.SeatAssignment)
            assert seat.seat == 2  # the bot filled in at the start made way; seat 3 is --bots 1's
            await _until(filled.done.is_set)  # and its seat task ended
            r = table.roster()
            assert [(p.seat, p.name, p.bot) for p in r.players][1:] == [
                (1, "ana", False), (2, "ben", False), (3, r.players[3].name, True)]
            assert any("makes way for ben" in e.text for e in table.events)
            cy = await join(table, "cy")  # only the reserved bot is left: the table is full
            await refused(cy, "full", "a person took the seat kept for --bots")
            for lk in (a, ben):
                await lk.aclose()

    run(main)


def test_the_bot_under_a_returning_players_name_is_the_one_that_makes_way():
    from unonet.net._game import run_local_seat
    from unonet.net._seats import BOT_KIND

    async def main():
        async with live_table(config(3), local_seat=run_local_seat(None)) as table:
            # what an elected table does with seats whose players did not follow (`_bots_for_the_away`)
            table._add_local(BOT_KIND, None, None, seat=1)
            table._add_local(BOT_KIND, "hal", None, seat=2)
            hal = await join(table, "hal")
            seat, _ = await receive_until(hal, P.SeatAssignment)
            r, _ = await receive_until(hal, P.Roster)
            assert seat.seat == 2
            assert [(p.seat, p.name, p.bot) for p in r.players][2] == (2, "hal", False)  # not renamed hal-2
            assert any("hal (bot) (seat 2): makes way for hal" in e.text for e in table.events)
            await hal.aclose()

    run(main)


@pytest.mark.parametrize("person", ["Ana", "ＡＮＡ"], ids=["same", "full-width"])
def test_a_bot_named_after_a_person_who_sits_down_takes_another_name(person):
    """The play-test's lobby read "Ana" beside "Ana (bot)" (the --bots seat was named before
    Ana came), and its team "Ana & Ana (bot)": in the lobby, the bot takes another name.  A
    name that reads as Ana (full-width letters) counts as Ana, as people's names do."""
    from unonet.net._game import run_local_seat

    async def main():
        async with live_table(config(4, bots=1), local_seat=run_local_seat(None)) as table:
            assert table.book.seats[3].name == "Ana (bot)"
            ana = await join(table, person)
            await receive_until(ana, P.SeatAssignment)
            r, _ = await receive_until(ana, P.Roster)
            names = [(p.seat, p.name, p.bot) for p in table.roster().players]
            assert names[1:] == [(1, person, False), (3, "Ben (bot)", True)], names
            await ana.aclose()

    run(main)


def test_an_elected_tables_bots_for_the_away_seats_never_reuse_a_name_under_a_new_key():
    """The play-test's standings listed "Ben (bot)" twice (the lost host's bot, and the elected
    host's bot in that seat at the next match: one name, two keys): a person's seat goes to
    "hal (bot)", another host's bot's seat to a bot name of this host's own."""
    from unonet.net._game import run_local_seat
    from unonet.net._seats import REMOTE_KIND, Sitter

    async def main():
        async with live_table(config(4), local_seat=run_local_seat(None)) as table:
            # what an elected table holds for seats whose players are away (`SuccessorTable._sit_away`)
            for seat, name in ((1, "hal"), (2, "Ben (bot)")):
                table.book.sit(lambda s, name=name: Sitter(s, name, REMOTE_KIND, bytes([s]) * 32, None, b"",
                                                          connected=False), seat=seat)
            table._bots_for_the_away()
            names = [(p.seat, p.name, p.bot) for p in table.roster().players]
            assert names[1] == (1, "hal (bot)", True), names
            assert names[2] == (2, "Ben-2 (bot)", True), names  # the seat's name numbered on
            # the next elected host's next match: on again, never back to a name the seat had
            table.book.stand(2)
            table.peers = [p for p in table.peers if p.seat != 2]
            table.book.sit(lambda s: Sitter(s, "Ben-2 (bot)", REMOTE_KIND, bytes([9]) * 32, None, b"",
                                            connected=False), seat=2)
            table._bots_for_the_away()
            assert [(p.seat, p.name) for p in table.roster().players][2] == (2, "Ben-3 (bot)")

    run(main)
