"""A seat back while it owes a word on the host's 10 s word clock (its seed commitment here)
has what is left of that clock, not a whole one (spec §5 step 6, §7 rejoin, `word-left`): a
player that dropped before its word was due and came back, again and again, used to get a
whole clock at every return and so held the deal for ever (tests/adversaries/test_rejoin_loop.py).

Here the other side of it: the honest seat.  Its first life is cut off before it sends its
commitment (a crash); its next life, a real seat with the same key, sends it as soon as it has
read the replay.  The host says what it left of the clock (`rejoin.word_left`); the seat is not
timed out sooner, and when nothing was left (it came back too late) the abort that names it
may cross its commitment on the wire: it takes that abort for the honest clock it is, and
calls nobody a cheat (docs/fair-play.md §11.13).  A client that does not read `word_left`
(an older one, which contests any abort naming it once it sent its word) gets a whole clock
once, and is refused (`version`) a second return the kept deadline would reach too soon.

Real links on loopback, virtual time (trio's autojump clock)."""

from __future__ import annotations

import pytest
import trio

import unonet.net as N
import unonet.protocol as P
from unonet import feed as F
from unonet.engine import make_rules
from unonet.net._game import SEED_TIMEOUT, WORD_FLOOR, HostGame, SeatGame, bot_step, run_local_seat
from unonet.net._join import play_seat
from unonet.net._seat import SeatSide
from unonet.table._host import Owed

from tests.adversaries.test_host_clock import _recording
from tests.net.test_hostile import _crooked_seat, _one_remote_seat

from .net_helpers import run
from .session_helpers import config, live_table

OLDER = {"features": [P.AWAY_START, P.TURN_LEFT]}  # (a client of before `word-left`)


async def _cut_off(port: int, ident, scope: trio.CancelScope, hello=None) -> None:
    """A life of the seat that never sends its seed commitment (its process is about to die):
    everything else it answers; ``scope`` ends it."""
    sides: list = []

    async def send(link, m):
        if isinstance(m, P.Fair) and m.ev == "player-commit":
            v = sides[-1].game.seat.verifier
            v._commits.pop(v.ledger.epoch.number, None)  # (it never left: not its word)
            return
        await link.send(m)

    with scope:
        link = await N.connect("127.0.0.1", port, ident, name="Pat", timeouts=N.Timeouts(idle=30.0),
                               hello_fields=hello)
        await _crooked_seat(link, ident, send=send, beat=0.2, on_side=sides.append)


async def _honest(port: int, ident, life: dict, hello=None) -> None:
    """A real seat with the same key (a bot plays it): it sends its commitment at once."""
    try:
        link = await N.connect("127.0.0.1", port, ident, name="Pat", timeouts=N.Timeouts(idle=30.0),
                               hello_fields=hello)
    except N.LinkError as exc:
        life["error"] = exc
        return
    side = SeatSide(name="Pat", identity=ident, host_public=link.peer_fair_identity, game_factory=SeatGame)
    life["side"] = side
    try:
        with life["scope"]:
            life["result"] = await play_seat(link, side, on_feed=life["feed"].append)
    except Exception as exc:  # noqa: BLE001 - a drop, a refusal, or a seat that calls the host a cheat
        life["error"] = exc
    finally:
        life["over"] = True
        with trio.CancelScope(shield=True):
            await link.aclose()


def _aborts(game) -> list:
    return [m.event() for m in game.history if isinstance(m, P.Fair) and m.ev == "round-abort"]


def _settled(game) -> bool:
    """Round 1's seed commitments are settled: all in (the round goes on), or an abort."""
    return bool(_aborts(game)) or game.host.round_no > 1 or (
        game.host.dealer is not None and game.host.dealer.ledger.phase.value != "seed-commits")


def _life() -> dict:
    return {"feed": [], "scope": trio.CancelScope()}


def _back(life) -> bool:
    return any(isinstance(v, dict) and v.get("t") == "rejoined" for v in life["feed"])


def _accused(life) -> bool:
    err = life.get("error")
    return bool(getattr(err, "cheat", False)) or "fair-play" in str(err) or any(
        isinstance(v, F.TableProblem) and v.cheat for v in life["feed"])


async def _word_owed(table, games):
    """Wait until the host owes nothing but Pat's seed commitment: (its game, Pat's seat, the
    word clock's start)."""
    while True:
        if games and table.book.taken >= 1:
            game = games[-1]
            me = next((s.seat for s in table.book.seats if s is not None and s.name == "Pat"), None)
            if me is not None and game.host.owed() == [Owed(me, "commit-seed")] and table.book.seats[me].connected:
                return game, me, game._clocks_from
        await trio.sleep(0.05)


