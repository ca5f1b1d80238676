"""Audit anchoring (crypto review, demos 3 and 6): one host key per file, shown and
checkable; rounds in increasing order and chained into the signed digests; no `game` line
outside a round's signed digest."""

import json

from unonet.fair import TranscriptWriter, audit
from unonet.fair._events import canonical_json
from unonet.fair._transcript import line_hash
from unonet.fair.audit_cli import run_audit_cli
from unonet.fair.testing import FairTable

from .helpers import assert_audit_fails, rechain


def _match(seeds):
    w = TranscriptWriter()
    tables = []
    for k, seed in enumerate(seeds):
        t = FairTable(3, seed=seed, writer=w, round_no=k + 1)
        t.play_simple_round(plays=3, draws=2)
        tables.append(t)
    return w.lines, tables


def _append(lines, obj):
    obj = dict(obj, prev=line_hash(lines[-1]))
    return lines + [canonical_json(obj)]


def test_a_game_line_outside_a_round_is_refused():
    """demo6: a fake final score appended after round-end sat in no signed digest."""
    lines, _ = _match(["one-round"])
    fake = {"ev": "game", "data": {"g": "end", "winner": 2, "points": 999}}
    bad = _append(lines, fake)
    assert_audit_fails(bad, line=len(bad), match="game event outside a round", unproven=True)
    # between two rounds as well
    lines2, tables = _match(["r-a", "r-b"])
    k = next(i for i, ln in enumerate(lines2) if i and json.loads(ln)["ev"] == "round-start")
    spliced = rechain(lines2[:k] + [canonical_json(fake)] + lines2[k:], start=k)
    assert_audit_fails(spliced, line=k + 1, match="game event outside a round", unproven=True)


def test_one_host_key_per_file():
    """demo3: two rounds by different hosts spliced into one 'match' file audited clean."""
    lines, tables = _match(["real-host", "forger"])
    second = next(i for i, ln in enumerate(lines) if i and json.loads(ln)["ev"] == "round-start") + 1
    assert_audit_fails(lines, line=second, match="one host key per file", unproven=True)


def test_the_clean_summary_names_the_host_key_and_an_expected_key_is_checked(tmp_path, capsys):
    w = TranscriptWriter()
    t = FairTable(3, seed="anchor", writer=w)
    t.play_simple_round(plays=3, draws=2)
    fp = t.host_identity.public.fingerprint
    r = audit(w.lines)
    assert r.ok and r.host == fp and r.summary.endswith(f"; host key {fp}") and r.to_json()["host"] == fp
    assert audit(w.lines, host=fp.lower().replace("-", "")).ok  # as typed: case and dashes ignored
    assert audit(w.lines, host=fp[:12]).ok  # the join code (its first 10 characters) pins it too
    other = FairTable(3, seed="someone-else").host_identity.public.fingerprint
    r = audit(w.lines, host=other)
    assert not r.ok and r.line == 1 and f"the host key is {fp}, not the expected {other}" in r.reason
    # the CLI (engine replay included) takes the expected key too
    from tests.table.helpers import fair_round
    host, _ = fair_round(players=3, seed="anchor-cli")
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(host.lines) + "\n")
    mine = host.dealer.identity.public.fingerprint
    assert run_audit_cli(str(path), False, host=mine) == 0
    assert capsys.readouterr().out.strip().endswith(f"; host key {mine}")
    assert run_audit_cli(str(path), False, host=other) == 1
    assert capsys.readouterr().out.startswith(f"line 1: the host key is {mine}, not the expected {other}")
    assert run_audit_cli(str(path), False, host="uu-not-a-code") == 2
    assert "unonet audit: --host: join code" in capsys.readouterr().err
    assert run_audit_cli(str(path), False, host=other) == 1
    assert capsys.readouterr().out.startswith(f"line 1: the host key is {mine}, not the expected {other}")


def test_round_numbers_increase_within_a_file():
    w = TranscriptWriter()
    t1 = FairTable(3, seed="h", writer=w, round_no=2)
    t1.play_simple_round(plays=3, draws=2)
    t2 = FairTable(3, seed="h", writer=w, round_no=2, host_identity=t1.host_identity, identities=t1.identities)
    t2.play_simple_round(plays=3, draws=2)
    second = next(i for i, ln in enumerate(w.lines) if i and json.loads(ln)["ev"] == "round-start") + 1
    assert_audit_fails(w.lines, line=second, match="round 2 follows round 2", unproven=True)


def test_the_host_signature_covers_the_order_of_rounds():
    """Rounds chained by their signed digests: a genuine round moved to another place (here:
    two rounds of one host swapped and re-chained) no longer matches its chain head."""
    w = TranscriptWriter()
    t1 = FairTable(3, seed="o", writer=w, round_no=1)
    t1.play_simple_round(plays=3, draws=2)
    n1 = len(w.lines)
    t2 = FairTable(3, seed="o2", writer=w, round_no=2, host_identity=t1.host_identity, identities=t1.identities)
    t2.play_simple_round(plays=3, draws=2)
    assert audit(w.lines).ok
    first, second = w.lines[:n1], w.lines[n1:]
    # round 2 alone, re-chained from the genesis: its round-start names another head
    alone = rechain(second)
    assert_audit_fails(alone, line=1, match="does not name the transcript's chain head", unproven=True)
    # and a round-start edited to name the new head breaks the host's signed round digest
    obj = json.loads(alone[0])
    obj.pop("prev")
    from unonet.fair import GENESIS
    obj["digest"] = GENESIS
    forged = rechain([canonical_json(obj)] + alone[1:])
    # the seats signed their seed commitments over the true round-start: the first one no longer verifies
    commit_line = next(k for k, ln in enumerate(forged, 1) if json.loads(ln)["ev"] == "player-commit")
    assert_audit_fails(forged, line=commit_line, match="seed commitment of seat 0 has a bad signature")
    assert first  # round 1 stays valid on its own
    assert audit(first).ok
