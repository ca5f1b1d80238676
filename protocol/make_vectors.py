#!/usr/bin/env python3
"""Generate protocol/vectors/*.json and the message reference in spec.md.

Run once after a schema change:  python3 protocol/make_vectors.py
Tests (tests/protocol/test_vectors.py) check the files both ways and fail if
they are stale, so the language-neutral spec can't drift from the code.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import sys
from pathlib import Path

# the engine's pure sources: the event table is made from field annotations as written (a
# compiled dataclass reports classes there, and the same table must come out of either build)
os.environ["UNONET_PURE"] = "1"

import msgpack

import unonet.protocol as P
from unonet.protocol._schema import LINK

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "vectors"
SPEC = HERE / "spec.md"
BEGIN = "<!-- BEGIN GENERATED MESSAGE REFERENCE (protocol/make_vectors.py) -->"
END = "<!-- END GENERATED MESSAGE REFERENCE -->"


#: the versions this unonet speaks, as beacons, probes and hellos carry them
VERS = {"v": P.PROTOCOL_VERSION, "vmin": P.MIN_PROTOCOL_VERSION}


def b(label: str, n: int) -> bytes:
    """Deterministic filler bytes, so vectors are reproducible."""
    out = b""
    i = 0
    while len(out) < n:
        out += hashlib.sha256(f"{label}/{i}".encode()).digest()
        i += 1
    return out[:n]


def fair_events() -> list[tuple[str, object]]:
    """One of every fair event (docs/fair-play.md §4), with filler bytes."""
    import unonet.fair as F
    from unonet.fair._shuffle import Opening as FOpening

    ids = [F.Identity(b(f"identity{i}", 64), static_key=b(f"static{i}", 32)).public for i in range(3)]
    deck = F.classic_deck()
    op = FOpening(position=17, card=F.Card("G+2"), salt=b("salt17", 32))
    op2 = FOpening(position=5, card=F.Card("R7"), salt=b("salt5", 32))
    flip = FOpening(position=9, card=F.Card("R1", "TSE"), salt=b("salt9", 32))  # a real Flip card
    return [
        ("match-start", F.MatchStart(nonce=b("hnonce", 16), host=ids[0], host_seat=0, seats=tuple(ids),
                                     names=("Ann", "Bob", "Cy"), rules={"deck": "classic", "target": 500},
                                     sig=b("mssig", 64))),
        ("match-join", F.MatchJoin(seat=1, start=b("mshash", 32), nonce=b("snonce1", 16), sig=b("mjsig", 64))),
        ("round-start", F.RoundStart(table=b("table", 16), round=1, host=ids[0], host_seat=0,
                                     seats=tuple(ids), deck_name="classic", deck=tuple(deck),
                                     digest=b("head", 32), attempt=1, history=b("history", 32), waived=(2,))),
        ("round-abort", F.RoundAbort(round=1, attempt=1, reason="seed commit timed out", stalled=(2,),
                                     sig=b("rasig", 64))),
        ("seed-commit", F.SeedCommit(epoch=0, base=0, host_commit=b("hc0", 32), sources=())),
        ("seed-commit-reshuffle", F.SeedCommit(epoch=1, base=108, host_commit=b("hc1", 32),
                                               sources=(0, 3, 17))),
        ("player-commit", F.PlayerCommit(epoch=0, seat=1, commit=b("pc1", 32), sig=b("ps1", 64))),
        ("player-reveal", F.PlayerReveal(epoch=0, seat=1, secret=b("r1", 32))),
        ("commitments", F.Commitments(epoch=0, base=0,
                                      commitments=tuple(b(f"C{j}", 32) for j in range(3)),
                                      sig=b("csig", 64))),
        ("deal", F.Deal(position=0, seat=1, sealed=b("sealed0", 100))),
        ("deal-flip", F.Deal(position=9, seat=2, sealed=b("sealed9", 110), public="TSE")),
        ("turn-up", F.TurnUp(opening=op)),
        ("act", F.Act(seat=1, n=3, action={"t": "play", "pos": 5, "seat": 1, "color": None, "uno": False},
                      opening=op2, sig=b("asig", 64))),
        ("act-draw", F.Act(seat=2, n=0, action={"t": "draw", "seat": 2}, sig=b("asig2", 64))),
        ("host-act", F.HostAct(seat=2, action={"t": "draw", "seat": 2}, reason="turn timeout")),
        ("reveal", F.Reveal(seat=2, openings=(op,))),
        ("flip", F.Flip(side=1, openings=(flip,))),
        ("challenge", F.Challenge(challenger=2, challenged=1, colour="G", positions=(4, 8))),
        ("challenge-response", F.ChallengeResponse(challenger=2, challenged=1, positions=(4, 8),
                                                   sealed=b("sealedch", 200), sig=b("crsig", 64))),
        ("challenge-timeout", F.ChallengeTimeout(challenged=1)),
        ("verdict-timeout", F.VerdictTimeout(challenger=2, challenged=1)),
        ("deal-dispute", F.DealDispute(seat=1, position=17, sig=b("ddsig", 64))),
        ("deal-key", F.DealKey(position=17, secret=b("dealeph", 32))),
        ("challenge-verdict", F.ChallengeVerdict(challenger=2, challenged=1, guilty=True, proof=op,
                                                 sig=b("vsig", 64))),
        ("challenge-verdict-innocent", F.ChallengeVerdict(challenger=2, challenged=1, guilty=False,
                                                          sig=b("vsig2", 64))),
        ("challenge-dispute", F.ChallengeDispute(challenger=2, challenged=1, sig=b("dsig", 64), number=1)),
        ("challenge-key", F.ChallengeKey(challenged=1, secret=b("eph", 32), sig=b("ksig", 64))),
        ("seed-reveal", F.SeedReveal(epoch=0, host_secret=b("rh", 32))),
        ("round-end", F.RoundEnd(digest=b("digest", 32), sig=b("rsig", 64))),
        ("round-sign", F.RoundSign(seat=1, digest=b("digest", 32), sig=b("cosig1", 64))),
        ("game", F.GameEvent(data=game_act_draw())),
    ]


def game_act_draw() -> dict:
    """A `game` record as the host sends it: seat 1 drew one card on its turn."""
    from unonet.engine import deck_cards
    from unonet.engine._events import Drew
    from unonet.table._round import events_json

    return {"g": "act", "a": {"t": "draw", "seat": 1}, "ev": events_json([Drew(seat=1, cards=[deck_cards("classic")[7]])])}


#: the match-level events: their `fair` message carries round 0 (spec §6.1)
MATCH_LEVEL = ("match-start", "match-join")


def fair_cases() -> list[tuple[str, P.Message]]:
    return [(f"fair-{name}", P.Fair.of(ev, round=0 if ev.EV in MATCH_LEVEL else 1)) for name, ev in fair_events()]


def valid_cases() -> list[tuple[str, P.Message]]:
    pid = [b(f"peer{i}", 32) for i in range(4)]
    table, match = b("table", 16), b("match", 16)
    sp = [P.SeatPoints(seat=1, points=42), P.SeatPoints(seat=2, points=0)]
    return [
        ("beacon", P.Beacon(**VERS, table=table, name="Kitchen table", host="ann", port=47777,
                            seats=4, taken=2, rules="official", fp=b("fp", 32))),
        ("beacon-reply", P.Beacon(**VERS, table=table, name="Den", host="bob", port=47778,
                                  seats=6, taken=6, rules="office", house=("stacking", "seven-o"),
                                  teams=True, target=250, state="playing", fp=b("fp", 32),
                                  nonce=b("nonce", 8))),
        ("probe", P.Probe(**VERS, nonce=b("nonce", 8))),
        ("hello", P.Hello(**VERS, role="player", name="Zoë", sign_key=b("sk", 32),
                          seal_key=b("seal", 32), sig=b("sig", 64), table=table, client="unonet 0.1.0")),
        ("hello-host", P.Hello(v=P.PROTOCOL_VERSION + 1, vmin=P.MIN_PROTOCOL_VERSION, role="host", name="ann",
                               sign_key=b("sk2", 32),
                               seal_key=b("seal2", 32), sig=b("sig2", 64), features=("flip",))),
        ("seat", P.SeatAssignment(seat=2, id=pid[2])),
        ("seat-team", P.SeatAssignment(seat=3, id=pid[3], team=1)),
        ("roster", P.Roster(
            table=table, epoch=3, host=pid[0],
            players=(P.PlayerEntry(seat=0, id=pid[0], name="ann", addr="10.77.0.1:47777"),
                     P.PlayerEntry(seat=1, id=pid[1], name="bob", team=1, connected=False, bot=True)),
            observers=(P.ObserverEntry(id=pid[3], name="scorer"),),
            succession=(pid[0], pid[1]), rules="official", house=("jump-in",), target=500,
            teams=True, scoring="elimination", name="ann's table")),
        ("ready", P.Ready(round=2)),
        ("match_over", P.MatchOver(winner=1, scores=(120, 512, 0, 77), rounds=6,
                                   ledger=b("L6", 32))),
        ("leave", P.Leave(reason="bedtime")),
        ("leave-empty", P.Leave()),
        ("heartbeat", P.Heartbeat(seq=12, head=b("head", 32))),
        ("heartbeat-min", P.Heartbeat(seq=0)),
        ("error", P.ErrorReport(code="out-of-turn", message="not your turn", field="fair.body",
                                ref="fair", fatal=False)),
        ("error-fatal", P.ErrorReport(code="malformed", message="fair.round: expected an integer")),
        ("error-refusal", P.ErrorReport(code="stale", message="too late: the table moved on", ref="fair",
                                        fatal=False, refuses=b("refused fair body", 32))),
        *fair_cases(),
        ("turn", P.Turn(seq=19, seat=1, timeout_ms=30000)),
        ("round_end", P.RoundEnd(round=1, reason="out", winner=1,
                                 points=tuple(sp), totals=tuple(sp))),
        ("round_end-voided", P.RoundEnd(round=2, reason="voided")),
        ("ledger", P.Ledger(match=match, rounds=1, head=b("L1", 32),
                            entries=(P.LedgerEntry(round=1, winner=1, points=tuple(sp),
                                                   hash=b("L1", 32)),))),
        ("election", P.Election(term=1, host=pid[1], head=b("L1", 32), rounds=1)),
        ("rejoin", P.Rejoin(table=table, seat=2, round=1, at=22)),
    ]


def fair_invalid(pk) -> list[tuple]:
    """``fair`` messages a decoder must refuse: not canonical, wrong sizes, wrong ev."""
    import json as _json

    good = {ev.EV: _json.loads(ev.canonical()) for _, ev in fair_events()}

    def fm(ev, obj, *, raw=None, name=None):
        body = raw if raw is not None else _json.dumps(
            obj, sort_keys=True, separators=(",", ":")).encode()
        return pk({"t": "fair", "round": 1, "ev": name or ev, "body": body})

    pc = good["player-commit"]
    return [
        ("fair-sig-too-short", fm("player-commit", {**pc, "sig": "00" * 63}), "malformed",
         "fair.body.sig"),
        ("fair-commit-too-long", fm("player-commit", {**pc, "commit": "00" * 33}), "malformed",
         "fair.body.commit"),
        ("fair-seat-out-of-range", fm("player-commit", {**pc, "seat": 10}), "malformed",
         "fair.body.seat"),
        ("fair-epoch-out-of-range", fm("player-commit", {**pc, "epoch": 256}), "malformed",
         "fair.body.epoch"),
        ("fair-missing-sig", fm("player-commit", {k: v for k, v in pc.items() if k != "sig"}),
         "malformed", "fair.body"),
        ("fair-not-canonical", fm("player-commit", None,
                                  raw=_json.dumps(pc, sort_keys=True).encode()),
         "malformed", "fair.body"),
        ("fair-ev-mismatch", fm("player-commit", pc, name="player-reveal"), "malformed", "fair.ev"),
        ("fair-unknown-ev", fm("x", pc, name="teleport"), "malformed", "fair.ev"),
        ("fair-not-json", fm("player-commit", None, raw=b"{not json"), "malformed", "fair.body"),
        ("fair-table-short", fm("round-start", {**good["round-start"], "table": "00" * 8}),
         "malformed", "fair.body.table"),
        ("fair-round-mismatch", fm("round-start", {**good["round-start"], "round": 2}),
         "malformed", "fair.round"),
        ("fair-deep-game", fm("game", None, raw=b'{"data":' + b'{"a":' * 40 + b'1' + b'}' * 40
                              + b',"ev":"game"}'), "malformed", "fair.body.data"),
        ("fair-position-out-of-range", fm("deal", {**good["deal"], "position": 4096}),
         "malformed", "fair.body.position"),
    ]


def invalid_cases() -> list[dict]:
    """Wire bytes a decoder must refuse, with the error code and field path."""

    def pk(obj) -> bytes:
        return msgpack.packb(obj, use_bin_type=True)

    hb = {"t": "heartbeat", "seq": 1, "head": bytes(32)}
    cases = [
        ("not-msgpack", b"\xc1", "malformed", None),
        ("trailing-bytes", pk({"t": "ready", "round": 1}) + b"\x00", "malformed", None),
        ("not-a-map", pk(["ready"]), "malformed", None),
        ("no-type", pk({"round": 1}), "malformed", "t"),
        ("type-not-string", pk({"t": 7}), "malformed", "t"),
        ("unknown-type", pk({"t": "teleport"}), "unknown-type", "t"),
        ("superseded-type", pk({"t": "play", "at": 1, "card": "R7", "pos": 5, "salt": bytes(32)}),
         "unknown-type", "t"),
        ("datagram-on-link", pk({"t": "probe", "v": 1, "vmin": 1, "nonce": bytes(8)}),
         "unexpected", "t"),
        ("missing-field", pk({"t": "ready"}), "malformed", "ready.round"),
        ("bin-too-short", pk({**hb, "head": bytes(31)}), "malformed", "heartbeat.head"),
        ("bin-as-str", pk({**hb, "head": "00" * 32}), "malformed", "heartbeat.head"),
        ("negative-seq", pk({**hb, "seq": -1}), "malformed", "heartbeat.seq"),
        ("seq-too-big", pk({**hb, "seq": 2**32}), "malformed", "heartbeat.seq"),
        ("bool-as-int", pk({"t": "turn", "seq": 1, "seat": True}), "malformed", "turn.seat"),
        ("float-int", pk({"t": "ready", "round": 1.0}), "malformed", "ready.round"),
        ("nil-for-optional", pk({**hb, "head": None}), "malformed", "heartbeat.head"),
        ("seat-out-of-range", pk({"t": "turn", "seq": 1, "seat": 10}), "malformed", "turn.seat"),
        ("duplicate-key", b"\x82\xa1t\xa5ready\xa1t\xa5ready", "malformed", None),
        ("int-key", pk({"t": "ready", "round": 1, 5: 1}), "malformed", "<key>"),
        ("control-char-in-name", pk({"t": "leave", "reason": "bye\x1b[2J"}), "malformed",
         "leave.reason"),
        ("too-many-seats", pk({"t": "match_over", "winner": 0, "scores": list(range(11)), "rounds": 1,
                               "ledger": bytes(32)}), "malformed", "match_over.scores"),
        ("nested-bad", pk({"t": "round_end", "round": 1, "reason": "out", "winner": 1,
                           "points": [{"seat": 1, "points": -1}]}), "malformed", "round_end.points[0].points"),
        ("winner-missing", pk({"t": "round_end", "round": 1, "reason": "out"}), "malformed",
         "round_end.winner"),
        ("bin-too-long", pk({"t": "rejoin", "table": bytes(17), "seat": 1, "round": 1, "at": 1}), "malformed",
         "rejoin.table"),
        *fair_invalid(pk),
        ("ext-type", pk({"t": "ready", "round": msgpack.ExtType(1, b"x")}), "malformed", None),
    ]
    return [{"name": n, "hex": data.hex(), "code": code, "field": field}
            for n, data, code, field in cases]


def framing_vectors() -> dict[str, object]:
    """Padding, framing and one encrypted transport frame (spec §4.1-§4.2)."""
    from unonet.protocol._noise import CipherState

    key = b("transport-key", 32)
    padded = []
    for name, msg in [("heartbeat", P.Heartbeat(seq=7)),
                      ("hello", valid_cases()[3][1]),
                      ("fair-commitments", dict(fair_cases())["fair-commitments"])]:
        plain = P.encode_plaintext(msg)
        cs = CipherState(key)
        cs.set_nonce(5)
        padded.append({"name": name, "fields": P.message_to_json(msg),
                       "message": P.encode_message(msg).hex(), "plaintext": plain.hex(),
                       "key": key.hex(), "nonce": 5,
                       "frame": P.encode_frame(cs.encrypt_with_ad(b"", plain)).hex()})
    body = P.encode_message(P.Heartbeat(seq=1))
    pad = bytes(P.PAD_BLOCK - len(body))
    bad = [
        ("nonzero-padding", body + pad[:-1] + b"\x01", "padding"),
        ("not-a-multiple", body + pad[:-1], "padding"),
        ("unpadded", body, "padding"),
        ("a-whole-block-too-much", body + pad + bytes(P.PAD_BLOCK), "padding"),
        ("only-zeros", bytes(P.PAD_BLOCK), None),
    ]
    frames = [
        {"name": "one-byte-body", "body": "00", "frame": "0000000100"},
        {"name": "max-body", "body_len": P.MAX_FRAME, "header": P.MAX_FRAME.to_bytes(4, "big").hex()},
    ]
    bad_headers = [
        {"name": "zero-length", "header": "00000000", "code": "too-large", "field": "frame.length"},
        {"name": "over-max", "header": (P.MAX_FRAME + 1).to_bytes(4, "big").hex(),
         "code": "too-large", "field": "frame.length"},
    ]
    return {
        "version": P.PROTOCOL_VERSION,
        "note": ("plaintext = message || zeros up to a multiple of pad_block; frame = 4-byte "
                 "big-endian length || ChaCha20-Poly1305(key, nonce, ad=empty, plaintext) "
                 "(Noise nonce encoding: 4 zero bytes || 64-bit little-endian counter)"),
        "pad_block": P.PAD_BLOCK, "max_frame": P.MAX_FRAME, "max_plaintext": P.MAX_PLAINTEXT,
        "max_message": P.MAX_MESSAGE,
        "padded": padded,
        "invalid_plaintexts": [{"name": n, "hex": d.hex(), "code": "malformed", "field": fl}
                               for n, d, fl in bad],
        "frames": frames,
        "invalid_frames": bad_headers,
    }


def identity_vectors() -> dict[str, object]:
    """Fingerprints, join codes, --code normalisation, the prologue and the hello
    signature input (spec §4.2-§4.5), from fixed private keys."""
    from unonet.fingerprint import fingerprint_text

    keys = []
    for i in range(3):
        ident = P.Identity.from_private_bytes(b(f"x25519-{i}", 32), b(f"ed25519-{i}", 32))
        keys.append({
            "x25519_private": b(f"x25519-{i}", 32).hex(),
            "ed25519_seed": b(f"ed25519-{i}", 32).hex(),
            "static_public": ident.static_public.hex(),
            "sign_public": ident.sign_public.hex(),
            "seal_public": ident.seal_public.hex(),
            "fingerprint": ident.fingerprint.hex(),
            "fingerprint_text": fingerprint_text(ident.static_public),
            "short_fingerprint": ident.short_fingerprint,
            "join_code": ident.join_code,
        })
    host = P.Identity.from_private_bytes(b("x25519-0", 32), b("ed25519-0", 32))
    hh = b("handshake-hash", 32)
    binding = P.hello_binding(hh, host.static_public, host.seal_public)
    code = keys[0]["join_code"]
    normal = [
        (code, code.replace("-", "")),
        (code.lower().replace("-", " "), code.replace("-", "")),
        (" " + code[:4] + "  " + code[5:], code.replace("-", "")),
        ("oilL-0000-11", "0111000011"),
        (keys[0]["fingerprint_text"], keys[0]["fingerprint_text"]),
    ]
    refused = ["7KQ2-M9XD", "7KQ2-M9XD-4U", "7KQ2 M9XD 4T!", "", "Z" * 53]
    return {
        "version": P.PROTOCOL_VERSION,
        "note": ("fingerprint = SHA-256('unonet-fingerprint-v1\\x00' || static_public); text: "
                 "Crockford base32, most significant bits first; short fingerprint = first 20 "
                 "characters, join code = first 10, both in groups of 4; seal key private = "
                 "HKDF-SHA256(ikm=ed25519_seed, salt=none, info='unonet-seal-key-v1', L=32)"),
        "prologue": P.PROLOGUE.hex(),
        "keys": keys,
        "hello_binding": {
            "handshake_hash": hh.hex(), "static_public": host.static_public.hex(),
            "seal_public": host.seal_public.hex(), "input": binding.hex(),
            "sign_public": host.sign_public.hex(), "signature": host.sign(binding).hex(),
        },
        "code_normalisation": [{"input": i, "normalised": o} for i, o in normal],
        "code_refused": refused,
        "code_checks": [
            {"code": keys[0]["join_code"], "static_public": keys[0]["static_public"],
             "match": True},
            {"code": keys[0]["join_code"], "static_public": keys[1]["static_public"],
             "match": False},
            {"code": keys[1]["short_fingerprint"], "static_public": keys[1]["static_public"],
             "match": True},
        ],
    }


def version_vectors() -> dict[str, object]:
    """Version negotiation (spec §4.4): ours and theirs -> the version, or an error."""
    pairs = [((1, 1), (1, 1)), ((1, 3), (1, 1)), ((1, 1), (1, 5)), ((2, 4), (1, 3)),
             ((3, 5), (1, 2)), ((1, 2), (3, 4)), ((2, 2), (2, 9)), ((2, 2), (1, 1))]
    out = []
    for (omin, omax), (tmin, tmax) in pairs:
        try:
            v = P.negotiate_version(tmin, tmax, omin, omax)
            out.append({"ours": [omin, omax], "theirs": [tmin, tmax], "use": v})
        except P.RemoteProtocolError:
            out.append({"ours": [omin, omax], "theirs": [tmin, tmax], "error": "version",
                        "message": f"{omin}..{omax}"})
    return {"version": P.PROTOCOL_VERSION,
            "note": "use = min(max_ours, max_theirs) if >= max(min_ours, min_theirs), else "
                    "error {code: version, message: '<our vmin>..<our v>'}",
            "vectors": out}


def card_vectors() -> dict[str, object]:
    """Every card face of every deck the engine has, and codes that are not cards."""
    from unonet.engine._cards import DECKS

    decks = {}
    for name, deck in DECKS.items():
        faces = []
        for card in deck:
            full = card.full_code() if callable(card.full_code) else card.full_code
            if full not in faces:
                faces.append(full)
        decks[name] = faces
    invalid = ["R10", "r7", "PS", "P0", "W+5", "RSE", "R5/R7", "T7/R5", "X1", "W/", "R+4",
               "GW", "", "R 7", "U+2"]
    return {"version": P.PROTOCOL_VERSION,
            "note": "distinct card codes per deck (Flip: light/dark); invalid: not card codes",
            "decks": decks, "invalid": invalid}


def fair_match_vector() -> dict:
    """One whole coherent match (header, one round of 2 seats, co-signs) whose commitments,
    signatures, seals and seeds verify end to end (tests/protocol/test_fair_match_vector.py)."""
    from unonet.engine import make_bot, make_rules, play_round
    from unonet.fair import Identity
    from unonet.fair.testing import det_randbytes
    from unonet.table import make_table

    rb = det_randbytes("unonet-spec-fair-match-vector")
    secrets = [rb(64) for _ in range(3)]
    host_id, *ids = [Identity(x) for x in secrets]
    rules = make_rules(target=50)
    table = make_table(rules, 2, randbytes=rb, identities=ids, host_identity=host_id, observer=False,
                       names=["Ann", "Bob"])
    table.start_match()
    # seat 1 drops as round 1 ends, before it co-signs: round 2's round-start waives that co-sign
    owed = table.seats[1].owed
    table.seats[1].owed = lambda: [] if table.host.finished and table.host.round_no == 1 else owed()
    rounds = 0
    while not table.host.match_over and rounds < 20:
        rnd = table.start_round()
        rnd.start()
        play_round(rnd, [make_bot("heuristic", f"spec/{rounds}/{s}") for s in range(2)])
        if rounds == 0:
            table.broadcast(table.host.timeout(1, "round-sign"))
        rounds += 1
    assert table.host.match_over, "the vector's match did not end in 20 rounds"
    assert table.host.match.attempts[0].waived == (1,), "the vector's round 2 waives seat 1's co-sign"
    return {
        "note": ("A whole match, as its transcript (docs/fair-play.md §4): match-start, both match-joins, "
                 "then every round to the target (each: round-start … round-end, its round-signs; seat 1 never "
                 "co-signs round 1, and round 2's round-start waives it). Each "
                 "line is one `fair` message's body (spec §6.1) plus `prev`. secrets: each party's 64 secret bytes (Ed25519 seed || X25519 seal key; test keys, "
                 "public on purpose) so a reader can open every sealed deal. `unonet audit` reads `lines` "
                 "clean."),
        "secrets": {"host": secrets[0].hex(), "seat 0": secrets[1].hex(), "seat 1": secrets[2].hex()},
        "lines": list(table.lines),
    }


def deck_vectors() -> dict:
    """Each deck a fair table deals, as `round-start.deck` carries it (canonical order)."""
    from unonet.table import TABLE_DECKS

    return {name: [c.to_json() for c in deck] for name, deck in TABLE_DECKS.items()}


def shuffle_vectors() -> list[dict]:
    """The shuffle stream's first blocks and Fisher-Yates permutations (spec §6.8)."""
    from unonet.fair._encoding import hmac_sha256, tag, u64
    from unonet.fair._shuffle import shuffle_order

    out = []
    for label, n in (("shuffle-a", 108), ("shuffle-b", 5), ("shuffle-c", 112)):
        seed = b(label, 32)
        out.append({"seed": seed.hex(), "blocks": [hmac_sha256(seed, tag("shuffle-stream"), u64(c)).hex()
                                                    for c in range(2)],
                    "n": n, "perm": shuffle_order(seed, n)})
    return out


