package dev.relaybox.activities.outbound;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/** A CIDR block such as {@code 10.0.0.0/8} or {@code fd00::/8}; a bare address is a block of one. */
public record AddressBlock(String cidr, String name, byte[] prefix, int bits) {
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-f:.]*:[0-9a-f:.]*");

    /**
     * Parses a CIDR block; {@link IllegalArgumentException} naming it when it is not one. Only address literals
     * are accepted: a host name here would be looked up, and a list of networks must not depend on DNS.
     */
    public static AddressBlock parse(String cidr, String name) {
        String text = cidr.trim().toLowerCase(Locale.ROOT);
        String[] parts = text.split("/", -1);
        boolean v4 = IPV4.matcher(parts[0]).matches();
        if (parts.length > 2 || !(v4 || IPV6.matcher(parts[0]).matches())) {
            throw notABlock(cidr);
        }
        if (v4 && Arrays.stream(parts[0].split("\\.")).anyMatch(octet -> Integer.parseInt(octet) > 255)) {
            // Not a literal to InetAddress, which would then look it up as a name.
            throw notABlock(cidr);
        }
        byte[] prefix;
        try {
            prefix = InetAddress.getByName(parts[0]).getAddress();
        } catch (UnknownHostException e) {
            throw notABlock(cidr);
        }
        if (v4 != (prefix.length == 4)) {
            // An IPv4-mapped literal (::ffff:a.b.c.d) comes back as IPv4; a block of it would not mean what it says.
            throw notABlock(cidr);
        }
        int max = prefix.length * 8;
        int bits;
        try {
            bits = parts.length == 1 ? max : Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw notABlock(cidr);
        }
        if (bits < 0 || bits > max) {
            throw notABlock(cidr);
        }
        return new AddressBlock(text, name, prefix, bits);
    }

    /** A comma-separated list of blocks, each named {@code name}; blank entries are ignored. */
    public static List<AddressBlock> parseList(String cidrs, String name) {
        return Arrays.stream(cidrs.split(","))
                .map(String::trim)
                .filter(entry -> !entry.isEmpty())
                .map(entry -> parse(entry, name))
                .toList();
    }

    static AddressBlock of(String cidr, String name) {
        return parse(cidr, name);
    }

    public boolean contains(InetAddress address) {
        return contains(address.getAddress());
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

    /** Every address of {@code other} is in this block. */
    boolean encloses(AddressBlock other) {
        return other.bits >= bits && contains(other.prefix);
    }

    private static IllegalArgumentException notABlock(String cidr) {
        return new IllegalArgumentException(
                "\"" + cidr + "\" is not a CIDR block (an IPv4 or IPv6 address, optionally with /prefix length)");
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AddressBlock block && block.bits == bits && Arrays.equals(block.prefix, prefix);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(prefix) + bits;
    }

    @Override
    public String toString() {
        return cidr;
    }
}
