"""Issue 22 class 5 over real loopback links: the elected host seats its own bot's key in a
live player's seat (keeping that seat's score). A CLI host is killed mid-match; joiner a
is elected and cheats with the project's own classes (`SuccessorTable`, `HostTable`, its
own key); follower b refuses the new `match-start` live, naming the new host, and so does
`unonet audit NEW --continues OLD` run over the transcripts b received."""

from __future__ import annotations

import dataclasses

import pytest
import trio

from unonet.fair import FairPlayViolation, TranscriptWriter
from unonet.net._election import SuccessorTable
from unonet.net._seats import BOT_KIND
from unonet.protocol import Election, Fair
from unonet.table._handover_audit import audit_handover

from tests.net.test_election import Joiner, _match_with_joiners


def _seat_own_bot_in(victim_name: str, *, rewrite: bool):
    """The cheat: once the election is settled, a bot of the new host (its own key) takes
    the seat of the live player ``victim_name``; ``rewrite``: the continuation's old seat
    keys are rewritten to match."""
    honest = SuccessorTable._resume

    def resume(self, table, missing):
        honest(self, table, missing)
        victim = next(s for s in table.book.seats if s is not None and s.name == victim_name)
        table.book.stand(victim.seat)
        bot = table._add_local(BOT_KIND, victim.name, None, seat=victim.seat)
        if rewrite:
            cont = table.carry.continuation
            keys = list(cont.seats)
            keys[victim.seat] = bot.identity.fingerprint
            table.carry = dataclasses.replace(table.carry, continuation=dataclasses.replace(cont, seats=tuple(keys)))
    return resume


def _transcripts(history) -> tuple[list[str], list[str]]:
    """The old host's and the new host's transcripts as a follower received them."""
    old, new, at = TranscriptWriter(), TranscriptWriter(), 0
    for m in history:
        if isinstance(m, Election):
            at += 1
        elif isinstance(m, Fair):
            (old if at == 0 else new).append(m.event())
    return old.lines, new.lines


async def _elected_cheat():
    js = [Joiner("a"), Joiner("b"), Joiner("c")]
    b = js[1]
    # (once b has refused, the cheater's table plays on without it: the joiners are cancelled)
    await _match_with_joiners(("--players", "5", "--bots", "1"), js, limit=120,
                              until=lambda: b.error is not None or b.result is not None)
    return js


@pytest.mark.parametrize("rewrite", [False, True], ids=["true-old-keys", "rewritten-old-keys"])
def test_an_elected_host_that_seats_its_bot_in_a_live_players_seat_is_refused_on_the_wire(monkeypatch, rewrite):
    monkeypatch.setattr(SuccessorTable, "_resume", _seat_own_bot_in("c", rewrite=rewrite))
    js = trio.run(_elected_cheat)
    a, b = js[0], js[1]
    assert any(x.get("t") == "election" and x.get("me") for x in a.out), "a was not elected"
    err = b.error
    words = "gives seat" if rewrite else "seats key"
    assert err is not None and err.cheat, f"b took the seat change: {err}"
    assert "the host failed a fair-play check" in str(err) and "the new host" in str(err) and words in str(err)
    # offline: the transcripts b received (the old host's, the new host's) fail the hand-over check
    old, new = _transcripts(b.side.history)
    assert old and new and '"match-start"' in new[0]
    with pytest.raises(FairPlayViolation, match=words):
        audit_handover(old, new)
