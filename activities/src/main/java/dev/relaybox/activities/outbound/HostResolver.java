package dev.relaybox.activities.outbound;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/** Turns a host name into addresses. The system resolver in production; tests answer from a script. */
@FunctionalInterface
public interface HostResolver {
    HostResolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));

    /** Every address of {@code host}; {@link UnknownHostException} when it does not resolve (now). */
    List<InetAddress> resolve(String host) throws UnknownHostException;
}
