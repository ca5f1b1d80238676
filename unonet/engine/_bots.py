"""Bots: a random legal player (mirroring RLCard's random agent) and a heuristic one.

A bot sees the round the way its seat may: its own hand, the public piles and counts.
It returns an action for `Round.apply`, the same path a remote player's action takes.
"""

from __future__ import annotations

import random
from typing import Any

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # (a run without mypy installed: the decorator only speaks to mypyc)
    def mypyc_attr(*attrs, **kwattrs):  # type: ignore  # (the same decorator, doing nothing)
        return lambda cls: cls

from ._actions import Catch, Challenge, ChooseColor, Draw, Pass, Play, Respond, Swap
from ._round import CHALLENGE, COLOR, DRAWN, OVER, PLAY, RACE, SWAP, Round

#: what a bot is given: a `Round`, or a stand-in for one that names the Round it reads from as
#: ``engine`` (the fair table's `DrivenRound`, which routes `apply` through the seats' signed
#: acts); a bot reads the Round itself (`engine_round`), natively where the engine is compiled
RoundView = Any


def engine_round(view: RoundView) -> Round:
    """The Round that ``view`` is or reads from."""
    if type(view) is Round:
        return view
    rnd = getattr(view, "engine", None)
    if type(rnd) is not Round:
        raise TypeError(f"a bot reads a Round (or a view of one with `engine`), not {view!r}")
    return rnd


@mypyc_attr(allow_interpreted_subclasses=True)  # a bot is there to be built upon
class Bot:
    name = "bot"

    def __init__(self, seed=None) -> None:
        self.rng = random.Random(seed)

    def act(self, view: RoundView, seat: int):
        """The action of ``seat`` when it is its turn."""
        raise NotImplementedError

    def react(self, view: RoundView, seat: int):
        """An out-of-turn action (catch, UNO call, jump-in), or None."""
        return None

    def reaction_time(self) -> float:
        """Seconds this bot takes to slap a card in a reaction race (a human-like spread)."""
        return 0.25 + self.rng.random() * 1.0


@mypyc_attr(allow_interpreted_subclasses=True)  # a bot is there to be built upon
class RandomBot(Bot):
    """RLCard's policy: a random playable card, else draw, and play a drawn card that fits
    (keep one that does not).
    The decisions RLCard lacks (UNO call, challenge, colour, catch, swap) are coin flips.
    A random *legal* player: it plays a Wild Draw Four only when the restriction allows."""

    name = "random"

    def __init__(self, seed=None, forget: float = 0.5, catch: float = 0.5) -> None:
        super().__init__(seed)
        self.forget = forget  # accepted for symmetry with HeuristicBot; the policy flips coins
        self.catch = catch

    def act(self, view: RoundView, seat: int):
        rnd = engine_round(view)
        rng = self.rng
        phase = rnd.phase
        if phase is PLAY or phase is DRAWN:
            cards = rnd.playable(seat)
            if not cards:  # after a draw that does not fit: keep it
                return Pass(seat) if phase is DRAWN else Draw(seat)
            n = len(cards)
            card = cards[0] if n == 1 else cards[int(rng.random() * n)]
            if card.wild and card.draw and n > 1 and phase is PLAY and not rnd.pending:
                color = rnd.color
                if any(c.color == color for c in rnd.hands[seat]):  # no bluffing: pick again
                    fair = [c for c in cards if not (c.wild and c.draw)]
                    if fair:
                        card = fair[int(rng.random() * len(fair))]
            if card.wild:
                return Play(seat, card, rnd.colors[int(rng.random() * 4)],
                            len(rnd.hands[seat]) == 2 and rng.random() < 0.5)
            return Play(seat, card, None, len(rnd.hands[seat]) == 2 and rng.random() < 0.5)
        if phase is CHALLENGE:
            cards = rnd.playable(seat)
            if cards and rng.random() < 0.5:
                card = cards[0]
                return Play(seat, card, rnd.colors[int(rng.random() * 4)] if card.wild else None)
            if rnd._challenges and rng.random() < 0.5:
                return Challenge(seat)
            return Draw(seat)
        if phase is COLOR:
            return ChooseColor(seat, rnd.colors[int(rng.random() * 4)])
        if phase is SWAP:
            others = [s for s in rnd.active if s != seat]
            if rnd._seven_optional and rng.random() < 0.5:
                return Pass(seat)
            return Swap(seat, rng.choice(others))
        raise ValueError(f"seat {seat} has nothing to do in phase {phase}")

    def react(self, view: RoundView, seat: int):
        rnd = engine_round(view)
        if rnd.catchable is not None and rnd.can_catch(seat) is not None and self.rng.random() < self.catch:
            return Catch(seat, rnd.catchable)
        return None


