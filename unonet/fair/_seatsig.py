"""Every seat's word signed by the seat, in one place.

A seat event (an engine action, a challenge verdict or dispute, a deal dispute) carries
the seat's Ed25519 signature over a domain tag, the round's context (table, round, and the
round's context digest: the digest of its `round-start`, which names the transcript's chain
head, its set-up and the host's seed commitment) and the event's canonical JSON without
its `sig`. Nothing a seat signed verifies in another round, under
another seat, or with one field changed.
"""

from __future__ import annotations

import dataclasses

from ._encoding import lp, round_context, tag
from ._identity import Identity, PublicIdentity


def _unsigned_canonical(event) -> str:
    """The event's canonical JSON with an empty `sig`.  Keys are sorted and `sig` is a hex
    string, so it is the event's own canonical JSON with its one `"sig":"<hex>"` emptied;
    where that text is not found exactly once (a nested field that repeats it) the copy with
    an empty sig is serialised; an unsigned event's is its own."""
    if event.sig == b"":
        return event.canonical()
    if event.sig:
        text = event.canonical()
        field = f'"sig":"{event.sig.hex()}"'
        if text.count(field) == 1:
            return text.replace(field, '"sig":""')
    return dataclasses.replace(event, sig=b"").canonical()


def seat_event_message(table: bytes, round_no: int, start_digest: bytes, event) -> bytes:
    body = _unsigned_canonical(event).encode("ascii")
    return tag("seat-event") + round_context(table, round_no) + lp(start_digest) + lp(body)


def sign_seat_event(identity: Identity, table: bytes, round_no: int, start_digest: bytes, event):
    """`event` with its `sig` set by `identity`."""
    return dataclasses.replace(event, sig=identity.sign(seat_event_message(table, round_no, start_digest, event)))


def seat_event_ok(who: PublicIdentity, table: bytes, round_no: int, start_digest: bytes, event) -> bool:
    return who.verify(event.sig, seat_event_message(table, round_no, start_digest, event))
