"""A seat back on its own turn has what is left of that turn's clock, not a whole one (spec §5
step 6, §7 rejoin): a player who drops and comes back on their turn, again and again (or a
scripted client doing it), used to get a whole clock at every return and so held the table for
ever.  The turn now ends within its clock and one `REJOIN_FLOOR`, however often the seat comes
back; the host says the time left (`rejoin.turn_left`, the roster's `PlayerEntry.turn_left`),
the returning seat's own fair-play check goes by it (an honest host's timeout is accepted, not
called a cheat), and every other seat hears the same time left.

Real links on loopback, virtual time (trio's autojump clock)."""

from __future__ import annotations

import math

import trio

import unonet.net as N
import unonet.protocol as P
from unonet import feed as F
from unonet.engine import make_rules
from unonet.net._game import REJOIN_FLOOR, HostGame, SeatGame, run_local_seat, scripted_feed
from unonet.net._join import play_seat
from unonet.net._seat import SeatSide
from unonet.net._text_feed import text_feed
from unonet.table._host import Owed

from tests.adversaries.test_host_clock import _recording

from .net_helpers import run
from .session_helpers import config, live_table

CLOCK = 30.0


def _timeouts(game, seat: int) -> list:
    """The host's `turn timeout` acts for ``seat`` so far (its history, in order)."""
    out = []
    for m in game.history:
        if isinstance(m, P.Fair) and m.ev == "host-act":
            e = m.event()
            if e.seat == seat and e.reason == "turn timeout":
                out.append(e)
    return out


async def _pats_turn(table, games: list):
    """Wait for Pat's turn (Ann's comes first and its clock runs out): the host's game, Pat's seat."""
    while not games or games[0].host.round is None or not any(o.kind == "act" for o in games[0].host.owed()):
        await trio.sleep(0.01)
    game = games[0]
    me = next(s.seat for s in table.book.seats if s.name == "Pat")
    while Owed(me, "act") not in game.host.owed():
        await trio.sleep(0.05)
    return game, me


def _drop_and_come_back(hello_fields=None, away: float = 1.0):
    """Pat (seat 0) drops on its own turn 5 s in, comes back a second later, stays 8 s, and so on
    until the host times its turn out (or 4 clocks went by); Ann (seat 1) never acts either.
    Returns Pat's returns and the timeout (seconds after the turn began), the `turn_left` of
    each `rejoin` (s), what Ann heard of each return (s), Pat's failures and problems."""
    cfg = config(2, rules=make_rules("official", [], target=60), bots=0, dealer_only=True, autostart=True,
                 turn_timeout=CLOCK, hold_seats=600.0)
    games: list = []
    pat = P.Identity.generate()
    feeds: list[list] = []           # each of Pat's lives: what its seat said
    ann: list = []                   # the other seat's feed
    failures: list = []

    async def seat(port, ident, name, out, scope):
        link = await N.connect("127.0.0.1", port, ident, name=name, timeouts=N.Timeouts(idle=60.0),
                               hello_fields=hello_fields if ident is pat else None)
        side = SeatSide(name=name, identity=ident, host_public=link.peer_fair_identity, game_factory=SeatGame)
        side.screen = True  # (what a person's seat shows: its notices in words too)
        with scope:
            try:
                await play_seat(link, side, on_feed=out.append)  # no bot: the seat never acts
            except Exception as exc:  # noqa: BLE001 - a seat that calls the host a cheat ends here
                failures.append((name, exc))
            finally:
                with trio.CancelScope(shield=True):
                    await link.aclose()

    async def main():
        async with live_table(cfg, game_factory=_recording(HostGame, games), local_seat=run_local_seat(None)) as table:
            with trio.fail_after(600):
                async with trio.open_nursery() as n:
                    scope = trio.CancelScope()
                    feeds.append([])
                    n.start_soon(seat, table.port, pat, "Pat", feeds[-1], scope)
                    await trio.sleep(0.2)
                    n.start_soon(seat, table.port, P.Identity.generate(), "Ann", ann, trio.CancelScope())
                    game, me = await _pats_turn(table, games)
                    start = game._clocks_from   # Pat's turn began (the host restarted its clocks)
                    await trio.sleep(5.0)
                    returns = []
                    # drop, come back a second later, stay 8 s, drop again ... while the turn lasts
                    while not _timeouts(game, me) and trio.current_time() < start + 4 * CLOCK:
                        scope.cancel()
                        sitter = table.book.seats[me]
                        while sitter.connected:
                            await trio.sleep(0.01)
                        await trio.sleep(away)
                        scope = trio.CancelScope()
                        feeds.append([])
                        n.start_soon(seat, table.port, pat, "Pat", feeds[-1], scope)
                        while not any(isinstance(v, dict) and v.get("t") == "rejoined" for v in feeds[-1]):
                            await trio.sleep(0.01)
                        returns.append(trio.current_time() - start)
                        end = trio.current_time() + 8.0
                        while trio.current_time() < end and not _timeouts(game, me):
                            await trio.sleep(0.05)
                    timed_out = trio.current_time() - start
                    await trio.sleep(0.5)  # (the timeout's news reaches Pat's seat)
                    n.cancel_scope.cancel()
                    return returns, timed_out, _timeouts(game, me)

    returns, timed_out, timeouts = run(main, autojump=True)
    assert timeouts, f"Pat's turn was never timed out (returns at {returns})"
    lefts = [next(v for v in f if isinstance(v, dict) and v.get("t") == "rejoined").get("turn_left")
             for f in feeds[1:]]
    problems = [v for f in feeds for v in f if isinstance(v, F.TableProblem)]
    backs = [v.left for v in ann if isinstance(v, F.Notice) and v.kind == "back"]
    _said["pat"], _said["ann"] = feeds, ann
    return returns, timed_out, lefts, backs, failures, problems


