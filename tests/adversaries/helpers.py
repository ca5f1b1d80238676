"""Shared pieces for the adversary catalogue: cheating hosts and players."""

import dataclasses
import json

from unonet.fair import Card, Commitments, FairDealer, Opening, audit
from unonet.fair._seal import challenge_ad, deal_ad, seal
from unonet.fair._shuffle import commitments_message, pad_openings, round_end_message
from unonet.fair._transcript import GENESIS, line_hash
from unonet.fair.testing import FairTable

# a small deck that makes Wild Draw Four challenges easy to set up
SMALL = tuple(Card(f) for f in ["G1", "G2", "G3", "Y5", "W+4", "W+4", "W+4", "W", "B9", "B8"] * 3)
DECKS = {"small": SMALL}


def signed_play(t: FairTable, signer: int, opening, seat: int | None = None, n: int | None = None):
    """A play of `opening` in seat `seat`'s name (default: the signer's), signed with seat
    `signer`'s own key: how a cheating player speaks."""
    from unonet.fair import Act, sign_seat_event

    v = t.verifiers[signer]
    seat = signer if seat is None else seat
    lg = v.ledger
    act = Act(seat=seat, n=lg.acts[seat] if n is None else n, action={"t": "play", "pos": opening.position},
              opening=opening)
    out = sign_seat_event(v.identity, lg.table, lg.round_no, lg.start_digest, act)
    if seat == signer:
        v._made.add(out.canonical())  # the cheater's own client knows its own word
    return out


def table(n=3, **kw) -> FairTable:
    return FairTable(n, **kw)


def started(n=3, **kw) -> FairTable:
    t = FairTable(n, **kw)
    t.start()
    t.deal_hands()
    return t


def assert_audit_fails(lines, *, line, match, decks=None, signer=None, unproven=None):
    """The audit fails at `line` naming `match`. `signer`: the cheating host's key, for a host lie
    in a record no later host signature covers: that file blames nobody, and the same record
    with every round signed by the host over what it published (`host_resigns`) convicts the
    host at the same line. `unproven`: the file blames nobody (True) or someone (False)."""
    kw = {"decks": decks} if decks else {}
    report = audit(lines, **kw)
    assert not report.ok, "audit passed a cheating transcript"
    assert report.line == line, report.summary
    assert match in report.reason, report.summary
    assert report.summary.startswith(f"line {line}: ")
    if unproven is not None or signer is not None:
        want = True if unproven is None else unproven
        assert report.unproven == want and (report.to_json()["blame"] is None) == want, report.summary
    if signer is not None:
        signed = audit(host_resigns(lines, signer), **kw)
        assert not signed.ok and signed.line == line and match in signed.reason, signed.summary
        assert not signed.unproven and signed.to_json()["blame"] == "host", signed.summary
    return report


def line_of(t: FairTable, predicate) -> int:
    """1-based transcript line of the first event matching `predicate`."""
    return next(i for i, e in enumerate(t.events, 1) if predicate(e))


def resign_commitments(t: FairTable, ev: Commitments, commitments) -> Commitments:
    """The host holds its own key, so it can sign whatever list it likes."""
    lg = t.dealer.ledger
    e = lg.epochs[ev.epoch]
    msg = commitments_message(lg.table, lg.round_no, e.number, e.base, e.host_commit, lg.contributions_digest(e),
                              tuple(commitments))
    return dataclasses.replace(ev, commitments=tuple(commitments), sig=t.host_identity.sign(msg))


def rechain(lines, start=0):
    """Recompute every `prev` from line `start` on: what an editor of the file would do."""
    out = list(lines[:start])
    head = GENESIS if start == 0 else line_hash(out[-1])
    for line in lines[start:]:
        obj = json.loads(line)
        obj["prev"] = head
        new = json.dumps(obj, sort_keys=True, separators=(",", ":"))
        head = line_hash(new)
        out.append(new)
    return out


def edit_line(lines, index, change):
    obj = json.loads(lines[index])
    change(obj)
    out = list(lines)
    out[index] = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    return out


def seal_deal(t: FairTable, opening: Opening, seat: int, to_key: bytes) -> bytes:
    lg = t.dealer.ledger
    return seal(pad_openings([opening], lg.opening_size), recipient_dh=to_key, ad=deal_ad(lg.table, lg.round_no, opening.position, seat, to_key),
                randbytes=t.randbytes)


