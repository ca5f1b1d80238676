"""Byte vectors from protocol/vectors, checked both ways (h11's SIMPLE_CASES)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import unonet.protocol as P

ROOT = Path(__file__).resolve().parents[2]
VEC = ROOT / "protocol" / "vectors"


def _load(name):
    return json.loads((VEC / name).read_text())["vectors"]


LINK_CASES = [(v["name"], v["fields"], bytes.fromhex(v["hex"])) for v in _load("messages.json")]
DATAGRAM_CASES = [(v["name"], v["fields"], bytes.fromhex(v["hex"])) for v in _load("datagrams.json")]
INVALID_CASES = _load("invalid.json")


@pytest.mark.parametrize("name,fields,wire", LINK_CASES, ids=[c[0] for c in LINK_CASES])
def test_link_vector(name, fields, wire):
    msg = P.message_from_json(fields)
    assert P.encode_message(msg) == wire
    decoded = P.decode_message(wire)
    assert decoded == msg
    assert P.message_to_json(decoded) == fields


@pytest.mark.parametrize("name,fields,wire", DATAGRAM_CASES, ids=[c[0] for c in DATAGRAM_CASES])
def test_datagram_vector(name, fields, wire):
    msg = P.message_from_json(fields)
    assert P.encode_datagram(msg) == wire
    assert P.decode_datagram(wire) == msg
    assert P.message_to_json(P.decode_datagram(wire)) == fields
    with pytest.raises(P.RemoteProtocolError) as exc:
        P.decode_message(wire)
    assert exc.value.code == "unexpected"


@pytest.mark.parametrize("case", INVALID_CASES, ids=[c["name"] for c in INVALID_CASES])
def test_invalid_vector(case):
    with pytest.raises(P.RemoteProtocolError) as exc:
        P.decode_message(bytes.fromhex(case["hex"]))
    assert exc.value.code == case["code"]
    if case["field"] is not None:
        assert exc.value.field == case["field"]
        assert case["field"] in str(exc.value)


def test_every_message_type_has_a_vector():
    covered = {f["t"] for _, f, _ in LINK_CASES + DATAGRAM_CASES}
    assert covered == set(P.MESSAGE_TYPES)


def test_vectors_and_spec_reference_are_current():
    """The checked-in vectors and spec tables match what the schema generates now."""
    r = subprocess.run([sys.executable, str(ROOT / "protocol" / "make_vectors.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_spec_mentions_every_message_type():
    spec = (ROOT / "protocol" / "spec.md").read_text()
    for t in P.MESSAGE_TYPES:
        assert f"`{t}`" in spec, t
