"""Re-scoring with the rules engine: a verified round's scores must follow from its points.

The ledger checks the chain's shape; what a round's points do to the scores (standard,
partners, elimination) is the engine's `Match` rule, so the store asks the engine rather
than keeping a second copy of the scoring rules."""

from __future__ import annotations

from ..engine import Match, RuleSet, RulesError
from ..ledger import LedgerError, MatchHeader, RoundEntry


def rules_for(header: MatchHeader) -> RuleSet:
    """The engine's rule set for a match header (LedgerError if this engine does not know it)."""
    try:
        rules = RuleSet(preset=header.preset, deck=header.deck, house=frozenset(header.house),
                        teams=header.teams, scoring=header.scoring, target=header.target)
        rules.check_players(header.players)
    except RulesError as e:
        raise LedgerError(f"rules this version cannot score: {e}") from None
    return rules


class Rescorer:
    """Follows a match's counted rounds through the engine's `Match`."""

    def __init__(self, header: MatchHeader) -> None:
        self.header = header
        self.rules = rules_for(header)
        self.match = Match(self.rules, header.players, scores=[0] * header.players, dealer=0)

    @property
    def over(self) -> bool:
        return self.match.over

    @property
    def winner(self) -> int | None:
        """The winning seat, or team at a partners table; None while the match runs."""
        return self.match.winner

    @property
    def eliminated(self) -> frozenset[int]:
        return frozenset(self.match.eliminated)

    def check(self, e: RoundEntry) -> None:
        """LedgerError unless a counted ``e`` may follow (the match still runs, scores add up)."""
        if not e.counted:
            return
        if self.match.over:
            raise LedgerError(f"round {e.round}: the match was already won ({self.winner_text()})")
        trial = Match(self.rules, self.header.players, scores=list(self.match.scores), dealer=0)
        trial.eliminated = set(self.match.eliminated)
        trial.apply_outcome(e.winner, e.points, e.hand_points)
        if tuple(trial.scores) != e.scores:
            raise LedgerError(f"round {e.round}: scores {list(e.scores)} do not follow from "
                              f"{list(self.match.scores)} and this round's points (the rules give "
                              f"{trial.scores})")

    def apply(self, e: RoundEntry) -> None:
        self.check(e)
        if e.counted:
            self.match.apply_outcome(e.winner, e.points, e.hand_points)

    def winner_text(self) -> str:
        if self.winner is None:
            return "no winner yet"
        return f"team {'AB'[self.winner]}" if self.header.teams else f"seat {self.winner}"
