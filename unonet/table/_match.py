"""The engine's match rules over a fair match: who deals, which seats play, the scores.

The host fixes none of these by choice: round 1's dealer is the engine's highest-draw rule
(`engine.highest_draw`) over classic decks shuffled by the deck shuffle from seeds of the
match id and round 1's seat seed reveals (spec §6.1 "Dealer draw", protocol version 4: no
party, the last joiner included, can choose or foresee it; round 1's set-up names no dealer,
every verifier draws it once the reveals are in), then the engine `Match` passes the deal to the left and drops eliminated seats; the rules
and the target are the `match-start`'s for the whole match; scores start at zero and
continue from each round's result. `MatchReferee` computes the set-up each round must
carry and checks a published one: the same object serves the host (which writes it), every
`TableSeat` (live) and `unonet audit` (offline).
"""

from __future__ import annotations

from types import SimpleNamespace

from ..engine import Match, RuleSet, Termination, classic_draw_values, highest_draw
from ..fair import FairPlayViolation
from ..fair._shuffle import dealer_draw_key, dealer_draw_seed, shuffle_order
from ._handover import Continuation, continued_match
from ._round import rules_from_json, rules_json

GAME_VERSION = 1


def first_dealer(key: bytes, players: int) -> int:
    """Round 1's dealer: the engine's highest-draw rule, draw k's pile the classic deck's
    values shuffled (the deck shuffle) under `dealer_draw_seed(key, k)`; ``key`` is the
    draw key (`dealer_draw_key`: the match id and round 1's seat reveals)."""
    values = classic_draw_values()

    def pile(k: int) -> list[int]:
        return [values[i] for i in shuffle_order(dealer_draw_seed(key, k), len(values))]

    return highest_draw(pile, players)


def drawn_dealer(ledger) -> int:
    """Round 1's dealer as drawn from its ledger (a `RoundLedger` whose epoch-0 seat reveals
    are all in): the one rule every verifier applies where the set-up names no dealer."""
    e = ledger.epochs[0] if ledger.epochs else None
    if e is None or set(e.reveals) != set(ledger.contributors):
        raise FairPlayViolation(f"round {ledger.round_no}'s dealer is drawn from the seats' seed reveals, "
                                "which are not all in yet")
    return first_dealer(dealer_draw_key(ledger.table, e.reveals), len(ledger.seats))


def round_dealer(setup: dict, ledger) -> int:
    """The dealer of the round whose set-up is ``setup``: the set-up's, or (round 1 of a
    match whose first dealer is not carried, where it is null) the draw from the reveals."""
    d = setup.get("dealer")
    return drawn_dealer(ledger) if d is None else d


class MatchReferee:
    """The engine `Match` of one fair match, advanced by each round's recorded result."""

    def __init__(self, rules: RuleSet | dict, players: int, match_id: bytes, continues: dict | None = None) -> None:
        self.rules = rules if isinstance(rules, RuleSet) else rules_from_json(rules)
        self.rules_json = rules_json(self.rules)
        self.players = players
        c = Continuation.from_json(continues) if continues is not None else None
        #: is the next round's dealer fixed?  Not before round 1 of a match (none carried):
        #: that one is drawn from its seat reveals, after its set-up (`round_dealer`)
        self.drawn = c is not None and c.dealer is not None
        if c is not None:  # a hand-over (_handover.py): scores and dealer carried
            self.match = continued_match(self.rules, players, c)
        else:
            self.match = Match(self.rules, players, dealer=0)  # (a placeholder until drawn)

    @property
    def over(self) -> bool:
        return self.match.over

    def setup(self, round_no: int) -> dict:
        """The set-up record round `round_no` must carry (published before any seed)."""
        m = self.match
        return {"g": "setup", "v": GAME_VERSION, "rules": self.rules_json, "players": self.players,
                "dealer": m.dealer if self.drawn else None, "active": list(m.active) if m.eliminated else None, "scores": list(m.scores),
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
                    f"{want[key]!r} (rules and target fixed at match-start, round 1's dealer left null for the draw "
                    "from its seed reveals, then to the left, scores from zero carried from round to round)", line=line)
        extra = sorted(set(data) - set(want))
        if extra:
            raise FairPlayViolation(f"round {round_no}'s set-up carries unknown fields {extra}", line=line)

    def record_end(self, data: dict, dealer: int) -> None:
        """Add a round's result (its `game end` record, checked by the replay) to the match;
        ``dealer``: the round's (for round 1, the one drawn from its reveals)."""
        try:
            out = SimpleNamespace(winner=data["winner"], points=data["points"], hand_points=data["hand_points"],
                                  termination=Termination(data["termination"]))
        except (KeyError, ValueError, TypeError) as exc:
            raise FairPlayViolation(f"the round's end record is malformed: {exc}") from None
        if not self.drawn:
            self.match.dealer, self.drawn = dealer, True
        self.match.record(SimpleNamespace(outcome=out, dealer=dealer, actions=0))
