package dev.relaybox.service.tenants;

import dev.relaybox.service.api.ApiException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * How often one tenant may ask the portal for work that sends webhooks (test events, resends): a count per tenant
 * and kind in a window of one minute, in this process. Past the limit the call is a 429 with {@code Retry-After}
 * until the window ends, and nothing is done. Each api process counts its own: behind a load balancer of n processes
 * a tenant gets at most n times the limit.
 */
final class TenantQuotas {
    private record Window(long minute, int used) {}

    private final Map<String, Window> windows = new ConcurrentHashMap<>();
    private final LongSupplier millis;

    /** {@code millis}: the time now, in epoch milliseconds. */
    TenantQuotas(LongSupplier millis) {
        this.millis = millis;
    }

    /** Counts one {@code kind} ("test events") of {@code tenant}'s, or throws the 429 when the minute's are spent. */
    void take(String tenant, String kind, int perMinute) {
        long now = millis.getAsLong();
        long minute = now / 60_000;
        Window window = windows.compute(
                tenant + "\u0000" + kind,
                (key, old) -> old == null || old.minute() != minute
                        ? new Window(minute, 1)
                        : new Window(minute, Math.min(old.used() + 1, perMinute + 1)));
        if (window.used() > perMinute) {
            long retryAfter = Math.max(1, ((minute + 1) * 60_000 - now + 999) / 1000);
            throw ApiException.tooManyRequests(
                    "quota_exceeded",
                    "at most " + perMinute + " " + kind + " a minute; try again in " + retryAfter + "s",
                    retryAfter);
        }
    }
}
