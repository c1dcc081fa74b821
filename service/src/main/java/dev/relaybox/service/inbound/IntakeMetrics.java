package dev.relaybox.service.inbound;

/** Counts what the intake did with each request, by partner (and reason, for refusals). */
public interface IntakeMetrics {
    void accepted(String partner);

    void duplicate(String partner);

    /** An event id arrived again with a different body: refused, the first body kept. */
    void conflict(String partner);

    void rejected(String partner, String reason);
}
