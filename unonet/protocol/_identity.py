"""Long-term identity, fingerprints, join codes and trust on first use.

The only IO in ``unonet.protocol``: a small key store in the user's config
directory (`unonet.dirs`).  ``UNONET_HOME`` overrides the location so tests and
second instances on one machine never touch the real home.

On POSIX the store is owner-only (0700 directory, 0600 files, our uid, no symlinks
followed) and refused otherwise.  Windows has no owners or mode bits here: the
files live in the user's profile (``%LOCALAPPDATA%``, whose ACL admits the user,
SYSTEM and Administrators) and their ACLs are not checked (docs/install.md).

A join code is a *check* on the host's key, never a key itself: it is far too
short to be a Noise pre-shared key.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import stat
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from ..fingerprint import (  # noqa: F401  (re-exported: spec §4.5 names them here)
    CROCKFORD, FP_DOMAIN, JOIN_CODE_CHARS, MIN_JOIN_CODE_CHARS, SHORT_FP_CHARS, InvalidJoinCodeError,
    JoinCodeMismatchError, TrustError, check_join_code, fingerprint, join_code, normalize_join_code,
    short_fingerprint,
)
from ..dirs import config_dir, is_windows
from ._noise import KeyPair

__all__ = [
    "Identity", "TrustError", "IdentityError", "PeerKeyChangedError", "JoinCodeMismatchError",
    "InvalidJoinCodeError", "KnownPeers", "config_dir", "load_or_create_identity", "fingerprint",
    "short_fingerprint", "join_code", "check_join_code", "normalize_join_code",
    "hello_binding", "verify_signature", "JOIN_CODE_CHARS", "MIN_JOIN_CODE_CHARS",
]

IDENTITY_FILE = "identity.json"
KNOWN_PEERS_FILE = "known_peers.json"
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no CRLF translation of the bytes
_MAX_STORE_FILE = 16 << 20
HELLO_DOMAIN = b"unonet-hello-v1\x00"
SEAL_KEY_INFO = b"unonet-seal-key-v1"
DERIVED_SALT = b"unonet-derived-identity-v1"


class IdentityError(TrustError):
    """Our own key store is unusable (unsafe permissions, corrupt file)."""


class PeerKeyChangedError(TrustError):
    def __init__(self, name: str, old_fp: str, new_fp: str, path: Path | None) -> None:
        self.name, self.old_fingerprint, self.new_fingerprint = name, old_fp, new_fp
        where = f" (remove its entry from {path} if you trust the change)" if path else ""
        super().__init__(
            f"KEY CHANGED for peer {name!r}: pinned {old_fp}, now presenting {new_fp}. "
            f"Someone may be impersonating {name!r}; refusing to connect{where}."
        )


def hello_binding(handshake_hash: bytes, static_public: bytes, seal_public: bytes) -> bytes:
    """What a hello's signature covers: ties the Ed25519 key and the seal key to this
    Noise session."""
    return HELLO_DOMAIN + handshake_hash + static_public + seal_public


def verify_signature(sign_public: bytes, signature: bytes, data: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(sign_public).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True


def _seal_private(ed25519_seed: bytes) -> bytes:
    """The seal X25519 private key, derived from the Ed25519 seed (spec §4.5)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                info=SEAL_KEY_INFO).derive(ed25519_seed)


