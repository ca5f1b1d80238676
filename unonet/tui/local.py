"""A local table: the engine and the bots in this process, seen through the same feed
a LAN table will send (`feed.py`), and driven through the same ``submit(action)``.

`LocalTable` itself is synchronous and sans-IO: it never sleeps and never starts a
task.  It says which bot move is due (`due()`) and performs it when told (`perform`);
the pacing - a short human-like pause before each bot move - lives in the small
asyncio driver `drive()`.  A trio-driven table can reuse `LocalTable` with its own
ten-line driver, and a network table only has to offer `subscribe` and `submit`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .. import feed
from ..engine import ActionError, Catch, CloseRace, Match, Phase, Play, Respond, make_bot
from ..engine import _events as ev
from ..names import BOT_NAMES as BOT_NAMES  # one list for every table


def seat_names(me_name: str, players: int) -> list[str]:
    """``me_name`` at seat 0, bots named after the CLI's list (skipping a clash)."""
    bots = [n for n in BOT_NAMES if n.lower() != me_name.strip().lower()]
    return [me_name.strip()] + bots[: players - 1]


@dataclass(frozen=True)
class Due:
    """A move the table wants to make: ``kind`` is "turn", "react", "race" (a bot slaps the
    card of a reaction race ``at`` seconds of its own reaction time after the race began) or
    "close" (the referee closes the race: whoever has not responded draws 2; seat None)."""

    kind: str
    seat: int | None
    action: object
    version: int
    at: float = 0.0


