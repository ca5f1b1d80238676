"""A joiner's session over trio memory streams (no sockets): the host side is played by
hand over a real Noise link, so every rule of the seat's side is tested alone."""

from __future__ import annotations

import re

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


def test_a_turn_message_is_advice_a_seat_takes_without_a_word():
    # spec §6.3, §10: a host may send `turn` (whose move, how long) as advice for clocks; the
    # reference host sends none, and a seat that called it unexpected stopped at any other host
    async def main():
        host, joiner, me = await _pair()

        async def script():
            await host.send(P.SeatAssignment(seat=0, id=P.fingerprint(me.static_public)))
            await host.send(_roster(1))
            await host.send(P.Turn(seq=0, seat=0, timeout_ms=30_000))
            await host.send(P.Leave(reason="closing"))

        result, side, _ = await _run_seat(joiner, me, script)
        assert result is None and side.closed and side.seat == 0

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


def test_roster_news_of_seats_turning_bot_names_the_person_once_and_never_a_bot():
    """An elected host's next match gives each away seat to a bot of its own: a person's
    seat to "Hal (bot)" (news: "a bot plays Hal's seat while they are away", never also
    "Hal left the table"); an old host's bot's seat ("Ana (bot)", away under its old key,
    then a new bot's) is nobody's news, nor is it when the seat never saw it as a bot."""
    from unonet.net._seat import roster_news

    def entry(seat, name, *, connected=True, bot=False, left=False, pid=None):
        return P.PlayerEntry(seat=seat, id=pid or bytes([seat + 1]) * 32, name=name, connected=connected, bot=bot,
                             left=left)

    def roster(epoch, *players):
        return P.Roster(table=b"t" * 16, epoch=epoch, host=b"h" * 32, rules="official", players=players)

    away = roster(4, entry(0, "Hal", connected=False), entry(1, "Pat"), entry(2, "Zoe"),
                  entry(3, "Ana (bot)", connected=False))
    nxt = roster(5, entry(0, "Hal (bot)", bot=True, pid=b"\xb0" * 32), entry(1, "Pat"), entry(2, "Zoe"),
                 entry(3, "Ana (bot)", bot=True, pid=b"\xb3" * 32))
    said = [(n.text, n.kind) for n in roster_news(away, nxt, me=1, bots={bytes([4]) * 32})]
    assert said == [("a bot plays Hal's seat while they are away", "stand-in")], said
    # a joiner that came after the election never saw Ana's bot flag: the same name, a bot again
    said = [(n.text, n.kind) for n in roster_news(away, nxt, me=1)]
    assert said == [("a bot plays Hal's seat while they are away", "stand-in")], said
    # a goodbye (`left`) is one notice in its own words, not the dropped-link one
    before = roster(1, entry(0, "Hal"), entry(1, "Pat"), entry(2, "Zoe"))
    gone = roster(2, entry(0, "Hal"), entry(1, "Pat"), entry(2, "Zoe", connected=False, left=True))
    said = [(n.text, n.kind) for n in roster_news(before, gone, me=1)]
    assert said == [("Zoe left: a bot plays their seat; `unonet join` takes it back", "stand-in")], said


def test_a_seat_said_to_be_stood_in_for_is_not_said_again_and_a_bots_seat_never():
    """The seat session says a stand-in once: the roster's goodbye notice counts, a player
    back may be stood in for again, and an old host's bot's seat (a key seen as a bot in an
    earlier roster, now "away" at the elected host) gets no "a bot plays Ana (bot)'s seat"."""
    from unonet import feed as F
    from unonet.fair import HostAct as FairHostAct
    from unonet.net._game import SeatGame
    from unonet.table._round import STAND_IN

    def HostAct(seat):  # the host's act for an away seat (its draw)
        return FairHostAct(seat=seat, action={"t": "draw", "seat": seat}, reason=STAND_IN)

    me = P.Identity.generate()
    side = SeatSide(name="pat", identity=me, host_public=me.fair_identity().public)
    side.seat = 1
    players = [P.PlayerEntry(seat=0, id=b"\x01" * 32, name="Hal"), P.PlayerEntry(seat=1, id=b"\x02" * 32, name="pat"),
               P.PlayerEntry(seat=2, id=b"\x03" * 32, name="Ana (bot)", bot=True)]
    side.receive(P.Roster(table=b"t" * 16, epoch=1, host=b"h" * 32, rules="official", players=tuple(players)))
    game = side.game = SeatGame(side)
    players[0] = P.PlayerEntry(seat=0, id=b"\x01" * 32, name="Hal", connected=False)
    players[2] = P.PlayerEntry(seat=2, id=b"\x03" * 32, name="Ana (bot)", connected=False)  # (after an election)
    side.receive(P.Roster(table=b"t" * 16, epoch=2, host=b"h" * 32, rules="official", players=tuple(players)))
    for seat in (0, 2, 0, 2):
        game._host_act_news(HostAct(seat))
    said = [v.text for v in side.take_feed() if isinstance(v, F.Notice)]
    assert said == ["Hal is away (left or lost the link): their seat is kept for them",
                    "a bot plays Hal's seat until they are back"], said
    players[0] = P.PlayerEntry(seat=0, id=b"\x01" * 32, name="Hal")
    side.receive(P.Roster(table=b"t" * 16, epoch=3, host=b"h" * 32, rules="official", players=tuple(players)))
    players[0] = P.PlayerEntry(seat=0, id=b"\x01" * 32, name="Hal", connected=False, left=True)
    side.receive(P.Roster(table=b"t" * 16, epoch=4, host=b"h" * 32, rules="official", players=tuple(players)))
    game._host_act_news(HostAct(0))
    said = [v.text for v in side.take_feed() if isinstance(v, F.Notice)]
    assert said == ["Hal is back at the table", "Hal left: a bot plays their seat; `unonet join` takes it back"], said


