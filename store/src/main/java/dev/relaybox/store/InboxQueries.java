package dev.relaybox.store;

import dev.relaybox.workflows.AggregateKey;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.inbound.InboxOutcome.Outcome;
import dev.relaybox.workflows.inbound.InboxState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.statement.Query;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.sqlobject.SqlObject;

/**
 * What operators and producers read of {@code webhook_inbox} and {@code entities}: the admin list and one event's
 * detail, and an entity's state with the events processed on it. Read-only; paged by key.
 */
public interface InboxQueries extends SqlObject {

    /** An inbox row as operators see it; {@code workflowId} is the one its workflow runs (or ran) under. */
    record InboxEvent(
            UUID id,
            String partner,
            String partnerEventId,
            String eventType,
            AggregateKey aggregate,
            InboxState status,
            Outcome outcome,
            int attempts,
            String deferReason,
            String lastError,
            Instant receivedAt,
            Instant processedAt,
            String workflowId) {

        /** Where the next page starts when this row is the last one shown. */
        public Cursor position() {
            return new Cursor(receivedAt, id);
        }
    }

    /** The admin list's filters; a null one filters nothing. */
    record InboxFilter(
            InboxState status,
            String eventType,
            String partner,
            AggregateKey aggregate,
            Instant since,
            Instant until) {}

    /**
     * Rows matching {@code filter}, newest first by {@code (received_at, id)}, starting after {@code after} (null for
     * the first page). Only the filters given become conditions, so each query can use the index that fits it.
     */
    default Page<InboxEvent> list(InboxFilter filter, Cursor after, int limit) {
        List<String> conditions = new ArrayList<>();
        Map<String, Object> values = new LinkedHashMap<>();
        if (filter.status() != null) {
            conditions.add("status = :status");
            values.put("status", filter.status().name());
        }
        if (filter.eventType() != null) {
            conditions.add("event_type = :eventType");
            values.put("eventType", filter.eventType());
        }
        if (filter.partner() != null) {
            conditions.add("partner_name = :partner");
            values.put("partner", filter.partner());
        }
        if (filter.aggregate() != null) {
            conditions.add("aggregate_type = :aggregateType AND aggregate_id = :aggregateId");
            values.put("aggregateType", filter.aggregate().type());
            values.put("aggregateId", filter.aggregate().id());
        }
        if (filter.since() != null) {
            conditions.add("received_at >= :since");
            values.put("since", filter.since());
        }
        if (filter.until() != null) {
            conditions.add("received_at < :until");
            values.put("until", filter.until());
        }
        if (after != null) {
            conditions.add("(received_at, id) < (:afterAt, :afterId)");
            values.put("afterAt", after.at());
            values.put("afterId", after.id());
        }
        Query query = getHandle()
                .createQuery("""
                SELECT id, partner_name, partner_event_id, event_type, aggregate_type, aggregate_id, status, outcome,
                       attempts, defer_reason, last_error, received_at, processed_at, workflow_id
                  FROM webhook_inbox
                """ + (conditions.isEmpty() ? "" : " WHERE " + String.join("\n   AND ", conditions) + "\n")
                        + " ORDER BY received_at DESC, id DESC LIMIT :limit");
        values.forEach(query::bind);
        return Page.of(
                query.bind("limit", limit + 1).map(InboxQueries::inboxEvent).list(), limit, InboxEvent::position);
    }

    /** One row as operators see it, with its payload exactly as stored. */
    record InboxEventDetail(InboxEvent event, String payloadJson) {}

    default Optional<InboxEventDetail> detail(UUID inboxId) {
        return getHandle()
                .createQuery("""
                        SELECT id, partner_name, partner_event_id, event_type, aggregate_type, aggregate_id, status,
                               outcome, attempts, defer_reason, last_error, received_at, processed_at, workflow_id,
                               payload::text AS payload
                          FROM webhook_inbox WHERE id = :id""")
                .bind("id", inboxId)
                .map((rs, ctx) -> new InboxEventDetail(inboxEvent(rs, ctx), rs.getString("payload")))
                .findOne();
    }

