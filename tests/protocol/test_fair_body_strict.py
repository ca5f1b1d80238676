"""A fair body is read once, strictly: `Event.from_json` takes a value only in the very form
`to_json` writes it back, so the canonical check compares the body with its parsed JSON
encoded canonically (no `to_json`), and every non-canonical form is still refused."""

import json

import msgpack
import pytest

import unonet.fair as F
import unonet.protocol as P
from unonet.fair._errors import EventFormatError
from unonet.fair._events import EVENT_TYPES, Event, canonical_json

from .protocol_helpers import fair_vector_events


def _vector_events():
    events = fair_vector_events()
    start = next(e for e in events if e.EV == "match-start")
    # the optional fields left out above, present
    events += [
        F.RoundSign(seat=1, digest=bytes(32), sig=bytes(64), tally=bytes(range(64))),
        F.RoundStart(table=bytes(16), round=1, host=start.host, host_seat=None, seats=start.seats,
                     deck_name="classic", deck=tuple(F.classic_deck()), absent=(1,), history=bytes(32)),
        F.MatchStart(nonce=bytes(16), host=start.host, host_seat=None, seats=start.seats,
                     names=("A", "B", "C"), rules={"a": [1, {"b": None}]}, sig=bytes(64),
                     continues={"match": "ab", "rounds": 2}),
        F.MatchStart(nonce=bytes(16), host=start.host, host_seat=None, seats=start.seats,
                     names=("A", "B", "C"), rules={}, sig=bytes(64), away=(1, 2)),
        F.GameEvent(data={"x": [1, 2.5, "\u00e9", None, True, {"y": "\u2603"}]}),
    ]
    return events


EVENTS = _vector_events()


def test_the_events_cover_every_event_type():
    assert {e.EV for e in EVENTS} == set(EVENT_TYPES)


def _paths(obj, path=()):
    yield path, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:2]):
            yield from _paths(v, path + (i,))


def _replace(obj, path, value):
    obj = json.loads(json.dumps(obj))
    at = obj
    for k in path[:-1]:
        at = at[k]
    at[path[-1]] = value
    return obj


def _variants(v):
    """Hostile stand-ins for one JSON value: other types, other spellings of the same value."""
    out = [None, True, False, 0, 1, -1, 1.0, 0.5, 2**32, "", "x", [], {}, [v], {"k": v}]
    if isinstance(v, str):
        out += [v.upper(), " " + v, v + " ", v + "0", v[:-1], v + "\u00e9"]
    if isinstance(v, bool):
        out += [int(v)]
    elif isinstance(v, int):
        out += [float(v), v != 0, str(v), -v - 1]
    if isinstance(v, dict):
        out += [{**v, "extra": 1}, {**v, "extra": None}] + [{**v, k: None} for k in v]
    if isinstance(v, list) and v:
        out += [v + v[:1], v[1:], [None] + v[1:]]
    return out


def _mutations(obj):
    for path, v in _paths(obj):
        if path:
            for w in _variants(v):
                yield _replace(obj, path, w)
    yield {**obj, "extra": 1}
    for k in obj:
        yield {**obj, k: None}


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: e.EV)
def test_from_json_takes_only_what_to_json_writes_back(event):
    """The property the wire's canonical check rests on: whatever `from_json` accepts, `to_json`
    gives back value for value (so its canonical JSON is the input's), for every event type and
    every hostile change of one value (uppercase hex, floats and booleans for integers, extra
    or null keys, strings for numbers...)."""
    obj = json.loads(event.canonical())
    assert canonical_json(Event.from_json(obj).to_json()) == event.canonical()
    accepted = refused = 0
    for mutated in _mutations(obj):
        try:
            back = Event.from_json(mutated)
        except (EventFormatError, ValueError):
            refused += 1
            continue
        accepted += 1
        assert canonical_json(back.to_json()) == canonical_json(mutated), mutated
    assert refused and accepted  # (the mutations reach the checks, and some keep the form)


def _wire(body: bytes, ev: str) -> bytes:
    return msgpack.packb({"t": "fair", "round": 1, "ev": ev, "body": body}, use_bin_type=True)


def _refusal(body: bytes, ev: str) -> str:
    with pytest.raises(P.RemoteProtocolError) as exc:
        P.decode_message(_wire(body, ev))
    assert exc.value.field == "fair.body", str(exc.value)
    return str(exc.value)


