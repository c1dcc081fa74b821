package dev.relaybox.service.outbound;

import dev.relaybox.store.EndpointHealthStore;
import java.time.Instant;
import java.util.Locale;

/**
 * How an endpoint is doing, for the admin API and page: its circuit, its failure streak and the next probe,
 * and its attempts over the last hour (success rate, p50/p99 latency).
 *
 * @param inFlight requests holding a {@code maxInFlight} slot now
 * @param waiting unfinished deliveries waiting for the circuit, an earlier event, a slot or a rate-limit slot
 */
public record EndpointHealthView(
        String circuit,
        int consecutiveFailures,
        Instant failingSince,
        Instant openedAt,
        Instant nextProbeAt,
        Instant lastSuccessAt,
        Instant lastFailureAt,
        long attemptsLastHour,
        Double successRateLastHour,
        Long p50LatencyMs,
        Long p99LatencyMs,
        long inFlight,
        long waiting) {

    static EndpointHealthView of(EndpointHealthStore.Health h) {
        return new EndpointHealthView(
                h.circuit().name().toLowerCase(Locale.ROOT),
                h.consecutiveFailures(),
                h.failingSince(),
                h.openedAt(),
                h.nextProbeAt(),
                h.lastSuccessAt(),
                h.lastFailureAt(),
                h.attemptsLastHour(),
                h.successRate(),
                round(h.p50LatencyMs()),
                round(h.p99LatencyMs()),
                h.inFlight(),
                h.waiting());
    }

    private static Long round(Double millis) {
        return millis == null ? null : Math.round(millis);
    }
}