def test_a_rejoin_says_how_far_the_match_got_in_words_never_after_0_rounds():
    """"reconnected: back in seat 1 after 0 completed rounds" read as nonsense to a new
    player: before the first round ended it says so; one round is "1 completed round"."""
    from unonet import feed as F
    from unonet.ledger import after_rounds

    assert [after_rounds(n) for n in (0, 1, 2)] == [
        "before the first round ended", "after 1 completed round", "after 2 completed rounds"]
    said = []
    for rounds in (0, 1):
        me = P.Identity.generate()
        side = SeatSide(name="ana", identity=me, host_public=me.fair_identity().public)
        side.seat, side.screen = 1, True
        side.receive(_roster(1, ("hal", "ana")))
        side.receive(P.Rejoin(table=b"t" * 16, seat=1, round=rounds, at=0))
        said += [v.text for v in side.take_feed() if isinstance(v, F.Notice)]
    # (mid-round 1, "before the first round ended" read oddly on the screen: words12)
    assert said == ["reconnected: back in seat 1 in round 1; your hand is back",
                    "reconnected: back in seat 1 after 1 completed round; your hand is back"], said


def test_a_player_following_the_election_is_not_away_then_back_on_the_new_hosts_screen():
    """The play-test's elected host read "Bo is away (left or lost the link)" then "Bo is back
    at the table" a moment later: Bo was following the election.  Only the lost host is away."""
    from unonet import feed as F

    def roster(epoch, host, *players):
        return P.Roster(table=b"t" * 16, epoch=epoch, host=host, rules="official",
                        players=tuple(P.PlayerEntry(seat=i, id=bytes([i + 1]) * 32, name=n, connected=c)
                                      for i, (n, c) in enumerate(players)))

    hal, ana = b"\x01" * 32, b"\x02" * 32
    me = P.Identity.generate()
    side = SeatSide(name="ana", identity=me, host_public=me.fair_identity().public)
    side.seat = 1
    side.news_from = roster(7, hal, ("Hal", True), ("Ana", True), ("Bo", True))  # the lost host's last
    side.receive(roster(1, ana, ("Hal", False), ("Ana", True), ("Bo", False)))   # ours, Bo on his way
    side.receive(roster(2, ana, ("Hal", False), ("Ana", True), ("Bo", True)))    # Bo followed
    side.receive(roster(3, ana, ("Hal", False), ("Ana", True), ("Bo", False)))   # later, Bo's link drops
    said = [v.text for v in side.take_feed() if isinstance(v, F.Notice)]
    assert said == ["Hal is away (left or lost the link): their seat is kept for them",
                    "Bo is away (left or lost the link): their seat is kept for them"], said


