"""The match ledger chain: its byte encoding (checked by a second implementation written from
docs/scorekeeper.md), the chain's rules, disputed rounds, tamper evidence, the JSON form."""

from __future__ import annotations

import dataclasses
import hashlib
import pathlib
import struct

import pytest

from unonet.engine import make_rules
from unonet.ledger import NO_DIGEST, NO_KEY, LedgerError, MatchHeader, MatchLedger, RoundEntry
from unonet.store.testing import bot_match, player_key

NAMES = ["Ana", "Ben", "Cleo", "Dev"]


# -- a second implementation of docs/scorekeeper.md "The ledger chain", from the text alone --
def u32(n):
    return struct.pack(">I", n)


def lp(b):
    return u32(len(b)) + b


def tag(name):
    return lp(b"unonet/ledger/v1/" + name.encode())


def ints(xs):
    return u32(len(xs)) + b"".join(u32(x) for x in xs)


def doc_genesis(h: dict) -> bytes:
    body = (lp(h["match"]) + lp(h["table"]) + lp(h["preset"].encode()) + lp(h["deck"].encode())
            + u32(len(h["house"])) + b"".join(lp(x.encode()) for x in h["house"]) + bytes([h["teams"]])
            + lp(h["scoring"].encode()) + u32(h["target"]) + u32(len(h["seats"]))
            + b"".join(lp(k) for k in h["seats"]))
    return hashlib.sha256(tag("genesis") + body).digest()


def doc_round_hash(e: dict) -> bytes:
    winner = b"\x00" if e["winner"] is None else b"\x01" + u32(e["winner"])
    body = (lp(e["match"]) + lp(e["table"]) + u32(e["round"]) + u32(e["attempt"]) + u32(e["dealer"]) + winner
            + u32(e["points"]) + ints(e["hand_points"]) + ints(e["scores"]) + ints(e["team_scores"])
            + lp(e["digest"]) + lp(e["host"]) + ints(e["cosigners"])
            + bytes([{"verified": 0, "disputed": 1}[e["status"]]]) + lp(e["reason"].encode()))
    return hashlib.sha256(tag("round") + lp(e["prev"]) + body).digest()


def header(**kw) -> MatchHeader:
    base = dict(match=bytes(range(16)), table=b"kitchen", seats=tuple(player_key(n) for n in NAMES))
    base.update(kw)
    return MatchHeader(**base)


@pytest.mark.parametrize("rules", [dict(), dict(teams=True), dict(scoring="elimination"),
                                   dict(house=["stacking", "seven-o"], target=200)],
                         ids=["standard", "teams", "elimination", "house"])
def test_a_second_implementation_from_the_docs_gives_the_same_heads(rules):
    r = make_rules("official", rules.get("house", []), teams=rules.get("teams", False),
                   scoring=rules.get("scoring", "standard"), target=rules.get("target", 500))
    pm = bot_match(r, NAMES, 11)
    h = pm.header
    assert doc_genesis(dict(match=h.match, table=h.table, preset=h.preset, deck=h.deck, house=list(h.house),
                            teams=h.teams, scoring=h.scoring, target=h.target, seats=list(h.seats))) == h.genesis
    prev = h.genesis
    for e in pm.entries:
        fields = {f.name: getattr(e, f.name) for f in dataclasses.fields(e) if f.init}
        assert e.prev == prev
        prev = doc_round_hash(fields)
        assert prev == e.hash
    assert prev == pm.head


def test_the_documented_vector():
    """The example in docs/scorekeeper.md, byte for byte."""
    h = MatchHeader(match=bytes(16), table=b"t1", seats=(bytes([1]) * 32, bytes([2]) * 32))
    ledger = MatchLedger(h)
    e1 = ledger.entry(round=1, dealer=0, winner=1, points=30, hand_points=[30, 0], scores=[0, 30],
                      digest=bytes([0xAA]) * 32, host=bytes([1]) * 32, cosigners=[0, 1])
    ledger.append(e1)
    e2 = ledger.disputed(round=2, dealer=1, reason="round digest signature does not verify", attempt=0)
    ledger.append(e2)
    got = (h.genesis.hex(), e1.hash.hex(), e2.hash.hex())
    doc = (pathlib.Path(__file__).parents[2] / "docs" / "scorekeeper.md").read_text(encoding="utf-8")
    for value in got:
        assert value in doc, value


def test_the_header_is_the_genesis_every_setting_changes_it():
    base = header()
    others = [header(match=bytes(15) + b"\x01"), header(table=b"kitchen2"), header(preset="house"),
              header(deck="2018"), header(house=("stacking",)), header(teams=True), header(scoring="elimination"),
              header(target=499), header(seats=tuple(reversed(base.seats)))]
    assert len({base.genesis, *(o.genesis for o in others)}) == len(others) + 1


@pytest.mark.parametrize("kw,needle", [
    (dict(match=b"short"), "match id must be 16 bytes"),
    (dict(seats=(bytes(32),)), "2..10 players"),
    (dict(seats=(bytes(32), bytes(31))), "seat 1 key must be 32 bytes"),
    (dict(house=("b", "a")), "sorted"),
    (dict(teams=True, seats=(bytes(32),) * 3), "even number"),
    (dict(scoring="golf"), "scoring must be"),
    (dict(teams=True, scoring="elimination"), "standard way"),
    (dict(target=0), "at least 1"),
    (dict(preset="Bad Name"), "short lowercase"),
])
def test_a_malformed_header_is_refused(kw, needle):
    with pytest.raises(LedgerError, match=needle):
        header(**kw)


