package dev.relaybox.store;

import dev.relaybox.workflows.AggregateKey;
import dev.relaybox.workflows.outbound.OutboxStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.sqlobject.SqlObject;

/** The operators' read of {@code outbox_events}: rows listed and filtered for the admin API, with their deliveries. */
public interface OutboxQueries extends SqlObject {
    /** A row as operators list it; {@code deliveries} counts them by status, e.g. {@code DELIVERED:2 RETRYING:1}. */
    record Listed(
            UUID id,
            String eventType,
            AggregateKey aggregate,
            OutboxStatus status,
            Instant createdAt,
            Instant dispatchedAt,
            Instant processedAt,
            String deliveries) {}

    /** What operators filter rows by; a null field does not filter. */
    record Filter(OutboxStatus status, String eventType, AggregateKey aggregate, Instant since, Instant until) {}

    /** Newest first, after {@code after} (null: from the newest), with only the given filters in the WHERE. */
    default Page<Listed> list(Filter filter, Cursor after, int limit) {
        List<String> where = new ArrayList<>();
        Map<String, Object> binds = new HashMap<>();
        if (filter.status() != null) {
            where.add("o.status = :status");
            binds.put("status", filter.status().name());
        }
        if (filter.eventType() != null) {
            where.add("o.event_type = :eventType");
            binds.put("eventType", filter.eventType());
        }
        if (filter.aggregate() != null) {
            where.add("o.aggregate_type = :aggregateType AND o.aggregate_id = :aggregateId");
            binds.put("aggregateType", filter.aggregate().type());
            binds.put("aggregateId", filter.aggregate().id());
        }
        if (filter.since() != null) {
            where.add("o.created_at >= :since");
            binds.put("since", filter.since());
        }
        if (filter.until() != null) {
            where.add("o.created_at < :until");
            binds.put("until", filter.until());
        }
        if (after != null) {
            where.add("(o.created_at, o.id) < (:afterAt, :afterId)");
            binds.put("afterAt", after.at());
            binds.put("afterId", after.id());
        }
        List<Listed> fetched = getHandle()
                .createQuery("""
                        SELECT o.id, o.event_type, o.aggregate_type, o.aggregate_id,
                               o.status, o.created_at, o.dispatched_at, o.processed_at,
                               (SELECT string_agg(d.status || ':' || d.n, ' ' ORDER BY d.status)
                                  FROM (SELECT status, count(*) AS n FROM deliveries
                                         WHERE outbox_id = o.id GROUP BY status) d) AS deliveries
                          FROM outbox_events o"""
                        + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where))
                        + " ORDER BY o.created_at DESC, o.id DESC LIMIT :limit")
                .bindMap(binds)
                .bind("limit", limit + 1)
                .map((rs, ctx) -> new Listed(
                        rs.getObject("id", UUID.class),
                        rs.getString("event_type"),
                        OutboxStore.aggregate(rs),
                        OutboxStatus.valueOf(rs.getString("status")),
                        Columns.instant(rs, "created_at"),
                        Columns.instant(rs, "dispatched_at"),
                        Columns.instant(rs, "processed_at"),
                        rs.getString("deliveries")))
                .list();
        return Page.of(fetched, limit, o -> new Cursor(o.createdAt(), o.id()));
    }
}