def seal_challenge(t: FairTable, openings) -> bytes:
    lg = t.dealer.ledger
    ch = lg.challenge
    key = lg.seats[ch.challenger].dh_key
    ad = challenge_ad(lg.table, lg.round_no, ch.number, ch.challenger, ch.challenged, ch.positions, key)
    return seal(pad_openings(list(openings), lg.opening_size), recipient_dh=key, ad=ad, randbytes=t.randbytes)


def signed_response(t: FairTable, openings=None, *, sealed: bytes | None = None, eph: bytes = b"\x05" * 32):
    """A challenge response made by the challenged seat itself (signed with its key), sealing
    `openings` (or carrying raw `sealed` bytes) with the ephemeral key `eph`; and a function
    making the signed ChallengeKey that discloses `eph`."""
    from unonet.fair import ChallengeKey, ChallengeResponse
    from unonet.fair._seal import challenge_key_message, challenge_response_message
    lg = t.dealer.ledger
    ch = lg.challenge
    key = lg.seats[ch.challenger].dh_key
    if sealed is None:
        ad = challenge_ad(lg.table, lg.round_no, ch.number, ch.challenger, ch.challenged, ch.positions, key)
        sealed = seal(pad_openings(list(openings), lg.opening_size), recipient_dh=key, ad=ad, randbytes=t.randbytes,
                      ephemeral=eph)
    ident = t.identities[ch.challenged]
    sig = ident.sign(challenge_response_message(lg.table, lg.round_no, ch.number, ch.challenger, ch.challenged,
                                                ch.positions, sealed))
    resp = ChallengeResponse(challenger=ch.challenger, challenged=ch.challenged, positions=ch.positions,
                             sealed=sealed, sig=sig)
    number, who = ch.number, ch.challenged

    def key_event(secret: bytes = eph):
        return ChallengeKey(challenged=who, secret=secret, sig=ident.sign(
            challenge_key_message(lg.table, lg.round_no, number, who, secret)))

    return resp, key_event


def round_end_sig(t: FairTable, digest: bytes) -> bytes:
    lg = t.dealer.ledger
    return t.host_identity.sign(round_end_message(lg.table, lg.round_no, digest))


def w4_table(guilty: bool, strict=True):
    """A table where seat 0 holds a W+4 and (guilty) also a G card, or (innocent) none."""
    for i in range(300):
        t = FairTable(2, seed=f"adv-w4-{i}", deck_name="small", deck=SMALL, strict=strict)
        t.start()
        t.deal_hands(5)
        hand = t.dealer.hand(0)
        w4 = [j for j, c in hand.items() if c.secret == "W+4"]
        has_g = any(c.secret.startswith("G") for c in hand.values())
        if w4 and has_g == guilty:
            return t, w4[0]
    raise AssertionError("no seed found")


def match_table(seed: str, players: int = 3, host_cls=None, *, rules=None, seat_cls=None, strict=False, **kw):
    """A table-level match in one process (`unonet.table`): a host of `host_cls` (an adversary
    test's cheating host; default the honest `TableHost`), a `seat_cls` (default `TableSeat`)
    per player and an observer, every key drawn from `seed`; violations recorded, not raised
    (unless ``strict``)."""
    from unonet.engine import make_rules
    from unonet.fair import Identity
    from unonet.fair.testing import det_randbytes
    from unonet.table import LocalTable, TableHost, TableSeat

    rb = det_randbytes(seed)
    host_id = Identity.generate(rb)
    ids = [Identity.generate(rb) for _ in range(players)]
    host = (host_cls or TableHost)(rules or make_rules(), players, identity=host_id, seats=[i.public for i in ids],
                                   randbytes=rb, **kw)
    seats = [(seat_cls or TableSeat)(s, ids[s], host_id.public, randbytes=rb) for s in range(players)]
    return LocalTable(host, seats, [TableSeat(None, None, host_id.public)], strict=strict)


__all__ = [n for n in dir() if not n.startswith("_")] + ["FairDealer"]


def assert_unproven(report, *, line=None, match=None):
    """The audit of a file whose bad relayed seat message no later host signature covers: it
    fails there, naming what failed, and blames nobody (the file alone cannot show whether the
    host relayed it or someone altered or cut the file since: tests/adversaries/test_audit_blame.py)."""
    assert not report.ok and report.unproven and report.to_json()["blame"] is None, report.summary
    assert "the file does not show who put it there" in report.reason, report.summary
    assert not report.reason.startswith("the host"), report.summary
    if line is not None:
        assert report.line == line, report.summary
    if match is not None:
        assert match in report.reason, report.summary
    return report


