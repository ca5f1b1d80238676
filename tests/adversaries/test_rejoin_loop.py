"""A player that drops and comes back, again and again, just before its turn clock runs out
(redplayer18), over real loopback links in virtual time (trio's autojump clock).

The host planned every clock anew when a seat came back (`HostGame.rejoined`): each drop and
rejoin gave the player the whole turn clock again, as often as it liked, so one player held the
whole table for ever, and nothing anyone checks could tell. Now the turn's clock runs on across
the drop: a seat back on its turn has what is left of it, at least `REJOIN_FLOOR`, never past
the turn's start + clock + `REJOIN_FLOOR` (spec §5 step 6, `turn-left`), and the seat's own
check of the timeout goes by the `turn_left` its `rejoin` carries, so the seat back from a loop
accuses nobody.  (This file comes from a second, independent attack on the same stall; the
fix merged is clock18's, tests/net/test_rejoin_clock.py.)"""

from __future__ import annotations

import functools

import trio

import unonet.protocol as P
from unonet.engine import make_rules
from unonet.net._game import REJOIN_FLOOR, HostGame, run_local_seat

from tests.adversaries.test_host_clock import _recording, _seat
from tests.net.net_helpers import run
from tests.net.session_helpers import config, live_table
from tests.net.test_hostile import _one_remote_seat, _withholder

CLOCK = 30.0
TURNS = 3   # the looper's turns
LOOPS = 5   # drops and rejoins in one turn, at most


def _owes_act(game, seat: int) -> bool:
    rnd = game.host.round
    return rnd is not None and not rnd.over and any(o.kind == "act" and o.seat == seat for o in game.host.owed())


def _host_acts(game, seat: int) -> int:
    return sum(1 for m in game.history if getattr(m, "ev", None) == "host-act" and m.event().seat == seat)


def _loop():
    """p0 plays (a bot); p1 never acts: 25 s into its turn's 30 s clock (or into the clock its
    last rejoin got) it drops its link and comes back with the same key 1 s later, up to
    ``LOOPS`` times a turn, for ``TURNS`` turns.  Returns the host's table, the seats' results
    (the last p1, and each p1 that dropped), and how long each turn lasted until the host
    timed it out (None: it never did)."""
    rules = make_rules("official", [], target=500)
    ident = P.Identity.generate()
    seats: dict = {}
    games: list = []
    spans: list = []

    async def main():
        async with live_table(config(2, rules=rules, dealer_only=True, autostart=True, turn_timeout=CLOCK,
                                     hold_seats=10_000.0),
                              game_factory=_recording(HostGame, games), local_seat=run_local_seat(None)) as table:
            with trio.fail_after(100_000):
                async with trio.open_nursery() as n:
                    n.start_soon(functools.partial(_seat, table.port, "p0", seats))
                    while table.book.taken < 1:  # (p0 takes seat 0)
                        await trio.sleep(0.1)

                    async def p1(cancel):
                        await _seat(table.port, "p1", seats, step=None, ident=ident, cancel=cancel)

                    scope = trio.CancelScope()
                    n.start_soon(p1, scope)
                    while not (games and _owes_act(games[-1], 1)):
                        await trio.sleep(0.5)
                    game = games[-1]
                    ended = []
                    for _ in range(TURNS):
                        while not _owes_act(game, 1):
                            await trio.sleep(0.5)
                        began, before, loops = trio.current_time(), _host_acts(game, 1), 0
                        while _host_acts(game, 1) == before and loops < LOOPS:
                            # 5 s before its clock (or the one its last rejoin got) runs out ...
                            with trio.move_on_after(CLOCK - 5):
                                while _host_acts(game, 1) == before:
                                    await trio.sleep(0.5)
                            if _host_acts(game, 1) != before:
                                break
                            scope.cancel()                # ... it drops ...
                            await trio.sleep(1)
                            ended.append(seats.pop("p1"))
                            scope = trio.CancelScope()
                            n.start_soon(p1, scope)       # ... and comes back with the same key
                            loops += 1
                            while "p1" not in seats or not seats["p1"]["feed"]:
                                await trio.sleep(0.5)
                        timed_out = _host_acts(game, 1) != before
                        spans.append(trio.current_time() - began if timed_out else None)
                    await trio.sleep(5)
                    n.cancel_scope.cancel()
            return table, game, ended

    table, game, ended = run(main, autojump=True)
    return table, seats, ended, spans


def test_a_player_that_drops_and_rejoins_before_its_clock_runs_out_is_timed_out_by_its_turns_clock():
    table, seats, ended, spans = _loop()
    # nobody is accused: the seat back from its drop goes by the time its rejoin said was left
    for out in ended + [seats["p1"], seats["p0"]]:
        assert "error" not in out, out["error"]
    # and each turn is timed out within the clock that began with it and the floor a return gets
    # (before: none, ever: the looper held each turn through every loop it cared to make)
    assert all(s is not None and s <= CLOCK + REJOIN_FLOOR + 1 for s in spans), spans
    assert ended and any(isinstance(v, dict) and v.get("t") == "rejoined" for v in ended[-1]["feed"] + seats["p1"]["feed"])
    assert not any(e.data.get("cheat") for e in table.events), [e.text for e in table.events]


def test_a_player_that_drops_and_rejoins_before_its_seed_clock_runs_out_cannot_hold_the_deal():
    """The same loop in the seed exchange: a player (the host's own seat, a bot and it) that
    never sends its seed commitment drops its link 8 s into the 10 s it has for it and comes
    back 1 s later, eight times.  Its word's clock restarted at each rejoin, and while it was
    away its seat was held: round 1 was never dealt, no abort named it, and no line told the
    operator why (72 s of virtual time; a 9 s loop held it for ever).  Now the word's clock
    runs on across the drop as `turn-left` keeps a turn's (`word-left`, spec §5 step 6): back at
    9 s it has 5 s (`WORD_FLOOR`), and the abort names it at 14 s.  (The honest seat that comes
    back and sends its word at once, which must not contest an abort already on its way:
    tests/net/test_rejoin_word.py.)"""
    games: list = []

    async def main():
        cfg = _one_remote_seat(300)
        cfg = type(cfg)(**{**cfg.__dict__, "hold_seats": 30.0})
        async with live_table(cfg, game_factory=_recording(HostGame, games), local_seat=run_local_seat(None)) as table:
            seen: dict = {}
            ident = P.Identity.generate()
            with trio.fail_after(10_000):
                async with trio.open_nursery() as n:
                    for _ in range(8):
                        scope = trio.CancelScope()

                        async def one(scope=scope):
                            with scope:
                                await _withholder(table.port, ident, seen)
                        n.start_soon(one)
                        await trio.sleep(8)
                        scope.cancel()
                        await trio.sleep(1)
                    n.cancel_scope.cancel()
            return seen

    seen = run(main, autojump=True)
    assert seen.get("withheld", 0) >= 1, seen  # (it was asked for its commitment, and kept it back)
    game = games[-1]
    aborted = any(getattr(m, "ev", None) == "round-abort" for m in game.history)
    dealt_or_named = aborted or game.host.round_no > 1 or (
        game.host.dealer is not None and game.host.dealer.ledger.phase.value != "seed-commits")
    assert dealt_or_named, "round 1 still waits for the looper's seed commitment after 8 loops"