NOT_CANONICAL = "not the event's canonical JSON"
NOT_JSON = "not canonical ASCII JSON"
NOT_EVENT = "not a fair event"


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: e.EV)
def test_every_non_canonical_form_of_a_body_is_refused(event):
    text = event.canonical()
    obj = json.loads(text)
    got = P.decode_message(_wire(text.encode(), event.EV)).event()
    assert got == event and got.canonical() == text
    spaced = json.dumps(obj, sort_keys=True, ensure_ascii=True)
    unsorted = json.dumps(dict(reversed(list(obj.items()))), separators=(",", ":"))
    forms = {
        "spaces": (spaced, NOT_CANONICAL),
        "indented": (json.dumps(obj, sort_keys=True, indent=1), NOT_CANONICAL),
        "keys out of order": (unsorted, NOT_CANONICAL),
        "a leading space": (" " + text, NOT_CANONICAL),
        "a trailing newline": (text + "\n", NOT_CANONICAL),
        "a duplicate key": (text[:-1] + ',"ev":' + json.dumps(obj["ev"]) + "}", NOT_CANONICAL),
        "an escaped ASCII letter": (text.replace('"ev":"', '"\\u0065v":"', 1), NOT_CANONICAL),
        "an escaped slash": (text.replace('"ev":"', '"ev":"\\/', 1), NOT_EVENT),
        "two values": (text + text, NOT_JSON),
        "a trailing comma": (text[:-1] + ",}", NOT_JSON),
    }
    hexes = [(p, v) for p, v in _paths(obj) if isinstance(v, str) and len(v) >= 32
             and all(c in "0123456789abcdef" for c in v) and v != v.upper()]
    if hexes:
        path, v = hexes[0]
        forms["uppercase hex"] = (canonical_json(_replace(obj, path, v.upper())), NOT_EVENT)
    ints = [(p, v) for p, v in _paths(obj) if type(v) is int and p and p[0] not in ("data", "rules", "continues", "action")]
    if ints:
        path, v = ints[0]
        forms["a float for an integer"] = (canonical_json(_replace(obj, path, float(v))), NOT_EVENT)
        forms["a boolean for an integer"] = (canonical_json(_replace(obj, path, v != 0)), NOT_EVENT)
    keyed = [(p[-1], v) for p, v in ints if isinstance(p[-1], str) and text.count(f'"{p[-1]}":{v}') == 1]
    if keyed:
        key, v = keyed[0]
        for spelling in (f"{v}.0", f"{v}e0", f"0{v}", f"{v} "):
            forms[f"{key} written {spelling}"] = (text.replace(f'"{key}":{v}', f'"{key}":{spelling}'),
                                                 (NOT_EVENT, NOT_CANONICAL, NOT_JSON))
    forms["an extra key"] = (canonical_json({**obj, "extra": 1}), NOT_EVENT)
    for k in event.OMIT_NONE:
        forms[f"{k} null"] = (canonical_json({**obj, k: None}), NOT_EVENT)
    for name, (body, why) in forms.items():
        assert body != text, name
        message = _refusal(body.encode(), event.EV)
        whys = why if isinstance(why, tuple) else (why,)
        assert any(w in message for w in whys), (name, message)


def test_non_ascii_in_a_body_is_refused_and_its_escape_must_be_lowercase():
    ev = F.GameEvent(data={"name": "caf\u00e9"})
    text = ev.canonical()
    assert "\\u00e9" in text
    assert P.decode_message(_wire(text.encode(), "game")).event() == ev
    assert NOT_JSON in _refusal(text.replace("\\u00e9", "\u00e9").encode("utf-8"), "game")
    assert NOT_CANONICAL in _refusal(text.replace("\\u00e9", "\\u00E9").encode(), "game")
    # a number the encoder writes otherwise, inside the free-form data
    assert NOT_CANONICAL in _refusal(b'{"data":{"n":1E2},"ev":"game"}', "game")
    assert NOT_CANONICAL in _refusal(b'{"data":{"n":-0},"ev":"game"}', "game")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json_in_a_body_a_transcript_or_our_own_events(constant, tmp_path):
    """Python reads and writes them; JSON (RFC 8259) and a peer in another language do not: every
    party refuses them alike, so no two parties reach different verdicts on one body."""
    assert NOT_JSON in _refusal(b'{"data":{"n":%s},"ev":"game"}' % constant.encode(), "game")
    assert NOT_JSON in _refusal(b'{"data":[1,%s],"ev":"game"}' % constant.encode(), "game")
    with pytest.raises(ValueError):
        F.GameEvent(data={"n": float(constant.lower().replace("infinity", "inf"))}).canonical()
    from unonet.fair._transcript import parse_line
    from unonet.fair import TranscriptFormatError
    with pytest.raises(TranscriptFormatError, match="not JSON"):
        parse_line('{"data":{"n":%s},"ev":"game"}' % constant, 3)


def test_a_decoded_event_keeps_the_body_as_its_canonical_json():
    ev = F.Deal(position=3, seat=1, sealed=bytes(range(100)))
    body = ev.canonical().encode()
    got = P.decode_message(_wire(body, "deal")).event()
    assert got is not ev and got == ev
    assert got.__dict__["_canonical"] == body.decode()  # kept, not encoded again


@pytest.mark.parametrize("msg", [P.Heartbeat(seq=0), P.Turn(seq=0, seat=0), P.Heartbeat(seq=3)])
def test_a_padded_message_that_ends_in_zero_bytes_keeps_them(msg):
    """The padding is stripped to find the message's end; a message whose own bytes end in
    zeros is read where it really ends."""
    plain = P.encode_plaintext(msg)
    bare = P.encode_message(msg)
    got, kept = P.decode_plaintext_kept(plain)
    assert got == msg and kept == bare
    assert P.decode_plaintext_kept(bare + bytes(-len(bare) % P.PAD_BLOCK)) == (msg, bare)
