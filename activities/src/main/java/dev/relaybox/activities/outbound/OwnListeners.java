package dev.relaybox.activities.outbound;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ports Relaybox itself listens on, and the addresses that reach this host. A webhook sent there would be a
 * request from Relaybox to its own API or admin port (tasks, log levels, thread dumps) with the answer readable in
 * the attempt log, so {@link AddressPolicy} refuses them whatever the allow-list says. Ports are added as the
 * listeners start (a configured port 0 is known only then).
 */
public final class OwnListeners {
    private final Map<Integer, String> ports = new ConcurrentHashMap<>();
    private final Set<InetAddress> hostAddresses;

    /** {@code hostAddresses}: the machine's interface addresses; loopback and unspecified count always. */
    public OwnListeners(Set<InetAddress> hostAddresses) {
        this.hostAddresses = Set.copyOf(hostAddresses);
    }

    /** No ports yet, and only loopback and the unspecified address as this host. */
    public static OwnListeners loopbackOnly() {
        return new OwnListeners(Set.of());
    }

    /** This machine's interface addresses, as they are at start-up. */
    public static OwnListeners ofThisHost() {
        Set<InetAddress> addresses = new HashSet<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                addresses.addAll(Collections.list(nic.getInetAddresses()));
            }
        } catch (SocketException e) {
            // Loopback and the unspecified address are still recognised; interface addresses need allow-listing.
        }
        return new OwnListeners(addresses);
    }

    /** Records that Relaybox listens on {@code port}, shown as {@code name} ("admin") in refusals. */
    public OwnListeners add(String name, int port) {
        if (port > 0) {
            ports.merge(port, name, (old, added) -> old.equals(added) ? old : old + " and " + added);
        }
        return this;
    }

    /** The name of Relaybox's listener that {@code address}:{@code port} reaches, if it is one. */
    Optional<String> at(InetAddress address, int port) {
        String name = ports.get(port);
        if (name == null) {
            return Optional.empty();
        }
        boolean thisHost = address.isLoopbackAddress()
                || address.isAnyLocalAddress()
                || SpecialPurposeAddresses.find(SpecialPurposeAddresses.THIS_HOST, address)
                        .isPresent()
                || hostAddresses.contains(address);
        return thisHost ? Optional.of(name) : Optional.empty();
    }
}