def _honest_back(away_at: float, back_at: float):
    """Pat's first life never sends its commitment and drops ``away_at`` s into the word's
    clock; its next life, honest, comes back at ``back_at`` s.  Returns the host's game, Pat's
    seat, that next life and the word clock's start."""
    games: list = []
    ident = P.Identity.generate()
    cfg = _one_remote_seat(300, hold_seats=60.0)

    async def main():
        async with live_table(cfg, game_factory=_recording(HostGame, games), local_seat=run_local_seat(None)) as table:
            with trio.fail_after(1_000):
                async with trio.open_nursery() as n:
                    first = trio.CancelScope()
                    n.start_soon(_cut_off, table.port, ident, first)
                    game, me, start = await _word_owed(table, games)
                    await trio.sleep_until(start + away_at)
                    first.cancel()
                    while table.book.seats[me].connected:
                        await trio.sleep(0.01)
                    await trio.sleep_until(start + back_at)
                    life = _life()
                    n.start_soon(_honest, table.port, ident, life)
                    while not (_back(life) or life.get("over")):
                        await trio.sleep(0.01)
                    life["back_at"] = trio.current_time() - start
                    # until the round is dealt, or aborted and the news read
                    while not _settled(game):
                        await trio.sleep(0.05)
                    life["settled_at"] = trio.current_time() - start
                    await trio.sleep(3.0)
                    n.cancel_scope.cancel()
                    return game, me, life, start

    return run(main, autojump=True)


def test_an_honest_seat_back_mid_word_has_what_is_left_and_sends_it_in_time():
    """Away from 2 s to 9 s into its 10 s: the host leaves it the floor (its clock's 1 s is
    less), says so in its `rejoin`, and takes the commitment the seat sends at once: no abort,
    nobody accused (before: a whole clock, and no `word_left`)."""
    game, me, life, start = _honest_back(2.0, 9.0)
    said = getattr(life["side"], "rejoin_word_left", None)
    want = max(SEED_TIMEOUT - life["back_at"], min(WORD_FLOOR, SEED_TIMEOUT + WORD_FLOOR - life["back_at"]))
    assert said is not None and abs(said / 1000 - want) < 0.5, (said, want, life["back_at"])
    assert not _aborts(game), _aborts(game)
    assert game.host.dealer is not None and game.host.dealer.ledger.phase.value != "seed-commits"
    assert "error" not in life and not _accused(life), life.get("error")


def test_an_honest_seat_back_after_its_word_clock_and_the_floor_takes_the_abort_crossing_its_word():
    """Away past the clock and the floor: nothing is left (`word_left` 0), the host aborts at
    once naming it (it had the whole clock and more), while the seat, back, sends its
    commitment as soon as it has read the replay: the abort crosses it.  The seat takes the
    abort for the host's honest clock (its word was not yet taken, and nothing was left of the
    clock) and calls nobody a cheat; the host drops it as the staller it was, not the table."""
    game, me, life, start = _honest_back(2.0, 20.0)
    assert getattr(life["side"], "rejoin_word_left", None) == 0, vars(life["side"]).get("rejoin_word_left")
    aborts = _aborts(game)
    assert aborts and me in aborts[0].stalled, aborts
    assert life["settled_at"] - life["back_at"] < 0.5, (life["settled_at"], life["back_at"])
    # the race was real: the seat had sent its commitment when the abort naming it came
    assert life["side"].game is not None and life["side"].game.seat.match.stalls, "no abort read"
    assert life["side"].game.seat.verifier._commits, "the seat never sent its commitment"
    assert not _accused(life), (life.get("error"), [v for v in life["feed"] if isinstance(v, F.TableProblem)])
    assert getattr(life.get("error"), "code", None) == "timeout", life.get("error")


def test_an_older_client_gets_a_whole_word_clock_once_and_a_second_return_too_late_for_it_is_refused(monkeypatch):
    """A client that does not announce `word-left`, back after a rejoin, contests any abort naming
    it once it sent its word (its check has no clock then).  It gets a whole 10 s at its first
    return and that deadline again at a later one, so a looper on it cannot hold the deal
    either; a later return that deadline would reach in under `WORD_FLOOR` (its word might
    not make it, and it would accuse the honest host) is refused `version` until the word is
    settled.  Nobody is called a cheat; back after the word, it plays on."""
    real = SeatGame.recovered

    def older(self):
        out = real(self)
        self._answered_at = None  # (the older client: no clock for its word after a rejoin)
        return out

    monkeypatch.setattr(SeatGame, "recovered", older)
    games: list = []
    ident = P.Identity.generate()
    cfg = _one_remote_seat(300, hold_seats=15.0)

    async def main():
        async with live_table(cfg, game_factory=_recording(HostGame, games), local_seat=run_local_seat(None)) as table:
            with trio.fail_after(1_000):
                async with trio.open_nursery() as n:
                    first = trio.CancelScope()
                    n.start_soon(_cut_off, table.port, ident, first, OLDER)
                    game, me, start = await _word_owed(table, games)
                    sitter = table.book.seats[me]

                    async def drop(scope):
                        scope.cancel()
                        while sitter.connected:
                            await trio.sleep(0.01)

                    await trio.sleep_until(start + 2.0)
                    await drop(first)
                    await trio.sleep_until(start + 3.0)   # back at 3 s: a whole clock, due at 13 s
                    second = trio.CancelScope()
                    n.start_soon(_cut_off, table.port, ident, second, OLDER)
                    while not sitter.connected:
                        await trio.sleep(0.01)
                    left = game._due and min(d for d, o, why in game._due if o.seat == me) - trio.current_time()
                    await trio.sleep_until(start + 9.0)
                    await drop(second)
                    await trio.sleep_until(start + 10.0)  # back at 10 s: 13 s is too soon for it
                    third = _life()
                    n.start_soon(_honest, table.port, ident, third, OLDER)
                    while not third.get("over") and not _back(third):
                        await trio.sleep(0.01)
                    while not _settled(game):             # (its hold runs out: the attempt is aborted)
                        await trio.sleep(0.1)
                    fourth = _life()
                    n.start_soon(_honest, table.port, ident, fourth, OLDER)
                    while not (fourth.get("over") or _back(fourth)):
                        await trio.sleep(0.01)
                    await trio.sleep(3.0)
                    n.cancel_scope.cancel()
                    return game, me, left, third, fourth

    game, me, left, third, fourth = run(main, autojump=True)
    assert left and abs(left - SEED_TIMEOUT) < 0.5, left   # (a whole clock, once)
    err = third.get("error")
    assert not _back(third) and getattr(err, "code", None) == "version", err
    assert "word-left" in str(err) and "newer unonet" in str(err), err
    assert _back(fourth) and "error" not in fourth, fourth.get("error")
    for life in (third, fourth):
        assert not _accused(life), life.get("error")


