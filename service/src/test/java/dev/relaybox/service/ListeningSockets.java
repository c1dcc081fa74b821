package dev.relaybox.service;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The local addresses this machine's kernel has a listening TCP socket on for a port (Linux /proc/net). */
final class ListeningSockets {
    private static final String LISTEN = "0A";

    private ListeningSockets() {}

    static boolean available() {
        return Files.isReadable(Path.of("/proc/net/tcp"));
    }

    static List<InetAddress> on(int port) {
        List<InetAddress> addresses = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path path = Path.of(table);
            if (!Files.isReadable(path)) {
                continue;
            }
            try {
                List<String> lines = Files.readAllLines(path);
                for (String line : lines.subList(1, lines.size())) {
                    String[] fields = line.trim().split("\\s+");
                    String[] local = fields[1].split(":");
                    if (fields[3].equals(LISTEN) && Integer.parseInt(local[1], 16) == port) {
                        addresses.add(address(local[0]));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return addresses;
    }

    /** /proc/net prints each 32-bit word of the address in host (little-endian) byte order. */
    private static InetAddress address(String hex) {
        byte[] bytes = new byte[hex.length() / 2];
        for (int word = 0; word < bytes.length / 4; word++) {
            for (int i = 0; i < 4; i++) {
                int at = word * 8 + (3 - i) * 2;
                bytes[word * 4 + i] = (byte) new BigInteger(hex.substring(at, at + 2), 16).intValue();
            }
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(hex, e);
        }
    }
}
