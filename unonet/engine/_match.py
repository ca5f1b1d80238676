"""The match: rounds to a target, the dealer's rotation, teams and elimination."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ._round import Round, Termination
from ._rules import RuleSet


def classic_draw_values() -> list[int]:
    """What each card of the classic deck counts in the dealer draw, in canonical order:
    its number, or zero for an action card or a wild."""
    from ._cards import deck_cards

    return [c.number or 0 for c in deck_cards("classic")]


def highest_draw(piles: Callable[[int], Sequence[int]], players: int, tries: int = 100) -> int:
    """Official: everyone draws a card, the highest number deals (action cards and wilds
    count as zero); ties draw again.  ``piles(k)`` is draw ``k``'s shuffled pile of card
    values, top first: the seats still in contention take one card each, lowest seat first.
    After ``tries`` tied draws the lowest tied seat deals."""
    contenders = list(range(players))
    for k in range(tries):
        pile = piles(k)
        values = {s: pile[i] for i, s in enumerate(contenders)}
        best = max(values.values())
        contenders = [s for s in contenders if values[s] == best]
        if len(contenders) == 1:
            break
    return contenders[0]


def choose_dealer(rng: random.Random, players: int) -> int:
    """The highest draw over piles shuffled by ``rng`` (a local game; a fair table draws
    from a specified stream instead: `table.first_dealer`)."""
    values = classic_draw_values()

    def pile(_k: int) -> list[int]:
        p = list(values)
        rng.shuffle(p)
        return p[::-1]

    return highest_draw(pile, players)


@dataclass(frozen=True)
class RoundRecord:
    number: int
    dealer: int
    winner: int | None
    points: int
    hand_points: tuple[int, ...]
    scores: tuple[int, ...]
    actions: int


class Match:
    """Scores across rounds.  `new_round()` deals the next round; `record(round)` scores it."""

    def __init__(self, rules: RuleSet, players: int, seed=None, *, scores=None,
                 dealer: int | None = None) -> None:
        rules.check_players(players)
        self.rules = rules
        self.players = players
        self.rng = random.Random(seed)
        self.scores = list(scores) if scores is not None else [0] * players
        if len(self.scores) != players:
            raise ValueError(f"scores must list {players} seats, got {len(self.scores)}")
        self.eliminated: set[int] = set()
        if rules.scoring == "elimination":
            self.eliminated = {s for s in range(players) if self.scores[s] >= rules.target}
        self.dealer = dealer if dealer is not None else choose_dealer(self.rng, players)
        self.history: list[RoundRecord] = []
        self.winner: int | None = None
        self._check_over()

    @property
    def active(self) -> tuple[int, ...]:
        return tuple(s for s in range(self.players) if s not in self.eliminated)

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def team_scores(self) -> list[int] | None:
        if not self.rules.teams:
            return None
        return [sum(self.scores[0::2]), sum(self.scores[1::2])]

    def standings(self) -> list[int]:
        return self.team_scores if self.rules.teams else list(self.scores)

    def new_round(self) -> Round:
        if self.over:
            raise ValueError("the match is over")
        active = self.active if self.eliminated else None
        rnd = Round.deal(self.rules, self.players, self.dealer, self.rng.getrandbits(64), active=active)
        return rnd

    def record(self, rnd: Round) -> RoundRecord:
        """Add a finished round's points to the scores and pass the deal to the left."""
        out = rnd.outcome
        if out is None:
            raise ValueError("the round is not over")
        self.apply_outcome(out.winner, out.points, out.hand_points, out.termination)
        rec = RoundRecord(len(self.history) + 1, rnd.dealer, out.winner, out.points,
                          out.hand_points, tuple(self.scores), rnd.actions)
        self.history.append(rec)
        active = self.active
        if active and not self.over:
            d = (rnd.dealer + 1) % self.players
            while d not in active:
                d = (d + 1) % self.players
            self.dealer = d
        return rec

    def apply_outcome(self, winner, points, hand_points, termination=Termination.EMPTIED_HAND) -> None:
        if self.rules.scoring == "elimination":
            for s in self.active:
                self.scores[s] += hand_points[s]
        elif winner is not None:
            self.scores[winner] += points
        self._check_over()

    def _check_over(self) -> None:
        target = self.rules.target
        if self.rules.scoring == "elimination":
            before = self.active
            newly = {s for s in before if self.scores[s] >= target}
            self.eliminated |= newly
            left = self.active
            if len(left) == 1:
                self.winner = left[0]
            elif not left:
                self.winner = min(before or range(self.players), key=lambda s: (self.scores[s], s))
            return
        if self.rules.teams:
            teams = self.team_scores
            best = max(range(2), key=lambda t: teams[t])
            if teams[best] >= target:
                self.winner = best
            return
        best = max(range(self.players), key=lambda s: self.scores[s])
        if self.scores[best] >= target:
            self.winner = best