class LocalTable:
    """One human seat (``me``) and bots in all the others, for a whole match."""

    def __init__(self, rules, names, *, seed=None, bot: str = "heuristic", me: int = 0,
                 forget: float = 0.15, catch: float = 0.5, deal=None) -> None:
        self.rules = rules
        self.names = list(names)
        self.players = len(self.names)
        self.me = me
        self.match = Match(rules, self.players, seed)
        base = random.Random(seed).getrandbits(32) if seed is not None else None
        self.bots = {}
        for s in range(self.players):
            if s == me:
                continue
            bot_seed = None if base is None else base + s
            if bot == "heuristic":
                self.bots[s] = make_bot("heuristic", bot_seed, forget=forget, catch=catch)
            else:
                self.bots[s] = make_bot(bot, bot_seed)
        self.rnd = None
        self.round_no = 0
        self.version = 0
        self.seat_feed = feed.SeatFeed(me)  # the human seat's feed, built from the round
        self._listeners: list = []
        self._react_cache: tuple[int, object] | None = None
        self.race_no = 0                      # counts reaction races (the driver times each)
        self.race_times: dict[int, float] = {}  # this race: each bot's reaction time (s)
        self.closed = False
        self._deal_hook = deal  # tests: deal(match, round_no) -> Round (a stacked deck)

    # ------------------------------------------------------------------ the feed
    def subscribe(self, listener) -> None:
        """``listener(messages)`` gets every batch of messages for seat ``me``."""
        self._listeners.append(listener)

    def unsubscribe(self, listener) -> None:
        self._listeners.remove(listener)

    def _send(self, messages: list) -> None:
        self.version += 1
        for fn in list(self._listeners):
            fn(messages)

    def info(self) -> feed.TableInfo:
        r = self.rules
        return feed.TableInfo(tuple(self.names), self.me, r.describe(), tuple(sorted(r.house)),
                              r.preset, r.teams, r.target, r.scoring, r.deck)

    def start(self) -> None:
        """Seat the client and deal the first round."""
        self._send([self.info()])
        self._deal()

    def _deal(self) -> None:
        self.round_no += 1
        if self._deal_hook is not None:
            self.rnd = self._deal_hook(self.match, self.round_no)
        else:
            self.rnd = self.match.new_round()
        head = [self.seat_feed.round_started(self.round_no, self.rnd.dealer, self.match.scores)]
        self._publish(self.rnd.start(), head)

    def state(self) -> feed.TurnState:
        return feed.turn_state(self.rnd, self.me, self.seat_feed.called)

    def _publish(self, events: list, head=()) -> None:
        for e in events:
            if type(e) is ev.RaceStarted:
                self.race_no += 1
                self.race_times = {s: self.bots[s].reaction_time() for s in e.waiting if s in self.bots}
        out = self.seat_feed.batch(self.rnd, events, head)
        if self.rnd.outcome is not None:
            out.append(self._score())
        self._send(out)

    def _score(self) -> feed.RoundScored:
        rec = self.match.record(self.rnd)
        return feed.round_scored(rec.number, self.rnd, self.match)

    # ------------------------------------------------------------------ actions
    def submit(self, action) -> str | None:
        """Take an action from a player; None if accepted, else the reason (also sent as
        `feed.Refused` to the feed, the way a remote table answers)."""
        reason = self._apply(action)
        if reason is not None and getattr(action, "seat", None) == self.me:
            self._send([feed.Refused(reason, action)])
        return reason

    def _apply(self, action) -> str | None:
        if self.closed:
            return "the table is closed"
        if isinstance(action, feed.Ready):
            if self.rnd is None or self.rnd.outcome is None:
                return "the round is still being played"
            if self.match.over:
                return "the match is over"
            self._deal()
            return None
        if self.rnd is None:
            return "no round in play"
        try:
            events = self.rnd.apply(action)
        except ActionError as e:
            return explain(str(e))
        self._publish(events)
        return None

    # ------------------------------------------------------------------ bots
    def due(self) -> Due | None:
        """The bot move to make next, if any (reactions first, then the seat to play)."""
        rnd = self.rnd
        if rnd is None or rnd.outcome is not None:
            return None
        v = self.version
        if rnd.phase is Phase.RACE:
            # a reaction race: the quickest bot still waiting slaps next; with only humans
            # waiting, the referee's clock closes the race (the driver times both)
            waiting = [s for s in rnd.race.waiting if s in self.bots]
            if waiting:
                s = min(waiting, key=lambda s: (self.race_times.get(s, 1.0), s))
                return Due("race", s, Respond(s), v, self.race_times.get(s, 1.0))
            return Due("close", None, CloseRace(), v)
        if self._react_cache is None or self._react_cache[0] != v:
            react = None
            if rnd.catchable is not None or rnd.rules.jump_in:
                for s in rnd.active:
                    if s in self.bots:
                        a = self.bots[s].react(rnd, s)
                        if a is not None:
                            react = Due("react", s, a, v)
                            break
            self._react_cache = (v, react)
        if self._react_cache[1] is not None:
            return self._react_cache[1]
        seat = rnd.turn
        if seat in self.bots:
            return Due("turn", seat, self.bots[seat].act(rnd, seat), v)
        return None

    def perform(self, due: Due) -> bool:
        """Make the move if nothing changed since `due()` proposed it."""
        if due.version != self.version:
            return False
        reason = self._apply(due.action)
        if reason is not None:  # a bot should never be refused; do not stall the table
            raise RuntimeError(f"bot at seat {due.seat} was refused: {reason}")
        return True

    def close_race(self) -> Due | None:
        """The referee's move that ends the current race (None: no race is on)."""
        if self.rnd is None or self.rnd.phase is not Phase.RACE:
            return None
        return Due("close", None, CloseRace(), self.version)

    def human_racing(self) -> bool:
        """Is the human seat still to respond in a reaction race?"""
        rnd = self.rnd
        return rnd is not None and rnd.phase is Phase.RACE and self.me in rnd.race.waiting

    def human_can_catch(self) -> bool:
        return self.rnd is not None and self.rnd.can_catch(self.me) is not None


def explain(message: str) -> str:
    """The engine's refusal, in the client's words."""
    text = message
    if text.startswith("illegal "):
        text = text[len("illegal "):]
    return text[:1].upper() + text[1:]


