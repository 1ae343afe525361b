"""Which addresses the fetch guard treats as public, and how the allow-list widens that."""

from __future__ import annotations

import ipaddress

import pytest

from tools.web.policy import AllowList, non_public_reason, parse_address


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("172.31.255.254", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local cloud metadata"),
        ("169.254.1.1", "link-local"),
        ("100.64.0.1", "shared (carrier-grade NAT)"),
        ("0.0.0.0", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("240.0.0.1", "private"),  # reserved; Python files it under private
        ("255.255.255.255", "private"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("::ffff:127.0.0.1", "loopback (IPv4-mapped)"),
        ("::ffff:10.0.0.1", "private (IPv4-mapped)"),
        ("::ffff:100.64.0.1", "shared (carrier-grade NAT) (IPv4-mapped)"),
        ("::ffff:169.254.169.254", "link-local cloud metadata (IPv4-mapped)"),
        ("fe80::1", "link-local"),
        ("fc00::1", "private"),
        ("fd00:ec2::254", "link-local cloud metadata"),
        ("ff02::1", "multicast"),
        ("fec0::1", "site-local"),
        ("2002:7f00:1::", "loopback (embedded in 2002:7f00:1::)"),
        ("64:ff9b::a00:1", "private (embedded in 64:ff9b::a00:1)"),
        ("64:ff9b::808:808", "reserved"),  # NAT64 to a public address: refused all the same
        ("::7f00:1", "reserved"),
    ],
)
def test_non_public_addresses_are_named(address: str, reason: str) -> None:
    assert non_public_reason(ipaddress.ip_address(address)) == reason


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "93.184.216.34", "2606:4700::1111", "::ffff:8.8.8.8", "2002:808:808::", "100.128.0.1"]
)
def test_public_addresses_pass(address: str) -> None:
    assert non_public_reason(ipaddress.ip_address(address)) is None


def test_allowlist_parses_hosts_ips_and_cidrs() -> None:
    allow = AllowList.parse(" Intranet.Example. , 127.0.0.1, 10.0.0.0/8,, [::1] ")
    assert allow.allows_host("intranet.example")
    assert allow.allows_host("INTRANET.example.")
    assert not allow.allows_host("example")
    assert allow.allows_address(ipaddress.ip_address("127.0.0.1"))
    assert allow.allows_address(ipaddress.ip_address("10.200.1.1"))
    assert allow.allows_address(ipaddress.ip_address("::1"))
    assert not allow.allows_address(ipaddress.ip_address("127.0.0.2"))
    assert not allow.allows_address(ipaddress.ip_address("192.168.0.1"))


def test_a_cidr_written_with_host_bits_allows_its_whole_network() -> None:
    """`10.1.2.3/8` is how people copy an interface address: it means 10.0.0.0/8, not an error."""
    allow = AllowList.parse("10.1.2.3/8, fd00::5/64")
    assert allow.allows_address(ipaddress.ip_address("10.200.0.1"))
    assert allow.allows_address(ipaddress.ip_address("fd00::beef"))
    assert not allow.allows_address(ipaddress.ip_address("11.0.0.1"))


def test_parse_address_tolerates_brackets_and_zone_ids() -> None:
    assert parse_address("[::1]") == ipaddress.ip_address("::1")
    assert parse_address("fe80::1%eth0") == ipaddress.ip_address("fe80::1")
    assert parse_address("example.com") is None