def test_the_lost_hosts_bot_is_a_bot_on_the_scorekeepers_screen_after_an_election():
    """The play-test's scorekeeper read "3  Ben (bot) (away)" for the whole continued match
    while every player's screen showed Ben (bot) playing: an elected host seats the lost
    host's bots away (their keys kept, played by its stand-ins), and the observer's lobby
    took the roster's "not connected, not a bot" as a player away.  A key seen as a bot at
    this table is a bot's seat, never a player away."""
    from unonet import feed as F
    from unonet.net._observe import ObserverSide
    from unonet.tui.score_view import ScoreView

    def roster(epoch, host, *players):
        return P.Roster(table=b"t" * 16, epoch=epoch, host=host, rules="official",
                        players=tuple(P.PlayerEntry(seat=i, id=bytes([i + 1]) * 32, name=n, connected=c, bot=b)
                                      for i, (n, c, b) in enumerate(players)))

    hal, ana = b"\x01" * 32, b"\x02" * 32
    me = P.Identity.generate()
    old = ObserverSide(name="sk", host_public=me.fair_identity().public, on_round=lambda *a: None,
                       on_match_over=lambda *a: None)
    old.receive(roster(7, hal, ("Hal", True, False), ("Ana", True, False), ("Bo", True, False),
                       ("Ben (bot)", True, True)))
    side = ObserverSide(name="sk", host_public=me.fair_identity().public, on_round=lambda *a: None,
                        on_match_over=lambda *a: None)
    side.news_from = old.roster  # (as `like` sets it for the side that follows the elected host)
    side.receive(roster(1, ana, ("Hal", False, False), ("Ana", True, False), ("Bo", True, False),
                        ("Ben (bot)", False, False)))  # the elected host's first roster
    lobby = [v for v in side.take_feed() if isinstance(v, F.Lobby)][-1]
    ben, hal_seat = lobby.seats[3], lobby.seats[0]
    assert (ben.bot, ben.connected) == (True, True), ben
    assert (hal_seat.bot, hal_seat.connected) == (False, False), hal_seat  # Hal is away: so it says
    view = ScoreView()
    view.apply(lobby)
    text = "\n".join(view.lines(80))
    assert re.search(r"^ +3  Ben \(bot\)$", text, re.M) and "(away)" not in text.replace("Hal (away)", ""), text
    assert "Hal (away)" in text, text


def test_a_new_link_of_the_same_process_carries_the_acts_the_host_refused_the_seat():
    """Back on a new link while its process lives (its link dropped, or the host closed it), a
    seat's new game is rebuilt from the host's replay: it still knows the acts the host refused
    it on the old link (`SeatSide.like` -> `TableSeat.remember`), so a replay that relays one of
    them is refused (tests/adversaries/test_split_blame.py); a fresh process knows none."""
    from unonet.net._game import SeatGame

    async def main():
        host, joiner, me = await _pair()
        old = SeatSide(name="ana", identity=me, host_public=me.fair_identity().public, bot=True)
        old.seat = 1
        old.game = SeatGame(old)
        old.game.seat.refused.add("an act the host refused")
        back = old.like(joiner, me, SeatGame)
        back.seat = 1
        assert "an act the host refused" in SeatGame(back).seat.verifier._taken_back
        fresh = SeatSide(name="ana", identity=me, host_public=me.fair_identity().public, bot=True)
        fresh.seat = 1
        assert not SeatGame(fresh).seat.verifier._taken_back
        await host.aclose()
        await joiner.aclose()

    run(main)


def test_a_rejoin_after_an_election_says_who_hosts_the_table_now():
    """play8: the killed host's person ran `unonet join` again and was back in its seat at
    the table Bob had taken over, and its screen said only "reconnected: back in seat 0 after
    2 completed rounds; your hand is back" - nothing said the table had changed hands.  A
    replay that read two hosts' transcripts names the host that holds the table now."""
    from unonet import feed as F

    said = {}
    for hosts in (1, 2):
        me = P.Identity.generate()
        side = SeatSide(name="hal", identity=me, host_public=me.fair_identity().public)
        side.seat, side.screen = 0, True
        roster = _roster(1, ("hal", "bob", "ann"))
        side.receive(P.Roster(table=roster.table, epoch=1, host=roster.players[1].id, players=roster.players,
                              rules="official"))
        for term in range(1, hosts):  # (what the replay of an elected host's match holds)
            side.history.append(P.Election(term=term, host=roster.players[1].id, head=b"\0" * 32, rounds=2))
        side.receive(P.Rejoin(table=b"t" * 16, seat=0, round=2, at=0))
        said[hosts] = [v.text for v in side.take_feed() if isinstance(v, F.Notice)]
    assert said[1] == ["reconnected: back in seat 0 after 2 completed rounds; your hand is back"], said
    # (a fresh process cannot tell whether the election came before it died - play16: Ben, killed
    # after Ana took over before his eyes, read "while you were away")
    assert said[2] == ["reconnected: back in seat 0 after 2 completed rounds; your hand is back. "
                       "The host changed during this match: bob hosts the table now"], said


