package dev.relaybox.activities.outbound;

import dev.relaybox.activities.RedactedUrl;
import dev.relaybox.workflows.outbound.AttemptResult;
import dev.relaybox.workflows.outbound.AttemptResult.Outcome;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.EndpointDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.util.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one signed webhook over a pooled HTTP client and classifies the answer. Redirects are not followed:
 * a receiver that moved must be reconfigured, not silently chased.
 *
 * <p>The client resolves a host through the {@link EndpointUrlPolicy} and connects only to the addresses that
 * lookup returned and the policy accepted: one lookup, checked and used, so a name that answers differently
 * the second time (DNS rebinding) cannot slip past the check. The URL keeps its host name, so the
 * {@code Host} header, TLS SNI and certificate checks are those of the name, not of the address.
 */
public final class WebhookSender {
    private static final Logger LOG = LoggerFactory.getLogger(WebhookSender.class);
    private static final ContentType JSON = ContentType.create("application/json");

    private final CloseableHttpClient client;
    private final DeliverySettings settings;
    private final EndpointUrlPolicy policy;

    /**
     * A sender for the endpoints {@code policy} judges: the operator's, or the tenants' ({@link
     * EndpointUrlPolicy#forTenants}). Each has its own connection pool, so a connection one opened is never reused by
     * the other.
     */
    public WebhookSender(DeliverySettings settings, EndpointUrlPolicy policy) {
        this.settings = settings;
        this.policy = policy;
        Timeout connect = Timeout.of(settings.connectTimeout());
        this.client = HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setDnsResolver(new CheckedResolver(policy))
                        .setDefaultConnectionConfig(ConnectionConfig.custom()
                                .setConnectTimeout(connect)
                                .setSocketTimeout(Timeout.of(settings.requestTimeout()))
                                .build())
                        // The worker's activity slots bound concurrency; the pool must never be the narrower limit.
                        .setMaxConnTotal(1024)
                        .setMaxConnPerRoute(1024)
                        .build())
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectionRequestTimeout(connect)
                        .setResponseTimeout(Timeout.of(settings.requestTimeout()))
                        .setRedirectsEnabled(false)
                        .build())
                .setUserAgent(settings.userAgent())
                .disableRedirectHandling()
                .disableAutomaticRetries()
                .disableCookieManagement()
                .disableContentCompression()
                .build();
    }

    /** What happened, plus the response excerpt and latency for {@code delivery_attempts}. */
    public record Sent(AttemptResult result, int latencyMs, String responseExcerpt, String error) {}

    public Sent send(String url, String webhookId, byte[] body, List<String> secrets, Instant now) {
        return send(url, webhookId, body, secrets, now, Map.of());
    }

    /**
     * As above, with {@code headers} added (unsigned, like every header but the body's id and timestamp). Whatever
     * goes wrong is the attempt's failure, recorded and retried on the schedule: an exception this class did not
     * foresee (a URL stored before registration refused it) must not become a retry of Relaybox's own that never
     * ends in a dead letter.
     */
    public Sent send(
            String url, String webhookId, byte[] body, List<String> secrets, Instant now, Map<String, String> headers) {
        long started = System.nanoTime();
        try {
            return exchange(url, webhookId, body, secrets, now, headers, started);
        } catch (RuntimeException e) {
            LOG.warn("attempt to {} failed unexpectedly", RedactedUrl.of(url), e);
            return failed(started, "could not send: " + message(e));
        }
    }

    private Sent exchange(
            String url,
            String webhookId,
            byte[] body,
            List<String> secrets,
            Instant now,
            Map<String, String> headers,
            long started) {
        long timestamp = now.getEpochSecond();
        URI uri = URI.create(url);
        HttpPost request = new HttpPost(uri);
        headers.forEach(request::setHeader);
        request.setHeader("webhook-id", webhookId);
        request.setHeader("webhook-timestamp", Long.toString(timestamp));
        request.setHeader("webhook-signature", WebhookSigner.signatureHeader(secrets, webhookId, timestamp, body));
        request.setEntity(new ByteArrayEntity(body, JSON));
        Deadline deadline = new Deadline(request, settings.requestTimeout());
        try (deadline) {
            HttpClientContext context = HttpClientContext.create();
            ClassicHttpResponse response = client.executeOpen(HttpHost.create(uri), request, context);
            String excerpt = null;
            try {
                if (repliesShown(context)) {
                    excerpt = readExcerpt(response.getEntity(), request);
                } else {
                    // Never read: the connection is dropped instead of drained.
                    request.cancel();
                }
            } finally {
                closeQuietly(response);
            }
            int latency = elapsedMs(started);
            int status = response.getCode();
            Header retryAfterHeader = response.getFirstHeader("retry-after");
            long retryAfter =
                    retryAfterSeconds(Optional.ofNullable(retryAfterHeader).map(Header::getValue), now);
            AttemptResult result = new AttemptResult(classify(status), status, retryAfter, describe(status));
            return new Sent(result, latency, excerpt, result.outcome() == Outcome.DELIVERED ? null : result.summary());
        } catch (EndpointUrlPolicy.RefusedAddressException e) {
            String refusal = StorableText.of(e.getMessage());
            return new Sent(new AttemptResult(Outcome.PERMANENT, 0, -1, refusal), elapsedMs(started), null, refusal);
        } catch (UnknownHostException e) {
            // Retryable: a resolver hiccup looks exactly like this, and the schedule gives up in time anyway.
            return failed(started, "host " + uri.getHost() + " does not resolve");
        } catch (IOException e) {
            if (deadline.passed()) {
                return failed(
                        started,
                        "timed out: no complete answer within "
                                + settings.requestTimeout().toSeconds() + "s");
            }
            if (e instanceof InterruptedIOException) {
                return failed(started, "timed out: " + message(e));
            }
            return failed(started, "connection failed: " + message(e));
        }
    }

    /**
     * One deadline over the whole exchange: connecting, sending, the status line and headers, and the body
     * excerpt. Socket and response timeouts only bound each wait for the next bytes, so a receiver that sends
     * a byte every few seconds would pass them all and hold the worker's activity slot for as long as it
     * likes (an activity timeout does not stop the thread). When the deadline passes, the request is
     * cancelled, which closes its connection and makes the blocked read fail at once. Cancelling is the
     * classic client's own way to abort an exchange in any phase, so it needs neither the async client's I/O
     * reactor and response consumers (whose {@code Future.get(timeout)} would do the same) nor a thread per
     * request.
     */
    private static final class Deadline implements AutoCloseable {
        private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "relaybox-http-deadline");
            thread.setDaemon(true);
            return thread;
        });

        private final AtomicBoolean passed = new AtomicBoolean();
        private final ScheduledFuture<?> expiry;

        Deadline(HttpPost request, Duration timeout) {
            this.expiry = TIMER.schedule(
                    () -> {
                        passed.set(true);
                        request.cancel();
                    },
                    timeout.toMillis(),
                    TimeUnit.MILLISECONDS);
        }

        boolean passed() {
            return passed.get();
        }

        @Override
        public void close() {
            expiry.cancel(false);
        }
    }

    /** Whether the peer that answered may be quoted to the endpoint's owner; unknown, it is not. */
    private boolean repliesShown(HttpClientContext context) {
        EndpointDetails peer = context.getEndpointDetails();
        return peer != null
                && peer.getRemoteAddress() instanceof InetSocketAddress remote
                && policy.showsRepliesFrom(remote.getAddress());
    }

    /** The answer is already in hand: a failure to release its connection must not turn it into a failed attempt. */
    private static void closeQuietly(ClassicHttpResponse response) {
        try {
            response.close();
        } catch (IOException | RuntimeException ignored) {
            // The connection is discarded either way.
        }
    }

    private static String message(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private Sent failed(long started, String rawError) {
        String error = StorableText.of(rawError);
        return new Sent(new AttemptResult(Outcome.RETRYABLE, 0, -1, error), elapsedMs(started), null, error);
    }

    /**
     * Reads at most the excerpt. A body longer than that is never read: the connection is dropped instead of
     * drained, since draining would read whatever the receiver cares to send, for as long as it likes.
     */
    private String readExcerpt(HttpEntity entity, HttpPost request) throws IOException {
        if (entity == null) {
            return "";
        }
        InputStream body = entity.getContent();
        byte[] excerpt = body.readNBytes(settings.responseExcerptBytes());
        if (excerpt.length == settings.responseExcerptBytes()) {
            request.cancel();
        }
        return StorableText.of(new String(excerpt, StandardCharsets.UTF_8));
    }

    /**
     * Resolves through the policy, so the addresses connected to are exactly the ones it accepted, with the port
     * (Relaybox's own ports are refused). The connection operator asks with the port; without one nothing is
     * resolved, as the check would be incomplete.
     */
    private static final class CheckedResolver implements DnsResolver {
        private final EndpointUrlPolicy policy;

        CheckedResolver(EndpointUrlPolicy policy) {
            this.policy = policy;
        }

        @Override
        public List<InetSocketAddress> resolve(String host, int port) throws UnknownHostException {
            return policy.connectableAddresses(host, port).stream()
                    .map(address -> new InetSocketAddress(address, port))
                    .toList();
        }

        @Override
        public InetAddress[] resolve(String host) throws UnknownHostException {
            throw new UnknownHostException(host + ": resolved only with the port to connect to");
        }

        @Override
        public String resolveCanonicalHostname(String host) {
            return host;
        }
    }

    static Outcome classify(int status) {
        if (status >= 200 && status < 300) {
            return Outcome.DELIVERED;
        }
        if (status == 410) {
            return Outcome.GONE;
        }
        if (status == 408 || status == 425 || status == 429 || status >= 500) {
            return Outcome.RETRYABLE;
        }
        return Outcome.PERMANENT;
    }

    /** {@code Retry-After} as seconds from {@code now}: delta-seconds or an HTTP date; -1 when absent or unreadable. */
    static long retryAfterSeconds(Optional<String> header, Instant now) {
        if (header.isEmpty()) {
            return -1;
        }
        String value = header.get().trim();
        try {
            return Math.max(0, Long.parseLong(value));
        } catch (NumberFormatException notSeconds) {
            try {
                Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME)
                        .toInstant();
                return Math.max(0, Duration.between(now, at).toSeconds());
            } catch (DateTimeParseException notDate) {
                return -1;
            }
        }
    }

    private static String describe(int status) {
        String phrase = switch (status) {
            case 200 -> "OK";
            case 201 -> "Created";
            case 202 -> "Accepted";
            case 204 -> "No Content";
            case 301 -> "Moved Permanently";
            case 302 -> "Found";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 408 -> "Request Timeout";
            case 410 -> "Gone";
            case 413 -> "Payload Too Large";
            case 422 -> "Unprocessable Content";
            case 425 -> "Too Early";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            default -> "";
        };
        return phrase.isEmpty() ? Integer.toString(status) : status + " " + phrase;
    }

    private static int elapsedMs(long startedNanos) {
        return (int) Duration.ofNanos(System.nanoTime() - startedNanos).toMillis();
    }
}
