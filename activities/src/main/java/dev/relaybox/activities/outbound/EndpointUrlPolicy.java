package dev.relaybox.activities.outbound;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which URLs Relaybox may call. Checked when an endpoint is created and again at every attempt, since DNS
 * can change: a public name that starts resolving to 10.0.0.1 must not reach the internal network. At an
 * attempt the check is the HTTP client's own lookup ({@link #connectableAddresses}), never a second one.
 * Which addresses and ports may be called is the {@link AddressPolicy}'s decision.
 */
public final class EndpointUrlPolicy {
    private final AddressPolicy policy;
    private final HostResolver resolver;

    public EndpointUrlPolicy(AddressPolicy policy) {
        this(policy, HostResolver.SYSTEM);
    }

    public EndpointUrlPolicy(AddressPolicy policy, HostResolver resolver) {
        this.policy = policy;
        this.resolver = resolver;
    }

    /** The same rules for a tenant's endpoints: see {@link AddressPolicy#forTenants}. */
    public EndpointUrlPolicy forTenants() {
        return new EndpointUrlPolicy(policy.forTenants(), resolver);
    }

    /**
     * Whether the reply of a receiver at {@code address} may be kept where the endpoint's owner reads it: a tenant
     * sees replies from public addresses only, so an endpoint the operator let onto a private network cannot read
     * what answers there.
     */
    public boolean showsRepliesFrom(InetAddress address) {
        return !policy.judgesTenants() || AddressPolicy.isPublic(address);
    }

    /**
     * Why {@code url} may not be called now.
     *
     * @param retryable the URL may be fine a moment later: its host did not resolve, which is as often a DNS
     *     hiccup as a typo
     */
    public record Refusal(String reason, boolean retryable) {}

    /** The schemes of an HTTP endpoint's URL. */
    public static final Set<String> HTTP = Set.of("http", "https");

    /** Why {@code url} may not be called, or empty when it may. */
    public Optional<String> problem(String url) {
        return problem(url, HTTP);
    }

    /** As {@link #problem}, for a URL of one of {@code schemes} (a broker's, for a {@link Destination}). */
    public Optional<String> problem(String url, Set<String> schemes) {
        return refusal(url, schemes).map(Refusal::reason);
    }

    /** Like {@link #problem}, telling a resolution failure (retryable) from a refused URL (permanent). */
    public Optional<Refusal> refusal(String url) {
        return refusal(url, HTTP);
    }

    private Optional<Refusal> refusal(String url, Set<String> schemes) {
        Optional<Refusal> syntax = syntaxRefusal(url, schemes);
        if (syntax.isPresent()) {
            return syntax;
        }
        URI uri = URI.create(url);
        String host = uri.getHost();
        try {
            connectableAddresses(host, port(uri));
            return Optional.empty();
        } catch (RefusedAddressException e) {
            return permanent(e.getMessage());
        } catch (UnknownHostException e) {
            return Optional.of(new Refusal("url host " + host + " does not resolve", true));
        }
    }

    /** What can be said of {@code url} without resolving its host. */
    public Optional<Refusal> syntaxRefusal(String url) {
        return syntaxRefusal(url, HTTP);
    }

    /** As above, for a URL of one of {@code schemes}. */
    public Optional<Refusal> syntaxRefusal(String url, Set<String> schemes) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException | NullPointerException e) {
            return permanent("url is not a valid URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!schemes.contains(scheme)) {
            return permanent("url must be " + String.join(" or ", new TreeSet<>(schemes)));
        }
        if (uri.getHost() == null || uri.getHost().isBlank()) {
            return permanent("url has no host");
        }
        if (uri.getUserInfo() != null) {
            return permanent("url must not carry credentials");
        }
        if (uri.getPort() != -1 && (uri.getPort() < 1 || uri.getPort() > 65535)) {
            return permanent("url port " + uri.getPort() + " is outside 1-65535");
        }
        return Optional.empty();
    }

    /** The port a URL connects to: its own, or its scheme's. */
    static int port(URI uri) {
        if (uri.getPort() != -1) {
            return uri.getPort();
        }
        return switch (uri.getScheme().toLowerCase(Locale.ROOT)) {
            case "https" -> 443;
            case "amqp" -> 5672;
            case "amqps" -> 5671;
            case "kafka", "kafka+ssl" -> 9092;
            default -> 80;
        };
    }

    /**
     * Resolves {@code host} once and returns its addresses when every one of them may be called on {@code port}.
     * The HTTP client connects only to these, so what was checked is what is reached.
     *
     * @throws RefusedAddressException when any address is refused (a name that mixes public and internal
     *     addresses is treated as hostile)
     * @throws UnknownHostException when the name does not resolve
     */
    public List<InetAddress> connectableAddresses(String host, int port) throws UnknownHostException {
        List<InetAddress> addresses = resolver.resolve(host);
        if (addresses.isEmpty()) {
            throw new UnknownHostException(host);
        }
        for (InetAddress address : addresses) {
            Optional<String> refused = policy.refusal(address, port);
            if (refused.isPresent()) {
                throw new RefusedAddressException("url host " + host + " resolves to " + refused.get());
            }
        }
        return addresses;
    }

    /** A host that resolved, but to an address Relaybox must not call. Permanent. */
    public static final class RefusedAddressException extends UnknownHostException {
        RefusedAddressException(String message) {
            super(message);
        }
    }

    private static Optional<Refusal> permanent(String reason) {
        return Optional.of(new Refusal(reason, false));
    }
}
