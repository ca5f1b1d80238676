"""`unonet audit` blames the host for a bad seat message only when the file shows the host put it there.

Live, a seat's message that fails its check convicts the host that relayed it: it came on the
host's authenticated link (§11.13). A transcript *file* carries no signature per line: its
lines chain by `prev`, and the host signs each round (`round-end`, over the round digest that
absorbs every line of it; a later `round-start` names the chain head that hashes every line
before it). So a file that anyone holds (a seat, a scorekeeper, whoever it was passed to) with
one byte of a seat's act changed used to fail the audit "the host relayed an act in seat 0's
name that fails its check" (`blame: host`): a player could frame its honest host with the
audit by editing its copy. Now the audit convicts the host of a failing relayed message only
under a later host signature that covers its line; otherwise it names the line and what failed
and blames nobody (`unproven`). A host that relays the bad message and signs the round over it
(its own lie, signed with its own key) is convicted as before."""

from __future__ import annotations

import json

from unonet.fair import audit
from unonet.fair._encoding import lp, round_context, sha256, tag
from unonet.fair._shuffle import round_end_message
from unonet.fair._transcript import line_hash

from .helpers import edit_line, rechain, table


def _honest():
    t = table(seed="blame")
    t.play_simple_round(plays=6, draws=3)
    assert audit(t.lines).ok
    return t, list(t.lines)


def _flip_sig(lines, i):
    return edit_line(lines, i, lambda o: o.update(sig=o["sig"][:-1] + ("0" if o["sig"][-1] != "0" else "1")))


def _act_line(lines) -> int:
    return next(k for k, ln in enumerate(lines) if json.loads(ln)["ev"] == "act")


def _resigned(lines, identity):
    """The file with every `prev` recomputed and each round-end's digest and signature made anew
    by the host's own key over the events as they now stand: the host signs what it relayed."""
    from unonet.fair._events import Event, RoundEnd, RoundStart

    out, head, digest, ctx = [], None, None, None
    for raw in lines:
        obj = json.loads(raw)
        if head is not None:
            obj["prev"] = head
        body = {k: v for k, v in obj.items() if k != "prev"}
        ev = Event.from_json(dict(body))
        if isinstance(ev, RoundStart):  # (before the edit: its chain head stands)
            digest = sha256(tag("round-digest"), round_context(ev.table, ev.round), lp(ev.digest))
            ctx = (ev.table, ev.round)
        if isinstance(ev, RoundEnd):
            obj["digest"] = digest.hex()
            obj["sig"] = identity.sign(round_end_message(ctx[0], ctx[1], digest)).hex()
        elif ev.EV not in ("match-start", "match-join", "round-abort", "round-sign") and digest is not None:
            b = ev.canonical().encode("ascii")
            digest = sha256(digest, len(b).to_bytes(4, "big"), b)
        new = json.dumps(obj, sort_keys=True, separators=(",", ":"))
        head = line_hash(new)
        out.append(new)
    return out


def test_a_seats_act_edited_in_a_file_does_not_get_the_honest_host_blamed():
    _, lines = _honest()
    i = _act_line(lines)
    report = audit(_flip_sig(lines, i))
    assert not report.ok and report.line == i + 1, report.summary
    assert report.unproven and report.to_json()["blame"] is None, report.to_json()
    assert "the host relayed" not in report.reason, report.reason
    assert report.reason.startswith("an act in seat ") and "fails its check" in report.reason, report.reason
    assert f"no round the host signed later in it covers line {i + 1}" in report.reason, report.reason


def test_an_edit_with_the_chain_recomputed_blames_nobody_either():
    _, lines = _honest()
    i = _act_line(lines)
    report = audit(rechain(_flip_sig(lines, i), start=i + 1))
    assert not report.ok and report.line == i + 1, report.summary
    assert report.unproven and report.to_json()["blame"] is None, report.to_json()


def test_a_file_cut_right_after_a_bad_act_blames_nobody():
    _, lines = _honest()
    i = _act_line(lines)
    report = audit(_flip_sig(lines, i)[: i + 1])
    assert not report.ok and report.line == i + 1 and report.unproven, report.summary


def test_a_host_that_relays_a_bad_act_and_signs_the_round_over_it_is_convicted():
    t, lines = _honest()
    i = _act_line(lines)
    signed = _resigned(_flip_sig(lines, i), t.host_identity)
    report = audit(signed)
    assert not report.ok and report.line == i + 1, report.summary
    assert not report.unproven and report.to_json()["blame"] == "host", report.to_json()
    assert report.reason.startswith("the host relayed an act in seat "), report.reason


def test_the_resigning_helper_keeps_an_honest_file_clean():
    t, lines = _honest()
    assert audit(_resigned(lines, t.host_identity)).ok
