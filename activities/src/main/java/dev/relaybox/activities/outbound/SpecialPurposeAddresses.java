package dev.relaybox.activities.outbound;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Addresses a webhook must not reach unless the operator says so: cloud metadata services, never, since one request
 * there can hand out the machine's credentials; every block of the IANA IPv4 and IPv6 Special-Purpose Address
 * Registries plus multicast, only when allowed by name ({@link AddressPolicy}). The IPv6 forms that carry an IPv4
 * address (IPv4-mapped, IPv4-compatible, NAT64, 6to4) are judged by that address, so {@code 64:ff9b::7f00:1} is
 * loopback and {@code 64:ff9b::808:808} is as public as 8.8.8.8.
 */
final class SpecialPurposeAddresses {
    private SpecialPurposeAddresses() {}

    static final List<AddressBlock> CLOUD_METADATA = List.of(
            AddressBlock.of("169.254.169.254/32", "cloud metadata (AWS, GCP, Azure, OpenStack, ...)"),
            AddressBlock.of("169.254.170.2/32", "AWS ECS task metadata"),
            AddressBlock.of("169.254.170.23/32", "AWS EKS pod identity"),
            AddressBlock.of("100.100.100.200/32", "Alibaba Cloud metadata"),
            AddressBlock.of("168.63.129.16/32", "Azure WireServer"),
            AddressBlock.of("fd00:ec2::254/128", "AWS metadata (IPv6)"),
            AddressBlock.of("fd00:ec2::23/128", "AWS EKS pod identity (IPv6)"));

    static final List<AddressBlock> SPECIAL_PURPOSE = List.of(
            // IPv4 Special-Purpose Address Registry, then multicast and broadcast.
            AddressBlock.of("0.0.0.0/8", "\"this network\""),
            AddressBlock.of("10.0.0.0/8", "private-use"),
            AddressBlock.of("100.64.0.0/10", "shared address space (carrier-grade NAT)"),
            AddressBlock.of("127.0.0.0/8", "loopback"),
            AddressBlock.of("169.254.0.0/16", "link-local"),
            AddressBlock.of("172.16.0.0/12", "private-use"),
            AddressBlock.of("192.0.0.0/24", "IETF protocol assignments"),
            AddressBlock.of("192.0.2.0/24", "documentation (TEST-NET-1)"),
            AddressBlock.of("192.31.196.0/24", "AS112-v4"),
            AddressBlock.of("192.52.193.0/24", "AMT"),
            AddressBlock.of("192.88.99.0/24", "deprecated 6to4 relay anycast"),
            AddressBlock.of("192.168.0.0/16", "private-use"),
            AddressBlock.of("192.175.48.0/24", "direct delegation AS112 service"),
            AddressBlock.of("198.18.0.0/15", "benchmarking"),
            AddressBlock.of("198.51.100.0/24", "documentation (TEST-NET-2)"),
            AddressBlock.of("203.0.113.0/24", "documentation (TEST-NET-3)"),
            AddressBlock.of("224.0.0.0/4", "multicast"),
            AddressBlock.of("240.0.0.0/4", "reserved"),
            AddressBlock.of("255.255.255.255/32", "limited broadcast"),
            // IPv6 Special-Purpose Address Registry, then multicast and deprecated site-local.
            // ::/96 (IPv4-compatible), 64:ff9b::/96 (NAT64) and 2002::/16 (6to4) are judged by their IPv4 address.
            AddressBlock.of("::/128", "unspecified"),
            AddressBlock.of("::1/128", "loopback"),
            AddressBlock.of("64:ff9b:1::/48", "local-use IPv4/IPv6 translation"),
            AddressBlock.of("100::/64", "discard-only"),
            AddressBlock.of("100:0:0:1::/64", "dummy prefix"),
            AddressBlock.of("2001::/23", "IETF protocol assignments (Teredo, benchmarking, ORCHID, ...)"),
            AddressBlock.of("2001:db8::/32", "documentation"),
            AddressBlock.of("2620:4f:8000::/48", "direct delegation AS112 service"),
            AddressBlock.of("3fff::/20", "documentation"),
            AddressBlock.of("5f00::/16", "segment routing (SRv6) SIDs"),
            AddressBlock.of("fc00::/7", "unique-local"),
            AddressBlock.of("fe80::/10", "link-local"),
            AddressBlock.of("fec0::/10", "deprecated site-local"),
            AddressBlock.of("ff00::/8", "multicast"));

    /**
     * Blocks that reach this host itself: an allow-list opens them only with an entry inside them (127.0.0.0/8, not
     * 0.0.0.0/0), so no broad entry lets webhooks into the machine by accident.
     */
    static final List<AddressBlock> THIS_HOST = List.of(
            AddressBlock.of("0.0.0.0/8", "\"this network\""),
            AddressBlock.of("127.0.0.0/8", "loopback"),
            AddressBlock.of("::/128", "unspecified"),
            AddressBlock.of("::1/128", "loopback"));

    private static final AddressBlock NAT64 = AddressBlock.of("64:ff9b::/96", "NAT64");
    private static final AddressBlock SIX_TO_FOUR = AddressBlock.of("2002::/16", "6to4");
    private static final AddressBlock IPV4_COMPATIBLE = AddressBlock.of("::/96", "IPv4-compatible");
    // Built from bytes: InetAddress turns an IPv4-mapped literal into the IPv4 address.
    private static final AddressBlock IPV4_MAPPED = new AddressBlock(
            "::ffff:0:0/96",
            "IPv4-mapped",
            new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 0, 0, 0, 0},
            96);

    static Optional<AddressBlock> find(List<AddressBlock> blocks, InetAddress address) {
        return blocks.stream().filter(block -> block.contains(address)).findFirst();
    }

    /** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), else the address itself. */
    static InetAddress embeddedIpv4(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address;
        }
        byte[] b = address.getAddress();
        if (IPV4_MAPPED.contains(b) || NAT64.contains(b)) {
            return ipv4(Arrays.copyOfRange(b, 12, 16));
        }
        if (SIX_TO_FOUR.contains(b)) {
            return ipv4(Arrays.copyOfRange(b, 2, 6));
        }
        // :: and ::1 are IPv6's own unspecified and loopback addresses, not 0.0.0.0 and 0.0.0.1.
        if (IPV4_COMPATIBLE.contains(b) && !address.isAnyLocalAddress() && !address.isLoopbackAddress()) {
            return ipv4(Arrays.copyOfRange(b, 12, 16));
        }
        return address;
    }

    private static InetAddress ipv4(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
