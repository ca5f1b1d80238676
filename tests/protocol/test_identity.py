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
    P.check_join_code(code.replace("-", "")[:10], ident.static_public)  # 50 bits is enough
    with pytest.raises(P.InvalidJoinCodeError, match="too short"):
        P.check_join_code(code[:9], ident.static_public)  # 8 chars = 40 bits is not
    other = P.Identity.generate()
    with pytest.raises(P.JoinCodeMismatchError) as exc:
        P.check_join_code(code, other.static_public)
    # the given code is named; the answering key's own code never is (it may be an impostor's)
    assert code in str(exc.value) and other.join_code not in str(exc.value)
    assert other.join_code.replace("-", "")[:4] not in str(exc.value) and not hasattr(exc.value, "actual")
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


# -- key store hardening (review finding 3) -----------------------------------


def test_config_dir_is_tightened_to_0700(tmp_path):
    home = tmp_path / "cfg"
    home.mkdir(mode=0o755)
    os.chmod(home, 0o755)
    P.load_or_create_identity(home)
    assert stat.S_IMODE(os.stat(home).st_mode) == 0o700
    os.chmod(home, 0o777)
    P.KnownPeers(home / "known_peers.json")
    assert stat.S_IMODE(os.stat(home).st_mode) == 0o700


def test_world_writable_known_peers_is_refused(home):
    kp = P.KnownPeers(home / "known_peers.json")
    kp.check("ann", bytes(32))
    for mode in (0o666, 0o620, 0o602):
        os.chmod(home / "known_peers.json", mode)
        with pytest.raises(P.IdentityError, match="writable by other users"):
            P.KnownPeers(home / "known_peers.json")
    os.chmod(home / "known_peers.json", 0o644)  # readable is fine: it holds public keys
    assert P.KnownPeers(home / "known_peers.json").get("ann") == bytes(32)


def test_known_peers_owned_by_another_user_is_refused(home, monkeypatch):
    P.KnownPeers(home / "known_peers.json").check("ann", bytes(32))
    real = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: real + 1)
    with pytest.raises(P.IdentityError, match="another user"):
        P.KnownPeers(home / "known_peers.json")


def test_known_peers_symlink_is_refused(home, tmp_path):
    home.mkdir(mode=0o700)
    target = tmp_path / "elsewhere.json"
    target.write_text('{"version": 1, "peers": {}}')
    os.chmod(target, 0o600)
    (home / "known_peers.json").symlink_to(target)
    with pytest.raises(P.IdentityError, match="symbolic link"):
        P.KnownPeers(home / "known_peers.json")


def test_dangling_identity_symlink_is_an_identity_error(home):
    P.load_or_create_identity(home)
    (home / "identity.json").unlink()
    (home / "identity.json").symlink_to(home / "nowhere.json")
    with pytest.raises(P.IdentityError, match="symbolic link"):
        P.load_or_create_identity(home)
    assert not (home / "nowhere.json").exists()  # nothing created through the link


def test_identity_symlink_to_a_real_key_is_refused(home, tmp_path):
    home.mkdir(mode=0o700)
    P.load_or_create_identity(tmp_path / "other")
    (home / "identity.json").symlink_to(tmp_path / "other" / "identity.json")
    with pytest.raises(P.IdentityError):
        P.load_or_create_identity(home)


def test_identity_owned_by_another_user_is_refused(home, monkeypatch):
    P.load_or_create_identity(home)
    real = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: real + 1)
    with pytest.raises(P.IdentityError, match="another user"):
        P.load_or_create_identity(home)


def test_a_crash_while_creating_leaves_no_empty_identity(home, monkeypatch):
    real_write = os.write

    def crash(fd, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", crash)
    with pytest.raises(P.IdentityError):
        P.load_or_create_identity(home)
    monkeypatch.setattr(os, "write", real_write)
    assert not (home / "identity.json").exists()
    assert not [p for p in home.iterdir() if p.name.endswith(".tmp")]
    ident = P.load_or_create_identity(home)  # the next run just works
    assert P.load_or_create_identity(home).fingerprint == ident.fingerprint


def test_an_empty_identity_file_is_an_identity_error(home):
    home.mkdir(mode=0o700)
    fd = os.open(home / "identity.json", os.O_WRONLY | os.O_CREAT, 0o600)
    os.close(fd)
    with pytest.raises(P.IdentityError, match="corrupt"):
        P.load_or_create_identity(home)


def test_store_writes_use_random_exclusive_temp_names(home, monkeypatch):
    seen = []
    real_open = os.open

    def spy(path, flags, *a, **kw):
        if str(path).endswith(".tmp"):
            seen.append((os.path.basename(path), flags))
        return real_open(path, flags, *a, **kw)

    monkeypatch.setattr(os, "open", spy)
    P.load_or_create_identity(home)
    kp = P.KnownPeers(home / "known_peers.json")
    kp.check("ann", bytes(32))
    kp.check("bob", bytes(range(32)))
    assert len(seen) == 3 and len({name for name, _ in seen}) == 3
    for name, flags in seen:
        assert str(os.getpid()) not in name.split(".")
        assert flags & os.O_EXCL and flags & os.O_NOFOLLOW and flags & os.O_CREAT
    assert stat.S_IMODE(os.stat(home / "known_peers.json").st_mode) == 0o600


def test_a_planted_temp_symlink_is_not_followed(home, tmp_path):
    """The old fixed temp name (pid-based) let another user pre-plant a symlink."""
    home.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    for pid_guess in range(os.getpid() - 2, os.getpid() + 3):
        (home / f".known_peers.json.{pid_guess}.tmp").symlink_to(victim)
    P.KnownPeers(home / "known_peers.json").check("ann", bytes(32))
    assert victim.read_text() == "keep me"


def test_join_code_minimum_is_50_bits():
    from unonet.protocol._identity import MIN_JOIN_CODE_CHARS
    assert MIN_JOIN_CODE_CHARS * 5 >= 50
    ident = P.Identity.generate()
    with pytest.raises(ValueError):
        P.join_code(ident.static_public, chars=8)
    with pytest.raises(P.InvalidJoinCodeError, match="too short"):
        P.check_join_code(ident.join_code.replace("-", "")[:9], ident.static_public)
    P.check_join_code(ident.join_code.replace("-", "")[:10], ident.static_public)


def test_a_derived_identity_is_the_parents_alone_and_the_same_every_time():
    parent, other = P.Identity.generate(), P.Identity.generate()
    a, again = P.Identity.derived(parent, b"unonet bot\x00Ana (bot)"), P.Identity.derived(parent, b"unonet bot\x00Ana (bot)")
    assert (a.static_public, a.sign_public, a.seal_public) == (again.static_public, again.sign_public, again.seal_public)
    others = [P.Identity.derived(parent, b"unonet bot\x00Ben (bot)"), P.Identity.derived(other, b"unonet bot\x00Ana (bot)")]
    keys = {a.static_public, parent.static_public, *(o.static_public for o in others)}
    assert len(keys) == 4 and a.sign_public not in {parent.sign_public, *(o.sign_public for o in others)}
    signed = a.sign(b"round 1")  # a whole identity: it signs, and its signatures check
    assert P.verify_signature(a.sign_public, signed, b"round 1") and not P.verify_signature(parent.sign_public, signed,
                                                                                        b"round 1")
