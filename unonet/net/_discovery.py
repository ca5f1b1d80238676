"""LAN discovery (spec §3): a host's beacons and a joiner's probe, over UDP.

Datagrams are plaintext hints: the decoder drops anything malformed without a
word, and nothing in a beacon is trusted before the Noise handshake.  Each
beacon and probe goes to the limited broadcast 255.255.255.255 *and* to every
interface's directed broadcast (the limited one fails with "network
unreachable" on a machine without a default route).  ``bind`` confines both
sides to the interface that holds that address: a host bound to 127.0.0.1
beacons on loopback only.  Interfaces come from ``ifaddr``, the same on Linux,
macOS and Windows.
"""

from __future__ import annotations

import dataclasses
import errno
import ipaddress
import os
import socket
import struct
import sys
from collections import Counter
from typing import Callable

import trio

from unonet.fingerprint import fingerprint_code, normalize_join_code  # the one fingerprint text (spec §4.5)
from unonet.protocol import (
    Beacon, Probe, RemoteProtocolError, MIN_PROTOCOL_VERSION, PROTOCOL_VERSION, decode_datagram,
    encode_datagram, negotiate_version,
)

from ._errors import bind_failed

__all__ = ["DISCOVERY_PORT", "Interface", "interfaces", "broadcast_targets", "announce",
           "discover", "FoundTable", "fingerprint_code", "announces_code"]

DISCOVERY_PORT = 47777
LIMITED_BROADCAST = "255.255.255.255"
MAX_REPLIES_PER_SECOND = 20  # probe answers: bounds what a spoofed probe flood can reflect
# datagrams a host reads from its discovery sockets a second, all told: past it the kernel drops
# them unread (a stranger's flood of probes and junk, ~80,000 a second, cost the host 60% of a
# core though every answer was already capped; a LAN's real probes are a few a second)
MAX_READS_PER_SECOND = 200
MAX_TABLES = 64              # tables one discovery lists (a flood of forged beacons is cut off)
MAX_TABLES_PER_SOURCE = 4    # ... from one source address
_RECV = 2048

_SIOCGIFFLAGS, _IFF_UP = 0x8913, 0x1  # linux/sockios.h, linux/if.h
# A target this machine cannot send to (down, unrouted, refused) is skipped; so is a send the
# system has no buffer for this moment (macOS and Windows say ENOBUFS when an interface's queue
# is full - a LAN flooded by a stranger - where Linux drops the datagram quietly): the next
# beacon goes a second later, and a host's table never ends for one.  Windows reports some of
# these under its WSA numbers; errno has those only there.
_UNSENDABLE = frozenset(
    getattr(errno, name) for name in (
        "ENETUNREACH", "EHOSTUNREACH", "ENETDOWN", "EACCES", "EADDRNOTAVAIL", "EPERM", "EINVAL",
        "ENOBUFS", "ENOMEM",
        "WSAEACCES", "WSAEADDRNOTAVAIL", "WSAEINVAL", "WSAENETDOWN", "WSAENETUNREACH",
        "WSAEHOSTUNREACH", "WSAENOBUFS")
    if hasattr(errno, name))


@dataclasses.dataclass(frozen=True)
class Interface:
    """An IPv4 address of an interface and where its broadcasts go."""

    name: str
    address: str
    netmask: str
    broadcast: str | None
    up: bool
    loopback: bool


def _linux_up(name: str) -> bool:
    """Whether Linux says the interface is up (its ``SIOCGIFFLAGS``, as ``ip link`` shows;
    ifaddr reports addresses, not flags).  Other systems: an interface with an address
    counts as up, and a send to a down one fails and is skipped."""
    if not sys.platform.startswith("linux"):
        return True
    import fcntl  # Linux only, so imported here: Windows has no fcntl

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            req = fcntl.ioctl(sock.fileno(), _SIOCGIFFLAGS, struct.pack("256s", name.encode()[:15]))
        except OSError:
            return True
    return bool(struct.unpack_from("H", req, 16)[0] & _IFF_UP)


def interfaces(adapters: list | None = None) -> list[Interface]:
    """Every IPv4 address of every interface, as ``ifaddr`` reports them (getifaddrs on
    Linux and macOS, GetAdaptersAddresses on Windows); ``adapters`` stands in for
    ``ifaddr.get_adapters()``.

    The directed broadcast is the last address of the address's network (what a
    DHCP-configured interface announces as its broadcast); a /31 or /32 has none.
    IPv6 entries (ifaddr gives them as ``(address, flowinfo, scope_id)``) are skipped.
    Windows names adapters by GUID; the connection's own name ("Wi-Fi") is kept."""
    if adapters is None:
        import ifaddr  # imported when needed: it looks up the C library (tens of ms)

        adapters = ifaddr.get_adapters()
    out = []
    for adapter in adapters:
        for ip in adapter.ips:
            if not isinstance(ip.ip, str):
                continue
            try:
                net = ipaddress.IPv4Interface(f"{ip.ip}/{ip.network_prefix}")
            except ValueError:
                continue
            brd = str(net.network.broadcast_address) if net.network.prefixlen < 31 else None
            name = ip.nice_name or adapter.nice_name or adapter.name
            out.append(Interface(name, str(net.ip), str(net.netmask), brd,
                                 _linux_up(adapter.name),
                                 net.ip.is_loopback))
    return out


