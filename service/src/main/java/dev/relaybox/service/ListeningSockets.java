package dev.relaybox.service;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The kernel's listening TCP sockets (Linux /proc/net): the local addresses listening on a port, or the ports a
 * process listens on.
 */
public final class ListeningSockets {
    private static final String LISTEN = "0A";

    private record Listener(String address, int port, String inode) {}

    private ListeningSockets() {}

    static boolean available() {
        return Files.isReadable(Path.of("/proc/net/tcp"));
    }

    static List<InetAddress> on(int port) {
        return listeners().stream()
                .filter(listener -> listener.port() == port)
                .map(listener -> address(listener.address()))
                .toList();
    }

    /**
     * The ports the process listens on: its socket descriptors matched to the listening sockets. Probing a port
     * from outside cannot tell this process from another that took the port since.
     */
    public static Set<Integer> ofProcess(long pid) throws IOException {
        Set<String> sockets = new HashSet<>();
        try (Stream<Path> descriptors = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path descriptor : (Iterable<Path>) descriptors::iterator) {
                try {
                    String target = Files.readSymbolicLink(descriptor).toString();
                    if (target.startsWith("socket:[")) {
                        sockets.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // the descriptor went away while listed: it is not a listening socket now
                }
            }
        }
        Set<Integer> ports = new TreeSet<>();
        for (Listener listener : listeners()) {
            if (sockets.contains(listener.inode())) {
                ports.add(listener.port());
            }
        }
        return ports;
    }

    private static List<Listener> listeners() {
        List<Listener> listeners = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path path = Path.of(table);
            if (!Files.isReadable(path)) {
                continue;
            }
            try {
                List<String> lines = Files.readAllLines(path);
                // sl local_address rem_address st ... inode: the port is hex after the address's colon.
                for (String line : lines.subList(1, lines.size())) {
                    String[] fields = line.trim().split("\\s+");
                    String[] local = fields[1].split(":");
                    if (fields[3].equals(LISTEN)) {
                        listeners.add(new Listener(local[0], Integer.parseInt(local[1], 16), fields[9]));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return listeners;
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
