"""The wire history on disk (issue 26): what goes in comes back, message for message, and the
process keeps only offsets (a long match's history is not held in memory)."""

from __future__ import annotations

import pytest

import unonet.protocol as P
from unonet.fair.testing import FairTable
from unonet.net._spool import MessageSpool


def _messages() -> list[P.Message]:
    idents = [P.Identity.generate() for _ in range(3)]
    t = FairTable(3, table=bytes(range(16)), identities=[i.fair_identity() for i in idents],
                  host_identity=P.Identity.generate().fair_identity(), seed="spool")
    t.start()
    t.deal_hands()
    t.turn_up()
    t.play(0, min(t.hand(0)))
    t.finish()
    out: list[P.Message] = [P.Fair.of(ev, round=1) for ev in t.events]
    out.insert(3, P.Election(term=1, host=bytes(32), head=bytes(32), rounds=0))
    out.append(P.Heartbeat(seq=7))
    return out


def test_a_spool_gives_back_every_message_in_order():
    msgs = _messages()
    spool = MessageSpool(msgs[:5])
    for m in msgs[5:]:
        spool.append(m)
    assert len(spool) == len(msgs) and bool(spool)
    assert list(spool) == msgs
    assert spool[0] == msgs[0] and spool[-1] == msgs[-1] and spool[2:6] == msgs[2:6]
    assert spool.types == {"fair": len(msgs) - 2, "election": 1, "heartbeat": 1}
    back = spool[4]
    assert isinstance(back, P.Fair) and back.event() == msgs[4].event()  # the event, checked again
    with pytest.raises(IndexError):
        spool[len(msgs)]
    assert not MessageSpool() and list(MessageSpool()) == []


def test_a_spool_holds_the_bytes_on_disk_not_the_messages():
    msgs = _messages()
    spool = MessageSpool(msgs)
    size = spool._file.seek(0, 2)
    assert size == sum(len(P.encode_message(m)) for m in msgs) > 10_000
    assert len(spool._ends) * spool._ends.itemsize == 8 * len(msgs)  # in memory: one offset each
    spool.close()