def test_the_chain_rules():
    h = header()
    ledger = MatchLedger(h)
    entry = dict(dealer=0, winner=1, points=20, hand_points=[10, 0, 5, 5], scores=[0, 20, 0, 0],
                 digest=b"d" * 32, host=h.seats[0])
    with pytest.raises(LedgerError, match="first round is round 1"):
        ledger.check(ledger.entry(round=2, **entry))
    e1 = ledger.entry(round=1, **entry)
    ledger.append(e1)
    assert ledger.head == e1.hash and ledger.scores == (0, 20, 0, 0)
    with pytest.raises(LedgerError, match="does not follow the head"):
        ledger.check(dataclasses.replace(ledger.entry(round=2, **entry), prev=h.genesis))
    with pytest.raises(LedgerError, match="cannot follow round 1"):
        ledger.check(ledger.entry(round=3, **entry))
    with pytest.raises(LedgerError, match="cannot follow round 1"):  # a verified round is not retried
        ledger.check(ledger.entry(round=1, attempt=1, **entry))
    with pytest.raises(LedgerError, match="dealer 4 is not a seat"):
        ledger.check(ledger.entry(round=2, **{**entry, "dealer": 4}))
    with pytest.raises(LedgerError, match="one value per seat"):
        ledger.check(ledger.entry(round=2, **{**entry, "scores": [0, 20, 0]}))
    with pytest.raises(LedgerError, match="distinct seats in order"):
        ledger.check(ledger.entry(round=2, cosigners=[1, 0], **entry))
    with pytest.raises(LedgerError, match="belongs to another match"):
        ledger.check(dataclasses.replace(ledger.entry(round=2, **entry), match=bytes(16)))


def test_a_disputed_round_is_chained_not_counted_and_may_be_retried():
    h = header(teams=True)
    ledger = MatchLedger(h)
    ledger.append(ledger.entry(round=1, dealer=0, winner=1, points=20, hand_points=[10, 0, 5, 5],
                               scores=[0, 20, 0, 0], digest=b"d" * 32, host=h.seats[0]))
    before = ledger.scores
    bad = ledger.disputed(round=2, dealer=1, reason="seat 2's hand does not open\nits commitment",
                          winner=2, points=999, digest=b"x" * 32, host=h.seats[0])
    assert bad.reason == "seat 2's hand does not open its commitment"  # one line
    assert bad.scores == before and bad.team_scores == (0, 20)
    ledger.append(bad)
    assert ledger.scores == before and ledger.head == bad.hash
    with pytest.raises(LedgerError, match="disputed, so it cannot change the scores"):
        ledger.check(dataclasses.replace(ledger.disputed(round=2, attempt=1, dealer=1, reason="again"),
                                         scores=(0, 999, 0, 0), team_scores=(0, 999)))
    with pytest.raises(LedgerError, match="cannot follow"):  # a retry has a higher attempt
        ledger.check(ledger.disputed(round=2, dealer=1, reason="again"))
    retry = ledger.entry(round=2, attempt=1, dealer=1, winner=3, points=40, hand_points=[10, 10, 20, 0],
                         scores=[0, 60, 0, 0], digest=b"e" * 32, host=h.seats[0])
    ledger.append(retry)
    assert ledger.team_scores == (0, 60)
    with pytest.raises(LedgerError, match="reason"):
        RoundEntry(**{**{f.name: getattr(bad, f.name) for f in dataclasses.fields(bad) if f.init}, "reason": ""})


def test_team_scores_must_be_the_sums_of_the_seats():
    h = header(teams=True)
    ledger = MatchLedger(h)
    e = ledger.entry(round=1, dealer=0, winner=1, points=20, hand_points=[10, 0, 5, 5], scores=[0, 20, 0, 0],
                     digest=b"d" * 32, host=h.seats[0])
    with pytest.raises(LedgerError, match="not the sums"):
        ledger.check(dataclasses.replace(e, team_scores=(20, 0)))


def test_every_field_is_in_the_hash():
    pm = bot_match(make_rules(teams=True), NAMES, 3)
    e = pm.entries[2]
    changes = dict(round=e.round + 1, attempt=1, dealer=(e.dealer + 1) % 4, winner=None, points=e.points + 1,
                   hand_points=tuple(p + 1 for p in e.hand_points), scores=tuple(s + 1 for s in e.scores),
                   team_scores=(e.team_scores[0] + 1, e.team_scores[1]), digest=bytes(32), host=NO_KEY,
                   cosigners=(0,), prev=NO_DIGEST, status="disputed", table=b"other", match=bytes(16))
    for name, value in changes.items():
        extra = {"reason": "x"} if name == "status" else {}
        assert dataclasses.replace(e, **{name: value}, **extra).hash != e.hash, name
    assert dataclasses.replace(e, status="disputed", reason="a").hash != dataclasses.replace(
        e, status="disputed", reason="b").hash


def test_json_round_trip_and_a_wrong_hash_is_refused():
    pm = bot_match(make_rules(), NAMES, 5)
    assert MatchHeader.from_json(pm.header.to_json()) == pm.header
    for e in pm.entries:
        back = RoundEntry.from_json(e.to_json())
        assert back == e and back.hash == e.hash
    obj = pm.entries[0].to_json()
    obj["points"] += 1
    with pytest.raises(LedgerError, match="hash given is not the hash"):
        RoundEntry.from_json(obj)
    with pytest.raises(LedgerError, match="lowercase hex"):
        MatchHeader.from_json({**pm.header.to_json(), "match": pm.header.match.hex().upper()})
    with pytest.raises(LedgerError, match="fields"):
        RoundEntry.from_json({"round": 1})