_said: dict = {}  # the last run's feeds: Pat's lives, Ann's


def test_a_seat_that_drops_and_comes_back_on_its_turn_again_and_again_is_timed_out_within_the_bound():
    returns, timed_out, lefts, backs, failures, problems = _drop_and_come_back()
    # without the fix every return gave a whole clock: still Pat's turn 120 s later
    assert len(returns) >= 3, returns  # (it came back several times within its turn)
    assert timed_out <= CLOCK + REJOIN_FLOOR + 0.5, (timed_out, returns)
    # the returning seat heard what was left, every time (at least the floor, never past the
    # clock and one floor), and the host's timeout was no cheat to it
    want = [max(CLOCK - r, min(REJOIN_FLOOR, CLOCK + REJOIN_FLOOR - r)) for r in returns]
    assert all(x is not None and abs(x - w) < 0.5 for x, w in zip(lefts, want)), (returns, lefts, want)
    assert lefts[-1] <= REJOIN_FLOOR, lefts
    assert not failures, failures
    assert not any(p.cheat for p in problems), problems
    # the other seat heard each return with the same time left
    assert backs == lefts, (backs, lefts)
    # the typed seat (`join --no-ui`) says it in words, the `--json` lines carry it
    words: list[str] = []
    on = text_feed(words.append)
    for v in _said["pat"][-1]:
        on(v)
    assert any(w.startswith("reconnected: back in seat") and w.endswith(f"; your turn: {math.ceil(lefts[-1])} s left")
               for w in words), words
    lines: list[dict] = []
    on = scripted_feed(lines.append, lambda: 0)
    for v in _said["pat"][-1]:
        on(v)
    assert [x.get("turn_left") for x in lines if x["t"] == "rejoined"] == [lefts[-1]], lines
    assert [x.get("left") for x in lines if x["t"] == "notice" and x.get("kind") == "reconnected"] == [lefts[-1]]
    words = []
    on = text_feed(words.append)
    for v in _said["ann"]:
        on(v)
    heard = [w for w in words if w.startswith("Pat is back at the table")]
    assert heard == [f"Pat is back at the table ({math.ceil(x)} s left of their turn)" for x in lefts], heard


def test_a_seat_back_after_its_turn_and_the_floor_ran_out_is_timed_out_at_once():
    """Away past the turn's clock and one floor, the seat comes back to nothing: no new clock,
    the table makes its default move at once (and the seat, told 0 s were left, takes it)."""
    returns, timed_out, lefts, backs, failures, problems = _drop_and_come_back(away=45.0)
    assert returns and returns[0] > CLOCK + REJOIN_FLOOR, returns
    assert lefts == [0.0] and backs == [0.0], (lefts, backs)
    assert timed_out - returns[0] < 0.5, (timed_out, returns)
    assert not failures, failures
    assert not any(p.cheat for p in problems), problems


