"""Someone edits the transcript file after the fact: the chain, the signature and the checks catch it."""

import json

import pytest

from unonet.fair import audit

from .helpers import assert_audit_fails, edit_line, rechain, table


@pytest.fixture(scope="module")
def lines():
    t = table(seed="file")
    t.play_simple_round(plays=6, draws=3)
    assert audit(t.lines).ok
    return list(t.lines)


def test_a_line_removed(lines):
    assert_audit_fails(lines[:20] + lines[21:], line=21, match="prev does not match the hash of line 20", unproven=True)


def test_the_first_line_removed(lines):
    assert_audit_fails(lines[1:], line=1, match="does not chain from the genesis hash", unproven=True)


def test_the_last_line_removed(lines):
    assert_audit_fails(lines[:-1], line=len(lines) - 1, match="before round 1 ended", unproven=True)


def test_lines_reordered(lines):
    swapped = list(lines)
    swapped[30], swapped[31] = swapped[31], swapped[30]
    assert_audit_fails(swapped, line=31, match="prev does not match the hash of line 30", unproven=True)


def test_a_line_edited(lines):
    # move a deal to another seat: the next line no longer chains
    i = next(k for k, ln in enumerate(lines) if json.loads(ln)["ev"] == "deal")
    edited = edit_line(lines, i, lambda o: o.update(seat=(o["seat"] + 1) % 3))
    assert_audit_fails(edited, line=i + 2, match=f"prev does not match the hash of line {i + 1}", unproven=True)


def test_a_played_card_edited(lines):
    i = next(k for k, ln in enumerate(lines) if json.loads(ln)["ev"] == "act")
    card = json.loads(lines[i])["opening"]["card"]
    other = "W+4" if card != "W+4" else "R7"
    edited = edit_line(lines, i, lambda o: o["opening"].update(card=other))
    seat = json.loads(lines[i])["seat"]
    assert_audit_fails(edited, line=i + 1, match=f"act 0 of seat {seat} is not signed by seat {seat}", unproven=True)


def test_an_edit_with_the_chain_recomputed(lines):
    """Recomputing every prev hides the edit from the chain, not from the host's round signature."""
    i = next(k for k, ln in enumerate(lines) if json.loads(ln)["ev"] == "deal")
    edited = rechain(edit_line(lines, i, lambda o: o.update(sealed=o["sealed"][:-2] + "00")), start=i + 1)
    assert_audit_fails(edited, line=len(lines), match="round-end digest does not match the events of this round", unproven=True)


def test_the_round_signature_edited(lines):
    edited = edit_line(lines, len(lines) - 1, lambda o: o.update(sig="00" * 64))
    assert_audit_fails(edited, line=len(lines), match="host signature over the round does not verify", unproven=True)