def _verdict_loop(loops: int = 8):
    """A challenger (the remote seat; the host's own bot plays the other) that never judges
    the response drops its link 8 s into the 10 s it has for its verdict and comes back with its
    key a second later, up to ``loops`` times.  Returns (seconds from the verdict clock's start to
    the host's `verdict-timeout`, or None: no challenge in the match; the seat's lives)."""
    from tests.net.test_verdict_clock import SilentChallenger

    cfg = config(2, rules=make_rules("official", [], target=60), bots=1, dealer_only=True, autostart=True,
                 hold_seats=30.0)
    games: list = []
    ident = P.Identity.generate()
    lives: list = []

    async def live(port, life):
        link = await N.connect("127.0.0.1", port, ident, name="r0", timeouts=N.Timeouts(idle=30.0))
        side = SeatSide(name="r0", identity=ident, host_public=link.peer_fair_identity, game_factory=SilentChallenger)
        try:
            with life["scope"]:
                await play_seat(link, side, bot_step=bot_step, on_feed=life["feed"].append)
        except Exception as exc:  # noqa: BLE001 - a drop, or a seat that calls the host a cheat
            life["error"] = exc
        finally:
            life["over"] = True
            with trio.CancelScope(shield=True):
                await link.aclose()

    def verdicts(game):
        return [m for m in game.history if isinstance(m, P.Fair) and m.ev == "verdict-timeout"]

    async def main():
        async with live_table(cfg, game_factory=_recording(HostGame, games), local_seat=run_local_seat(None)) as table:
            with trio.fail_after(5_000):
                async with trio.open_nursery() as n:
                    lives.append(_life())
                    n.start_soon(live, table.port, lives[-1])
                    while not (games and any(o.kind == "judge-challenge" for o in games[-1].host.owed())):
                        if table.result is not None:
                            n.cancel_scope.cancel()
                            return None
                        await trio.sleep(0.05)
                    game = games[-1]
                    start = game._clocks_from
                    me = next(o.seat for o in game.host.owed() if o.kind == "judge-challenge")
                    for _ in range(loops):
                        end = trio.current_time() + 8.0
                        while trio.current_time() < end and not verdicts(game):
                            await trio.sleep(0.05)
                        if verdicts(game):
                            break
                        lives[-1]["scope"].cancel()
                        while table.book.seats[me].connected:
                            await trio.sleep(0.01)
                        await trio.sleep(1.0)
                        lives.append(_life())
                        n.start_soon(live, table.port, lives[-1])
                        while not (_back(lives[-1]) or lives[-1].get("over")):
                            await trio.sleep(0.01)
                    while not verdicts(game) and trio.current_time() < start + 120:
                        await trio.sleep(0.05)
                    took = trio.current_time() - start if verdicts(game) else float("inf")
                    await trio.sleep(2.0)
                    n.cancel_scope.cancel()
                    return took

    return run(main, autojump=True), lives


def test_a_challenger_that_drops_and_comes_back_before_its_verdict_clock_runs_out_cannot_hold_the_round():
    """The same loop on a challenge's word (the challenger's verdict, 10 s: spec §5 step 6): it
    used to get a whole 10 s at every return, so eight loops held the round for 72 s; now the
    verdict is timed out within the word clock and `WORD_FLOOR` of its start, and the
    challenger, back each time, accuses nobody."""
    for _ in range(6):
        took, lives = _verdict_loop()
        if took is not None:
            break
    else:
        pytest.fail("no Wild Draw Four was played on the challenger in 6 matches")
    assert took <= SEED_TIMEOUT + WORD_FLOOR + 1.5, took
    assert len(lives) >= 2, "the challenger never came back in its verdict's clock"
    for life in lives:
        assert not _accused(life), life.get("error")