def test_an_older_client_gets_a_whole_clock_once_a_turn_and_a_return_too_late_for_its_check_is_refused(monkeypatch):
    """A client that does not announce `turn-left` gets a whole clock at its first return in a
    turn and keeps that deadline at a later one, so a scripted one cannot hold the table; a
    later return that deadline would reach too soon for its check is refused.  An older client (it holds the host to `0.9 × clock − 5 s` from each return, and does
    not read `turn_left`) comes back at 6 s into its turn (a whole clock: due at 36 s), at 9 s
    (the same deadline: 27 s left, its check's 22 s met), then drops at 26 s and comes back at 27 s: the deadline of 36 s would reach it 9
    s after that return, under the 22 s its check allows, and it called the honest host a cheat
    (review18).  The host refuses that return (`version`, naming the feature) until the turn is
    over; the seat, held meanwhile, has its turn played when its hold runs out, and comes back
    after it as on any rejoin.  Nobody is called a cheat."""
    from unonet.net._host_watch import HostWatch

    real = HostWatch.replayed
    # the older client's check: a whole clock from its return, whatever `turn_left` says
    monkeypatch.setattr(HostWatch, "replayed", lambda self, at, left=None: real(self, at, None))
    cfg = config(2, rules=make_rules("official", [], target=60), bots=0, dealer_only=True, autostart=True,
                 turn_timeout=CLOCK, hold_seats=20.0)
    games: list = []
    pat = P.Identity.generate()
    lives: list[dict] = []

    async def seat(port, ident, name, life, scope):
        link = await N.connect("127.0.0.1", port, ident, name=name, timeouts=N.Timeouts(idle=60.0),
                               hello_fields={"features": [P.AWAY_START]} if ident is pat else None)
        side = SeatSide(name=name, identity=ident, host_public=link.peer_fair_identity, game_factory=SeatGame)
        with scope:
            try:
                await play_seat(link, side, on_feed=life["feed"].append)
            except Exception as exc:  # noqa: BLE001 - a refusal, or a seat that calls the host a cheat
                life["error"] = exc
            finally:
                life["over"] = True
                with trio.CancelScope(shield=True):
                    await link.aclose()

    def back(life):
        return any(isinstance(v, dict) and v.get("t") == "rejoined" for v in life["feed"])

    async def main():
        async with live_table(cfg, game_factory=_recording(HostGame, games), local_seat=run_local_seat(None)) as table:
            with trio.fail_after(600):
                async with trio.open_nursery() as n:
                    async def live(ident, name):
                        life = {"feed": [], "scope": trio.CancelScope(), "name": name}
                        lives.append(life)
                        n.start_soon(seat, table.port, ident, name, life, life["scope"])
                        return life

                    pats = [await live(pat, "Pat")]   # Pat's lives, the latest last
                    await trio.sleep(0.2)
                    ann = await live(P.Identity.generate(), "Ann")
                    game, me = await _pats_turn(table, games)
                    start = game._clocks_from
                    sitter = table.book.seats[me]

                    async def drop_and_return(at):
                        await trio.sleep_until(start + at)
                        pats[-1]["scope"].cancel()
                        while sitter.connected:
                            await trio.sleep(0.01)
                        await trio.sleep(1.0)
                        pats.append(await live(pat, "Pat"))
                        while not (back(pats[-1]) or pats[-1].get("over")):
                            await trio.sleep(0.01)
                        return pats[-1]

                    second = await drop_and_return(5.0)   # back at ~6 s: a whole clock, due at ~36 s
                    again = await drop_and_return(8.0)    # back at ~9 s: the same deadline
                    third = await drop_and_return(26.0)   # back at ~27 s: 36 s is too soon for its check
                    while not any(isinstance(m, P.Fair) and m.ev == "host-act" and m.event().seat == me
                                  for m in game.history):
                        await trio.sleep(0.1)             # (its turn, played when its hold ran out)
                    fourth = await live(pat, "Pat")
                    while not (back(fourth) or fourth.get("over")):
                        await trio.sleep(0.01)
                    await trio.sleep(2.0)
                    n.cancel_scope.cancel()
                    return second, again, third, fourth, ann

    second, again, third, fourth, ann = run(main, autojump=True)

    def left(life):
        return next(v for v in life["feed"] if isinstance(v, dict) and v.get("t") == "rejoined").get("turn_left")

    assert back(second) and "error" not in second, second.get("error")
    assert back(again) and "error" not in again, again.get("error")
    assert abs(left(second) - CLOCK) < 0.6 and abs(left(again) - (CLOCK - 3.0)) < 0.6, (left(second), left(again))
    err = third.get("error")
    assert not back(third) and err is not None and getattr(err, "code", None) == "version" \
        and not getattr(err, "cheat", False), err
    assert "turn-left" in str(err) and "newer unonet" in str(err), err
    assert back(fourth) and "error" not in fourth, fourth.get("error")
    for life in lives:
        e = life.get("error")
        assert not getattr(e, "cheat", False), e
        assert not any(isinstance(v, F.TableProblem) and v.cheat for v in life["feed"]), life["feed"]


