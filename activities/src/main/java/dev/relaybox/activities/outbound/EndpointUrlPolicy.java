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
    private final HostResolver resolver;

    public EndpointUrlPolicy(boolean allowPrivateNetworks) {
        this(allowPrivateNetworks, HostResolver.SYSTEM);
    }

    public EndpointUrlPolicy(boolean allowPrivateNetworks, HostResolver resolver) {
        this.allowPrivateNetworks = allowPrivateNetworks;
        this.resolver = resolver;
    }

    /**
     * Why {@code url} may not be called now.
     *
     * @param retryable the URL may be fine a moment later: its host did not resolve, which is as often a DNS
     *     hiccup as a typo
     */
    public record Refusal(String reason, boolean retryable) {}

    /** Why {@code url} may not be called, or empty when it may. */
    public Optional<String> problem(String url) {
        return refusal(url).map(Refusal::reason);
    }

    /** Like {@link #problem}, telling a resolution failure (retryable) from a refused URL (permanent). */
    public Optional<Refusal> refusal(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException | NullPointerException e) {
            return permanent("url is not a valid URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return permanent("url must be http or https");
        }
        if (uri.getHost() == null || uri.getHost().isBlank()) {
            return permanent("url has no host");
        }
        if (uri.getUserInfo() != null) {
            return permanent("url must not carry credentials");
        }
        if (allowPrivateNetworks) {
            return Optional.empty();
        }
        try {
            for (InetAddress address : resolver.resolve(uri.getHost())) {
                if (isPrivate(address)) {
                    return permanent("url resolves to a private or loopback address (" + address.getHostAddress()
                            + ") and allowPrivateNetworks is false");
                }
            }
        } catch (UnknownHostException e) {
            return Optional.of(new Refusal("url host " + uri.getHost() + " does not resolve", true));
        }
        return Optional.empty();
    }

    private static Optional<Refusal> permanent(String reason) {
        return Optional.of(new Refusal(reason, false));
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
