package dev.relaybox.store;

import dev.relaybox.workflows.AggregateKey;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.statement.SqlStatement;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.sqlobject.SqlObject;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * Every statement on {@code dead_letters}: recording one (at most one open per source row), the admin list and
 * lookup, choosing and resolving the ones to replay, discarding, and purging closed ones. Resolving is a guarded
 * update from {@link DeadLetterState#OPEN}, so two operators acting at once resolve each dead letter once.
 */
public interface DeadLetterStore extends SqlObject {

    /** A dead letter with what its source row says about it, whichever direction it came from. */
    record Row(
            UUID id,
            DeadLetterSource source,
            UUID reference,
            String eventType,
            String peer,
            AggregateKey aggregate,
            String reason,
            String lastError,
            int attempts,
            Instant createdAt,
            Instant resolvedAt,
            String resolvedBy,
            String resolution,
            UUID outboxId,
            String partnerName,
            String partnerEventId,
            String inboxWorkflowId,
            Boolean endpointEnabled,
            String tenant) {
        public DeadLetterState state() {
            return DeadLetterState.of(resolvedAt, resolution);
        }

        public Cursor position() {
            return new Cursor(createdAt, id);
        }
    }

    /** The open dead letter of a delivery, if it has one. */
    @SqlQuery("SELECT id FROM dead_letters WHERE source = 'OUTBOX' AND reference = :deliveryId AND resolved_at IS NULL")
    Optional<UUID> openOfDelivery(@Bind("deliveryId") UUID deliveryId);

    /** Inserts an open dead letter; empty when the source row already has an open one. */
    @SqlQuery("""
            INSERT INTO dead_letters (source, reference, reason, last_error, attempts)
            VALUES (:source, :reference, :reason, :lastError, :attempts)
            ON CONFLICT (source, reference) WHERE resolved_at IS NULL DO NOTHING
            RETURNING id""")
    Optional<UUID> insertOpen(
            @Bind("source") DeadLetterSource source,
            @Bind("reference") UUID reference,
            @Bind("reason") String reason,
            @Bind("lastError") String lastError,
            @Bind("attempts") int attempts);

    /** Each dead letter joined to its source row for its event type, peer and aggregate; binds {@link Where}'s. */
    String SELECT = """
            SELECT dl.*, COALESCE(o.event_type, i.event_type) AS event_type, COALESCE(e.name, i.partner_name) AS peer,
                   COALESCE(o.aggregate_type, i.aggregate_type) AS aggregate_type,
                   COALESCE(o.aggregate_id, i.aggregate_id) AS aggregate_id,
                   d.outbox_id, i.partner_name, i.partner_event_id, i.workflow_id AS inbox_workflow_id,
                   e.enabled AS endpoint_enabled, e.tenant
              FROM dead_letters dl
              LEFT JOIN deliveries d ON dl.source = :outbox AND d.id = dl.reference
              -- An outbox row quarantined before any delivery existed is referenced by its own id.
              LEFT JOIN outbox_events o ON o.id = COALESCE(d.outbox_id, CASE WHEN dl.source = :outbox THEN dl.reference END)
              LEFT JOIN endpoints e ON e.id = d.endpoint_id
              LEFT JOIN webhook_inbox i ON dl.source = :inbox AND i.id = dl.reference
            """;

    /** Newest first, open or resolved ones, {@code limit} after the cursor (null: from the newest). */
    default Page<Row> list(DeadLetterFilter filter, boolean open, Cursor after, int limit) {
        Where where = Where.of(filter).add(open ? "dl.resolved_at IS NULL" : "dl.resolved_at IS NOT NULL");
        if (after != null) {
            where.add("(dl.created_at, dl.id) < (:afterAt, :afterId)", "afterAt", after.at())
                    .value("afterId", after.id());
        }
        List<Row> rows = where.bind(getHandle()
                        .createQuery(SELECT + where.sql() + " ORDER BY dl.created_at DESC, dl.id DESC LIMIT :limit"))
                .bind("limit", limit + 1)
                .map(DeadLetterStore::row)
                .list();
        return Page.of(rows, limit, Row::position);
    }

    default Optional<Row> find(UUID id) {
        Where where = new Where().add("dl.id = :id", "id", id);
        return where.bind(getHandle().createQuery(SELECT + where.sql()))
                .map(DeadLetterStore::row)
                .findOne();
    }

    /**
     * The open dead letters a replay takes (the oldest {@code limit} the filter matches, or the one {@code onlyId}),
     * locked for the caller's transaction; ones another replay holds are skipped.
     */
    default List<Row> lockOpen(DeadLetterFilter filter, UUID onlyId, int limit) {
        Where where = Where.of(filter).add("dl.resolved_at IS NULL");
        if (onlyId != null) {
            where.add("dl.id = :onlyId", "onlyId", onlyId);
        }
        return where.bind(getHandle()
                        .createQuery(SELECT + where.sql()
                                + " ORDER BY dl.created_at, dl.id LIMIT :limit FOR UPDATE OF dl SKIP LOCKED"))
                .bind("limit", limit)
                .map(DeadLetterStore::row)
                .list();
    }

    /** How many open dead letters the filter matches. */
    default int countOpen(DeadLetterFilter filter) {
        Where where = Where.of(filter).add("dl.resolved_at IS NULL");
        return where.bind(getHandle().createQuery("SELECT count(*) FROM (" + SELECT + where.sql() + ") matching"))
                .mapTo(int.class)
                .one();
    }

    /** Resolves those of {@code ids} still open; returns how many it resolved. */
    default int resolve(List<UUID> ids, DeadLetterState to, String by, String reason) {
        if (!DeadLetterState.OPEN.canBecome(to)) {
            throw new IllegalArgumentException("a dead letter cannot become " + to);
        }
        return resolveOpen(ids, by, to.resolution(reason));
    }

    @SqlUpdate("""
            UPDATE dead_letters SET resolved_at = now(), resolved_by = :by, resolution = :resolution
             WHERE id = ANY(:ids) AND resolved_at IS NULL""")
    int resolveOpen(@Bind("ids") List<UUID> ids, @Bind("by") String by, @Bind("resolution") String resolution);

    /** Deletes up to {@code limit} dead letters resolved before {@code before}, skipping locked ones. */
    @SqlUpdate("""
            DELETE FROM dead_letters WHERE id IN (
                SELECT id FROM dead_letters
                 WHERE resolved_at IS NOT NULL AND resolved_at < :before
                 ORDER BY resolved_at
                 LIMIT :limit
                 FOR UPDATE SKIP LOCKED)""")
    int purgeResolved(@Bind("before") Instant before, @Bind("limit") int limit);

    private static Row row(ResultSet rs, StatementContext ctx) throws SQLException {
        return new Row(
                rs.getObject("id", UUID.class),
                DeadLetterSource.valueOf(rs.getString("source")),
                rs.getObject("reference", UUID.class),
                rs.getString("event_type"),
                rs.getString("peer"),
                AggregateKey.ofNullable(rs.getString("aggregate_type"), rs.getString("aggregate_id")),
                rs.getString("reason"),
                rs.getString("last_error"),
                rs.getInt("attempts"),
                Columns.instant(rs, "created_at"),
                Columns.instant(rs, "resolved_at"),
                rs.getString("resolved_by"),
                rs.getString("resolution"),
                rs.getObject("outbox_id", UUID.class),
                rs.getString("partner_name"),
                rs.getString("partner_event_id"),
                rs.getString("inbox_workflow_id"),
                (Boolean) rs.getObject("endpoint_enabled"),
                rs.getString("tenant"));
    }

    /** The conditions of the filters given, with their values: a filter not given adds nothing to the WHERE. */
    final class Where {
        private final List<String> conditions = new ArrayList<>();
        private final Map<String, Object> values = new LinkedHashMap<>(
                Map.of("outbox", DeadLetterSource.OUTBOX.name(), "inbox", DeadLetterSource.INBOX.name()));

        static Where of(DeadLetterFilter filter) {
            Where where = new Where();
            DeadLetterSource source = filter.sourceValue();
            if (source != null) {
                where.add("dl.source = :source", "source", source.name());
            }
            if (filter.eventType() != null) {
                where.add("COALESCE(o.event_type, i.event_type) = :eventType", "eventType", filter.eventType());
            }
            if (filter.peer() != null) {
                where.add("(e.name = :peer OR e.url = :peer OR i.partner_name = :peer)", "peer", filter.peer());
            }
            if (filter.endpointId() != null) {
                where.add("e.id = :endpointId", "endpointId", filter.endpointId());
            }
            if (filter.tenant() != null) {
                where.add("e.tenant = :tenant", "tenant", filter.tenant());
            }
            AggregateKey aggregate = filter.aggregateKey();
            if (aggregate != null) {
                where.add("""
                        ((o.aggregate_type = :aggregateType AND o.aggregate_id = :aggregateId)
                         OR (i.aggregate_type = :aggregateType AND i.aggregate_id = :aggregateId))""", "aggregateType", aggregate.type()).value("aggregateId", aggregate.id());
            }
            if (filter.since() != null) {
                where.add("dl.created_at >= :since", "since", filter.since());
            }
            if (filter.until() != null) {
                where.add("dl.created_at < :until", "until", filter.until());
            }
            return where;
        }

        Where add(String condition) {
            conditions.add(condition);
            return this;
        }

        Where add(String condition, String name, Object value) {
            return add(condition).value(name, value);
        }

        Where value(String name, Object value) {
            values.put(name, value);
            return this;
        }

        String sql() {
            return conditions.isEmpty() ? "" : " WHERE " + String.join("\n   AND ", conditions);
        }

        <S extends SqlStatement<S>> S bind(S statement) {
            values.forEach(statement::bind);
            return statement;
        }
    }
}
