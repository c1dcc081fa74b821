package dev.relaybox.activities.outbound;

import dev.relaybox.workflows.outbound.AttemptResult;
import dev.relaybox.workflows.outbound.AttemptResult.Outcome;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;

/**
 * Sends one signed webhook over a pooled HTTP client and classifies the answer. Redirects are not followed:
 * a receiver that moved must be reconfigured, not silently chased.
 */
public final class WebhookSender {
    private final HttpClient client;
    private final DeliverySettings settings;

    public WebhookSender(DeliverySettings settings) {
        this.settings = settings;
        this.client = HttpClient.newBuilder()
                .connectTimeout(settings.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .version(HttpClient.Version.HTTP_1_1)
                .build();
    }

    /** What happened, plus the response excerpt and latency for {@code delivery_attempts}. */
    public record Sent(AttemptResult result, int latencyMs, String responseExcerpt, String error) {}

    public Sent send(String url, String webhookId, byte[] body, List<String> secrets, Instant now) {
        long timestamp = now.getEpochSecond();
        HttpRequest request = HttpRequest.newBuilder(URI.create(url))
                .timeout(settings.requestTimeout())
                .header("content-type", "application/json")
                .header("user-agent", settings.userAgent())
                .header("webhook-id", webhookId)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", WebhookSigner.signatureHeader(secrets, webhookId, timestamp, body))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        long started = System.nanoTime();
        try {
            HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            String excerpt = readExcerpt(response.body());
            int latency = elapsedMs(started);
            int status = response.statusCode();
            long retryAfter = retryAfterSeconds(response.headers().firstValue("retry-after"), now);
            AttemptResult result = new AttemptResult(classify(status), status, retryAfter, describe(status));
            return new Sent(result, latency, excerpt, result.outcome() == Outcome.DELIVERED ? null : result.summary());
        } catch (HttpTimeoutException e) {
            return failed(started, "timed out: " + e.getMessage());
        } catch (IOException e) {
            return failed(started, "connection failed: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed(started, "interrupted while sending");
        }
    }

    private Sent failed(long started, String error) {
        return new Sent(new AttemptResult(Outcome.RETRYABLE, 0, -1, error), elapsedMs(started), null, error);
    }

    private String readExcerpt(InputStream body) throws IOException {
        // Read at most the excerpt; closing the stream discards the rest unread.
        try (body) {
            return new String(body.readNBytes(settings.responseExcerptBytes()), StandardCharsets.UTF_8);
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
                Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
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
