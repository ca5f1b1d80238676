"""`unonet simulate --watch`: the bot table drawn as plain text, action by action."""

from __future__ import annotations

import os
import sys
import time

from .engine import narrate
from .engine._events import RoundOver

_ANSI = {"R": "\033[1;31m", "Y": "\033[1;33m", "G": "\033[1;32m", "B": "\033[1;34m", None: "\033[1;35m"}
_RESET = "\033[0m"


def use_color(stream) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


class Watcher:
    def __init__(self, names, *, delay: float = 0.0, stream=None) -> None:
        self.names = names
        self.delay = delay
        self.out = stream or sys.stdout
        self.color = use_color(self.out)
        self.round_no = 0

    def card(self, c) -> str:
        if not self.color:
            return c.code
        return f"{_ANSI.get(c.color, '')}{c.code}{_RESET}"

    def on_events(self, rnd, action, events) -> None:
        w = self.out.write
        if action is None:
            self.round_no += 1
            w(f"\n=== round {self.round_no}: {self.names[rnd.dealer]} deals ({rnd.rules.describe()}) ===\n")
        for e in events:
            line = narrate(e, self.names)
            if line:
                w(f"  {line}\n")
        if isinstance(events[-1], RoundOver) if events else False:
            self.out.flush()
            return
        self.table(rnd)
        self.out.flush()
        if self.delay:
            time.sleep(self.delay)

    def table(self, rnd) -> None:
        arrow = "->" if rnd.direction == 1 else "<-"
        top = rnd.top
        w = self.out.write
        w(f"  top {self.card(top)}  colour {rnd.color or '?'}  {arrow}  draw {len(rnd.draw_pile)}"
          f"  discard {len(rnd.discard)}\n")
        for s in rnd.active:
            mark = ">" if s == rnd.turn else " "
            team = f" [team {s % 2}]" if rnd.rules.teams else ""
            uno = " UNO" if len(rnd.hands[s]) == 1 else ""
            hand = " ".join(self.card(c) for c in rnd.hands[s])
            w(f"  {mark} {self.names[s]:<8}{team} ({len(rnd.hands[s]):>2}){uno}: {hand}\n")

    def on_round(self, match, rnd) -> None:
        scores = ", ".join(f"{self.names[s]} {match.scores[s]}" for s in range(match.players))
        line = f"  scores: {scores}"
        if match.team_scores:
            line += f"  | teams: {match.team_scores[0]} - {match.team_scores[1]}"
        self.out.write(line + "\n")
        if match.over:
            who = f"team {match.winner}" if match.rules.teams else self.names[match.winner]
            self.out.write(f"  *** {who} wins the match ***\n")
        self.out.flush()
