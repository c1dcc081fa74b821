package dev.relaybox.activities.outbound;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Addresses a webhook must never reach. Two lists: cloud metadata services, refused always (even in embedded
 * mode, where private networks are allowed), since one request there can hand out the machine's credentials;
 * and every block of the IANA IPv4 and IPv6 Special-Purpose Address Registries plus multicast, refused unless
 * private networks are allowed. Blocks that embed an IPv4 address (IPv4-mapped) are judged by that address.
 */
final class SpecialPurposeAddresses {
    private SpecialPurposeAddresses() {}

    record Block(String cidr, String name, byte[] prefix, int bits) {
        static Block of(String cidr, String name) {
            String[] parts = cidr.split("/");
            try {
                return new Block(cidr, name, InetAddress.getByName(parts[0]).getAddress(), Integer.parseInt(parts[1]));
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException(cidr, e);
            }
        }

        boolean contains(byte[] address) {
            if (address.length != prefix.length) {
                return false;
            }
            int whole = bits / 8;
            if (!Arrays.equals(address, 0, whole, prefix, 0, whole)) {
                return false;
            }
            int rest = bits % 8;
            int mask = (0xff << (8 - rest)) & 0xff;
            return rest == 0 || (address[whole] & mask) == (prefix[whole] & mask);
        }
    }

    static final List<Block> CLOUD_METADATA = List.of(
            Block.of("169.254.169.254/32", "cloud metadata (AWS, GCP, Azure, OpenStack, ...)"),
            Block.of("169.254.170.2/32", "AWS ECS task metadata"),
            Block.of("169.254.170.23/32", "AWS EKS pod identity"),
            Block.of("100.100.100.200/32", "Alibaba Cloud metadata"),
            Block.of("168.63.129.16/32", "Azure WireServer"),
            Block.of("fd00:ec2::254/128", "AWS metadata (IPv6)"),
            Block.of("fd00:ec2::23/128", "AWS EKS pod identity (IPv6)"));

    static final List<Block> SPECIAL_PURPOSE = List.of(
            // IPv4 Special-Purpose Address Registry, then multicast and broadcast.
            Block.of("0.0.0.0/8", "\"this network\""),
            Block.of("10.0.0.0/8", "private-use"),
            Block.of("100.64.0.0/10", "shared address space (carrier-grade NAT)"),
            Block.of("127.0.0.0/8", "loopback"),
            Block.of("169.254.0.0/16", "link-local"),
            Block.of("172.16.0.0/12", "private-use"),
            Block.of("192.0.0.0/24", "IETF protocol assignments"),
            Block.of("192.0.2.0/24", "documentation (TEST-NET-1)"),
            Block.of("192.31.196.0/24", "AS112-v4"),
            Block.of("192.52.193.0/24", "AMT"),
            Block.of("192.88.99.0/24", "deprecated 6to4 relay anycast"),
            Block.of("192.168.0.0/16", "private-use"),
            Block.of("192.175.48.0/24", "direct delegation AS112 service"),
            Block.of("198.18.0.0/15", "benchmarking"),
            Block.of("198.51.100.0/24", "documentation (TEST-NET-2)"),
            Block.of("203.0.113.0/24", "documentation (TEST-NET-3)"),
            Block.of("224.0.0.0/4", "multicast"),
            Block.of("240.0.0.0/4", "reserved"),
            Block.of("255.255.255.255/32", "limited broadcast"),
            // IPv6 Special-Purpose Address Registry, then multicast and deprecated site-local.
            Block.of("::/96", "unspecified, loopback or IPv4-compatible"),
            Block.of("64:ff9b::/96", "IPv4/IPv6 translation (NAT64)"),
            Block.of("64:ff9b:1::/48", "local-use IPv4/IPv6 translation"),
            Block.of("100::/64", "discard-only"),
            Block.of("100:0:0:1::/64", "dummy prefix"),
            Block.of("2001::/23", "IETF protocol assignments (Teredo, benchmarking, ORCHID, ...)"),
            Block.of("2001:db8::/32", "documentation"),
            Block.of("2002::/16", "6to4"),
            Block.of("2620:4f:8000::/48", "direct delegation AS112 service"),
            Block.of("3fff::/20", "documentation"),
            Block.of("5f00::/16", "segment routing (SRv6) SIDs"),
            Block.of("fc00::/7", "unique-local"),
            Block.of("fe80::/10", "link-local"),
            Block.of("fec0::/10", "deprecated site-local"),
            Block.of("ff00::/8", "multicast"));

    /** Why {@code address} is refused, or empty when it may be called. */
    static Optional<String> refusal(InetAddress address, boolean allowPrivateNetworks) {
        byte[] bytes = embeddedIpv4(address);
        Optional<Block> metadata = find(CLOUD_METADATA, bytes);
        if (metadata.isPresent()) {
            return Optional.of(describe(address, metadata.get()) + ", refused always");
        }
        if (allowPrivateNetworks) {
            return Optional.empty();
        }
        return find(SPECIAL_PURPOSE, bytes)
                .map(
                        block -> describe(address, block)
                                + " and private networks are not allowed outside embedded mode (ALLOW_PRIVATE_NETWORKS=true allows them)");
    }

    private static Optional<Block> find(List<Block> blocks, byte[] address) {
        return blocks.stream().filter(block -> block.contains(address)).findFirst();
    }

    private static String describe(InetAddress address, Block block) {
        return address.getHostAddress() + " is in " + block.cidr() + " (" + block.name() + ")";
    }

    /** An IPv4-mapped IPv6 address (::ffff:a.b.c.d) as the IPv4 address it stands for. */
    private static byte[] embeddedIpv4(InetAddress address) {
        byte[] b = address.getAddress();
        if (address instanceof Inet6Address && isMapped(b)) {
            return Arrays.copyOfRange(b, 12, 16);
        }
        return b;
    }

    private static boolean isMapped(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
    }
}
