"""Fair play in `unonet simulate`: every round dealt by a FairDealer, checked by every seat.

`transcript_factory(DIR)` gives the `simulate()` keyword arguments that play each round
fair-play-on (`unonet.table`: host, one TableSeat per bot, an observer) and write each
match's public record to `DIR/match-MMM.jsonl`, which `unonet audit FILE` re-verifies,
the rules included.

Randomness: the fair layer's random bytes (r_h, r_i, seal keys, identities) come from a
stream seeded by the match's own random generator, so `--seed` replays a fair simulation
exactly, as it does a plain one. A real table uses the operating system's randomness.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .engine import Match, Round
from .fair import Identity
from .fair.testing import det_randbytes
from .table import TABLE_DECKS, LocalTable, make_table


def fair_round_factory(*, directory: str | None = None, observer: bool = True,
                       on_table: Callable[[LocalTable], None] | None = None,
                       one_file: bool = True) -> Callable[[Match], Round]:
    """A `round_factory` for `simulate()` that plays every round fair-play-on.

    One `LocalTable` (one TableHost, one transcript) per match; with `directory`, the
    match's transcript is (re)written there after each round, one file per match
    (`match-MMM.jsonl`). `on_table(table)` runs after each round."""
    state: dict = {"match": None, "number": 0, "table": None}

    def round_factory(match: Match) -> Round:
        if match.rules.deck not in TABLE_DECKS:  # (the command checks it first, as bad input)
            raise ValueError(f"fair play does not support the {match.rules.deck} deck yet")
        # One 64-bit draw per round, as Match.new_round makes: the match's rng stays in step.
        seed = match.rng.getrandbits(64)
        if match is not state["match"]:
            rb = det_randbytes(f"unonet-simulate/{seed}")
            state["match"] = match
            state["number"] += 1
            number = state["number"]
            host_id = Identity.generate(rb)
            ids = [Identity.generate(rb) for _ in range(match.players)]

            def finished(host) -> None:
                if directory is not None:
                    path = os.path.join(directory, f"match-{number:03d}.jsonl")
                    with open(path, "w", encoding="utf-8", newline="\n") as f:
                        f.write(host.writer.text())
                if on_table is not None:
                    on_table(state["table"])

            table = state["table"] = make_table(
                match.rules, match.players, randbytes=rb, identities=ids, host_identity=host_id,
                observer=observer, on_finish=finished,
            )
            table.start_match()
        table = state["table"]
        rnd = table.start_round()
        if not table.host.referee.match.history and table.host.round is not None:
            # the match's first dealer is drawn from round 1's seat seed reveals (no one's
            # choice): the simulation's Match follows it, then both pass the deal on by one rule
            match.dealer = table.host.round.dealer
        if table.host.round.dealer != match.dealer:  # pragma: no cover - the two Matches agree by construction
            raise AssertionError(f"simulate's dealer {match.dealer} is not the fair table's {table.host.round.dealer}")
        return rnd

    return round_factory


def transcript_factory(directory: str) -> dict:
    """`simulate()` keyword arguments: fair play on, one transcript per match into `directory`."""
    os.makedirs(directory, exist_ok=True)
    return {"round_factory": fair_round_factory(directory=directory)}
