"""Which network addresses the fetch guard may connect to.

Model-provided URLs must never reach the machine itself, the private network or the cloud metadata service
(SSRF). Only globally routable unicast addresses pass, unless the operator allow-lists a host, IP or CIDR in
`Context.fetch_allowlist` (env `PAOR_FETCH_ALLOWLIST`).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_SHARED = ipaddress.IPv4Network("100.64.0.0/10")  # carrier-grade NAT: not private, not public either
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_METADATA = {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}


def parse_address(text: str) -> IPAddress | None:
    """The IP address `text` spells (brackets and IPv6 zone ids tolerated), or None for a hostname."""
    try:
        return ipaddress.ip_address(text.strip("[]").split("%", 1)[0])
    except ValueError:
        return None


def non_public_reason(ip: IPAddress) -> str | None:
    """Why `ip` is not a public unicast address, or None when it is.

    IPv6 forms that embed an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, 6to4, NAT64) are judged by the IPv4
    address they lead to, because that is where the packets end up.
    """
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            inner = non_public_reason(ip.ipv4_mapped)
            return f"{inner} (IPv4-mapped)" if inner else None
        if ip.sixtofour is not None:  # by its IPv4 address alone: Python before 3.11.10 calls 2002::/16 private
            inner = non_public_reason(ip.sixtofour)
            return f"{inner} (embedded in {ip})" if inner else None
        if ip in _NAT64 and (inner := non_public_reason(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))):
            return f"{inner} (embedded in {ip})"
    if ip in _METADATA:
        return "link-local cloud metadata"
    checks: list[tuple[bool, str]] = [
        (ip.is_unspecified, "unspecified"),
        (ip.is_loopback, "loopback"),
        (ip.is_link_local, "link-local"),
        (ip.is_multicast, "multicast"),
        (isinstance(ip, ipaddress.IPv4Address) and ip in _SHARED, "shared (carrier-grade NAT)"),
        (ip.is_private, "private"),
        (ip.is_reserved, "reserved"),
        (isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local, "site-local"),
        (not ip.is_global, "not globally routable"),
    ]
    return next((reason for failed, reason in checks if failed), None)


@dataclass(frozen=True)
class AllowList:
    """Hosts and networks the operator lets the guard fetch although they are not public."""

    hosts: frozenset[str] = frozenset()
    networks: tuple[IPNetwork, ...] = field(default=())

    @classmethod
    def parse(cls, spec: str) -> AllowList:
        """Comma-separated hostnames, IPs or CIDRs, e.g. `intranet.example, 127.0.0.1, 10.0.0.0/8`."""
        hosts: set[str] = set()
        networks: list[IPNetwork] = []
        for raw in spec.split(","):
            entry = raw.strip().lower().rstrip(".")
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
            except ValueError:
                hosts.add(entry)
        return cls(frozenset(hosts), tuple(networks))

    def allows_host(self, host: str) -> bool:
        return host.lower().rstrip(".") in self.hosts

    def allows_address(self, ip: IPAddress) -> bool:
        return any(ip.version == net.version and ip in net for net in self.networks)