def broadcast_targets(bind: str | None = None,
                      ifaces: list[Interface] | None = None) -> list[str]:
    """Where beacons and probes go: 255.255.255.255 and each up interface's directed
    broadcast; with ``bind`` only the directed broadcast of the interface holding
    that address (or the address itself if it has none)."""
    ifaces = interfaces() if ifaces is None else ifaces
    if bind is not None:
        for i in ifaces:
            if i.address == bind:
                return [i.broadcast or bind]
        return [bind]
    out = [LIMITED_BROADCAST]
    for i in ifaces:
        if i.up and i.broadcast and i.broadcast not in out:
            out.append(i.broadcast)
    return out


def _udp_socket() -> trio.socket.SocketType:
    sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    except OSError:
        pass
    return sock


async def _bound(bind_addr: str, port: int) -> trio.socket.SocketType:
    sock = _udp_socket()
    try:
        await sock.bind((bind_addr, port))
    except OSError as exc:
        sock.close()
        raise bind_failed(exc, "UDP", bind_addr or None, port) from None
    return sock


async def _recvfrom(sock) -> tuple[bytes, tuple] | None:
    """One datagram, or None where the socket reported an earlier send's ICMP error instead:
    Windows fails the next ``recvfrom`` with WSAECONNRESET when a datagram we sent (a probe's
    answer to a prober already gone) came back port-unreachable; that is no reason to stop
    listening (it ended the host's table).  Linux reports it so only with IP_RECVERR."""
    try:
        return await sock.recvfrom(_RECV)
    except (ConnectionResetError, ConnectionRefusedError):
        return None


async def _send_all_targets(sock, data: bytes, targets: list[str], port: int) -> int:
    """Send to every target; unreachable ones are skipped. Returns how many went out."""
    sent = 0
    for dst in targets:
        try:
            await sock.sendto(data, (dst, port))
            sent += 1
        except OSError as exc:
            if exc.errno not in _UNSENDABLE:
                raise
    return sent


