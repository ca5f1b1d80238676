import os
import stat

import pytest

import unonet.protocol as P


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "unonet-home"
    monkeypatch.setenv("UNONET_HOME", str(h))
    return h


def test_config_dir_resolution(tmp_path):
    assert P.config_dir({"UNONET_HOME": "/x/y"}) == __import__("pathlib").Path("/x/y")
    assert str(P.config_dir({"XDG_CONFIG_HOME": "/cfg"})) == "/cfg/unonet"
    assert str(P.config_dir({})).endswith("/.config/unonet")


def test_identity_created_once_with_private_permissions(home):
    a = P.load_or_create_identity()
    path = home / "identity.json"
    assert path.exists()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    b = P.load_or_create_identity()
    assert a.static_public == b.static_public and a.sign_public == b.sign_public
    assert a.static_public.hex() not in repr(a)


def test_identity_refused_when_others_can_read_it(home):
    P.load_or_create_identity()
    os.chmod(home / "identity.json", 0o644)
    with pytest.raises(P.IdentityError, match="chmod 600"):
        P.load_or_create_identity()


def test_corrupt_identity_is_reported(home):
    home.mkdir()
    fd = os.open(home / "identity.json", os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"{not json")
    os.close(fd)
    with pytest.raises(P.IdentityError, match="corrupt"):
        P.load_or_create_identity()


def test_signatures():
    ident = P.Identity.generate()
    sig = ident.sign(b"data")
    assert P.verify_signature(ident.sign_public, sig, b"data")
    assert not P.verify_signature(ident.sign_public, sig, b"date")
    assert not P.verify_signature(bytes(32), sig, b"data")


def test_fingerprint_forms():
    ident = P.Identity.generate()
    code, short = ident.join_code, ident.short_fingerprint
    assert len(code.replace("-", "")) == 10 and code.count("-") == 2  # 50 bits, XXXX-XXXX-XX
    assert short.replace("-", "").startswith(code.replace("-", ""))
    assert set(short.replace("-", "")) <= set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    assert P.fingerprint(ident.static_public) == ident.fingerprint
    assert len(ident.fingerprint) == 32


def test_join_code_known_answer():
    # fingerprint = SHA-256("unonet-fingerprint-v1\0" || key); pin the encoding
    key = bytes(range(32))
    import hashlib
    fp = hashlib.sha256(b"unonet-fingerprint-v1\x00" + key).digest()
    n = int.from_bytes(fp[:7], "big") >> 6  # first 50 bits
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    chars = "".join(alphabet[(n >> (5 * (9 - i))) & 31] for i in range(10))
    assert P.join_code(key) == f"{chars[:4]}-{chars[4:8]}-{chars[8:]}"


def test_join_code_check_is_forgiving_about_typing_but_not_about_keys():
    ident = P.Identity.generate()
    code = ident.join_code
    P.check_join_code(code, ident.static_public)
    P.check_join_code(code.lower(), ident.static_public)
    P.check_join_code(code.replace("-", " "), ident.static_public)
    P.check_join_code(code.replace("-", ""), ident.static_public)
    P.check_join_code(code.replace("1", "l").replace("0", "O"), ident.static_public)
    P.check_join_code(code.replace("1", "I").lower(), ident.static_public)
    P.check_join_code(code[:9], ident.static_public)  # 8 chars + dash = 40 bits is enough
    other = P.Identity.generate()
    with pytest.raises(P.JoinCodeMismatchError) as exc:
        P.check_join_code(code, other.static_public)
    assert code in str(exc.value) and other.join_code in str(exc.value)
    with pytest.raises(P.InvalidJoinCodeError, match="too short"):
        P.check_join_code(code[:6], ident.static_public)
    with pytest.raises(P.InvalidJoinCodeError, match="invalid"):
        P.check_join_code("UUUU-UUUU-UU", ident.static_public)


def test_known_peers_tofu_and_loud_refusal(home):
    kp = P.KnownPeers()
    alice, mallory = P.Identity.generate(), P.Identity.generate()
    assert kp.check("alice", alice.static_public, alice.sign_public) is True
    assert kp.check("alice", alice.static_public, alice.sign_public) is False
    path = home / "known_peers.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    kp2 = P.KnownPeers()  # persisted
    assert kp2.get("alice") == alice.static_public
    with pytest.raises(P.PeerKeyChangedError) as exc:
        kp2.check("alice", mallory.static_public)
    msg = str(exc.value)
    assert "alice" in msg and alice.short_fingerprint in msg and mallory.short_fingerprint in msg
    assert exc.value.old_fingerprint == alice.short_fingerprint
    with pytest.raises(P.PeerKeyChangedError):  # same Noise key, different signing key
        kp2.check("alice", alice.static_public, mallory.sign_public)
    kp2.forget("alice")
    assert P.KnownPeers().check("alice", mallory.static_public) is True
