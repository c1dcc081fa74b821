package dev.relaybox.activities.outbound;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Optional;

/**
 * Which URLs Relaybox may call. Checked when an endpoint is created and again before every attempt,
 * since DNS can change: a public name that starts resolving to 10.0.0.1 must not reach the internal network.
 */
public final class EndpointUrlPolicy {
    private final boolean allowPrivateNetworks;

    public EndpointUrlPolicy(boolean allowPrivateNetworks) {
        this.allowPrivateNetworks = allowPrivateNetworks;
    }

    /** Why {@code url} may not be called, or empty when it may. */
    public Optional<String> problem(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException | NullPointerException e) {
            return Optional.of("url is not a valid URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return Optional.of("url must be http or https");
        }
        if (uri.getHost() == null || uri.getHost().isBlank()) {
            return Optional.of("url has no host");
        }
        if (uri.getUserInfo() != null) {
            return Optional.of("url must not carry credentials");
        }
        if (allowPrivateNetworks) {
            return Optional.empty();
        }
        try {
            for (InetAddress address : InetAddress.getAllByName(uri.getHost())) {
                if (isPrivate(address)) {
                    return Optional.of("url resolves to a private or loopback address (" + address.getHostAddress()
                            + ") and private networks are not allowed outside embedded mode (ALLOW_PRIVATE_NETWORKS=true "
                            + "allows them)");
                }
            }
        } catch (UnknownHostException e) {
            return Optional.of("url host " + uri.getHost() + " does not resolve");
        }
        return Optional.empty();
    }

    static boolean isPrivate(InetAddress address) {
        if (address.isLoopbackAddress() || address.isAnyLocalAddress() || address.isLinkLocalAddress()
                || address.isSiteLocalAddress() || address.isMulticastAddress()) {
            return true;
        }
        byte[] b = address.getAddress();
        if (address instanceof Inet6Address) {
            return (b[0] & 0xfe) == 0xfc; // fc00::/7 unique local
        }
        int first = b[0] & 0xff;
        int second = b[1] & 0xff;
        return first == 0 || (first == 100 && second >= 64 && second < 128) // 100.64.0.0/10 carrier-grade NAT
                || (first == 198 && (second == 18 || second == 19)); // 198.18.0.0/15 benchmarking
    }
}