def dealer_draw_vectors() -> list[dict]:
    """Round 1's dealer (spec §6.1 "Dealer draw") for fixed match ids and seat reveals (some
    seats absent, one draw with none): the draw key, each draw's seed and the values the
    seats in contention drew, then the dealer."""
    from unonet.engine import classic_draw_values
    from unonet.fair._shuffle import dealer_draw_key, dealer_draw_seed, shuffle_order
    from unonet.table._match import first_dealer

    values = classic_draw_values()
    out = []
    for players, label, absent in ((2, "draw-a", ()), (4, "draw-b", (2,)), (10, "draw-c", ()), (3, "draw-d", (0, 1, 2)),
                                   (6, "draw-e", (0, 5))):
        match_id = b(label, 16)
        reveals = {s: b(f"{label}/r{s}", 32) for s in range(players) if s not in absent}
        key = dealer_draw_key(match_id, reveals)
        contenders, draws = list(range(players)), []
        while len(contenders) > 1 and len(draws) < 100:
            seed = dealer_draw_seed(key, len(draws))
            pile = [values[i] for i in shuffle_order(seed, len(values))]
            drawn = {s: pile[i] for i, s in enumerate(contenders)}
            draws.append({"seed": seed.hex(), "contenders": contenders, "values": [drawn[s] for s in contenders]})
            best = max(drawn.values())
            contenders = [s for s in contenders if drawn[s] == best]
        assert contenders[0] == first_dealer(key, players)
        out.append({"match_id": match_id.hex(), "players": players,
                    "reveals": [{"seat": s, "r": r.hex()} for s, r in sorted(reveals.items())], "key": key.hex(),
                    "draws": draws, "dealer": contenders[0]})
    return out