    /** An event that finished on an entity: applied, or ignored as stale. */
    record ProcessedEvent(
            UUID id,
            String partner,
            String partnerEventId,
            String eventType,
            Outcome outcome,
            Instant receivedAt,
            Instant processedAt) {
        Cursor position() {
            return new Cursor(processedAt, id);
        }
    }

    /**
     * An entity's state and one page of the events processed on it, in the order they finished; {@code nextCursor}
     * continues after the last one, null on the last page.
     */
    record EntityHistory(
            AggregateKey aggregate,
            String state,
            int version,
            Instant updatedAt,
            List<ProcessedEvent> events,
            String nextCursor) {}

    /** Empty when no inbound event has created the entity; {@code limit} events after {@code after} (null: first). */
    default Optional<EntityHistory> entityHistory(AggregateKey aggregate, Cursor after, int limit) {
        return getHandle()
                .createQuery("""
                        SELECT state, version, updated_at FROM entities
                         WHERE aggregate_type = :type AND aggregate_id = :id""")
                .bind("type", aggregate.type())
                .bind("id", aggregate.id())
                .map((rs, ctx) -> new EntityHistory(
                        aggregate,
                        rs.getString("state"),
                        rs.getInt("version"),
                        Columns.instant(rs, "updated_at"),
                        List.of(),
                        null))
                .findOne()
                .map(entity -> {
                    Page<ProcessedEvent> page =
                            Page.of(processedEvents(aggregate, after, limit + 1), limit, ProcessedEvent::position);
                    return new EntityHistory(
                            aggregate,
                            entity.state(),
                            entity.version(),
                            entity.updatedAt(),
                            page.items(),
                            page.nextCursor());
                });
    }

    private List<ProcessedEvent> processedEvents(AggregateKey aggregate, Cursor after, int limit) {
        return getHandle()
                .createQuery("""
                        SELECT id, partner_name, partner_event_id, event_type, outcome, received_at, processed_at
                          FROM webhook_inbox
                         WHERE aggregate_type = :type AND aggregate_id = :id AND status = :processed
                           AND (CAST(:afterAt AS timestamptz) IS NULL OR (processed_at, id) > (:afterAt, :afterId))
                         ORDER BY processed_at, id
                         LIMIT :limit""")
                .bind("type", aggregate.type())
                .bind("id", aggregate.id())
                .bind("processed", InboxState.PROCESSED.name())
                .bind("afterAt", after == null ? null : after.at())
                .bind("afterId", after == null ? null : after.id())
                .bind("limit", limit)
                .map((rs, ctx) -> new ProcessedEvent(
                        rs.getObject("id", UUID.class),
                        rs.getString("partner_name"),
                        rs.getString("partner_event_id"),
                        rs.getString("event_type"),
                        Outcome.valueOf(rs.getString("outcome")),
                        Columns.instant(rs, "received_at"),
                        Columns.instant(rs, "processed_at")))
                .list();
    }

    private static InboxEvent inboxEvent(ResultSet rs, StatementContext ctx) throws SQLException {
        String partner = rs.getString("partner_name");
        String outcome = rs.getString("outcome");
        return new InboxEvent(
                rs.getObject("id", UUID.class),
                partner,
                rs.getString("partner_event_id"),
                rs.getString("event_type"),
                AggregateKey.ofNullable(rs.getString("aggregate_type"), rs.getString("aggregate_id")),
                InboxState.valueOf(rs.getString("status")),
                outcome == null ? null : Outcome.valueOf(outcome),
                rs.getInt("attempts"),
                rs.getString("defer_reason"),
                rs.getString("last_error"),
                Columns.instant(rs, "received_at"),
                Columns.instant(rs, "processed_at"),
                InboxEventWorkflow.workflowIdOf(
                        rs.getString("workflow_id"), partner, rs.getString("partner_event_id")));
    }
}
