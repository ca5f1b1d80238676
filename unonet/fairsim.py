"""Fair play in `unonet simulate`: every round dealt by a FairDealer, checked by every seat.

`transcript_factory(DIR)` gives the `simulate()` keyword arguments that play each round
fair-play-on (`unonet.table`: host, one TableSeat per bot, an observer) and write its
public record to `DIR/match-MMM-round-RRR.jsonl`, which `unonet audit FILE` re-verifies,
the rules included.

Randomness: the fair layer's random bytes (r_h, r_i, seal keys, identities) come from a
stream seeded by the match's own random generator, so `--seed` replays a fair simulation
exactly, as it does a plain one. A real table uses the operating system's randomness.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .engine import Match, Round
from .fair import Identity, TranscriptWriter
from .fair.testing import det_randbytes
from .table import TABLE_DECKS, TableHost, make_table


def fair_round_factory(*, directory: str | None = None, observer: bool = True,
                       on_table: Callable[[TableHost], None] | None = None,
                       one_file: bool = False) -> Callable[[Match], Round]:
    """A `round_factory` for `simulate()` that plays every round fair-play-on.

    With `directory`, each finished round's transcript is written there. With `one_file`,
    the rounds of a match share one transcript chain (`host.lines` is the match so far)."""
    state: dict = {"match": None, "number": 0, "ids": None}

    def round_factory(match: Match) -> Round:
        if match.rules.deck not in TABLE_DECKS:
            from .cli import UsageError

            raise UsageError(f"--transcript: fair play does not support the {match.rules.deck} deck yet")
        # One 64-bit draw per round, as Match.new_round makes: the match's rng stays in step.
        seed = match.rng.getrandbits(64)
        rb = det_randbytes(f"unonet-simulate/{seed}")
        if match is not state["match"]:
            state["match"] = match
            state["number"] += 1
            state["ids"] = (Identity.generate(rb), [Identity.generate(rb) for _ in range(match.players)])
            state["writer"] = TranscriptWriter() if one_file else None
        host_id, ids = state["ids"]
        number = state["number"]
        round_no = len(match.history) + 1

        def finished(host: TableHost) -> None:
            if directory is not None:
                path = os.path.join(directory, f"match-{number:03d}-round-{round_no:03d}.jsonl")
                with open(path, "w", encoding="utf-8", newline="\n") as f:
                    f.write(host.writer.text())
            if on_table is not None:
                on_table(host)

        host = make_table(
            match.rules, match.players, match.dealer, randbytes=rb, identities=ids, host_identity=host_id,
            observer=observer, table=f"simulate-match-{number:03d}".encode(), round_no=round_no,
            match_no=number, scores=match.scores, active=match.active if match.eliminated else None,
            on_finish=finished, **({"writer": state["writer"]} if state.get("writer") is not None else {}),
        )
        return host.open_round()

    return round_factory


def transcript_factory(directory: str) -> dict:
    """`simulate()` keyword arguments: fair play on, one transcript per round into `directory`."""
    os.makedirs(directory, exist_ok=True)
    return {"round_factory": fair_round_factory(directory=directory)}