class Identity:
    """Our long-term keys: X25519 for Noise, Ed25519 for signing, X25519 for seals.

    The seal key (what the fair layer's sealed openings are encrypted to) is a
    separate X25519 key derived from the Ed25519 seed, never the Noise static:
    one key, one protocol."""

    __slots__ = ("noise", "_signing", "sign_public", "_seal", "seal_public")

    def __init__(self, noise: KeyPair, signing: Ed25519PrivateKey) -> None:
        from cryptography.hazmat.primitives.serialization import NoEncryption, PrivateFormat

        self.noise = noise
        self._signing = signing
        self.sign_public = signing.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        seed = signing.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        self._seal = KeyPair.from_private_bytes(_seal_private(seed))
        self.seal_public = self._seal.public

    def fair_identity(self):
        """This identity as a ``unonet.fair.Identity`` (Ed25519 signing + seal key)."""
        from cryptography.hazmat.primitives.serialization import NoEncryption, PrivateFormat

        from unonet.fair import Identity as FairIdentity

        raw = (Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        return FairIdentity(self._signing.private_bytes(*raw) + self._seal.private.private_bytes(*raw),
                            static_key=self.noise.public)

    @classmethod
    def generate(cls) -> Identity:
        return cls(KeyPair.generate(), Ed25519PrivateKey.generate())

    @classmethod
    def from_private_bytes(cls, x25519: bytes, ed25519: bytes) -> Identity:
        return cls(KeyPair.from_private_bytes(x25519), Ed25519PrivateKey.from_private_bytes(ed25519))

    @classmethod
    def derived(cls, parent: Identity, label: bytes) -> Identity:
        """A child identity that only ``parent``'s holder can make, the same for the same
        ``label`` every time (a host's bot stays one player across matches and runs); one-way:
        the child's keys tell nothing of the parent's."""
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF

        x25519, ed25519 = parent._private_bytes()
        okm = HKDF(algorithm=hashes.SHA256(), length=64, salt=DERIVED_SALT,
                   info=bytes(label)).derive(x25519 + ed25519)
        return cls.from_private_bytes(okm[:32], okm[32:])

    @property
    def static_public(self) -> bytes:
        return self.noise.public

    @property
    def fingerprint(self) -> bytes:
        return fingerprint(self.noise.public)

    @property
    def short_fingerprint(self) -> str:
        return short_fingerprint(self.noise.public)

    @property
    def join_code(self) -> str:
        return join_code(self.noise.public)

    def sign(self, data: bytes) -> bytes:
        return self._signing.sign(data)

    def _private_bytes(self) -> tuple[bytes, bytes]:
        from cryptography.hazmat.primitives.serialization import NoEncryption, PrivateFormat

        raw = (Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        return self.noise.private.private_bytes(*raw), self._signing.private_bytes(*raw)

    def __repr__(self) -> str:  # never print private keys
        return f"<Identity {self.short_fingerprint}>"


def _ensure_dir(path: Path) -> None:
    """Create the config directory 0700, or tighten an existing one to 0700.

    A directory owned by another user is refused: whoever owns it can swap our
    files.  Windows: created, not checked (no owners or mode bits to read)."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.stat(path)
    except OSError as exc:
        raise IdentityError(f"cannot use config directory {path}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise IdentityError(f"{path} is not a directory")
    if is_windows():
        return
    if st.st_uid != os.getuid():
        raise IdentityError(f"config directory {path} is owned by another user (uid {st.st_uid})")
    if stat.S_IMODE(st.st_mode) & 0o077:
        try:
            os.chmod(path, 0o700)
        except OSError as exc:
            raise IdentityError(f"cannot chmod 700 {path}: {exc.strerror or exc}") from None


def _write_temp(path: Path, data: bytes) -> Path:
    """Write ``data`` to a fresh 0600 file with a random name beside ``path``."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _o_nofollow() | _O_CLOEXEC | _O_BINARY,
                 0o600)
    try:
        if not is_windows():
            os.fchmod(fd, 0o600)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        _unlink_quietly(tmp)
        raise
    os.close(fd)
    return tmp


def _o_nofollow() -> int:
    """``O_NOFOLLOW`` where the system has it (not Windows: there a link is refused by
    a look before the open, `_read_private`)."""
    return getattr(os, "O_NOFOLLOW", 0)


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_private(path: Path, data: bytes) -> None:
    """Atomically replace ``path`` with a 0600 file (random temp file + rename)."""
    tmp = _write_temp(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise
    _fsync_dir(path.parent)


def _create_private(path: Path, data: bytes) -> bool:
    """Create ``path`` with ``data`` only if it does not exist; never a partial file.

    The content is written to a temp file first and then hard-linked into place,
    which fails if another process created ``path`` meanwhile (returns False)."""
    tmp = _write_temp(path, data)
    try:
        if is_windows():
            os.link(tmp, path)  # follow_symlinks is a POSIX (linkat) argument
        else:
            os.link(tmp, path, follow_symlinks=False)
    except FileExistsError:
        return False
    except OSError:  # no hard links here (some network/FAT mounts): rename instead
        if os.path.lexists(path):
            return False
        os.replace(tmp, path)
        tmp = None
    finally:
        if tmp is not None:
            _unlink_quietly(tmp)
    _fsync_dir(path.parent)
    return True


def _read_private(path: Path, *, secret: bool) -> bytes | None:
    """Read ``path`` through one descriptor: no symlinks, ours, not writable by others
    (and, if ``secret``, not readable by them).  ``None`` if it does not exist.

    Windows: no ``O_NOFOLLOW``, so a link is refused by a look first; owner and mode
    are not checked there (the module docstring says why)."""
    if is_windows() and os.path.islink(path):
        raise IdentityError(f"{path} is a symbolic link; refusing to follow it")
    try:
        fd = os.open(path, os.O_RDONLY | _o_nofollow() | _O_CLOEXEC | _O_BINARY
                     | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        if os.path.islink(path):  # dangling symlink
            raise IdentityError(f"{path} is a symbolic link; refusing to follow it") from None
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP or os.path.islink(path):
            raise IdentityError(f"{path} is a symbolic link; refusing to follow it") from None
        raise IdentityError(f"cannot open {path}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise IdentityError(f"{path} is not a regular file")
        if not is_windows() and st.st_uid != os.getuid():
            raise IdentityError(f"{path} is owned by another user (uid {st.st_uid}); refusing it")
        mode = stat.S_IMODE(st.st_mode)
        if not is_windows() and mode & (0o077 if secret else 0o022):
            what = "accessible by other users" if secret else "writable by other users"
            raise IdentityError(f"{path} is {what} (mode {mode:o}); run: chmod 600 {path}")
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
            if sum(map(len, chunks)) > _MAX_STORE_FILE:
                raise IdentityError(f"{path} is implausibly large; refusing it")
        return b"".join(chunks)
    except OSError as exc:
        raise IdentityError(f"cannot read {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _parse_identity(path: Path, raw: bytes) -> Identity:
    try:
        d = json.loads(raw.decode("utf-8"))
        return Identity.from_private_bytes(bytes.fromhex(d["x25519"]), bytes.fromhex(d["ed25519"]))
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise IdentityError(f"{path} is corrupt ({exc}); move it away to make a new identity") from None


def load_or_create_identity(home: Path | None = None) -> Identity:
    """Load our identity, creating it (0600, written whole then renamed) on first run."""
    home = config_dir() if home is None else Path(home)
    _ensure_dir(home)
    path = home / IDENTITY_FILE
    for _ in range(3):
        raw = _read_private(path, secret=True)
        if raw is not None:
            return _parse_identity(path, raw)
        ident = Identity.generate()
        x, ed = ident._private_bytes()
        body = json.dumps({"version": 1, "x25519": x.hex(), "ed25519": ed.hex()}).encode()
        try:
            if _create_private(path, body):
                return ident
        except OSError as exc:
            raise IdentityError(f"cannot create {path}: {exc.strerror or exc}") from None
        # another process created it meanwhile: load theirs
    raise IdentityError(f"{path} keeps appearing and disappearing; refusing it")


class KnownPeers:
    """Trust on first use: the first key seen under a name is pinned for good.

    Names are whatever the caller uses to identify a peer (a player's name, or
    ``host:<table name>``); a later different key under that name is refused.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = config_dir() / KNOWN_PEERS_FILE if path is None else Path(path)
        self._peers: dict[str, dict[str, str]] = {}
        if self.path.parent.exists():
            _ensure_dir(self.path.parent)
        raw = _read_private(self.path, secret=False)
        if raw is not None:
            try:
                data = json.loads(raw.decode("utf-8"))
                self._peers = {str(k): dict(v) for k, v in data["peers"].items()}
            except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError) as exc:
                raise IdentityError(f"{self.path} is corrupt ({exc})") from None

    def __contains__(self, name: str) -> bool:
        return name in self._peers

    def get(self, name: str) -> bytes | None:
        entry = self._peers.get(name)
        return bytes.fromhex(entry["static"]) if entry else None

    def names(self, prefix: str = "") -> list[str]:
        """The names pinned under ``prefix`` (a host looks for names that read alike)."""
        return [n for n in self._peers if n.startswith(prefix)]

    def check(self, name: str, static_public: bytes, sign_public: bytes | None = None) -> bool:
        """Pin on first use (returns True), accept a match (False), refuse a change."""
        entry = self._peers.get(name)
        if entry is None:
            self._peers[name] = {"static": static_public.hex()}
            if sign_public is not None:
                self._peers[name]["sign"] = sign_public.hex()
            self._save()
            return True
        old_static = bytes.fromhex(entry["static"])
        if old_static != static_public:
            raise PeerKeyChangedError(
                name, short_fingerprint(old_static), short_fingerprint(static_public), self.path
            )
        if sign_public is not None:
            if "sign" not in entry:
                entry["sign"] = sign_public.hex()
                self._save()
            elif entry["sign"] != sign_public.hex():
                raise PeerKeyChangedError(
                    name, f"{short_fingerprint(old_static)} (signing key {entry['sign'][:16]}...)",
                    f"{short_fingerprint(static_public)} (signing key {sign_public.hex()[:16]}...)",
                    self.path,
                )
        return False

    def forget(self, name: str) -> None:
        if self._peers.pop(name, None) is not None:
            self._save()

    def _save(self) -> None:
        _ensure_dir(self.path.parent)
        body = json.dumps({"version": 1, "peers": self._peers}, indent=1, sort_keys=True)
        _write_private(self.path, body.encode())
