"""Who a call comes from, as the per-address budgets count it.

The server bounds several things per client address: refused tokens
(`arena.server.authgate`), read-only calls (`arena.server.readpace`) and
watching streams (`arena.server.live.Spectators`, shared with the web
view).  Such a bound is only worth as much as it is costly to get a second
address.  An IPv4 address is (one per host, or one per NAT), but an IPv6
subscriber is normally given a whole /64 or more, and any host on it can
pick a new source address per connection: counted whole, each of those is a
fresh budget, 2^64 of them.  So an IPv6 address is counted by its /64
network (`IPV6_PREFIX`), as the usual rate limiters and blocklists do; an
IPv4-mapped IPv6 address (``::ffff:192.0.2.1``, what a dual-stack socket
may show for an IPv4 client) is the IPv4 address it carries.

The key is text in gRPC's own style (``ipv4:192.0.2.1``,
``ipv6:2001:db8:1:2::/64``), the same whether the call came over gRPC
(`peer_address`, from ``context.peer()``) or to the web view
(`address_key`, from the ASGI client's host), so one client has one budget
on both.  Anything that is not an IP address (a Unix socket's peer, an
unparsable string) is its own key.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import unquote

#: The prefix length an IPv6 address is counted by: the network one subscriber is normally given.
IPV6_PREFIX = 64


def address_key(host: str) -> str:
    """The budget key of a client host (an IPv4 or IPv6 address, brackets and a zone allowed)."""
    text = host.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return f"ipv4:{ip.ipv4_mapped}"
        network = ipaddress.IPv6Network((int(ip), IPV6_PREFIX), strict=False)
        return f"ipv6:{network}"
    return f"ipv4:{ip}"


def peer_address(peer: str) -> str:
    """The budget key of a gRPC peer string: ``ipv4:192.0.2.1:50312`` -> ``ipv4:192.0.2.1``,
    ``ipv6:%5B2001:db8:1:2::7%5D:5`` (gRPC percent-encodes the brackets) -> ``ipv6:2001:db8:1:2::/64``."""
    kind, colon, rest = peer.partition(":")
    if colon and kind in ("ipv4", "ipv6"):
        host, _, port = unquote(rest).rpartition(":")
        if host and port.isdigit():
            return address_key(host)
    return peer