# ---------------------------------------------------------------------- pacing
DEFAULT_DELAY = 0.55
DEFAULT_RACE_TIME = 3.0


class Pacing:
    """How long bots think.  ``base`` seconds on average (0: at once; `unonet play` takes it
    from UNONET_BOT_DELAY).

    Reaction races: a bot slaps after its own reaction time (`Bot.reaction_time()`, about
    0.25-1.25 s) scaled by ``base / 0.55`` (so 0 makes bots slap at once); the referee
    closes a race the human has not answered ``race_limit`` seconds after it began
    (UNONET_RACE_TIME, default 3 s)."""

    def __init__(self, base: float = DEFAULT_DELAY, rng: random.Random | None = None,
                 race_limit: float = DEFAULT_RACE_TIME) -> None:
        self.base = max(0.0, base)
        self.race_limit = max(0.0, race_limit)
        self.rng = rng or random.Random()

    def race_delay(self, due: Due, elapsed: float) -> float:
        """Seconds from now until the race move ``due``, ``elapsed`` seconds into the race."""
        if due.kind == "close":
            return max(0.0, self.race_limit - elapsed)
        return max(0.0, due.at * self.base / DEFAULT_DELAY - elapsed)

    def delay(self, due: Due, table: LocalTable) -> float:
        if self.base == 0:
            return 0.0
        r = self.rng.uniform(0.55, 1.45) * self.base
        if due.kind == "react":
            # a catch or a jump-in: slow enough that a quick human can be first
            return r + 1.2 * self.base + (0.6 if isinstance(due.action, Catch) else 0.0)
        if table.human_can_catch():
            # the next player waits a moment so you can catch the one who forgot UNO
            return max(r, 2.5 * self.base + 0.8)
        if table.rnd.phase is Phase.DRAWN:
            # play or keep the card just drawn: the same think time either way, so a quick
            # answer never tells the table that the drawn card did not fit
            return r
        if isinstance(due.action, Play) and table.rnd.turn != table.me and len(table.rnd.hands[due.seat]) <= 2:
            return r + 0.3 * self.base
        return r


async def drive(table: LocalTable, pacing: Pacing | None = None) -> None:
    """Run the bots of ``table`` on asyncio until cancelled, pausing before each move."""
    import asyncio  # (here: `unonet play` draws its first frame before asyncio is loaded)

    pacing = pacing or Pacing()
    loop = asyncio.get_running_loop()
    changed = asyncio.Event()
    table.subscribe(lambda _m: changed.set())
    if table.rnd is None:
        table.start()
    race_no, race_t0 = -1, 0.0
    while not table.closed:
        changed.clear()
        due = table.due()
        if due is None:
            await changed.wait()
            continue
        if due.kind in ("race", "close"):
            # races are timed from their start, not from the last response
            if table.race_no != race_no:
                race_no, race_t0 = table.race_no, loop.time()
            elapsed = loop.time() - race_t0
            d = pacing.race_delay(due, elapsed)
            if due.kind == "race" and table.human_racing():
                close = table.close_race()
                dc = pacing.race_delay(close, elapsed)
                if dc < d:
                    due, d = close, dc
        else:
            d = pacing.delay(due, table)
        if d > 0:
            try:
                await asyncio.wait_for(changed.wait(), d)
                continue  # someone (you) acted first: think again
            except asyncio.TimeoutError:
                pass
        else:
            await asyncio.sleep(0)
        table.perform(due)


def run_bots_sync(table: LocalTable, max_moves: int = 100000, *, close: bool = False) -> int:
    """Make every due bot move at once (tests); returns how many were made.  A race the
    human has not answered is closed (the human too slow) only with ``close``."""
    n = 0
    while n < max_moves:
        due = table.due()
        if due is None or due.kind == "close" and not close:
            return n
        table.perform(due)
        n += 1
    raise RuntimeError("bots did not stop")
