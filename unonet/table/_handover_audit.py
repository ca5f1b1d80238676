"""A hand-over checked offline (`unonet audit NEW --continues OLD`): the old match's transcript
audited and replayed into its continuation, and the new transcript's claim checked against it.
Apart from `_handover` (what every seat checks live) because it needs the audit's engine replay,
which itself builds on the match referee that `_handover` serves."""

from __future__ import annotations

import json
from types import SimpleNamespace

from ..fair import FairPlayViolation
from ..fair._audit import audit
from ..fair._events import Event, EventFormatError
from ..ledger import after_rounds
from ._handover import Continuation, check_continuation, check_seats
from ._replay import TABLE_DECKS, GameAuditor

__all__ = ["continuation_of_transcript", "audit_handover"]


def continuation_of_transcript(lines) -> Continuation:
    """The continuation an old match's transcript gives (audited first: a transcript that
    fails its audit continues nothing).  The round it stops in is void."""
    g = GameAuditor()
    seen = SimpleNamespace(match=None)

    def on_match(line, event, match):
        seen.match = match
        g.on_match(line, event, match)

    report = audit(lines, on_game=g.on_game, on_round_end=g.on_round_end, on_match=on_match,
                   decks=TABLE_DECKS, require_match=True)
    if not report.ok and not _stops_unfinished(report):
        raise FairPlayViolation(f"the old match's transcript fails its audit: {report.summary}")
    if seen.match is None:
        raise FairPlayViolation("the old transcript holds no match")
    return Continuation.of_seat(SimpleNamespace(match=seen.match, referee=g.referee))


def _stops_unfinished(report) -> bool:
    """A transcript cut in a round (its host died) fails only for the end it lacks."""
    return report.reason is not None and report.reason.startswith("transcript ends")


def audit_handover(old_lines, new_lines) -> str:
    """`unonet audit NEW --continues OLD`: the new transcript's continuation is exactly what
    the old one gives.  Returns a one-line summary; raises FairPlayViolation naming the lie."""
    first = next((ln for ln in new_lines if ln.strip()), "")
    try:
        start = json.loads(first)
    except ValueError:
        raise FairPlayViolation("the new transcript does not open with a match-start") from None
    if not isinstance(start, dict) or start.get("ev") != "match-start":
        raise FairPlayViolation("the new transcript does not open with a match-start")
    own = continuation_of_transcript(old_lines)
    try:
        event = Event.from_json({k: v for k, v in start.items() if k != "prev"})
    except (EventFormatError, ValueError) as exc:
        raise FairPlayViolation(f"the new transcript's match-start is malformed ({exc})") from None
    claimed = Continuation.from_json(event.continues) if event.continues is not None else None
    if claimed is not None:
        check_seats(event, claimed)
    check_continuation(claimed, own)
    return (f"continues match {own.match.hex()[:16]} {after_rounds(own.rounds)} with scores {list(own.scores)}, "
            + (f"seat {own.dealer} to deal" if own.dealer is not None else "its first dealer still to be drawn"))
