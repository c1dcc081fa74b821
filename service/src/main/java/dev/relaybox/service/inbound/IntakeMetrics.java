package dev.relaybox.service.inbound;

/** Counts what the intake did with each request, by partner (and reason, for refusals). */
public interface IntakeMetrics {
    void accepted(String partner);

    void duplicate(String partner);

    void rejected(String partner, String reason);
}