def test_a_seat_back_on_another_seats_turn_counts_that_turn_down_from_what_the_host_left_of_it():
    """evening19: a player who came back on someone else's turn saw no clock for that turn until
    the next one (the return carried the time left only of the seat's own turn).  The return's
    roster now gives the time left of the turn under way on the entry of the seat whose act is
    owed; the returning screen counts it down (the `reconnected` notice: ``left``, ``clock_of``),
    and no other screen reads it as a return of that seat."""
    from unonet.tui.session import SessionView

    cfg = config(2, rules=make_rules("official", [], target=60), bots=0, dealer_only=True, autostart=True,
                 turn_timeout=CLOCK, hold_seats=600.0)
    games: list = []
    ids = {"Pat": P.Identity.generate(), "Ann": P.Identity.generate()}
    feeds: dict[str, list[list]] = {"Pat": [], "Ann": []}
    scopes: dict[str, trio.CancelScope] = {}

    async def seat(port, name):
        link = await N.connect("127.0.0.1", port, ids[name], name=name, timeouts=N.Timeouts(idle=60.0))
        side = SeatSide(name=name, identity=ids[name], host_public=link.peer_fair_identity, game_factory=SeatGame)
        side.screen = True
        feeds[name].append([])
        with scopes[name]:
            try:
                await play_seat(link, side, on_feed=feeds[name][-1].append)  # no bot: nobody acts
            finally:
                with trio.CancelScope(shield=True):
                    await link.aclose()

    async def main():
        async with live_table(cfg, game_factory=_recording(HostGame, games), local_seat=run_local_seat(None)) as table:
            with trio.fail_after(300):
                async with trio.open_nursery() as n:
                    for name in ("Pat", "Ann"):
                        scopes[name] = trio.CancelScope()
                        n.start_soon(seat, table.port, name)
                        await trio.sleep(0.2)
                    while not games or games[0].host.round is None or \
                            not any(o.kind == "act" for o in games[0].host.owed()):
                        await trio.sleep(0.01)
                    game = games[0]
                    turn = next(o.seat for o in game.host.owed() if o.kind == "act")
                    seats = {s.name: s.seat for s in table.book.seats if s is not None}
                    mover = next(k for k, v in seats.items() if v == turn)   # whose turn it is
                    away = next(k for k in seats if k != mover)             # who drops meanwhile
                    start = game._clocks_from
                    await trio.sleep(10.0)
                    scopes[away].cancel()
                    sitter = table.book.seats[seats[away]]
                    while sitter.connected:
                        await trio.sleep(0.01)
                    await trio.sleep(1.0)
                    scopes[away] = trio.CancelScope()
                    n.start_soon(seat, table.port, away)
                    while not any(isinstance(v, F.Notice) and v.kind == "reconnected" for v in feeds[away][-1]):
                        await trio.sleep(0.01)
                    back_at = trio.current_time() - start
                    still = Owed(turn, "act") in game.host.owed()
                    n.cancel_scope.cancel()
                    return mover, away, turn, back_at, still

    mover, away, turn, back_at, still = run(main, autojump=True)
    assert still, "the turn under way ended before the seat came back"
    life = feeds[away][-1]
    back = next(v for v in life if isinstance(v, F.Notice) and v.kind == "reconnected")
    assert back.clock_of == turn and back.left is not None, back
    assert abs(back.left - (CLOCK - back_at)) < 0.5, (back, back_at)   # what is left, not a whole clock
    # the returning screen counts that turn down at once (it showed no clock before)
    v = SessionView()
    for x in life:
        if not isinstance(x, dict):
            v.apply(x)
    assert v.turn == turn and v.time_left() == math.ceil(back.left), (v.time_left(), back.left)
    assert v.prompt().startswith(f"[0:{math.ceil(back.left):02d}] {mover}'s turn"), v.prompt()
    # the other screen heard a return of the seat that came back, and nothing of its own seat
    said = [x for x in feeds[mover][-1] if isinstance(x, F.Notice) and x.kind in ("back", "reconnected")]
    assert [(x.kind, x.seat, x.left) for x in said] == [("back", 1 - turn, None)], said