def test_a_rejoin_over_a_dropped_link_says_the_host_changed_only_if_it_did():
    """eve12: Pat had taken the table over from Hal a round before; Kim's link went down 20 s,
    Kim's process got back into its seat at Pat's table, and its screen said "The host changed
    while you were away: Pat hosts the table now" - Pat hosted when the link dropped.  A side
    made for a new link of the same process (`SeatSide.like`) knows the host it played under
    and says the change only when the host is another one."""
    from unonet import feed as F

    async def main():
        said = {}
        for before, now in (("bob", "bob"), ("hal", "bob")):
            host, joiner, me = await _pair()
            roster = _roster(1, ("hal", "bob", "kim"))
            ids = {p.name: p.id for p in roster.players}
            old = SeatSide(name="kim", identity=me, host_public=me.fair_identity().public)
            old.seat, old.screen = 2, True
            old.receive(P.Roster(table=roster.table, epoch=1, host=ids[before], players=roster.players,
                                 rules="official"))
            back = old.like(joiner, me, None)
            back.seat = 2
            back.receive(P.Roster(table=roster.table, epoch=2, host=ids[now], players=roster.players,
                                  rules="official"))
            # the replay holds the election that made bob the host (before or while we were gone)
            back.history.append(P.Election(term=1, host=ids["bob"], head=b"\0" * 32, rounds=1))
            back.receive(P.Rejoin(table=roster.table, seat=2, round=1, at=0))
            said[before] = [v.text for v in back.take_feed() if isinstance(v, F.Notice)]
            await host.aclose()
            await joiner.aclose()
        return said

    said = run(main)
    assert said["bob"] == ["reconnected: back in seat 2 after 1 completed round; your hand is back"], said
    assert said["hal"] == ["reconnected: back in seat 2 after 1 completed round; your hand is back. "
                           "The host changed while you were away: bob hosts the table now"], said


def test_the_election_term_counts_this_matchs_elections_as_every_peer_does():
    """play8: at a table that had an election in match 3, Bob (the host since then) was
    killed in match 4.  Hal - who had come back by `unonet join` after match 3's election -
    hosted as term 1 (the first election of match 4, spec §7 step 2), but Ann and Cy, whose
    processes had followed match 3's election, counted on from it and reported term 2: "host
    refused us [election]: election term 2 ... this table is host ..., term 1", and the
    table stopped for everyone.  The term is the elections of this match the side has seen:
    the confirmations its history holds (followed live, or read in a replay), none once a
    new match began."""
    from unonet.net._election import play_with_elections
    from unonet.net._game import SeatGame
    from unonet.net._spool import MessageSpool

    from .session_helpers import config, join, live_table

    async def host_gone(history) -> int:
        async with live_table(config(3)) as table:
            link = await join(table, "hal")
        me = P.Identity.generate()  # (the table is closed: its port refuses, its host is gone)
        side = SeatSide(name="hal", identity=me, host_public=me.fair_identity().public)
        side.seat, side.peer_id = 0, me.fingerprint
        players = (P.PlayerEntry(seat=0, id=me.fingerprint, name="hal"),  # (no addr: nobody can host)
                   P.PlayerEntry(seat=1, id=link.peer_id, name="bob"))
        side.receive(P.Roster(table=b"t" * 16, epoch=1, host=link.peer_id, players=players, rules="official"))
        side.game = SeatGame(side)
        side.history = history
        lines = []

        async def play(link, side):
            raise JoinFailed("the host's link ended", code="closed")

        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        try:
            with pytest.raises(JoinFailed, match="no connected peer can take over"):
                await play_with_elections(link, side, identity=me, listeners=listeners, play=play,
                                          game_factory=SeatGame, emit=lines.append)
        finally:
            for listener in listeners:
                await listener.aclose()
        return next(x["term"] for x in lines if x["t"] == "election")

    async def main():
        assert await host_gone(MessageSpool()) == 1  # a new match: its first election
        seen = MessageSpool([P.Election(term=1, host=b"b" * 32, head=b"\0" * 32, rounds=2)])
        assert await host_gone(seen) == 2  # this match had one (followed, or read in a rejoin's replay)

    run(main)


def test_a_move_typed_while_no_round_is_dealt_says_to_wait_for_the_deal():
    """play13: a person typed a move as the host died and read "not taken: no round is being
    played" under "lost the link to the host Hal", in the round they were playing."""
    from unonet.engine import Draw

    side = SeatSide(name="x", identity=P.Identity.generate())
    with pytest.raises(ValueError, match=r"^no round is in play right now: wait for the deal$"):
        side.submit(Draw(0))


