"""The fair-play bytes re-implemented from protocol/spec.md alone (§6.1 "Signatures",
"Dealer draw", §6.7, §6.8, §7 `ledger`), checked against every vector.

Nothing from `unonet` is imported here: only hashlib, hmac, json and the `cryptography`
primitives, and the byte layouts as the spec writes them. The vectors come from the real
code (protocol/make_vectors.py), so spec and code cannot drift apart unnoticed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
S = json.loads((VECTORS / "fair-structures.json").read_text())
MATCH = json.loads((VECTORS / "fair-match.json").read_text())


# -- §6.8 notation --------------------------------------------------------------------
def u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def lp(b: bytes) -> bytes:
    return u32(len(b)) + b


def T(name: str) -> bytes:
    return lp(b"unonet/fair/v1/" + name.encode())


def TL(name: str) -> bytes:
    return lp(b"unonet/ledger/v1/" + name.encode())


def H(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def mac(key: bytes, *parts: bytes) -> bytes:
    return hmac.new(key, b"".join(parts), hashlib.sha256).digest()


def ctx(match_id: bytes, rnd: int) -> bytes:
    return lp(match_id) + u32(rnd)


def canon(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def body(event: dict) -> bytes:
    """The event's canonical JSON with `sig` set to the empty string."""
    return canon({**event, "sig": ""}).encode("ascii")


def x(h: str) -> bytes:
    return bytes.fromhex(h)


def verify(sign_key: bytes, sig: bytes, message: bytes) -> None:
    Ed25519PublicKey.from_public_bytes(sign_key).verify(sig, message)  # raises if not


# -- the shuffle ------------------------------------------------------------------------
def fisher_yates(seed: bytes, n: int) -> list[int]:
    words, counter = [], 0

    def word() -> int:
        nonlocal counter
        if not words:
            block = mac(seed, T("shuffle-stream"), counter.to_bytes(8, "big"))
            counter += 1
            words.extend(int.from_bytes(block[i:i + 4], "big") for i in range(0, 32, 4))
        return words.pop(0)

    def below(b: int) -> int:
        limit = 2**32 - (2**32 % b)
        while True:
            w = word()
            if w < limit:
                return w % b

    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        k = below(i + 1)
        perm[i], perm[k] = perm[k], perm[i]
    return perm


def test_shuffle_stream_and_fisher_yates():
    for v in S["shuffle"]:
        seed = x(v["seed"])
        assert [mac(seed, T("shuffle-stream"), c.to_bytes(8, "big")).hex() for c in range(2)] == v["blocks"]
        assert fisher_yates(seed, v["n"]) == v["perm"]


# -- §6.1 dealer draw -------------------------------------------------------------------
CLASSIC_VALUES = ([0] + [n for n in range(1, 10) for _ in (0, 1)] + [0] * 6) * 4 + [0] * 8


def draw_key(match_id: bytes, reveals: list[tuple[int, bytes]]) -> bytes:
    """§6.1 "Dealer draw" (version 4): the match id and round 1's epoch-0 seat reveals."""
    parts = [T("dealer-draw-key"), lp(match_id), u32(len(reveals))]
    for seat, r in sorted(reveals):
        parts += [u32(seat), lp(r)]
    return H(*parts)


def dealer(key: bytes, players: int) -> tuple[int, list]:
    contenders, draws = list(range(players)), []
    for k in range(100):
        seed = H(T("dealer-draw"), lp(key), u32(k))
        perm = fisher_yates(seed, 108)
        got = [CLASSIC_VALUES[perm[i]] for i in range(len(contenders))]
        draws.append({"seed": seed.hex(), "contenders": contenders, "values": got})
        best = max(got)
        contenders = [s for s, v in zip(contenders, got) if v == best]
        if len(contenders) == 1:
            break
    return contenders[0], draws


