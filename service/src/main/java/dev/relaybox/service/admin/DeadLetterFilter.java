package dev.relaybox.service.admin;

import java.time.Instant;
import org.jdbi.v3.core.statement.SqlStatement;

/**
 * Which dead letters a list or a bulk replay means. Every field is optional; {@code peer} is an endpoint's
 * name or URL, or a partner's name; {@code aggregate} is {@code type:id}.
 */
public record DeadLetterFilter(String source, String eventType, String peer, String aggregate, Instant since,
        Instant until) {

    /** Joins that give every dead letter its event type, peer and aggregate, whichever direction it came from. */
    static final String FROM = """
              FROM dead_letters dl
              LEFT JOIN deliveries d ON dl.source = 'OUTBOX' AND d.id = dl.reference
              -- An outbox row quarantined before any delivery existed is referenced by its own id.
              LEFT JOIN outbox_events o ON o.id = COALESCE(d.outbox_id, CASE WHEN dl.source = 'OUTBOX' THEN dl.reference END)
              LEFT JOIN endpoints e ON e.id = d.endpoint_id
              LEFT JOIN webhook_inbox i ON dl.source = 'INBOX' AND i.id = dl.reference
            """;

    static final String WHERE = """
             WHERE (CAST(:source AS text) IS NULL OR dl.source = upper(:source))
               AND (CAST(:eventType AS text) IS NULL OR COALESCE(o.event_type, i.event_type) = :eventType)
               AND (CAST(:peer AS text) IS NULL OR e.name = :peer OR e.url = :peer OR i.partner_name = :peer)
               AND (CAST(:aggregate AS text) IS NULL
                    OR o.aggregate_type || ':' || o.aggregate_id = :aggregate
                    OR i.aggregate_type || ':' || i.aggregate_id = :aggregate)
               AND (CAST(:since AS timestamptz) IS NULL OR dl.created_at >= :since)
               AND (CAST(:until AS timestamptz) IS NULL OR dl.created_at < :until)
            """;

    static DeadLetterFilter none() {
        return new DeadLetterFilter(null, null, null, null, null, null);
    }

    <S extends SqlStatement<S>> S bind(S statement) {
        return statement.bind("source", source).bind("eventType", eventType).bind("peer", peer)
                .bind("aggregate", aggregate).bind("since", since).bind("until", until);
    }
}
