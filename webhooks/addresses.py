"""Where a webhook may be sent (SSRF): only http(s), and only to public addresses unless the operator
allows private ones (WEBHOOKS_ALLOW_PRIVATE). Checked at registration for literal addresses and again at
every delivery against the address the name resolves to, which is the address then connected to: a name
that resolves to a public address when registered and to 10.0.0.5 later is refused at delivery.

A refusal (AddressRefused) is policy and final; a name that does not resolve (HostUnresolved) is a DNS
outage or a record not there yet, and is retried like a refused connection."""

from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import urlsplit

from django.conf import settings

MESSAGE_SCHEME = "Only http:// and https:// URLs can receive webhooks."
MESSAGE_NO_HOST = "The URL has no host."
MESSAGE_PRIVATE = "The address is private, loopback, link-local, multicast or reserved: refused."
MESSAGE_UNRESOLVED = "The host name does not resolve."


class AddressRefused(Exception):
    pass


class HostUnresolved(Exception):
    """Not a refusal: nothing was checked, so nothing was refused. The delivery is tried again."""


def _blocked(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    # is_global is false for every private, shared (100.64/10), loopback, link-local and reserved range.
    return not ip.is_global or ip.is_multicast


def _literal_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address a host written as one means, in any form the resolver accepts: "127.0.0.1", "::1", and
    the old IPv4 forms "2130706433", "0x7f.1", "127.1" (which `ipaddress` does not read, but a connection
    reaches)."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if re.fullmatch(r"[0-9a-fA-Fx.]+", host) and re.match(r"[0-9]", host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def url_check(url: str) -> tuple[str, int, str]:
    """The URL's scheme, port and host if it may be registered; raises AddressRefused otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"}:
        raise AddressRefused(MESSAGE_SCHEME)
    if not parts.hostname:
        raise AddressRefused(MESSAGE_NO_HOST)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise AddressRefused(MESSAGE_NO_HOST) from None
    if not settings.WEBHOOKS_ALLOW_PRIVATE:
        literal = _literal_address(parts.hostname)
        if (literal is not None and _blocked(literal)) or parts.hostname.lower().rstrip(".") == "localhost":
            raise AddressRefused(MESSAGE_PRIVATE)
    return parts.scheme, port, parts.hostname


def address_resolve(host: str, port: int) -> str:
    """The address to connect to: the first the name resolves to, refused if ANY of them is blocked (a
    name with one public and one private address could be made to reach the private one). Raises
    HostUnresolved when the name does not resolve (now)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        raise HostUnresolved(MESSAGE_UNRESOLVED) from None
    addresses = [str(info[4][0]) for info in infos]
    if not addresses:
        raise HostUnresolved(MESSAGE_UNRESOLVED)
    if not settings.WEBHOOKS_ALLOW_PRIVATE and any(_blocked(ipaddress.ip_address(a.split("%")[0])) for a in addresses):
        raise AddressRefused(MESSAGE_PRIVATE)
    return addresses[0]