def test_the_classic_deck_and_its_draw_values():
    ranks = ["0"] + [r for r in ["1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "+2"] for _ in (0, 1)]
    classic = [c + r for c in "RYGB" for r in ranks] + ["W"] * 4 + ["W+4"] * 4
    assert S["decks"]["classic"] == classic  # fair-play.md §2: the classic canonical order
    assert [int(c[1]) if c[1:].isdigit() else 0 for c in classic] == CLASSIC_VALUES


def test_dealer_draw():
    assert S["classic_draw_values"] == CLASSIC_VALUES
    for v in S["dealer_draw"]:
        key = draw_key(x(v["match_id"]), [(r["seat"], x(r["r"])) for r in v["reveals"]])
        assert key.hex() == v["key"]
        got, draws = dealer(key, v["players"])
        assert (got, draws) == (v["dealer"], v["draws"])


# -- §6.1 signatures --------------------------------------------------------------------
SIG = S["signatures"]


def test_identity_certificate():
    c = SIG["certificate"]
    ident = c["identity"]
    msg = T("identity-cert") + lp(x(ident["sign"])) + lp(x(ident["static"])) + lp(x(ident["dh"]))
    assert msg.hex() == c["input"]
    verify(x(ident["sign"]), x(ident["cert"]), msg)
    verify(x(c["signer"]), x(c["sig"]), msg)
    assert c["sig"] == ident["cert"]  # Ed25519 is deterministic


def test_keys_are_what_their_secrets_give():
    for k in SIG["keys"].values():
        secret = x(k["secret"])
        assert Ed25519PrivateKey.from_private_bytes(secret[:32]).public_key().public_bytes_raw().hex() == k["sign"]
        assert X25519PrivateKey.from_private_bytes(secret[32:]).public_key().public_bytes_raw().hex() == k["seal"]


def test_match_start_join_and_match_id():
    m = SIG["match"]
    start = json.loads(m["match-start"])
    msg = T("match-start") + lp(body(start))
    assert msg.hex() == m["match-start-input"]
    verify(x(start["host"]["sign"]), x(start["sig"]), msg)
    h_start = H(T("match-start-hash"), lp(m["match-start"].encode("ascii")))
    assert h_start.hex() == m["start_hash"]
    joins = [json.loads(m["match-join-0"]), json.loads(m["match-join"])]
    for j in joins:
        assert j["start"] == m["start_hash"]
        jm = T("match-join") + lp(body(j))
        verify(x(start["seats"][j["seat"]]["sign"]), x(j["sig"]), jm)
    assert (T("match-join") + lp(body(joins[1]))).hex() == m["match-join-input"]
    mid = H(T("match-id"), lp(h_start), *(lp(x(j["nonce"])) for j in joins))[:16]
    assert mid.hex() == m["match_id"]


def _ctx() -> bytes:
    return ctx(x(SIG["table"]), SIG["round"])


def test_player_commit_signs_the_round_context_appended():
    v = SIG["player-commit"]
    msg = (T("player-commit-signature") + _ctx() + u32(v["epoch"]) + u32(v["seat"]) + lp(x(v["host_commit"]))
           + lp(x(v["commit"])) + lp(x(SIG["context"])))
    assert msg.hex() == v["input"]
    verify(x(v["signer"]), x(v["sig"]), msg)


@pytest.mark.parametrize("name", ["act", "challenge-verdict", "challenge-dispute", "deal-dispute", "round-sign"])
def test_seat_event_signatures(name):
    v = SIG["seat-event"][name]
    ev = json.loads(v["body"])
    assert ev["ev"] == name and ev["sig"] == ""
    msg = T("seat-event") + _ctx() + lp(x(SIG["context"])) + lp(body(ev))
    assert msg.hex() == v["input"]
    verify(x(v["signer"]), x(v["sig"]), msg)
    without_key = {k: val for k, val in ev.items() if k != "sig"}
    bad = T("seat-event") + _ctx() + lp(x(SIG["context"])) + lp(canon(without_key).encode())
    with pytest.raises(Exception):  # the body without the key does not verify: `sig` stays, as ""
        verify(x(v["signer"]), x(v["sig"]), bad)


def test_challenge_response_and_key():
    v = SIG["challenge-response"]
    msg = (T("challenge-response") + _ctx() + u32(v["challenge_number"]) + u32(v["challenger"])
           + u32(v["challenged"]) + u32(len(v["positions"])) + b"".join(u32(p) for p in v["positions"])
           + lp(x(v["sealed"])))
    assert msg.hex() == v["input"]
    verify(x(v["signer"]), x(v["sig"]), msg)
    k = SIG["challenge-key"]
    msg = T("challenge-key") + _ctx() + u32(k["challenge_number"]) + u32(k["challenged"]) + lp(x(k["secret"]))
    assert msg.hex() == k["input"]
    verify(x(k["signer"]), x(k["sig"]), msg)


def test_host_signatures():
    a = SIG["round-abort"]
    ev = json.loads(a["body"])
    msg = T("round-abort") + ctx(x(SIG["table"]), ev["round"]) + lp(body(ev))
    assert msg.hex() == a["input"]
    verify(x(a["signer"]), x(a["sig"]), msg)
    c = SIG["commitments"]
    msg = (T("commitments") + _ctx() + u32(c["epoch"]) + u32(c["base"]) + lp(x(c["host_commit"]))
           + lp(x(c["contributions_digest"])) + u32(len(c["commitments"]))
           + b"".join(lp(x(h)) for h in c["commitments"]))
    assert msg.hex() == c["input"]
    verify(x(c["signer"]), x(c["sig"]), msg)
    e = SIG["round-end"]
    msg = T("round-end") + _ctx() + lp(x(e["digest"]))
    assert msg.hex() == e["input"]
    verify(x(e["signer"]), x(e["sig"]), msg)


# -- §6.8 seeds, epochs, salts, commitments ---------------------------------------------
def card_bytes(card) -> bytes:
    if isinstance(card, str):
        return lp(card.encode()) + b"\x00"
    light, dark = card
    return lp(light.encode()) + b"\x01" + lp(dark.encode())


def epoch_secret(r: bytes, e: int) -> bytes:
    return r if e == 0 else mac(r, T("epoch-secret"), u32(e))


def test_seeds_epochs_salts_and_commitments():
    v = S["seeds"]
    c, r_h = ctx(x(v["table"]), v["round"]), x(v["r_h"])
    r = {int(s): x(h) for s, h in v["r"].items()}
    commits = {s: H(T("player-seed-commit"), c, u32(0), u32(s), lp(ri)) for s, ri in r.items()}
    assert {str(s): h.hex() for s, h in commits.items()} == v["player_commits"]
    for ep in v["epochs"]:
        e = ep["epoch"]
        rh_e = epoch_secret(r_h, e)
        r_e = {s: epoch_secret(ri, e) for s, ri in sorted(r.items())}
        assert rh_e.hex() == ep["host_secret"]
        assert {str(s): h.hex() for s, h in r_e.items()} == ep["seat_secrets"]
        assert H(T("host-seed-commit"), c, u32(e), lp(rh_e)).hex() == ep["host_commit"]
        seed = H(T("seed"), c, u32(e), lp(rh_e), u32(len(r_e)), *(u32(s) + lp(ri) for s, ri in r_e.items()))
        assert seed.hex() == ep["seed"]
        digest = H(T("contributions"), u32(len(r_e)), *(u32(s) + lp(commits[s]) + lp(ri) for s, ri in r_e.items()))
        assert digest.hex() == ep["contributions_digest"]
        assert fisher_yates(seed, 5) == ep["perm_of_5"]
    for s in v["salts"]:
        assert mac(r_h, T("salt"), c, u32(s["position"])).hex() == s["salt"]
    for cv in v["cards"]:
        j, salt = cv["position"], mac(r_h, T("salt"), c, u32(cv["position"]))
        assert salt.hex() == cv["salt"]
        assert card_bytes(cv["card"]).hex() == cv["card_bytes"]
        assert (u32(j) + card_bytes(cv["card"]) + lp(salt)).hex() == cv["opening_bytes"]
        assert H(T("card-commitment"), c, u32(j), card_bytes(cv["card"]), lp(salt)).hex() == cv["commitment"]


# -- §6.7 / §6.8 sealing: a Flip deal ---------------------------------------------------
def seal_key(shared: bytes, e_pub: bytes, pk: bytes) -> bytes:
    return HKDF(algorithm=SHA256(), length=32, salt=None, info=T("seal-key") + lp(e_pub) + lp(pk)).derive(shared)


def open_sealed(blob: bytes, private: bytes, ad: bytes) -> bytes:
    me = X25519PrivateKey.from_private_bytes(private)
    pk = me.public_key().public_bytes_raw()
    e_pub = blob[:32]
    shared = me.exchange(X25519PublicKey.from_public_bytes(e_pub))
    return ChaCha20Poly1305(seal_key(shared, e_pub, pk)).decrypt(bytes(12), blob[32:], ad)


def test_a_flip_deal_seals_one_padded_opening():
    v = S["flip_deal"]
    c = ctx(x(v["table"]), v["round"])
    pk = x(v["recipient_public"])
    ad = T("seal-deal") + c + u32(v["position"]) + u32(v["seat"]) + lp(pk)
    assert ad.hex() == v["ad"]
    opening = u32(v["position"]) + card_bytes(v["card"]) + lp(x(v["salt"]))
    plain = u32(1) + opening + bytes(v["opening_size"] - len(opening))
    assert plain.hex() == v["plaintext"]
    assert open_sealed(x(v["sealed"]), x(v["recipient_private"]), ad) == plain
    eph = X25519PrivateKey.from_private_bytes(x(v["ephemeral_private"]))
    e_pub = eph.public_key().public_bytes_raw()
    key = seal_key(eph.exchange(X25519PublicKey.from_public_bytes(pk)), e_pub, pk)
    assert (e_pub + ChaCha20Poly1305(key).encrypt(bytes(12), plain, ad)).hex() == v["sealed"]
    assert len(x(v["sealed"])) == 48 + 4 + v["opening_size"]
    assert v["public"] == v["card"][1]  # what the table sees of a dealt Flip card: its other face


# -- §7 the match ledger ----------------------------------------------------------------
def text(s: str) -> bytes:
    return lp(s.encode("utf-8"))


def ints(xs) -> bytes:
    return u32(len(xs)) + b"".join(u32(i) for i in xs)


def test_ledger_header_and_entry():
    v = S["ledger"]
    f = v["header_fields"]
    header = (lp(x(f["match"])) + lp(x(f["table"])) + text(f["preset"]) + text(f["deck"]) + u32(len(f["house"]))
              + b"".join(text(h) for h in sorted(f["house"])) + bytes([f["teams"]]) + text(f["scoring"])
              + u32(f["target"]) + u32(len(f["seats"])) + b"".join(lp(x(k)) for k in f["seats"]))
    assert header.hex() == v["header"]
    genesis = H(TL("genesis"), header)
    assert genesis.hex() == v["genesis"]
    e = v["entry"]
    entry = (lp(x(f["match"])) + lp(x(f["table"])) + u32(e["round"]) + u32(e["attempt"]) + u32(e["dealer"])
             + b"\x01" + u32(e["winner"]) + u32(e["points"]) + ints(e["hand_points"]) + ints(e["scores"])
             + ints([]) + lp(x(e["digest"])) + lp(x(e["host"])) + ints([]) + b"\x00" + text(""))
    assert entry.hex() == e["bytes"]
    assert H(TL("round"), lp(genesis), entry).hex() == e["hash"]


# -- a whole match: fair-match.json checked from the spec alone -------------------------
def test_the_whole_match_transcript_verifies_from_the_spec():
    lines = MATCH["lines"]
    evs = [json.loads(line) for line in lines]
    prev = H(b"unonet/fair/v1/transcript-genesis").hex()
    for line, ev in zip(lines, evs):
        assert ev["prev"] == prev and canon(ev) == line
        prev = hashlib.sha256(line.encode("utf-8")).hexdigest()
    evs = [{k: v for k, v in ev.items() if k != "prev"} for ev in evs]
    start = evs[0]
    assert start["ev"] == "match-start"
    for ident in [start["host"], *start["seats"]]:
        verify(x(ident["sign"]), x(ident["cert"]),
               T("identity-cert") + lp(x(ident["sign"])) + lp(x(ident["static"])) + lp(x(ident["dh"])))
    host_key = x(start["host"]["sign"])
    verify(host_key, x(start["sig"]), T("match-start") + lp(body(start)))
    h_start = H(T("match-start-hash"), lp(canon(start).encode()))
    n = len(start["seats"])
    joins = sorted((e for e in evs if e["ev"] == "match-join"), key=lambda e: e["seat"])
    assert [j["seat"] for j in joins] == list(range(n))
    for j in joins:
        assert x(j["start"]) == h_start
        verify(x(start["seats"][j["seat"]]["sign"]), x(j["sig"]), T("match-join") + lp(body(j)))
    mid = H(T("match-id"), lp(h_start), *(lp(x(j["nonce"])) for j in joins))[:16]
    seat_keys = [x(s["sign"]) for s in start["seats"]]
    secrets = {int(k.split()[1]): x(v) for k, v in MATCH["secrets"].items() if k.startswith("seat")}

    starts = [k for k, e in enumerate(evs) if e["ev"] == "round-start"]
    assert len(starts) >= 2  # a whole match: several rounds
    dealers, responses = [], 0
    history = H(T("round-history"), lp(mid))  # §6.8 "round history"
    missing: list[int] = []
    for i in starts:
        # §6.5: the co-signs of the round before missing from the record, exactly, are waived
        assert evs[i]["history"] == history.hex() and evs[i].get("waived", []) == missing
        assert "waived" not in evs[i] or evs[i]["waived"]  # left out when none, never empty
        d, r, digest, signed = _check_round(evs, lines, i, mid, n, host_key, seat_keys, secrets, start)
        dealers.append(d)
        responses += r
        history = H(T("round-history"), lp(history), u32(evs[i]["round"]), lp(digest))
        missing = [s for s in range(n) if s not in signed]
    assert any("waived" in evs[i] for i in starts)  # the vector shows a waiver (seat 1 dropped in round 1)
    assert responses  # the match has Wild Draw Four challenges: their signed responses checked too
    first = next(e for e in evs if e["ev"] == "game" and e["data"]["g"] == "setup")["data"]
    assert first["round"] == 1 and first["dealer"] is None  # round 1's set-up names none: drawn from the reveals
    assert dealers[1:] == [(d + 1) % n for d in dealers[:-1]]  # then to the left
    last_end = [e for e in evs if e["ev"] == "game" and e["data"]["g"] == "end"][-1]["data"]
    assert max(last_end["scores"]) >= start["rules"]["target"]  # the match is played out


def _check_round(evs, lines, i, mid, n, host_key, seat_keys, secrets, start) -> tuple[int, int, bytes, set]:
    """One round of the transcript checked from the spec; its dealer, challenge responses,
    round digest and the seats whose co-sign follows it."""
    rs = evs[i]
    assert x(rs["table"]) == mid and rs["digest"] == json.loads(lines[i])["prev"]
    assert rs["deck"] == S["decks"][rs["deck_name"]]
    c = ctx(mid, rs["round"])
    d = H(T("round-digest"), c, lp(x(rs["digest"])))
    context, commits, reveals = None, {}, {}
    epochs, deals, r_h, end, setup, challenges, responses = [], [], None, None, None, 0, 0
    k, last_action = i, None
    for e in evs[i:]:
        k += 1
        if e["ev"] == "round-end":
            end = e
            break
        if e["ev"] == "player-commit":
            msg = (T("player-commit-signature") + c + u32(e["epoch"]) + u32(e["seat"]) + lp(epochs[0]["host_commit"])
                   + lp(x(e["commit"])) + lp(context))
            verify(seat_keys[e["seat"]], x(e["sig"]), msg)
            commits[e["seat"]] = x(e["commit"])
        if e["ev"] in ("act", "host-act"):
            last_action = e["action"]
        if e["ev"] in ("act", "challenge-verdict", "challenge-dispute", "deal-dispute"):
            signer = e["challenger"] if e["ev"].startswith("challenge-") else e["seat"]
            verify(seat_keys[signer], x(e["sig"]), T("seat-event") + c + lp(context) + lp(body(e)))
        elif e["ev"] == "challenge":
            challenges += 1
        elif e["ev"] == "challenge-response":  # the challenge number counts this attempt's challenges
            msg = (T("challenge-response") + c + u32(challenges - 1) + u32(e["challenger"]) + u32(e["challenged"])
                   + u32(len(e["positions"])) + b"".join(u32(p) for p in e["positions"]) + lp(x(e["sealed"])))
            verify(seat_keys[e["challenged"]], x(e["sig"]), msg)
            responses += 1
        elif e["ev"] == "player-reveal":
            assert H(T("player-seed-commit"), c, u32(0), u32(e["seat"]), lp(x(e["secret"]))) == commits[e["seat"]]
            reveals[e["seat"]] = x(e["secret"])
        elif e["ev"] == "game" and e["data"]["g"] == "setup":
            setup = e["data"]
            assert set(setup) == {"g", "v", "rules", "players", "round", "dealer", "active", "scores"}
            assert setup["v"] == 1 and setup["round"] == rs["round"] and setup["rules"] == start["rules"]
        elif e["ev"] == "game" and e["data"]["g"] == "act":  # §6.1.2: the action exactly as signed
            assert e["data"]["a"] == last_action and set(e["data"]) == {"g", "a", "ev"}
            assert all(isinstance(row, list) and isinstance(row[0], str) for row in e["data"]["ev"])
        elif e["ev"] == "game" and e["data"]["g"] == "end":
            assert set(e["data"]) == {"g", "winner", "points", "hand_points", "termination", "scores"}
            result = e["data"]
        elif e["ev"] == "seed-commit":
            epochs.append({"epoch": e["epoch"], "base": e["base"], "sources": e["sources"],
                           "host_commit": x(e["host_commit"])})
        elif e["ev"] == "commitments":
            epochs[e["epoch"]]["commitments"] = e
        elif e["ev"] == "deal":
            deals.append(e)
        elif e["ev"] == "seed-reveal":
            r_h = x(e["host_secret"])
        d = H(d, lp(canon(e).encode()))
        if e["ev"] == "seed-commit" and e["epoch"] == 0:
            context = d
    assert end is not None and x(end["digest"]) == d
    verify(host_key, x(end["sig"]), T("round-end") + c + lp(d))
    signed = set()
    for cs in evs[k:k + n]:
        if cs["ev"] != "round-sign":
            break
        assert x(cs["digest"]) == d and cs["seat"] not in signed
        signed.add(cs["seat"])
        verify(seat_keys[cs["seat"]], x(cs["sig"]), T("seat-event") + c + lp(context) + lp(body(cs)))
        # §6.5 the tally: the seat's signature over the digest and the result its engine gave
        won = b"\x00" if result["winner"] is None else b"\x01" + u32(result["winner"])
        tally = (lp(b"unonet/ledger/v1/round-tally") + lp(d) + won + u32(result["points"])
                 + u32(len(result["hand_points"])) + b"".join(u32(p) for p in result["hand_points"]))
        verify(seat_keys[cs["seat"]], x(cs["tally"]), tally)
    # every epoch's deck: seed, shuffle, salts, commitments, the host's signature over them
    deck = rs["deck"]
    cards, salts = {}, {}
    order = sorted(reveals)
    for ep in epochs:
        e = ep["epoch"]
        rh_e = epoch_secret(r_h, e)
        r_e = {s: epoch_secret(reveals[s], e) for s in order}
        assert H(T("host-seed-commit"), c, u32(e), lp(rh_e)) == ep["host_commit"]
        seed = H(T("seed"), c, u32(e), lp(rh_e), u32(len(order)), *(u32(s) + lp(r_e[s]) for s in order))
        pile = deck if e == 0 else [cards[j] for j in ep["sources"]]
        perm = fisher_yates(seed, len(pile))
        cj = []
        for idx in range(len(pile)):
            j = ep["base"] + idx
            cards[j], salts[j] = pile[perm[idx]], mac(rh_e, T("salt"), c, u32(j))
            cj.append(H(T("card-commitment"), c, u32(j), card_bytes(cards[j]), lp(salts[j])))
        cm = ep["commitments"]
        assert [h.hex() for h in cj] == cm["commitments"]
        contrib = H(T("contributions"), u32(len(order)), *(u32(s) + lp(commits[s]) + lp(r_e[s]) for s in order))
        verify(host_key, x(cm["sig"]), T("commitments") + c + u32(e) + u32(ep["base"]) + lp(ep["host_commit"])
               + lp(contrib) + u32(len(cj)) + b"".join(lp(h) for h in cj))
    # every deal opens, with its seat's seal key, to the committed card, padded to one size
    size = max(len(u32(0) + card_bytes(card) + lp(bytes(32))) for card in deck)
    for dl in deals:
        j, seat = dl["position"], dl["seat"]
        pk = X25519PrivateKey.from_private_bytes(secrets[seat][32:]).public_key().public_bytes_raw()
        assert pk == x(start["seats"][seat]["dh"])
        ad = T("seal-deal") + c + u32(j) + u32(seat) + lp(pk)
        plain = open_sealed(x(dl["sealed"]), secrets[seat][32:], ad)
        opening = u32(j) + card_bytes(cards[j]) + lp(salts[j])
        assert plain == u32(1) + opening + bytes(size - len(opening))
    dealer_ = setup["dealer"]
    if dealer_ is None:  # §6.1 "Dealer draw" (version 4): round 1's, from its epoch-0 seat reveals
        assert rs["round"] == 1
        dealer_ = dealer(draw_key(mid, list(reveals.items())), n)[0]
    return dealer_, responses, d, signed