@mypyc_attr(allow_interpreted_subclasses=True)  # a bot is there to be built upon
class HeuristicBot(Bot):
    """Keeps wilds for last, dumps high cards, calls UNO, challenges when the odds favour it.

    ``forget`` is the chance of forgetting to call UNO (so people can catch it)."""

    name = "heuristic"

    def __init__(self, seed=None, forget: float = 0.0, catch: float = 1.0) -> None:
        super().__init__(seed)
        self.forget = forget
        self.catch = catch

    def _color_for(self, rnd, hand, played) -> str:
        colors = rnd.colors
        counts = {c: 0 for c in colors}
        for card in hand:
            if card is not played and card.color in counts:
                counts[card.color] += card.points + 5
        best = max(counts.values())
        return next(c for c in colors if counts[c] == best) if best else colors[int(self.rng.random() * 4)]

    def _pick(self, rnd: Round, seat: int, cards):
        hand = rnd.hands[seat]
        nxt = rnd.next_seat(seat)
        threat = len(rnd.hands[nxt]) <= 2 and (not rnd.rules.teams or nxt % 2 != seat % 2)
        held = {c: 0 for c in rnd.colors}
        for card in hand:
            if card.color in held:
                held[card.color] += 1

        def score(card):
            if card.wild and card.draw:
                # legal only without the colour in force; never bluff
                return -100 if held.get(rnd.color, 0) else (60 if threat else -50)
            if card.wild:
                return 50 if threat else -40
            s = card.points + 3 * held.get(card.color, 0)
            if threat and card.draw or threat and card.rank in ("S", "R"):
                s += 40
            return s

        return max(cards, key=score)

    def act(self, view: RoundView, seat: int):
        rnd = engine_round(view)
        phase = rnd.phase
        hand = rnd.hands[seat]
        if phase is PLAY or phase is DRAWN:
            cards = all_cards = rnd.playable(seat)
            if phase is PLAY and not rnd.pending and rnd._challenges:
                cards = [c for c in cards if not (c.wild and c.draw and any(h.color == rnd.color for h in hand))]
            if not cards and rnd._deadly and phase is PLAY:
                cards = all_cards  # under deadly a bluff beats being knocked out
            if not cards:
                return Pass(seat) if phase is DRAWN else Draw(seat)
            card = self._pick(rnd, seat, cards)
            uno = len(hand) == 2 and self.rng.random() >= self.forget
            return Play(seat, card, self._color_for(rnd, hand, card) if card.wild else None, uno)
        if phase is CHALLENGE:
            stack = rnd.playable(seat)
            if stack:
                card = stack[0]
                return Play(seat, card, self._color_for(rnd, hand, card) if card.wild else None, len(hand) == 2)
            if rnd._challenges and self._guilt_odds(rnd, seat) > 0.3:
                return Challenge(seat)
            return Draw(seat)
        if phase is COLOR:
            return ChooseColor(seat, self._color_for(rnd, hand, None))
        if phase is SWAP:
            others = [s for s in rnd.active if s != seat]
            target = min(others, key=lambda s: (len(rnd.hands[s]), s))
            if rnd._seven_optional and len(rnd.hands[target]) >= len(hand):
                return Pass(seat)
            return Swap(seat, target)
        raise ValueError(f"seat {seat} has nothing to do in phase {phase}")

    def _guilt_odds(self, rnd: Round, seat: int) -> float:
        """Chance the Wild Draw Four's player held the previous colour, from what this seat saw."""
        wf = rnd.wild_four
        if wf is None:
            return 0.0
        color = wf.prev_color
        seen = [c for c in rnd.hands[seat]] + rnd.discard
        from ._cards import deck_cards

        deck: list = [c.other if rnd.side else c for c in deck_cards(rnd.rules.deck)]
        unseen_total = len(deck) - len(seen)
        unseen_color = sum(1 for c in deck if c.color == color) - sum(1 for c in seen if c.color == color)
        if unseen_total <= 0:
            return 0.0
        p = max(0, unseen_color) / unseen_total
        h = len(wf.hand)
        return 1 - (1 - p) ** h

    def react(self, view: RoundView, seat: int):
        rnd = engine_round(view)
        target = rnd.can_catch(seat)
        # never a partner: their two cards are our own team's (play15: "Ana-2 (bot) caught you
        # without UNO" on her partner's screen); the coin is still tossed, so a seed's other
        # choices stay as they were
        if target is not None and self.rng.random() < self.catch \
                and not (rnd.rules.teams and target % 2 == seat % 2):
            return Catch(seat, target)
        jumps = rnd.can_jump_in(seat)
        if jumps and seat != rnd.turn:
            hand = rnd.hands[seat]
            return Play(seat, jumps[0], None, len(hand) == 2)
        return None


BOTS = {"random": RandomBot, "heuristic": HeuristicBot}


def make_bot(kind: str, seed=None, **kw) -> Bot:
    try:
        return BOTS[kind](seed, **kw)
    except KeyError:
        raise ValueError(f"unknown bot {kind!r} (known: {', '.join(BOTS)})") from None


def play_round(view: RoundView, bots, *, on_events=None, max_actions: int = 20000) -> RoundView:
    """Drive a started round to its end with one bot per seat (``bots[seat]``).

    Before each turn every other seat may react (catch, jump in); then the seat whose
    turn it is acts.  ``on_events(action, events)`` sees everything (for --watch).  Returns
    ``view`` (the Round, or the view of one it was given)."""
    apply = view.apply  # a view's own apply (the fair table's goes through the signed acts)
    rnd = engine_round(view)
    reactive = any(type(b).react is not Bot.react for b in bots)
    for _ in range(max_actions):
        if rnd.phase is OVER:
            return view
        if rnd.phase is RACE:
            # the quickest hand slaps first; the referee's clock never needs to run for bots
            race = rnd.race
            assert race is not None  # the phase is RACE
            s = min(race.waiting, key=lambda s: bots[s].reaction_time())
            action: Any = Respond(s)
            events = apply(action)
            if on_events:
                on_events(action, events)
            continue
        if reactive and (rnd.catchable is not None or rnd._jump_in):
            for s in rnd.active:
                action = bots[s].react(view, s)
                if action is not None:
                    events = apply(action)
                    if on_events:
                        on_events(action, events)
                    break
            if rnd.phase is OVER:
                return view
        seat = rnd.turn
        action = bots[seat].act(view, seat)
        events = apply(action)
        if on_events:
            on_events(action, events)
    raise RuntimeError(f"round did not end within {max_actions} actions: {rnd!r}")
