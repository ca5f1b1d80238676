"""A joiner's session over trio memory streams (no sockets): the host side is played by
hand over a real Noise link, so every rule of the seat's side is tested alone."""

from __future__ import annotations

import pytest
import trio

import unonet.net as N
import unonet.protocol as P
from unonet.net._join import HOST_SILENT, LOBBY_SILENT, JoinFailed, play_seat
from unonet.net._seat import SeatProblem, SeatSide

from .net_helpers import run, stream_pair


def _roster(epoch: int, names=("ana",)) -> P.Roster:
    players = tuple(P.PlayerEntry(seat=i, id=bytes([i + 1]) * 32, name=n) for i, n in enumerate(names))
    return P.Roster(table=b"t" * 16, epoch=epoch, host=b"h" * 32, players=players, rules="official")


async def _pair():
    a, b = stream_pair()
    host_id, me = P.Identity.generate(), P.Identity.generate()
    async with trio.open_nursery() as n:
        box = {}

        async def host_side():
            box["host"] = await N.open_link(b, host_id, initiator=False, name="hal")

        n.start_soon(host_side)
        joiner = await N.open_link(a, me, initiator=True, name="ana")
    return box["host"], joiner, me


async def _run_seat(joiner, me, host_script, **kw):
    side = SeatSide(name="ana", identity=me, host_public=joiner.peer_fair_identity)
    feed = []
    err = None
    async with trio.open_nursery() as n:
        n.start_soon(host_script)
        try:
            result = await play_seat(joiner, side, on_feed=feed.append, **kw)
        except JoinFailed as exc:
            err = exc
        n.cancel_scope.cancel()
    if err is not None:
        raise err
    return result, side, feed


def test_seat_roster_then_a_polite_leave_ends_the_session_cleanly():
    async def main():
        host, joiner, me = await _pair()

        async def script():
            await host.send(P.SeatAssignment(seat=0, id=P.fingerprint(me.static_public)))
            await host.send(_roster(1))
            await host.send(P.Heartbeat(seq=0))
            await host.send(P.Leave(reason="closing"))

        result, side, feed = await _run_seat(joiner, me, script)
        assert result is None and side.closed and side.seat == 0
        lobby = [v for v in feed if type(v).__name__ == "Lobby"]
        assert lobby and lobby[0].me == 0 and [s.name for s in lobby[0].seats] == ["ana"]

    run(main)


@pytest.mark.parametrize("bad,text", [
    ("roster-backwards", "epochs only increase"),
    ("roster-first", "before our seat"),
    ("match-over-early", "match over before any round"),
])
def test_a_host_breaking_the_session_is_named_and_the_seat_stops(bad, text):
    async def main():
        host, joiner, me = await _pair()

        async def script():
            if bad == "roster-first":
                await host.send(_roster(1))
                return
            await host.send(P.SeatAssignment(seat=0, id=P.fingerprint(me.static_public)))
            if bad == "roster-backwards":
                await host.send(_roster(5))
                await host.send(_roster(4))
            else:
                await host.send(P.MatchOver(winner=0, scores=(500, 0), rounds=3, ledger=bytes(32)))

        with pytest.raises(JoinFailed) as info:
            await _run_seat(joiner, me, script)
        assert text in str(info.value)

    run(main)


def test_a_host_that_never_seats_us_is_a_timeout_in_virtual_time():
    async def main():
        host, joiner, me = await _pair()

        async def script():
            await trio.sleep(1)  # says nothing after its hello (heartbeats are not a seat)

        t0 = trio.current_time()
        with pytest.raises(JoinFailed) as info:
            await _run_seat(joiner, me, script, seat_timeout=2.0)
        assert "never gave us a seat" in str(info.value) or "went silent" in str(info.value)
        assert trio.current_time() - t0 < 10

    run(main, autojump=True)


def test_a_host_silent_in_the_lobby_is_gone_after_the_lobby_limit():
    """Before the match there is no election to start quickly: the lobby limit (10 s)
    rides out a lossy network's retransmissions; in a match it is 3 s (the election tests)."""
    async def main():
        host, joiner, me = await _pair()

        async def script():
            await host.send(P.SeatAssignment(seat=0, id=P.fingerprint(me.static_public)))
            await trio.sleep(60)

        t0 = trio.current_time()
        with pytest.raises(JoinFailed) as info:
            await _run_seat(joiner, me, script)
        assert "went silent" in str(info.value) and info.value.code == "timeout"
        assert LOBBY_SILENT <= trio.current_time() - t0 < LOBBY_SILENT + 1.5
        assert HOST_SILENT < LOBBY_SILENT

    run(main, autojump=True)


def test_seat_side_refuses_a_match_end_before_any_round():
    side = SeatSide(name="x", identity=P.Identity.generate())
    with pytest.raises(SeatProblem, match="before any round"):
        side.receive(P.MatchOver(winner=0, scores=(1, 0), rounds=1, ledger=bytes(32)))


def test_trust_is_the_links_a_side_for_a_network_link_checks_everything():
    """The host's own seat trusts its `LocalLink` (the table in its own process made or checked
    every message); after an election the same player's side for a network link is a new side
    that takes its trust from that link, never from the side before it (docs/fair-play.md §11.14)."""
    from unonet.net._game import LocalLink, SeatGame

    async def main():
        host, joiner, me = await _pair()
        own = SeatSide(name="ana", identity=me, host_public=me.fair_identity().public, bot=True)
        own.trusted = LocalLink.trusted  # what `run_local_seat` sets from the side's LocalLink
        own.seat = 0
        assert own.trusted and SeatGame(own).seat.trusted and SeatGame(own).seat.ledger.trusted

        followed = own.like(joiner, me, SeatGame)
        followed.seat = 0
        game = SeatGame(followed)
        assert not followed.trusted and followed.bot
        assert not game.seat.trusted and not game.seat.match.trusted and not game.seat.ledger.trusted
        await host.aclose()
        await joiner.aclose()

    run(main)


def test_roster_news_says_who_dropped_and_came_back_but_never_that_a_bot_is_away():
    """After an election the lost host's bots are carried as away seats with their keys
    (played by the new host's stand-ins): the screens saw "Ana (bot) is away (left or lost
    the link)" - news about no person."""
    from unonet.net._seat import roster_news

    def roster(epoch, *players):
        return P.Roster(table=b"t" * 16, epoch=epoch, host=b"h" * 32, rules="official",
                        players=tuple(P.PlayerEntry(seat=i, id=bytes([i + 1]) * 32, name=n, connected=c, bot=b)
                                      for i, (n, c, b) in enumerate(players)))

    before = roster(1, ("Hal", True, False), ("Pat", True, False), ("Zoe", True, False), ("Ana (bot)", True, True))
    elected = roster(2, ("Hal", False, False), ("Pat", True, False), ("Zoe", False, False), ("Ana (bot)", False, False))
    said = [(n.text, n.kind) for n in roster_news(before, elected, me=1)]
    assert said == [("Hal is away (left or lost the link): their seat is kept for them", "dropped"),
                    ("Zoe is away (left or lost the link): their seat is kept for them", "dropped")], said
    back = roster(3, ("Hal", False, False), ("Pat", True, False), ("Zoe", True, False), ("Ana (bot)", False, False))
    said = [(n.text, n.kind) for n in roster_news(elected, back, me=1)]
    assert said == [("Zoe is back at the table", "back")], said