def host_signs_on(lines, identity):
    """The cheating host's record going on to a round it signs with its own key: a `round-end`
    over the open round's digest as the file stands (or, when no round is open, a next
    `round-start` naming the chain head, and its `round-end`). Only then does a file prove the
    host published its unsigned lines (`unonet audit`, docs/fair-play.md §11.13)."""
    from unonet.fair._encoding import lp, round_context, sha256, tag
    from unonet.fair._events import Event, RoundAbort, RoundEnd, RoundStart

    head, digest, ctx, last_start, open_ = GENESIS, None, None, None, False
    for raw in lines:
        obj = json.loads(raw)
        obj.pop("prev", None)
        ev = Event.from_json(obj)
        head = line_hash(raw)
        if isinstance(ev, RoundStart):
            digest = sha256(tag("round-digest"), round_context(ev.table, ev.round), lp(ev.digest))
            ctx, last_start, open_ = (ev.table, ev.round), json.loads(raw), True
        if isinstance(ev, (RoundEnd, RoundAbort)):
            open_ = False
        if ev.EV in ("match-start", "match-join", "round-abort", "round-sign", "round-end") or digest is None:
            continue
        b = ev.canonical().encode("ascii")
        digest = sha256(digest, len(b).to_bytes(4, "big"), b)
    out = list(lines)

    def put(obj):
        nonlocal head
        obj["prev"] = head
        new = json.dumps(obj, sort_keys=True, separators=(",", ":"))
        head = line_hash(new)
        out.append(new)

    if not open_:
        assert last_start is not None, "no round-start to go on from"
        start = dict(last_start, digest=head, attempt=last_start.get("attempt", 1) + 1)
        start.pop("prev", None)
        put(start)
        ev = Event.from_json({k: v for k, v in start.items() if k != "prev"})
        ctx = (ev.table, ev.round)
        b = ev.canonical().encode("ascii")
        digest = sha256(sha256(tag("round-digest"), round_context(ev.table, ev.round), lp(ev.digest)),
                        len(b).to_bytes(4, "big"), b)
    put({"ev": "round-end", "digest": digest.hex(), "sig": identity.sign(round_end_message(ctx[0], ctx[1], digest)).hex()})
    return out


def assert_convicted_when_signed(lines, identity, *, match=None, line=None, auditor=None):
    """A host-blamed lie in a record that stops at it: the cut file blames nobody; the same
    record the host goes on to sign (`host_signs_on`) convicts the host at the same line.
    `auditor`: the audit to run (default `unonet.fair.audit`; the table's adds the engine replay)."""
    from unonet.fair import audit as _fair_audit

    _audit = auditor or _fair_audit
    cut = _audit(lines)
    assert not cut.ok and cut.unproven and cut.to_json()["blame"] is None, cut.summary
    if match is not None:
        assert match in cut.reason, cut.summary
    signed = _audit(host_signs_on(lines, identity))
    assert not signed.ok and not signed.unproven and signed.to_json()["blame"] == "host", signed.summary
    assert signed.line == cut.line and (line is None or signed.line == line), (cut.summary, signed.summary)
    if match is not None:
        assert match in signed.reason, signed.summary
    return signed


def host_resigns(lines, identity):
    """The record with every `prev` recomputed and each `round-end`'s digest and signature made
    anew by the host's own key over the events as they stand (and a last open round ended and
    signed): the host signs what it published."""
    from unonet.fair._encoding import lp, round_context, sha256, tag
    from unonet.fair._events import Event, RoundEnd, RoundStart

    out, head, digest, ctx, open_ = [], None, None, None, False
    for raw in lines:
        obj = json.loads(raw)
        if head is not None:
            obj["prev"] = head
        ev = Event.from_json({k: v for k, v in obj.items() if k != "prev"})
        if isinstance(ev, RoundStart):
            digest = sha256(tag("round-digest"), round_context(ev.table, ev.round), lp(ev.digest))
            ctx, open_ = (ev.table, ev.round), True
        if isinstance(ev, RoundEnd) and digest is not None:
            obj["digest"] = digest.hex()
            obj["sig"] = identity.sign(round_end_message(ctx[0], ctx[1], digest)).hex()
            open_ = False
        elif ev.EV == "round-abort":
            open_ = False
        elif ev.EV not in ("match-start", "match-join", "round-sign") and digest is not None:
            b = ev.canonical().encode("ascii")
            digest = sha256(digest, len(b).to_bytes(4, "big"), b)
        new = json.dumps(obj, sort_keys=True, separators=(",", ":"))
        head = line_hash(new)
        out.append(new)
    return host_signs_on(out, identity) if open_ else out
