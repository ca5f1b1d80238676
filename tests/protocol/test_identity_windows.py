"""The key store as on Windows (tests/platform_helpers.py): no ``os.getuid``, no
``fchmod``, no ``O_NOFOLLOW``; the store in ``%LOCALAPPDATA%\\unonet``; mode bits not
read (Windows has ACLs, which unonet does not check: docs/install.md "Files")."""

from __future__ import annotations

import os

import pytest

import unonet.protocol as P

from ..platform_helpers import pretend_windows

pytestmark = pytest.mark.skipif(os.name != "posix", reason="simulates Windows on a POSIX system")


@pytest.fixture
def local(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # not Windows' business
    return pretend_windows(monkeypatch, tmp_path)


def test_identity_is_made_once_in_local_appdata(local, tmp_path):
    a = P.load_or_create_identity()
    path = local / "unonet" / "identity.json"
    assert path.is_file() and not (tmp_path / "xdg").exists()
    assert b"\r" not in path.read_bytes()
    b = P.load_or_create_identity()
    assert (a.static_public, a.sign_public) == (b.static_public, b.sign_public)
    assert not [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_mode_bits_are_not_read_there(local):
    a = P.load_or_create_identity()
    store = local / "unonet"
    os.chmod(store, 0o755)
    os.chmod(store / "identity.json", 0o644)  # on POSIX: refused ("chmod 600")
    assert P.load_or_create_identity().static_public == a.static_public
    kp = P.KnownPeers()
    assert kp.path == store / "known_peers.json"
    assert kp.check("ann", bytes(32)) is True
    os.chmod(kp.path, 0o666)  # on POSIX: refused ("writable by other users")
    with pytest.raises(P.PeerKeyChangedError):  # trust on first use holds everywhere
        P.KnownPeers().check("ann", bytes(31) + b"\x01")


def test_a_symlinked_identity_is_refused_without_o_nofollow(local, tmp_path):
    assert not hasattr(os, "O_NOFOLLOW")
    elsewhere = tmp_path / "elsewhere"
    P.load_or_create_identity(elsewhere)
    (local / "unonet").mkdir(parents=True)
    os.symlink(elsewhere / "identity.json", local / "unonet" / "identity.json")
    with pytest.raises(P.IdentityError, match="symbolic link"):
        P.load_or_create_identity()


def test_unonet_home_still_wins(local, tmp_path, monkeypatch):
    monkeypatch.setenv("UNONET_HOME", str(tmp_path / "second"))
    P.load_or_create_identity()
    assert (tmp_path / "second" / "identity.json").is_file() and not (local / "unonet").exists()
