"""A seat's own engine copy of the round: what its client shows and what its bot decides on.

The seat knows its own cards and every public one, not the rest. Its copy is a `FairRound`
over a *plausible world*: every position the seat knows holds its true card; every other
position holds some card of the right remaining multiset. When the seat learns a position's
card (its deal, a play, a turn-up, a flip, a reveal), the copy swaps the true card in from
an unknown position that holds it in the copy (one always exists: over the unknown positions
the copy's cards and the true cards are the same multiset). So the copy agrees with the true
round on everything the seat may know — its hand, the discard pile, the counts, the turn,
the phase, its legal actions — and its hidden cards are placeholders that mean nothing.

`SeatCopy` advances at each `game` record (`start`, `act`) of the host and keeps the engine
events of the last one as this seat may see them. It refuses, live, an action the rules
refuse (legality never depends on a card the seat cannot know); everything else is checked by
the audit's replay at the round's end (`GameAuditor`). A rule whose engine decision depends on
a hidden card
(keep-drawing, Flip's draw-until-colour by another seat) can make the copy's public events
differ from the record's; the copy then says so (`lost`) and stops.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from ..engine import ActionError, RuleSet, deck_cards
from ..fair import FairPlayViolation, RoundLedger
from ._round import FairRound, action_from_json, events_json, fair_key


#: how many other placeholder hands the copy tries for another seat's refused action
RESAMPLES = 64


class SeatCopy:
    """The engine copy of one round for seat `seat` (None: an observer)."""

    def __init__(self, seat: int | None, ledger: RoundLedger, known, setup: dict, rules: RuleSet) -> None:
        self.seat = seat
        self.lg = ledger
        self.known = known            # position -> Opening this seat knows (its verifier's)
        self.setup = setup
        self.rules = rules
        self.round: FairRound | None = None
        self.events: list = []        # the engine events of the last record, as this seat sees them
        self.lost: str | None = None  # why the copy stopped following the record
        self._next_epoch = 1
        self._next_challenge = 0
        self._synced: set[int] = set()   # positions already true in the copy

    # -- what this seat knows --------------------------------------------------------
    def _true(self, j: int) -> str | None:
        o = self.known.get(j)
        if o is not None:
            return fair_key(o.card)
        p = self.lg.positions[j] if j < len(self.lg.positions) else None
        return fair_key(p.public_card) if p is not None and p.public_card is not None else None

    # -- Backend ----------------------------------------------------------------------
    def deck(self) -> list[str]:
        e = self.lg.epochs[0]
        full = Counter(c.full_code for c in deck_cards(self.rules.deck))
        faces: list[str | None] = [self._true(j) for j in range(e.base, e.base + e.count)]
        full.subtract(f for f in faces if f is not None)
        rest = sorted(full.elements())
        return [f if f is not None else rest.pop() for f in faces]

    def deal(self, seat: int, position: int) -> None:
        pass

    def turn_up(self, position: int) -> None:
        pass

    def play(self, seat: int, position: int) -> None:
        pass

    def flip(self, side: int, held: Sequence[int]) -> None:
        pass

    def after(self, rnd, action, events) -> None:
        pass

    def reshuffle(self, sources: Sequence[int], to: int | None = None) -> tuple[int, list[str]]:
        e = self.lg.epochs[self._next_epoch]
        self._next_epoch += 1
        rnd = self.round
        assert rnd is not None
        known_new = [self._true(j) for j in range(e.base, e.base + e.count)]
        need = Counter(f for f in known_new if f is not None)
        # the sources must hold (in the copy) every card the seat already knows of the new epoch
        have = Counter(rnd._card_at[j].full_code for j in sources)
        for face in list((need - have).elements()):
            surplus = (have - need)
            src = next(j for j in sources if self._true(j) is None and surplus[rnd._card_at[j].full_code] > 0)
            self._swap_in(src, face, avoid=set(sources))
            have = Counter(rnd._card_at[j].full_code for j in sources)
        pool = Counter(rnd._card_at[j].full_code for j in sources)
        pool.subtract(need)
        rest = sorted(pool.elements())
        return e.base, [f if f is not None else rest.pop() for f in known_new]

    def challenge(self, challenger: int, challenged: int, colour: str, positions: Sequence[int]) -> bool:
        ch = self.lg.challenges[self._next_challenge]
        self._next_challenge += 1
        return bool(ch.guilty)

    # -- keeping the plausible world true to what the seat knows ------------------------
    def _swap_in(self, j: int, face: str, avoid: set[int] = frozenset()) -> None:
        """Put a card showing `face` at position j, taking it from a position not yet true."""
        rnd = self.round
        assert rnd is not None
        # any position whose copy card is not yet its true one (unknown, or known but not synced
        # yet): over those, the copy's cards and the true cards are the same multiset
        k = next((k for k, c in rnd._card_at.items() if c.full_code == face and k != j and k not in avoid
                  and self._true(k) != c.full_code), None)
        if k is None:
            raise FairPlayViolation(f"no unknown position holds {face!r} for position {j}: the record contradicts "
                                    "the deck")
        a, b = rnd._card_at[j], rnd._card_at[k]
        _exchange(rnd, a, b)
        rnd._card_at[j], rnd._card_at[k] = b, a
        rnd._pos[a.id], rnd._pos[b.id] = k, j

    def sync(self) -> None:
        """Every live position the seat knows holds its true card in the copy (a position once
        true stays true: swaps only take from positions not yet true)."""
        rnd = self.round
        if rnd is None:
            return
        done = self._synced
        fresh = [j for j in self.known if j not in done]
        fresh += [j for j, p in enumerate(self.lg.positions) if p.public_card is not None and j not in done]
        for j in fresh:
            done.add(j)
            if j in rnd._card_at:
                t = self._true(j)
                if rnd._card_at[j].full_code != t:
                    self._swap_in(j, t)

    # -- driving ------------------------------------------------------------------------
    def on_game(self, data: dict) -> None:
        if self.lost is not None:
            return
        try:
            if data.get("g") == "start":
                s = self.setup
                self.round = FairRound.open(self.rules, s["players"], s["dealer"], self, active=s["active"])
                self.sync()
                self._check(self.round.start(), data)
            elif data.get("g") == "act" and self.round is not None:
                self.sync()
                action = action_from_json(self.round, data.get("a"))
                self._check(self._apply(action), data)
        except ActionError as exc:
            # the acting seat's whole hand is known to this seat (its own, or every card of it
            # opened): legality is exact, so the host relayed and recorded an action the rules refuse
            raise FairPlayViolation(f"game record: the rules engine refuses it: {exc} (the host accepted it)") \
                from None
        except (FairPlayViolation, ValueError, KeyError, IndexError, StopIteration, AssertionError) as exc:
            self.lost = f"the seat's engine copy cannot follow the record: {exc}"
            self.events = []

    def _apply(self, action) -> list:
        """Apply another seat's action; when the rules refuse it only because of the copy's
        placeholders in that seat's hand (e.g. "you must play when you can"), draw other
        placeholders for its unknown cards and try again (bounded)."""
        rnd = self.round
        assert rnd is not None
        seat = getattr(action, "seat", None)
        unknown = [j for j in (rnd.hand_positions(seat) if seat is not None else []) if self._true(j) is None]
        rng = random.Random(rnd.actions)
        for _ in range(RESAMPLES if unknown else 0):
            try:
                return rnd.apply(action)
            except ActionError:
                pool = [k for k in rnd._card_at if self._true(k) is None and k not in unknown
                        and k not in rnd.hand_positions(seat)]
                if not pool:
                    break
                for j in unknown:
                    k = rng.choice(pool)
                    _exchange(rnd, rnd._card_at[j], rnd._card_at[k])
                    rnd._card_at[j], rnd._card_at[k] = rnd._card_at[k], rnd._card_at[j]
                    rnd._pos[rnd._card_at[j].id], rnd._pos[rnd._card_at[k].id] = j, k
                unknown = [j for j in rnd.hand_positions(seat) if self._true(j) is None]
        return rnd.apply(action)

    def _check(self, events: list, data: dict) -> None:
        from ._replay import _json_norm

        if _json_norm(events_json(events)) != data.get("ev"):
            self.lost = "the seat's engine copy gives other public events than the record (a hidden card decided)"
        self.events = [e.visible_to(self.seat) for e in events]


def _exchange(rnd, a, b) -> None:
    """Swap two card objects wherever the engine holds them: its piles and hands, and any
    attribute naming one (the card just drawn, a challenged hand's snapshot). A UNO Flip card
    is two face objects (`other`): the face in play is swapped with the other card's same face."""
    swap = {id(a): b, id(b): a}
    if a.other is not None and b.other is not None:
        swap[id(a.other)] = b.other
        swap[id(b.other)] = a.other

    def fix_list(v: list) -> None:
        for i, x in enumerate(v):
            y = swap.get(id(x))
            if y is not None:
                v[i] = y
            elif type(x) is list:
                fix_list(x)

    for name, v in list(vars(rnd).items()):
        if name in ("_card_at", "_pos", "backend"):
            continue
        if type(v) is list:
            fix_list(v)
        elif id(v) in swap:
            setattr(rnd, name, swap[id(v)])
        elif hasattr(v, "__dataclass_fields__") and not hasattr(v, "full_code"):
            for f in v.__dataclass_fields__:
                x = getattr(v, f)
                if type(x) is list:
                    fix_list(x)
                elif id(x) in swap:
                    object.__setattr__(v, f, swap[id(x)])
