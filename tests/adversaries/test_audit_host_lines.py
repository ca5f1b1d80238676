"""`unonet audit` never blames the host for one of its own lines that a file's holder could have made.

A transcript's lines carry no signature of their own: they chain by `prev`, and the host signs
each round at its `round-end` (a later `round-start` names the chain head). So anyone who holds
a file can edit one of the host's lines (a `game` record, a `deal`, a `round-start`, ...),
recompute the chain or cut the file after it, and the audit used to answer "the host ..."
(`blame: host`) at that line. Now a host-blamed failure convicts only under a later host
signature that covers the line (`_host_signed_after`, docs/fair-play.md §11.13), or when the
host's own signature carries the evidence (an epoch-0 `commitments` list its revealed seed
contradicts); otherwise the file fails at that line, names what failed and blames nobody."""

from __future__ import annotations

import json

import pytest

from unonet.fair import Commitments, FairDealer, audit
from unonet.table import audit_transcript

from .helpers import edit_line, host_signs_on, line_of, rechain, table
from .test_match_cheats import _play, _table


def _flip(hexstr: str) -> str:
    return hexstr[:-1] + ("0" if hexstr[-1] != "0" else "1")


def _swap_card(op: dict) -> None:
    op["card"] = "G9" if op["card"] != "G9" else "R9"


#: one lie per kind of host line, in an honest two-round match: (kind, which one, the edit)
EDITS = [
    ("match-start", 0, lambda o: o.update(sig=_flip(o["sig"]))),
    ("round-start", 0, lambda o: o.update(dealer=1) if "dealer" in o else o.update(attempt=2)),
    ("round-start", 1, lambda o: o.update(waived=[1])),
    ("game/setup", 0, lambda o: o["data"].update(scores=[300, 0, 0])),
    ("game/start", 0, lambda o: o["data"].update(ev=o["data"]["ev"][:-1])),
    ("game/act", 0, lambda o: o["data"]["a"].update(uno=not o["data"]["a"].get("uno"))),
    ("game/end", 0, lambda o: o["data"].update(winner=(o["data"]["winner"] + 1) % 3)),
    ("seed-commit", 0, lambda o: o.update(host_commit=_flip(o["host_commit"]))),
    ("commitments", 0, lambda o: o.update(commitments=[_flip(o["commitments"][0])] + o["commitments"][1:])),
    ("deal", 0, lambda o: o.update(sealed=_flip(o["sealed"]))),
    ("turn-up", 0, lambda o: _swap_card(o["opening"])),
    ("challenge", 0, lambda o: o.update(colour="R" if o["colour"] != "R" else "G")),
    ("reveal", 0, lambda o: _swap_card(o["openings"][0])),
    ("seed-reveal", 0, lambda o: o.update(host_secret=_flip(o["host_secret"]))),
    ("round-end", 0, lambda o: o.update(digest=_flip(o["digest"]))),
    ("round-end", 1, lambda o: o.update(sig=_flip(o["sig"]))),
]


@pytest.fixture(scope="module")
def honest():
    t = _table("host-lines")
    t.start_match()
    _play(t, "a")
    _play(t, "b")
    lines = list(t.lines)
    assert audit_transcript(lines).ok
    return t, lines


def _kind(raw: str) -> str:
    o = json.loads(raw)
    return f"game/{o['data']['g']}" if o["ev"] == "game" else o["ev"]


def _index(lines, kind: str, which: int) -> int:
    return [i for i, ln in enumerate(lines) if _kind(ln) == kind][which]


def _blames_nobody(report, at: int | None = None) -> None:
    assert not report.ok, "an edited file audits clean"
    assert report.to_json()["blame"] is None and report.unproven, report.summary
    assert "the file does not show who put it there" in report.reason, report.summary
    if at is not None:
        assert report.line == at, report.summary


@pytest.mark.parametrize("kind, which, edit", EDITS, ids=[f"{k}#{w}" for k, w, _ in EDITS])
def test_an_edited_host_line_never_gets_the_host_blamed(honest, kind, which, edit):
    """Edited and cut right after it; edited with the chain recomputed to the end; edited in
    place (the chain broken after it): the audit fails, and blames nobody."""
    _, lines = honest
    i = _index(lines, kind, which)
    edited = edit_line(lines, i, edit)
    assert edited[i] != lines[i]
    _blames_nobody(audit_transcript(edited[: i + 1]), at=i + 1)
    _blames_nobody(audit_transcript(rechain(edited, start=i + 1)))
    _blames_nobody(audit_transcript(edited))
    _blames_nobody(audit(rechain(edited, start=i + 1)))  # (the audit without the engine replay, too)


@pytest.mark.parametrize("kind", ["round-start", "game/setup", "deal", "act", "game/act", "challenge",
                                  "seed-reveal", "round-end", "round-sign"])
def test_an_honest_file_cut_anywhere_blames_nobody(honest, kind):
    _, lines = honest
    i = _index(lines, kind, 0)
    report = audit_transcript(lines[: i + 1])
    if report.ok:  # (cut at a round's end: what it holds is clean)
        return
    _blames_nobody(report, at=i + 1)
    assert "transcript ends" in report.reason, report.summary


def test_the_host_that_signs_the_edited_line_is_convicted(honest):
    """The proven case: the same lie under a round the host signs with its own key."""
    t, lines = honest
    i = _index(lines, "game/end", 0)
    cut = edit_line(lines, i, next(e for k, _, e in EDITS if k == "game/end"))[: i + 1]
    _blames_nobody(audit_transcript(cut), at=i + 1)
    report = audit_transcript(host_signs_on(cut, t.host.identity))
    assert not report.ok and report.line == i + 1 and report.to_json()["blame"] == "host", report.summary
    assert not report.unproven and "the file does not show" not in report.reason, report.summary


class _StackingHost(FairDealer):
    check_self = False

    def _order(self, cards, seed):
        return sorted(super()._order(cards, seed), key=lambda c: not c.secret.startswith("W"))


def test_commitments_the_revealed_seed_contradicts_convict_the_host_without_a_later_signature():
    """The host's signature over the epoch-0 commitments (with H(r_h) and the seats' seeds in
    it) and r_h itself are the proof: no holder of the file can make them disagree."""
    t = table(seed="stack-cut", dealer_cls=_StackingHost, strict=False)
    t.start()
    t.deal_hands()
    t.finish()
    reveal = line_of(t, lambda e: e.EV == "seed-reveal")
    commit_line = line_of(t, lambda e: isinstance(e, Commitments))
    cut = list(t.lines[:reveal])
    report = audit(cut)
    assert not report.ok and report.line == commit_line, report.summary
    assert report.to_json()["blame"] == "host" and not report.unproven, report.summary
    assert "does not match the deck recomputed from the seed" in report.reason


def test_a_seed_reveal_edited_in_a_cut_file_blames_nobody():
    """r_h in the seed-reveal line is unsigned: anyone can change it, so a mismatch with H(r_h)
    in a file cut there proves nothing."""
    t = table(seed="rh-cut")
    t.play_simple_round(plays=4, draws=2)
    i = line_of(t, lambda e: e.EV == "seed-reveal") - 1
    cut = edit_line(t.lines, i, lambda o: o.update(host_secret=_flip(o["host_secret"])))[: i + 1]
    _blames_nobody(audit(cut), at=i + 1)
