"""A player whose process died (a laptop asleep, no goodbye) between matches: the host holds
the seat for --hold-seats, then the next match starts without them.  The seat used to go to
a bot, and the player, back two minutes later, was refused ("the match has started: no seat
is free") until the whole match was over.  Now the fresh match starts with the seat *away*
under the player's key (match-start `away`, spec §7 "away seats"): dealt absent, a stand-in
plays it, and the same key joining again mid-match sits down in its own seat at once (its
late `match-join`), plays the match to its end, and nobody is accused.  A scorekeeper
attached to the table records match 2 to its end and agrees with the players.

Real sockets on loopback, trio's autojump clock (the 60 s hold passes in virtual time)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import trio

from unonet.engine import make_rules
from unonet.net._game import HostGame, run_local_seat

from .net_helpers import run
from .session_helpers import config, live_table
from .test_between_matches import MatchesJoiner

HOLD = 60.0
PACE = 1.0  # the host's bot waits this long (virtual) before each move: match 2 lasts until Lee is back
STAND_IN_WAIT = 30.0  # virtual s: Lee comes back once a stand-in played its seat, or after this
POLL = PACE  # (a shorter poll makes virtual time crawl at real speed: the clock jumps only to it)


def _seated(table, name: str, connected: bool = True) -> bool:
    return any(s is not None and s.name == name and s.connected == connected for s in table.book.seats)


async def _slept_between_matches(db: str, when: str = "between", during=None):
    """Host (its own seat a bot) + Kim + Lee, two matches, the operator starting each; a
    scorekeeper attached from the start.  Lee's process dies after match 1 (``when``
    "between"; "in-match": in match 1's first round, and it does not come back in match 1);
    the operator presses start; once a stand-in has played Lee's seat in match 2, Lee's key
    joins again (a fresh process: a new `join` with the same identity) and plays on.
    ``during(table)``: awaited in match 2 just before Lee comes back."""
    from unonet.store import ScoreStore
    from unonet.store.attach import Recorder, attach_table

    rules = make_rules("official", [], target=200)
    cfg = config(3, rules=rules, bots=0, matches=2, hold_seats=HOLD, bot_pace=PACE)
    kim, lee = MatchesJoiner("Kim", 2), MatchesJoiner("Lee", 2)
    keeper: list[dict] = []
    store = ScoreStore.open(db)
    out = {}
    with trio.fail_after(900):
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            async with trio.open_nursery() as n:
                async def keep():
                    out["keeper_end"] = await attach_table(f"127.0.0.1:{table.port}", recorder=Recorder(store,
                                                           keeper.append), code=None, name="keeper",
                                                           emit=keeper.append)
                n.start_soon(keep)
                while not keeper or keeper[0].get("t") != "attached":
                    await trio.sleep(0.01)
                n.start_soon(kim.run, table.port)
                while not _seated(table, "Kim"):
                    await trio.sleep(0.01)
                lee_scope = trio.CancelScope()

                async def lee_runs():
                    with lee_scope:
                        await lee.run(table.port)
                n.start_soon(lee_runs)
                while not _seated(table, "Lee"):
                    await trio.sleep(0.01)
                out["lee_seat"] = next(s.seat for s in table.book.seats if s is not None and s.name == "Lee")
                table.start()
                if when == "in-match":
                    while table.game is None or table.game.round_no < 1:
                        await trio.sleep(POLL)
                    lee_scope.cancel()  # Lee's process dies in match 1 (no goodbye), not back in it
                    while table.matches_played < 1 or table.state != "lobby":
                        await trio.sleep(POLL)
                    out["kept"] = table.kept_away()  # what the operator's lobby names (play14)
                else:
                    while not lee.seen("match-over"):
                        await trio.sleep(POLL)
                    lee_scope.cancel()  # Lee's process dies between matches (no goodbye)
                    while _seated(table, "Lee"):
                        await trio.sleep(0.01)  # the host saw its link end: the seat is held
                table.start()  # the operator starts match 2: it waits for the hold, then goes on
                news = trio.Event()

                def heard(e):
                    table.events.append(e)
                    news.set()
                table.on_event = heard
                while len([e for e in table.events if e.kind == "started"]) < 2:
                    await trio.sleep(POLL)  # (virtual time: the hold runs out at once)
                with trio.move_on_after(STAND_IN_WAIT):  # (main: a bot sat there, no stand-in comes)
                    while not any(e.data.get("stand_in") for e in table.events
                                  if e.data.get("seat") == out["lee_seat"]):
                        assert table.matches_played < 2, [e.text for e in table.events][-12:]
                        await news.wait()  # (no poll: the next table line, at once)
                        news = trio.Event()
                assert table.game is not None and table.matches_played == 1, "match 2 is over already"
                out["match1"] = kim.seen("match-over")[0]
                if during is not None:
                    await during(table)
                back = MatchesJoiner("Lee", 1)
                back.identity = lee.identity  # the same key, a new process
                out["back"] = back
                await back.run(table.port)  # to match 2's end (or refused)
                while table.matches_played < 2 and back.error is None:
                    await trio.sleep(POLL)
    store.close()
    return table, kim, lee, out, keeper


@pytest.mark.parametrize("when", ["between", "in-match"])
def test_a_player_whose_process_died_between_matches_takes_its_seat_back_in_the_next_match(when):
    """``in-match``: its link ended in match 1 and it was not back by the end of it: the seat
    is not held in the lobby (nothing waits for it), but match 2 keeps it away the same way."""
    with tempfile.TemporaryDirectory() as d:
        table, kim, lee, out, keeper = run(_slept_between_matches, str(Path(d) / "s.db"), when, autojump=True)
    back, seat = out["back"], out["lee_seat"]
    texts = [e.text for e in table.events]
    assert back.error is None, (str(back.error), texts[-12:])  # (before: "the match has started: no seat is free")
    if when == "between":
        assert any(e.data.get("held") for e in table.events), texts  # its seat was held (no goodbye)
    else:  # the lobby before match 2: the seat is free, kept for Lee's key unless a newcomer sits
        assert out["kept"] == {seat: "Lee"}, out["kept"]
    started = [e for e in table.events if e.kind == "started"]
    assert len(started) == 2 and table.matches_played == 2, texts[-12:]
    # match 2 seats Lee's key, away: no bot took the seat
    assert [(s, k) for s, name, k in started[1].data["seats"] if s == seat] == [(seat, "remote")], \
        started[1].data["seats"]
    assert any(f"seat {seat} (Lee) starts the match away" in t for t in texts), texts[-20:]
    # back in its own seat mid-match, in words the player reads
    rejoined = back.seen("rejoined")
    assert rejoined and rejoined[0]["seat"] == seat and rejoined[0]["rounds"] >= 0, back.out[:10]
    assert any(e.kind == "rejoined" and e.data.get("seat") == seat for e in table.events), texts
    # played on to the end: match 2's result, read at Lee's seat, is the table's
    assert back.result == table.result == kim.result, (back.result, table.result, kim.result)
    assert not [x for j in (kim, back) for x in j.out if x.get("cheat")], "an honest table accused someone"
    # the scorekeeper recorded match 2 to its end and agrees with the players
    overs = [x for x in keeper if x.get("t") == "match-over"]
    assert len(overs) == 2, [x for x in keeper if x.get("t") != "round"][-6:]
    assert overs[1]["scores"] == table.result["scores"], (overs[1], table.result)
    assert overs[1]["ledger"] == table.result["ledger"]  # (its own chain's head: the table's)
    assert not [x for x in keeper if x.get("t") in ("problem", "disputed") or x.get("status") == "disputed"], \
        [x for x in keeper if x.get("t") != "round"]


def _older(monkeypatch, who: str) -> None:
    """The peer named ``who`` runs an unonet from before `away-start`: its hello announces no
    extension (the rest of it is this code's: what differs on the wire is that list alone)."""
    from unonet.protocol._link import SecureLink

    hello = SecureLink.hello

    def older(self, *, name, **fields):
        if name == who:
            fields["features"] = ()
        return hello(self, name=name, **fields)

    monkeypatch.setattr(SecureLink, "hello", older)


@pytest.mark.slow  # (40-85 s in the quick loop: CI runs it)
def test_beside_a_peer_that_does_not_announce_away_start_the_seat_goes_to_a_bot_as_before(monkeypatch):
    """Kim's client is older: its hello announces no `away-start` (spec §4.4: an extension goes
    only to a peer that announced it).  A match-start naming Lee away would read to it as a
    malformed one, and it would blame its honest host: so the host gives Lee's seat to a bot,
    as before the extension, and Lee, back, is refused until the match ends.  Nobody is accused."""
    _older(monkeypatch, "Kim")
    with tempfile.TemporaryDirectory() as d:
        table, kim, lee, out, keeper = run(_slept_between_matches, str(Path(d) / "s.db"), "between", autojump=True)
    back, seat = out["back"], out["lee_seat"]
    texts = [e.text for e in table.events]
    started = [e for e in table.events if e.kind == "started"]
    assert len(started) == 2, texts[-12:]
    assert [(s, k) for s, name, k in started[1].data["seats"] if s == seat] == [(seat, "bot")], \
        started[1].data["seats"]
    assert not any("starts the match away" in t for t in texts), texts[-20:]
    assert back.error is not None and "no seat is free" in str(back.error), (back.error, texts[-12:])
    assert not [x for x in kim.out if x.get("cheat") or x.get("t") == "problem"], kim.out[-10:]


def test_an_observer_that_does_not_announce_away_start_is_refused_a_match_that_started_with_a_seat_away(monkeypatch):
    """A scorekeeper of an older unonet attaches in the middle of a match whose match-start
    names a seat away: it would read that match-start as malformed and blame the host, so the
    host turns it away at once with `error {code: "version"}` naming the extension (spec §4.4)."""
    import unonet.protocol as P
    from unonet.net._errors import PeerRefused
    from unonet.net._join import connect_table
    _older(monkeypatch, "Old keeper")
    refused: list[PeerRefused] = []

    async def old_keeper(table):
        link = await connect_table("127.0.0.1", table.port, P.Identity.generate(), name="Old keeper",
                                   role=P.OBSERVER)
        try:
            for _ in range(20):  # (bounded: the refusal is the first answer after the hello)
                await link.receive()
        except PeerRefused as exc:
            refused.append(exc)
        finally:
            await link.aclose()

    with tempfile.TemporaryDirectory() as d:
        table, kim, lee, out, keeper = run(_slept_between_matches, str(Path(d) / "s.db"), "between", old_keeper,
                                           autojump=True)
    assert len(refused) == 1 and refused[0].report.code == "version", refused
    assert "away-start" in refused[0].report.message, refused[0].report
    assert out["back"].error is None and table.matches_played == 2  # the table played on, Lee back


def test_a_player_back_with_an_older_client_is_refused_version_and_nobody_is_blamed(monkeypatch):
    """Lee's seat starts match 2 away (Lee's last client announced `away-start`); Lee comes
    back with an older unonet (its hello lists no feature).  The replay would open with a
    match-start naming seats away, which that client refuses as malformed, blaming its honest
    host: the host turns it away with `error {code: "version"}` instead (redteam15).  The record
    is told to hold such a start from the messages themselves (`opened_away`), as an elected
    host tells it from the old host's record it continues."""
    from unonet.net._game import opened_away
    from unonet.protocol._link import SecureLink

    hello, older_now = SecureLink.hello, []

    def maybe_older(self, *, name, **fields):
        if name == "Lee" and older_now:
            fields["features"] = ()
        return hello(self, name=name, **fields)

    monkeypatch.setattr(SecureLink, "hello", maybe_older)
    seen = {}

    async def lee_downgrades(table):
        seen["opens"] = opened_away(list(table.game.history))
        older_now.append(True)

    with tempfile.TemporaryDirectory() as d:
        table, kim, lee, out, keeper = run(_slept_between_matches, str(Path(d) / "s.db"), "between",
                                           lee_downgrades, autojump=True)
    back = out["back"]
    texts = [e.text for e in table.events]
    assert seen["opens"] is True
    assert back.error is not None and "away-start" in str(back.error) and "newer unonet" in str(back.error), \
        (back.error, texts[-12:])
    assert not [x for j in (kim, back) for x in j.out if x.get("cheat")], "an honest table accused someone"
    assert not [x for x in keeper if x.get("t") == "problem"], [x for x in keeper if x.get("t") != "round"][-6:]


def test_a_record_without_an_away_start_is_not_said_to_open_with_one():
    """`opened_away` of a record whose match-start names nobody away (a continuation's
    `continues.away` is read by every peer): False, so no older peer is refused for nothing."""
    from unonet.net._game import opened_away

    async def plain():
        cfg = config(2, rules=make_rules("official", [], target=1), bots=1, autostart=True)
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            with trio.fail_after(60):
                while table.game is None or not table.game.history:
                    await trio.sleep(0.01)
                return opened_away(list(table.game.history)), table.game.opens_away

    assert run(plain) == (False, False)
