"""The fair side of a host hand-over (unonet.table._handover, spec §7): the new host's
match-start continues the old match exactly, checked by every seat and by the audit.
Adversary tests sign their own lies with the new host's own key."""

from __future__ import annotations

import dataclasses

import pytest

from unonet.engine import make_bot, make_rules, play_round
from unonet.fair import FairPlayViolation, Identity
from unonet.fair.testing import det_randbytes
from unonet.table import Continuation, LocalTable, TableHost, TableSeat, make_table
from unonet.table._handover_audit import continuation_of_transcript


def _old_match(rounds=2, seed="h"):
    rules = make_rules(target=10_000)
    rb = det_randbytes(seed)
    ids = [Identity.generate(rb) for _ in range(4)]
    t = make_table(rules, 4, randbytes=rb, identities=ids)
    for r in range(rounds):
        rnd = t.start_round()
        play_round(rnd, [make_bot("heuristic", f"{seed}/{r}/{s}") for s in range(4)])
        t.pump()  # the co-signs
    t.start_round()  # the round in progress when the host dies: never ended, void
    return rules, rb, ids, t


def _new_table(rules, rb, ids, claimed, expected, *, strict=True):
    new_host = Identity.generate(rb)
    host = TableHost(rules, 4, identity=new_host, seats=[i.public for i in ids], host_seat=None,
                     randbytes=rb, continues=claimed)
    seats = [TableSeat(s, ids[s], new_host.public, randbytes=rb, continues=expected[s]) for s in range(4)]
    return LocalTable(host, seats, [TableSeat(None, None, new_host.public)], strict=strict)


def test_a_handover_continues_the_scores_and_the_deal():
    rules, rb, ids, old = _old_match()
    own = [Continuation.of_seat(s) for s in old.seats]
    assert len(set(own)) == 1 and own[0].rounds == 2 and own[0].digest is not None
    assert list(own[0].scores) == list(old.host.referee.match.scores) and sum(own[0].scores) > 0
    new = _new_table(rules, rb, ids, own[0], own)
    rnd = new.start_round()
    assert rnd.host.referee.match.scores == list(own[0].scores)
    setup = next(e.data for e in new.host.events if e.EV == "game")
    assert setup["scores"] == list(own[0].scores) and setup["dealer"] == own[0].dealer and setup["round"] == 1
    play_round(rnd, [make_bot("heuristic", f"n/{s}") for s in range(4)])
    new.pump()
    # every seat's referee carried on from the old scores
    assert all(s.referee.match.scores == new.host.referee.match.scores for s in new.seats)
    # the audit of the old transcript gives the same continuation (the round in progress is void)
    assert continuation_of_transcript(old.lines) == own[0]
    nxt = Continuation.of_seat(new.seats[0])
    assert nxt.rounds == 3 and nxt.match == new.host.match.match_id


@pytest.mark.parametrize("lie, words", [
    (lambda c: dataclasses.replace(c, scores=(c.scores[0] + 50,) + c.scores[1:]), "carries scores"),
    (lambda c: dataclasses.replace(c, rounds=c.rounds - 1), "replays a round"),
    (lambda c: dataclasses.replace(c, rounds=c.rounds + 1), "skips a round"),
    (lambda c: dataclasses.replace(c, match=bytes(16)), "a different match"),
    (lambda c: dataclasses.replace(c, dealer=(c.dealer + 1) % 4), "to deal next"),
    (lambda c: dataclasses.replace(c, digest=bytes(32)), "not the co-signed"),
    (lambda c: None, "fresh match instead of continuing"),
])
def test_a_new_host_that_lies_about_the_old_match_is_caught(lie, words):
    rules, rb, ids, old = _old_match(seed="lie")
    own = [Continuation.of_seat(s) for s in old.seats]
    new = _new_table(rules, rb, ids, lie(own[0]), own)  # the new host signs its own lie
    with pytest.raises(FairPlayViolation, match=words):
        new.start_match()


def test_a_seat_refuses_a_continuation_it_never_played():
    rules, rb, ids, old = _old_match(rounds=1, seed="stranger")
    own = Continuation.of_seat(old.seats[0])
    new = _new_table(rules, rb, ids, own, [None] * 4)
    with pytest.raises(FairPlayViolation, match="never played"):
        new.start_match()


def test_the_continuation_round_trips_and_fresh_match_starts_are_unchanged():
    rules, rb, ids, old = _old_match(rounds=1, seed="rt")
    own = Continuation.of_seat(old.seats[1])
    assert Continuation.from_json(own.to_json()) == own
    start = old.host.events[0]
    assert start.EV == "match-start" and "continues" not in start.to_json()
    assert type(start).from_json(start.to_json()) == start
    with pytest.raises(Exception, match="left out, not null"):
        type(start).from_json({**start.to_json(), "continues": None})


def test_the_audit_checks_a_continuation_against_the_old_transcript():
    from unonet.table._handover_audit import audit_handover

    rules, rb, ids, old = _old_match(rounds=1, seed="audit")
    own = Continuation.of_seat(old.seats[0])
    good = _new_table(rules, rb, ids, own, [own] * 4)
    good.start_match()
    assert "after 1 completed round " in audit_handover(old.lines, good.lines)
    liar = dataclasses.replace(own, scores=tuple(s + 1 for s in own.scores))
    bad = _new_table(rules, rb, ids, liar, [None] * 4, strict=False)  # seats that cannot check it
    bad.start_match()
    with pytest.raises(FairPlayViolation, match="carries scores"):
        audit_handover(old.lines, bad.lines)


def test_unonet_audit_continues_names_the_lie(tmp_path):
    import subprocess
    import sys

    rules, rb, ids, old = _old_match(rounds=1, seed="cli")
    own = Continuation.of_seat(old.seats[0])
    (tmp_path / "old.jsonl").write_text("\n".join(old.lines) + "\n")
    for name, claim in (("good", own), ("bad", dataclasses.replace(own, rounds=2))):
        t = _new_table(rules, rb, ids, claim, [claim] * 4)  # (seats that go along: the audit alone checks)
        t.start_match()
        (tmp_path / f"{name}.jsonl").write_text("\n".join(t.lines) + "\n")
    run = lambda name: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "unonet", "audit", str(tmp_path / f"{name}.jsonl"), "--continues",
         str(tmp_path / "old.jsonl")], capture_output=True, text=True, timeout=120)
    good, bad = run("good"), run("bad")
    assert good.returncode == 0 and "continues match" in good.stdout, good.stdout + good.stderr
    assert bad.returncode == 1 and "skips a round" in bad.stdout, bad.stdout + bad.stderr