async def announce(
    beacon: Callable[[], Beacon], *, port: int = DISCOVERY_PORT, bind: str | None = None,
    interval: float = 1.0,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Host side, until cancelled: ``beacon()`` every ``interval`` to every broadcast
    target, and at once (unicast, nonce echoed) to the sender of each probe.

    ``task_status.started(targets)`` once the sockets are bound."""
    targets = broadcast_targets(bind)
    socks = []
    try:
        if bind is None:
            socks.append(await _bound("", port))
        else:
            socks.append(await _bound(bind, port))  # unicast probes; source of our beacons
            for t in targets:
                if t != bind:  # directed-broadcast probes arrive on a socket bound there
                    try:
                        socks.append(await _bound(t, port))
                    except OSError:
                        pass  # Windows (and macOS on loopback) refuse it: unicast probes still come
        sender = socks[0]
        budget = [MAX_REPLIES_PER_SECOND, trio.current_time()]
        reads = [MAX_READS_PER_SECOND, trio.current_time()]

        async def answer(sock) -> None:
            while True:
                now = trio.current_time()
                if now - reads[1] >= 1.0:
                    reads[:] = [MAX_READS_PER_SECOND, now]
                if reads[0] <= 0:  # this second's reads are spent: the rest waits, or is dropped
                    await trio.sleep_until(reads[1] + 1.0)
                    continue
                reads[0] -= 1
                got = await _recvfrom(sock)
                if got is None:
                    continue
                data, src = got
                try:
                    msg = decode_datagram(data)
                except RemoteProtocolError:
                    continue  # hostile or foreign: dropped silently
                if not isinstance(msg, Probe):
                    continue
                now = trio.current_time()
                if now - budget[1] >= 1.0:
                    budget[:] = [MAX_REPLIES_PER_SECOND, now]
                if budget[0] <= 0:
                    continue
                budget[0] -= 1
                reply = dataclasses.replace(beacon(), nonce=msg.nonce)
                try:
                    await sender.sendto(encode_datagram(reply), src)
                except OSError:
                    pass

        async with trio.open_nursery() as nursery:
            for s in socks:
                nursery.start_soon(answer, s)
            task_status.started(targets)
            while True:
                await _send_all_targets(sender, encode_datagram(beacon()), targets, port)
                await trio.sleep(interval)
    finally:
        for s in socks:
            s.close()


def announces_code(code: str) -> Callable[[Beacon], bool]:
    """Does a beacon announce a key whose fingerprint starts with the join code ``code``
    (normalized as `--code` is; an invalid code raises ``InvalidJoinCodeError``)?  Only a
    hint, as every beacon: the key is checked at the handshake."""
    want = normalize_join_code(code)
    return lambda beacon: fingerprint_code(beacon.fp, len(want)).replace("-", "") == want


@dataclasses.dataclass(frozen=True)
class FoundTable:
    """A table seen in a beacon: where it says it is, and whether we can speak to it.

    ``address`` is the datagram's source address (not a claim from inside it)."""

    address: str
    beacon: Beacon
    compatible: bool
    version: int | None
    probed: bool  # answered our probe (unicast, nonce echoed)

    @property
    def port(self) -> int:
        return self.beacon.port

    @property
    def join_code(self) -> str:
        return fingerprint_code(self.beacon.fp)


async def discover(
    timeout: float = 1.0, *, port: int = DISCOVERY_PORT, bind: str | None = None,
    on_found: Callable[[FoundTable], None] | None = None,
    want: Callable[[Beacon], bool] | None = None,
) -> list[FoundTable]:
    """Joiner side: probe now (and once more half-way), listen ``timeout`` seconds,
    return the tables seen, one per (address, port, table id, key fingerprint), newest
    beacon kept (at most ``MAX_TABLES`` heard and as many answering our probe,
    ``MAX_TABLES_PER_SOURCE`` from one address; a compatible listing is never turned
    incompatible).

    The probe leaves from an ephemeral port, so answers to it arrive by unicast;
    a second socket on the discovery port (when it can be bound) hears the
    periodic beacons too.  ``on_found`` is called for each new table at once.  ``want``: only
    beacons it accepts are listed, and they alone count against the bounds (a joiner with
    ``--code`` lists the tables of that key: a flood of forged tables cannot crowd them out)."""
    targets = broadcast_targets(bind)
    nonce = os.urandom(8)
    probe = encode_datagram(Probe(v=PROTOCOL_VERSION, vmin=MIN_PROTOCOL_VERSION, nonce=nonce))
    found: dict[tuple[str, int, bytes, bytes], FoundTable] = {}
    per_source: Counter[str] = Counter()
    kept: Counter[bool] = Counter()  # listings kept: heard passively (False), answering our probe (True)
    socks = [await _bound(bind or "", 0)]
    passive = [t for t in targets if t != bind] if bind else [""]
    for addr in passive:
        try:
            socks.append(await _bound(addr, port))
        except OSError:
            pass  # the port is taken without SO_REUSEADDR: the probe answers still come

    async def listen(sock) -> None:
        while True:
            got = await _recvfrom(sock)
            if got is None:
                continue
            data, src = got
            try:
                msg = decode_datagram(data)
            except RemoteProtocolError:
                continue
            if not isinstance(msg, Beacon) or (want is not None and not want(msg)):
                continue
            try:
                version, ok = negotiate_version(msg.vmin, msg.v), True
            except RemoteProtocolError:
                version, ok = None, False
            # a beacon is a hint anyone may forge (even its source address): the listing is
            # keyed by the key it claims too, so a forged one is another line beside the
            # real table's, never a change to it (joining checks the key: spec §3)
            key = (src[0], msg.port, msg.table, msg.fp)
            old = found.get(key)
            if old is not None and old.compatible and not ok:
                continue  # a running table's versions do not change: a forgery's do
            probed = msg.nonce == nonce or (old is not None and old.probed)
            if old is None and (per_source[src[0]] >= MAX_TABLES_PER_SOURCE or kept[probed] >= MAX_TABLES):
                continue  # bounded: a flood of fake tables is not a listing (answers to our own
                #           probe are counted apart, so a flood of passive beacons cannot crowd them out)
            table = FoundTable(src[0], dataclasses.replace(msg, nonce=None), ok, version, probed)
            found[key] = table
            if old is None:
                per_source[src[0]] += 1
                kept[probed] += 1
                if on_found is not None:
                    on_found(table)

    try:
        with trio.move_on_after(timeout):
            async with trio.open_nursery() as nursery:
                for s in socks:
                    nursery.start_soon(listen, s)
                await _send_all_targets(socks[0], probe, targets, port)
                await trio.sleep(timeout / 2)
                await _send_all_targets(socks[0], probe, targets, port)
    finally:
        for s in socks:
            s.close()
    return sorted(found.values(), key=lambda t: (t.beacon.name, t.address, t.port))
