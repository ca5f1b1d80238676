"""The engine's match rules over a fair match: who deals, which seats play, the scores.

The host fixes none of these by choice: round 1's dealer is the engine's highest-draw rule
(`engine.highest_draw`) over classic decks shuffled by the deck shuffle from seeds of the
match id (fresh with every seat's nonce in it; spec §6.1 "dealer draw"),
then the engine `Match` passes the deal to the left and drops eliminated seats; the rules
and the target are the `match-start`'s for the whole match; scores start at zero and
continue from each round's result. `MatchReferee` computes the set-up each round must
carry and checks a published one: the same object serves the host (which writes it), every
`TableSeat` (live) and `unonet audit` (offline).
"""

from __future__ import annotations

from types import SimpleNamespace

from ..engine import Match, RuleSet, Termination, classic_draw_values, highest_draw
from ..fair import FairPlayViolation
from ..fair._shuffle import dealer_draw_seed, shuffle_order
from ._handover import Continuation, continued_match
from ._round import rules_from_json, rules_json

GAME_VERSION = 1


def first_dealer(match_id: bytes, players: int) -> int:
    """Round 1's dealer: the engine's highest-draw rule, draw k's pile the classic deck's
    values shuffled (the deck shuffle) under `dealer_draw_seed(match_id, k)`."""
    values = classic_draw_values()

    def pile(k: int) -> list[int]:
        return [values[i] for i in shuffle_order(dealer_draw_seed(match_id, k), len(values))]

    return highest_draw(pile, players)


class MatchReferee:
    """The engine `Match` of one fair match, advanced by each round's recorded result."""

    def __init__(self, rules: RuleSet | dict, players: int, match_id: bytes, continues: dict | None = None) -> None:
        self.rules = rules if isinstance(rules, RuleSet) else rules_from_json(rules)
        self.rules_json = rules_json(self.rules)
        self.players = players
        if continues is not None:  # a hand-over (_handover.py): scores and dealer carried
            self.match = continued_match(self.rules, players, Continuation.from_json(continues))
        else:
            self.match = Match(self.rules, players, dealer=first_dealer(match_id, players))

    @property
    def over(self) -> bool:
        return self.match.over

    def setup(self, round_no: int) -> dict:
        """The set-up record round `round_no` must carry (published before any seed)."""
        m = self.match
        return {"g": "setup", "v": GAME_VERSION, "rules": self.rules_json, "players": self.players,
                "dealer": m.dealer, "active": list(m.active) if m.eliminated else None, "scores": list(m.scores),
                "round": round_no}

    def check_setup(self, data: dict, round_no: int, line: int | None = None) -> None:
        """A published set-up is exactly the one the match rules give (else the host lied)."""
        if self.match.over:
            raise FairPlayViolation(f"round {round_no} starts after the match was over (seat "
                                    f"{self.match.winner} won it)", line=line)
        want = self.setup(round_no)
        for key, label in (("rules", "the rules"), ("players", "the number of players"),
                           ("round", "the round number"), ("dealer", "the dealer"), ("active", "the seats in play"),
                           ("scores", "the starting scores"), ("v", "the game record version")):
            if data.get(key) != want[key]:
                raise FairPlayViolation(
                    f"round {round_no}'s set-up names {label} {data.get(key)!r}, but the match rules give "
                    f"{want[key]!r} (rules and target fixed at match-start, dealer by the draw seeded from the match "
                    "id then to the left, scores from zero carried from round to round)", line=line)
        extra = sorted(set(data) - set(want))
        if extra:
            raise FairPlayViolation(f"round {round_no}'s set-up carries unknown fields {extra}", line=line)

    def record_end(self, data: dict, dealer: int) -> None:
        """Add a round's result (its `game end` record, checked by the replay) to the match."""
        try:
            out = SimpleNamespace(winner=data["winner"], points=data["points"], hand_points=data["hand_points"],
                                  termination=Termination(data["termination"]))
        except (KeyError, ValueError, TypeError) as exc:
            raise FairPlayViolation(f"the round's end record is malformed: {exc}") from None
        self.match.record(SimpleNamespace(outcome=out, dealer=dealer, actions=0))