def _keys(label: str):
    """A fixed fair identity: 64 secret bytes (Ed25519 seed || X25519 seal key) and a Noise
    static key from fixed private bytes."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    from unonet.fair import Identity

    static = X25519PrivateKey.from_private_bytes(b(f"{label}/static", 32)).public_key().public_bytes_raw()
    return Identity(b(f"{label}/secret", 64), static_key=static)


def _signed(ident, message: bytes) -> dict:
    return {"signer": ident.public.sign_key.hex(), "input": message.hex(), "sig": ident.sign(message).hex()}


def signature_vectors() -> dict:
    """Each signature form of spec §6.1 "Signatures": inputs, exact signed bytes, signature."""
    import dataclasses

    import unonet.fair as F
    from unonet.fair._identity import cert_message
    from unonet.fair._match import (match_id, match_join_message, match_start_hash, match_start_message,
                                    round_abort_message)
    from unonet.fair._seal import challenge_key_message, challenge_response_message
    from unonet.fair._seatsig import seat_event_message
    from unonet.fair._seed import player_commit_message
    from unonet.fair._shuffle import Opening, commitments_message, round_end_message

    host, seat, seat0 = _keys("sig-host"), _keys("sig-seat"), _keys("sig-seat0")
    hp = host.public
    table, rnd, context = b("sig-match", 16), 3, b("sig-context", 32)
    start = F.MatchStart(nonce=b("sig-nonce", 16), host=hp, host_seat=None, seats=(seat0.public, seat.public),
                         names=("Ann", "Bob"), rules={"deck": "classic", "target": 500}, sig=b"")
    start = dataclasses.replace(start, sig=host.sign(match_start_message(start)))
    h_start = match_start_hash(start)
    join0 = F.MatchJoin(seat=0, start=h_start, nonce=b("sig-join-nonce0", 16), sig=b"")
    join0 = dataclasses.replace(join0, sig=seat0.sign(match_join_message(join0)))
    join = F.MatchJoin(seat=1, start=h_start, nonce=b("sig-join-nonce", 16), sig=b"")
    join = dataclasses.replace(join, sig=seat.sign(match_join_message(join)))
    act = F.Act(seat=1, n=0, action={"t": "draw", "seat": 1}, sig=b"")
    verdict = F.ChallengeVerdict(challenger=1, challenged=0, guilty=True,
                                 proof=Opening(4, F.Card("G5"), b("sig-salt", 32)), sig=b"")
    dispute = F.ChallengeDispute(challenger=1, challenged=0, sig=b"")
    deal_dispute = F.DealDispute(seat=1, position=17, sig=b"")
    cosign = F.RoundSign(seat=1, digest=b("sig-digest", 32), sig=b"")
    abort = F.RoundAbort(round=rnd, attempt=2, reason="seed commit timed out", stalled=(1,), sig=b"")
    seat_events = {}
    for name, ev in (("act", act), ("challenge-verdict", verdict), ("challenge-dispute", dispute),
                     ("deal-dispute", deal_dispute), ("round-sign", cosign)):
        msg = seat_event_message(table, rnd, context, ev)
        seat_events[name] = {"body": ev.canonical(), **_signed(seat, msg)}
    commits = [b(f"sig-C{j}", 32) for j in range(3)]
    return {
        "keys": {"host": {"secret": host.secret_bytes().hex(), "static": hp.static_key.hex(),
                          "sign": hp.sign_key.hex(), "seal": hp.dh_key.hex()},
                 "seat": {"secret": seat.secret_bytes().hex(), "static": seat.public.static_key.hex(),
                          "sign": seat.public.sign_key.hex(), "seal": seat.public.dh_key.hex()}},
        "certificate": {"identity": seat.public.to_json(),
                        **_signed(seat, cert_message(seat.public.sign_key, seat.public.static_key,
                                                     seat.public.dh_key))},
        "match": {"match-start": start.canonical(), "match-start-input": match_start_message(start).hex(),
                  "start_hash": h_start.hex(), "match-join": join.canonical(),
                  "match-join-input": match_join_message(join).hex(), "match-join-0": join0.canonical(),
                  "match_id": match_id(h_start, [join0.nonce, join.nonce]).hex(),
                  "note": "match-start signed by the host, each match-join by its seat (seat 1's signed bytes "
                          "given); match id over the seats' match-join nonces in seat order"},
        "table": table.hex(), "round": rnd, "context": context.hex(),
        "player-commit": {"epoch": 0, "seat": 1, "host_commit": b("sig-hc", 32).hex(),
                          "commit": b("sig-pc", 32).hex(),
                          **_signed(seat, player_commit_message(table, rnd, 0, 1, b("sig-hc", 32),
                                                                b("sig-pc", 32), context))},
        "seat-event": seat_events,
        "challenge-response": {"challenge_number": 0, "challenger": 1, "challenged": 0, "positions": [4, 8],
                               "sealed": b("sig-sealed", 60).hex(),
                               **_signed(seat, challenge_response_message(table, rnd, 0, 1, 0, [4, 8],
                                                                          b("sig-sealed", 60)))},
        "challenge-key": {"challenge_number": 1, "challenged": 0, "secret": b("sig-eph", 32).hex(),
                          **_signed(seat, challenge_key_message(table, rnd, 1, 0, b("sig-eph", 32)))},
        "round-abort": {"body": abort.canonical(), **_signed(host, round_abort_message(table, abort))},
        "commitments": {"epoch": 1, "base": 108, "host_commit": b("sig-hc1", 32).hex(),
                        "contributions_digest": b("sig-cd", 32).hex(), "commitments": [c.hex() for c in commits],
                        **_signed(host, commitments_message(table, rnd, 1, 108, b("sig-hc1", 32), b("sig-cd", 32),
                                                            commits))},
        "round-end": {"digest": b("sig-digest", 32).hex(),
                      **_signed(host, round_end_message(table, rnd, b("sig-digest", 32)))},
    }


def seed_vectors() -> dict:
    """Seed commitments, the seed, epoch secrets, the contributions digest, salts and card
    commitments (spec §6.8) for one round of three seats (seat 0 the host's, no seed)."""
    from unonet.fair import Card
    from unonet.fair._seed import (contributions_digest, derive_seed, epoch_secret, host_seed_commit,
                                   player_seed_commit)
    from unonet.fair._shuffle import Opening, card_commitment, position_salt, shuffle_order

    table, rnd = b("seed-match", 16), 2
    r_h = b("seed-rh", 32)
    r = {1: b("seed-r1", 32), 2: b("seed-r2", 32)}
    epochs = []
    for e in (0, 1, 2):
        rh_e = epoch_secret(r_h, e)
        r_e = {s: epoch_secret(x, e) for s, x in r.items()}
        commits0 = {s: player_seed_commit(table, rnd, 0, s, x) for s, x in r.items()}
        seed = derive_seed(table, rnd, e, rh_e, list(r_e.items()))
        epochs.append({
            "epoch": e, "host_secret": rh_e.hex(), "seat_secrets": {str(s): x.hex() for s, x in r_e.items()},
            "host_commit": host_seed_commit(table, rnd, e, rh_e).hex(),
            "seed": seed.hex(),
            "contributions_digest": contributions_digest([(s, commits0[s], r_e[s]) for s in r_e]).hex(),
            "perm_of_5": shuffle_order(seed, 5),
        })
    salts = [{"position": j, "salt": position_salt(epoch_secret(r_h, 0), table, rnd, j).hex()} for j in (0, 107)]
    cards = []
    for j, card in ((0, Card("R7")), (5, Card("W+4")), (9, Card("R1", "TSE"))):
        salt = position_salt(r_h, table, rnd, j)
        cards.append({"position": j, "card": card.to_json(), "card_bytes": card.encode().hex(),
                      "opening_bytes": Opening(j, card, salt).encode().hex(), "salt": salt.hex(),
                      "commitment": card_commitment(table, rnd, j, card, salt).hex()})
    return {
        "table": table.hex(), "round": rnd, "r_h": r_h.hex(), "r": {str(s): x.hex() for s, x in r.items()},
        "player_commits": {str(s): player_seed_commit(table, rnd, 0, s, x).hex() for s, x in r.items()},
        "epochs": epochs, "salts": salts, "cards": cards,
        "note": ("epoch e > 0: every secret is HMAC(key = its epoch-0 secret, T('epoch-secret') || u32(e)); "
                 "the contributions digest of epoch e lists each seat's epoch-0 commitment with its epoch-e "
                 "secret; host_commit of epoch e commits to the host's epoch-e secret with u32(e)"),
    }


def flip_deal_vector() -> dict:
    """One sealed deal of a UNO Flip card, openable with the recipient's seal key (spec §6.7)."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    from unonet.engine import deck_cards
    from unonet.fair import Card
    from unonet.fair._seal import deal_ad, seal
    from unonet.fair._shuffle import Opening, opening_size, pad_openings, position_salt

    table, rnd, j, seat = b("flip-match", 16), 1, 9, 2
    recipient = b("flip-seal-private", 32)
    pk = X25519PrivateKey.from_private_bytes(recipient).public_key().public_bytes_raw()
    deck = [Card(c.code, c.other.code) for c in deck_cards("flip")]
    size = opening_size(deck)
    card = deck[j]
    salt = position_salt(b("flip-rh", 32), table, rnd, j)
    plain = pad_openings([Opening(j, card, salt)], size)
    ad = deal_ad(table, rnd, j, seat, pk)
    eph = b("flip-ephemeral", 32)
    blob = seal(plain, recipient_dh=pk, ad=ad, randbytes=None, ephemeral=eph)
    return {"table": table.hex(), "round": rnd, "position": j, "seat": seat, "card": card.to_json(),
            "salt": salt.hex(), "opening_size": size, "plaintext": plain.hex(), "recipient_private": recipient.hex(),
            "recipient_public": pk.hex(), "ad": ad.hex(), "ephemeral_private": eph.hex(), "sealed": blob.hex(),
            "public": card.public}


def ledger_vector() -> dict:
    """A match ledger header and one round entry (spec §7 `ledger`)."""
    from unonet.ledger import MatchHeader, MatchLedger

    header = MatchHeader(match=b("ledger-match", 16), table=b("ledger-table", 16),
                         seats=(b("ledger-seat0", 32), b("ledger-seat1", 32), b("ledger-seat2", 32)),
                         preset="official", deck="classic", house=("seven-o", "stacking"), teams=False,
                         scoring="standard", target=500)
    lg = MatchLedger(header)
    entry = lg.entry(round=1, dealer=2, winner=0, points=31, hand_points=[0, 19, 12], scores=[31, 0, 0],
                     digest=b("ledger-digest", 32), host=b("ledger-seat0", 32), attempt=2)
    return {"header_fields": {"match": header.match.hex(), "table": header.table.hex(), "preset": header.preset,
                              "deck": header.deck, "house": list(header.house), "teams": header.teams,
                              "scoring": header.scoring, "target": header.target,
                              "seats": [k.hex() for k in header.seats]},
            "header": header.encode().hex(), "genesis": header.genesis.hex(),
            "entry": {"round": 1, "attempt": 2, "dealer": 2, "winner": 0, "points": 31, "hand_points": [0, 19, 12],
                      "scores": [31, 0, 0], "digest": b("ledger-digest", 32).hex(), "host": b("ledger-seat0", 32).hex(),
                      "bytes": entry.encode().hex(), "hash": entry.hash.hex()}}


def fair_structure_vectors() -> dict:
    """Every signed or hashed structure of the fair layer, from fixed inputs (spec §6)."""
    return {
        "version": P.PROTOCOL_VERSION,
        "note": ("fair-play structures (spec §6): inputs, the exact bytes signed or hashed, and the result. "
                 "T(name) = u32(len) || 'unonet/fair/v1/' || name; lp(x) = u32(len(x)) || x; integers "
                 "big-endian."),
        "classic_draw_values": __import__("unonet.engine", fromlist=["x"]).classic_draw_values(),
        "decks": deck_vectors(),
        "shuffle": shuffle_vectors(),
        "dealer_draw": dealer_draw_vectors(),
        "signatures": signature_vectors(),
        "seeds": seed_vectors(),
        "flip_deal": flip_deal_vector(),
        "ledger": ledger_vector(),
    }


def build_vectors() -> dict[str, object]:
    cases = valid_cases()
    link, datagram = [], []
    for name, msg in cases:
        entry = {"name": name, "fields": P.message_to_json(msg)}
        if msg.CHANNEL == LINK:
            entry["hex"] = P.encode_message(msg).hex()
            link.append(entry)
        else:
            entry["hex"] = P.encode_datagram(msg).hex()
            datagram.append(entry)
    missing = set(P.MESSAGE_TYPES) - {m.TYPE for _, m in cases}
    if missing:
        raise SystemExit(f"no vector for message types: {sorted(missing)}")
    note = ("fields: the message in JSON form (binary as lowercase hex, fields equal to "
            "their default left out); hex: the exact msgpack bytes. Check both ways.")
    return {
        "fair-match.json": fair_match_vector(),
        "fair-structures.json": fair_structure_vectors(),
        "messages.json": {"version": P.PROTOCOL_VERSION, "note": note, "channel": "link",
                          "vectors": link},
        "datagrams.json": {"version": P.PROTOCOL_VERSION, "note": note, "channel": "datagram",
                           "vectors": datagram},
        "invalid.json": {"version": P.PROTOCOL_VERSION,
                         "note": "link plaintexts a decoder must refuse: error code and field path",
                         "vectors": invalid_cases()},
        "framing.json": framing_vectors(),
        "identity.json": identity_vectors(),
        "versions.json": version_vectors(),
        "cards.json": card_vectors(),
    }


def _requirement(s) -> str:
    """Required, or the default a decoder fills in (absent = the field stays unset)."""
    if s.required:
        return "yes"
    if s.default is None:
        return "no (default: absent)"
    return f"no (default `{json.dumps(list(s.default) if isinstance(s.default, tuple) else s.default)}`)"


def render_reference() -> str:
    """Markdown reference of every message, generated from the schema table."""
    from unonet.protocol._schema import Nested, ListOf

    out = [BEGIN, ""]
    records = []

    def note_records(kind):
        if isinstance(kind, Nested) and kind.cls not in records:
            records.append(kind.cls)
        if isinstance(kind, ListOf):
            note_records(kind.item)

    for t, cls in P.MESSAGE_TYPES.items():
        senders = ", ".join(sorted(cls.SENDERS))
        out.append(f"#### `{t}` ({cls.__name__}) — from {senders}; {cls.CHANNEL}")
        out.append("")
        out.append(cls.DOC)
        out.append("")
        out.append("| field | type | required | notes |")
        out.append("|---|---|---|---|")
        for s in cls.FIELDS:
            note_records(s.kind)
            req = _requirement(s)
            out.append(f"| `{s.name}` | {s.kind.describe()} | {req} | {s.doc} |")
        out.append("")
    out.append("#### Nested maps")
    out.append("")
    for cls in records:
        out.append(f"`{cls.__name__}`: " + "; ".join(
            f"`{s.name}` {s.kind.describe()}" + ("" if s.required else f" ({_requirement(s)})")
            for s in cls.FIELDS) + ("  — " + inspect.cleandoc(cls.__doc__) if cls.__doc__ and
                                    not cls.__doc__.startswith(cls.__name__ + "(") else ""))
        out.append("")
    out.append(END)
    return "\n".join(out)


EVENTS_BEGIN = "<!-- BEGIN GENERATED EVENT VOCABULARY (protocol/make_vectors.py) -->"
EVENTS_END = "<!-- END GENERATED EVENT VOCABULARY -->"

#: what each public engine event says (the fields come from the engine's own classes)
EVENT_MEANING = {
    "Dealt": "the deal gave `seat` that many cards (round start)",
    "Drew": "`seat` drew that many cards; `reason` one of `turn`, `penalty` (a draw card or a race lost), "
            "`challenge` (a lost Wild Draw Four challenge), `uno` (caught or false UNO), `catch`",
    "FirstDiscard": "the card turned up to start the discard pile",
    "ReturnedToDeck": "a turned-up Wild Draw Four goes back into the deck (which is reshuffled)",
    "Reshuffled": "the discards (all but the top) became the new draw pile of that many cards",
    "Played": "`seat` played `card` (the face in play), the colour in force is now `color`; `jump_in` a "
              "jump-in out of turn",
    "Kept": "`seat` kept the card it drew (its turn ends)",
    "ColorChosen": "`seat` named `color` for a wild turned up first",
    "Skipped": "`seat` loses its turn",
    "DirectionChanged": "play now goes `direction` (1 = to the left, seat numbers increasing; -1 = to the right)",
    "UnoCalled": "`seat` called UNO",
    "FalseUno": "`seat` called UNO without one card left (it draws)",
    "Caught": "`seat` caught `target`, who had one card and had not called UNO",
    "Challenged": "`seat` challenged `target`'s Wild Draw Four; `guilty` the verdict; `color` the colour "
                  "that was in force",
    "Evidence": "the challenged hand shown to the challenger (count only in public)",
    "Swapped": "`seat` swapped hands with `target` (Seven-O)",
    "HandsPassed": "every hand passed one seat in `direction` (Seven-O, a 0)",
    "HandsShuffled": "`seat` played Wild Shuffle Hands: every hand gathered and dealt again",
    "NewHand": "`seat`'s hand now has that many cards (after a swap, pass or shuffle)",
    "RoundOver": "the round ended: `winner` (or null), `points`, each seat's remaining cards (sorted codes), "
                 "`termination` (`emptied_hand`, `deck_exhausted`, `stalemate`)",
    "RaceStarted": "a reaction race on `card` played by `seat`; that many seats must respond",
    "Responded": "`seat` responded in the race",
    "RaceLost": "`seat` lost the race (it draws)",
    "Flipped": "UNO Flip: every card turned over by `seat`; `side` 0 light, 1 dark; `top` the new top "
               "discard; then the count of cards now visible, or null",
    "SwapDeclined": "Seven-O with the optional swap: `seat` keeps its own hand",
    "SkippedAll": "`seat` played Skip Everyone: it plays again",
    "ExactMatch": "Dirty UNO: `seat` matched `target`'s card exactly; `target` draws `count`",
    "KnockedOut": "Deadly UNO: `seat` could not play and is out of the round",
}


def render_events() -> str:
    """The public engine events of `game` records, generated from the engine's classes."""
    import dataclasses

    import unonet.engine._events as E

    out = [EVENTS_BEGIN, "", "| event | fields after the name, in order | meaning |", "|---|---|---|"]
    for name, cls in vars(E).items():
        if not (isinstance(cls, type) and issubclass(cls, E.Event) and cls is not E.Event):
            continue
        cols = []
        for f in dataclasses.fields(cls):
            if f.name == "to":
                continue
            t = str(f.type)
            if name == "RoundOver" and f.name == "hands":
                kind = "array per seat of sorted card codes"
            elif t == "list" or t.startswith("list["):
                kind = "int (a count: the cards themselves stay hidden)"
            elif t in ("Card", "AnyCard"):  # (a hidden card travels as a count, never a code)
                kind = "card code"
            elif "None" in t:
                kind = t.replace(" | None", "") + " or null"
            else:
                kind = t
            cols.append(f"`{f.name}` {kind}")
        if name not in EVENT_MEANING:
            raise SystemExit(f"no meaning written for engine event {name}")
        out.append(f"| `{name}` | {'; '.join(cols)} | {EVENT_MEANING[name]} |")
    out += ["", EVENTS_END]
    return "\n".join(out)


def _splice(spec: str, begin: str, end: str, text: str) -> str:
    i, j = spec.find(begin), spec.find(end)
    return spec[:i] + text + spec[j + len(end):] if i >= 0 and j > i else spec


def main(check: bool = False) -> int:
    stale = []
    for fname, content in build_vectors().items():
        text = json.dumps(content, indent=1, ensure_ascii=False) + "\n"
        path = VECTORS / fname
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path))
        else:
            VECTORS.mkdir(exist_ok=True)
            path.write_text(text)
    spec = SPEC.read_text()
    new = _splice(_splice(spec, BEGIN, END, render_reference()), EVENTS_BEGIN, EVENTS_END, render_events())
    if check and new != spec:
        stale.append(str(SPEC))
    elif not check and new != spec:
        SPEC.write_text(new)
    if stale:
        print("stale:", *stale)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(check="--check" in sys.argv))