def test_roster_news_of_a_lost_link_whose_seat_is_freed_says_still_away_not_left():
    """play14: Lee's laptop died between matches; when the hold ran out every screen read "Lee
    left the table" - and the next match started with Lee's seat kept for Lee's key ("a bot
    plays Lee's seat until they are back").  A seat freed without a goodbye is news that the
    player is still away and the seat open to a newcomer; a goodbye is still "left the table"."""
    from unonet.net._seat import roster_news

    def entry(seat, name, *, connected=True, left=False):
        return P.PlayerEntry(seat=seat, id=bytes([seat + 1]) * 32, name=name, connected=connected, left=left)

    def roster(epoch, *players):
        return P.Roster(table=b"t" * 16, epoch=epoch, host=b"h" * 32, rules="official", players=players)

    held = roster(4, entry(0, "Olga"), entry(1, "Jo"), entry(2, "Lee", connected=False))
    freed = roster(5, entry(0, "Olga"), entry(1, "Jo"))
    said = [(n.text, n.kind) for n in roster_news(held, freed, me=1)]
    assert said == [("Lee is still away: their seat is open to a newcomer", "left")], said
    quit_ = roster(4, entry(0, "Olga"), entry(1, "Jo"), entry(2, "Lee", connected=False, left=True))
    said = [(n.text, n.kind) for n in roster_news(quit_, freed, me=1)]
    assert said == [("Lee left the table", "left")], said
    lobby = roster(4, entry(0, "Olga"), entry(1, "Jo"), entry(2, "Lee"))  # a goodbye in the lobby
    said = [(n.text, n.kind) for n in roster_news(lobby, freed, me=1)]
    assert said == [("Lee left the table", "left")], said


def test_the_operators_lobby_carries_the_seats_kept_for_away_keys():
    """play14: the operator's lobby is built from the roster, where a seat kept for an away
    key is free; the host's seat side adds the table's `kept_away` to it (`Lobby.kept`), so the
    screen says "(Lee) away: kept for their key" instead of "(empty)"."""
    from unonet.net._seat import SeatSide

    side = SeatSide(name="Olga", identity=None)
    side.roster = P.Roster(table=b"t" * 16, epoch=3, host=b"\x01" * 32, rules="official", seats=3,
                           players=(P.PlayerEntry(seat=0, id=b"\x01" * 32, name="Olga"),
                                    P.PlayerEntry(seat=1, id=b"\x02" * 32, name="Jo")))
    side.operator = side.can_start = True
    assert side.lobby().kept == ()
    side.kept_away = lambda: {2: "Lee"}
    assert side.lobby().kept == ((2, "Lee"),)


def test_the_table_accepting_a_wild_draw_four_for_a_stood_in_seat_says_so():
    """play14: Lee played W+4 on Jo's seat while a bot played it; Jo's stand-in may not
    challenge (only Jo's key answers one), so the table's default accepted it, and the screens
    read "the table drew a card for Jo (a bot plays the seat)", then "Jo drew 4 cards (penalty)".
    They read "the table accepted the Wild Draw Four for Jo (a bot plays the seat)"."""
    from unonet import feed as F
    from unonet.fair import HostAct
    from unonet.net._game import SeatGame
    from unonet.table._round import STAND_IN, TIMEOUT

    me = P.Identity.generate()
    side = SeatSide(name="Lee", identity=me, host_public=me.fair_identity().public)
    side.seat = 2
    players = (P.PlayerEntry(seat=0, id=b"\x01" * 32, name="Olga"),
               P.PlayerEntry(seat=1, id=b"\x02" * 32, name="Jo", connected=False),
               P.PlayerEntry(seat=2, id=b"\x03" * 32, name="Lee"))
    side.receive(P.Roster(table=b"t" * 16, epoch=1, host=b"h" * 32, rules="official", players=players))
    game = side.game = SeatGame(side)
    side.take_feed()
    game._host_act_news(HostAct(seat=1, action={"t": "play", "seat": 1, "card": "R5"}, reason=STAND_IN))
    game._host_act_news(HostAct(seat=1, action={"t": "draw", "seat": 1}, reason=TIMEOUT))
    said = [v.text for v in side.take_feed() if isinstance(v, F.Notice)]
    assert said == ["a bot plays Jo's seat until they are back",
                    "the table accepted the Wild Draw Four for Jo (a bot plays the seat)"], said
