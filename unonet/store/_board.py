"""The live standings screen's view model: a plain object built from the store, and a text
layout that only reads it (the prompt_toolkit screen of the live attach will draw the same
object, as `unonet/tui` draws its `TableView`).

It shows one match: every side (a seat, or a team at a partners table) with its score and the
distance to the target (to elimination, in elimination scoring), the last rounds, and the
winner once the target is reached.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._store import ScoreStore
from ._views import TEAM_NAMES, MatchView, match_view, round_labels, rounds_scored


@dataclass(frozen=True)
class SideLine:
    label: str
    score: int
    to_target: int
    out: bool  # eliminated (elimination scoring)
    leading: bool
    won: bool = False  # the match's winner

    def state(self) -> str:
        """What is left for this side: out, the match won, or the points still to go."""
        if self.out:
            return "out"
        if self.won:
            return "match won"
        return f"{self.to_target} to go" if self.to_target else ""


@dataclass(frozen=True)
class Board:
    title: str
    sides: tuple[SideLine, ...]
    last_rounds: tuple[str, ...]
    winner: str | None
    head: str
    elimination: bool = False  # the lowest total leads; a side at the target is out

    def lines(self, width: int = 80) -> list[str]:
        """The board as text lines no wider than ``width``."""
        label_w = max([len(s.label) for s in self.sides] + [6])
        out = [self.title[:width], ""]
        for s in self.sides:
            mark = ">" if s.leading else " "
            out.append(f"{mark} {s.label:<{label_w}}  {s.score:>5}  {s.state()}".rstrip()[:width])
        out.append("")
        out += [f"  {r}"[:width] for r in self.last_rounds]
        if self.winner:
            out += ["", f"  {self.winner}"[:width]]
        out.append(f"  ledger {self.head}"[:width])
        return out


def board_from(view: MatchView, *, last: int = 5) -> Board:
    """A board from one match's view (``match_view``), the last ``last`` rounds listed."""
    if view.problem:
        return Board(f"match #{view.id} {view.match[:8]}", (), (view.problem,), None, "")
    elimination = view.scoring == "elimination"
    totals = view.team_scores if view.teams else view.scores
    labels = view.side_names()
    best = (min if elimination else max)(range(len(totals)), key=lambda i: (totals[i], -i) if not elimination
                                         else (i in view.eliminated, totals[i], i))
    sides = tuple(SideLine(labels[i], totals[i], view.to_target[i], i in view.eliminated,
                           view.winner == i if view.winner is not None else i == best, view.winner == i)
                  for i in range(len(totals)))
    how = ", ".join(["teams"] * view.teams + ["elimination"] * elimination + [f"to {view.target}"])
    title = f"match #{view.id} {view.match[:8]}  {view.preset}, {how}  {rounds_scored(view.rounds, view.disputed)}"
    briefs = []
    for r, number in list(zip(view.round_lines, round_labels(view.round_lines)))[-last:]:
        label = f"round {number}"
        if r.status != "verified":
            briefs.append(f"{label}: disputed, not counted ({r.reason})")
        elif r.winner is None:
            briefs.append(f"{label}: blocked, nobody went out")
        else:
            side = f" for team {TEAM_NAMES[r.winner % 2]}" if view.teams else ""
            briefs.append(f"{label}: {view.names[r.winner]} went out, {r.points} points{side}")
    winner = None
    if view.winner is not None:
        winner = f"{view.winner_text} wins the match ({totals[view.winner]})"
    return Board(title, sides, tuple(briefs), winner, view.head, elimination)


def board(store: ScoreStore, ref: str | None = None, *, last: int = 5) -> Board:
    """The board of match ``ref`` (its number or id prefix), or of the latest match."""
    if ref is None:
        row = store.conn.execute("SELECT max(id) FROM matches").fetchone()
        if row[0] is None:
            return Board(f"no matches yet in {store.path}", (), (), None, "")
        ref = str(row[0])
    return board_from(match_view(store, ref), last=last)
