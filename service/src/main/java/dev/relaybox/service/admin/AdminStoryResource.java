package dev.relaybox.service.admin;

import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code /admin/story?q=}: everything Relaybox knows about one event, found by any id an operator may hold — an
 * outbox id (which receivers see as {@code webhook-id}), a delivery id, an inbox id, a partner's event id, a dead
 * letter id, or an aggregate ({@code order:42}). The story is the event's aggregate: its inbound events with their
 * decisions, the outbound events emitted or enqueued for it, each one's deliveries and every attempt, the dead
 * letters among them, and the entity's state, in time order.
 */
@Tag(name = "admin")
@Path("/admin/story")
@RolesAllowed(Caller.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public final class AdminStoryResource {
    /** Per kind of row; an aggregate with more is shown from its latest events. */
    static final int LIMIT = 200;

    private final Jdbi jdbi;
    private final TemporalLinks links;

    public AdminStoryResource(Jdbi jdbi, TemporalLinks links) {
        this.jdbi = jdbi;
        this.links = links;
    }

    public record Story(String query, String aggregate, EntityState entity, List<InboxStep> inbox,
            List<OutboxStep> outbox, List<DeadLetterStep> deadLetters) {}

    public record EntityState(String state, int version, Instant updatedAt) {}

    public record InboxStep(UUID id, String partner, String partnerEventId, String eventType, String status,
            String outcome, String deferReason, String lastError, int attempts, Instant receivedAt,
            Instant processedAt, String temporalUrl, boolean matched) {}

    public record OutboxStep(UUID id, String eventType, String status, Instant createdAt, Instant dispatchedAt,
            Instant processedAt, String temporalUrl, boolean matched, List<DeliveryStep> deliveries) {}

    public record DeliveryStep(UUID id, String endpoint, String url, String status, int attempts, Integer lastStatus,
            String lastError, Instant nextAttemptAt, Instant completedAt, boolean matched, List<AttemptStep> tries) {}

    public record AttemptStep(int attempt, Instant startedAt, Integer statusCode, int latencyMs, String error) {}

    public record DeadLetterStep(UUID id, String source, UUID reference, String reason, int attempts,
            Instant createdAt, Instant resolvedAt, String resolution, boolean matched) {}

    /** What a query found: the aggregate, or a lone inbox event that names none, and the ids it matched. */
    private record Match(String aggregateType, String aggregateId, UUID loneInbox, Set<UUID> matched) {}

    @GET
    @Operation(operationId = "eventStory",
            summary = "One event's whole story, found by any id: outbox id / webhook-id, delivery, inbox, partner event id, dead letter or aggregate")
    public Story story(@Parameter(description = "an id of any kind, or an aggregate as type:id", required = true)
            @QueryParam("q") String q) {
        String query = q == null ? "" : q.trim();
        if (query.isEmpty()) {
            throw ApiException.badRequest("invalid_request", "q is required: an id of any kind, or type:id");
        }
        return jdbi.withHandle(h -> {
            Match match = find(h, query).orElseThrow(() -> ApiException.notFound("story_not_found",
                    "no outbox event, delivery, inbox event, partner event id, dead letter or aggregate matches \""
                            + query + "\""));
            return tell(h, query, match);
        });
    }

    private Optional<Match> find(Handle h, String query) {
        UUID id = uuid(query);
        if (id != null) {
            Optional<Match> byId = findById(h, id, new HashSet<>(Set.of(id)));
            if (byId.isPresent()) {
                return byId;
            }
        }
        Optional<Match> byPartnerEventId = h.createQuery("""
                        SELECT id, aggregate_type, aggregate_id FROM webhook_inbox
                         WHERE partner_event_id = :q ORDER BY received_at DESC LIMIT 1""")
                .bind("q", query)
                .map((rs, ctx) -> inboxMatch(rs.getObject("id", UUID.class), rs.getString("aggregate_type"),
                        rs.getString("aggregate_id"), new HashSet<>()))
                .findOne();
        if (byPartnerEventId.isPresent() || !query.contains(":")) {
            return byPartnerEventId;
        }
        String type = query.substring(0, query.indexOf(':'));
        String aggregateId = query.substring(query.indexOf(':') + 1);
        boolean known = h.createQuery("""
                        SELECT EXISTS (SELECT 1 FROM outbox_events WHERE aggregate_type = :type AND aggregate_id = :id)
                            OR EXISTS (SELECT 1 FROM webhook_inbox WHERE aggregate_type = :type AND aggregate_id = :id)
                            OR EXISTS (SELECT 1 FROM entities WHERE aggregate_type = :type AND aggregate_id = :id)""")
                .bind("type", type).bind("id", aggregateId).mapTo(boolean.class).one();
        return known ? Optional.of(new Match(type, aggregateId, null, Set.of())) : Optional.empty();
    }

    private Optional<Match> findById(Handle h, UUID id, Set<UUID> matched) {
        Optional<Match> outbox = h.createQuery("""
                        SELECT o.id, o.aggregate_type, o.aggregate_id FROM outbox_events o
                         WHERE o.id = :id
                            OR o.id = (SELECT outbox_id FROM deliveries WHERE id = :id)""")
                .bind("id", id)
                .map((rs, ctx) -> {
                    matched.add(rs.getObject("id", UUID.class));
                    return new Match(rs.getString("aggregate_type"), rs.getString("aggregate_id"), null, matched);
                })
                .findFirst();
        if (outbox.isPresent()) {
            return outbox;
        }
        Optional<Match> inbox = h.createQuery("SELECT id, aggregate_type, aggregate_id FROM webhook_inbox WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> inboxMatch(rs.getObject("id", UUID.class), rs.getString("aggregate_type"),
                        rs.getString("aggregate_id"), matched))
                .findOne();
        if (inbox.isPresent()) {
            return inbox;
        }
        Optional<UUID> reference = h.createQuery("SELECT reference FROM dead_letters WHERE id = :id")
                .bind("id", id).mapTo(UUID.class).findOne();
        return reference.flatMap(ref -> {
            matched.add(ref);
            return findById(h, ref, matched);
        });
    }

    private static Match inboxMatch(UUID inboxId, String aggregateType, String aggregateId, Set<UUID> matched) {
        matched.add(inboxId);
        return aggregateType == null || aggregateId == null
                ? new Match(null, null, inboxId, matched)
                : new Match(aggregateType, aggregateId, null, matched);
    }

    private Story tell(Handle h, String query, Match match) {
        boolean lone = match.loneInbox() != null;
        List<InboxStep> inbox = h.createQuery("""
                        SELECT * FROM (
                            SELECT id, partner_name, partner_event_id, event_type, status, outcome, defer_reason,
                                   last_error, attempts, received_at, processed_at
                              FROM webhook_inbox
                             WHERE (:lone AND id = :loneId)
                                OR (NOT :lone AND aggregate_type = :type AND aggregate_id = :aggregateId)
                             ORDER BY received_at DESC LIMIT :limit) latest
                         ORDER BY received_at, id""")
                .bind("lone", lone).bind("loneId", match.loneInbox())
                .bind("type", match.aggregateType()).bind("aggregateId", match.aggregateId()).bind("limit", LIMIT)
                .map((rs, ctx) -> {
                    UUID id = rs.getObject("id", UUID.class);
                    String workflowId = InboxEventWorkflow.workflowId(rs.getString("partner_name"),
                            rs.getString("partner_event_id"));
                    return new InboxStep(id, rs.getString("partner_name"), rs.getString("partner_event_id"),
                            rs.getString("event_type"), rs.getString("status"), rs.getString("outcome"),
                            rs.getString("defer_reason"), rs.getString("last_error"), rs.getInt("attempts"),
                            Rows.instant(rs, "received_at"), Rows.instant(rs, "processed_at"),
                            links.workflow(workflowId), match.matched().contains(id));
                })
                .list();
        List<OutboxStep> outbox = lone ? List.of() : outbox(h, match);
        Set<UUID> references = new HashSet<>();
        inbox.forEach(step -> references.add(step.id()));
        outbox.forEach(step -> step.deliveries().forEach(d -> references.add(d.id())));
        List<DeadLetterStep> deadLetters = references.isEmpty() ? List.of() : h.createQuery("""
                        SELECT id, source, reference, reason, attempts, created_at, resolved_at, resolution
                          FROM dead_letters WHERE reference = ANY(:refs) ORDER BY created_at, id""")
                .bindArray("refs", UUID.class, references)
                .map((rs, ctx) -> {
                    UUID id = rs.getObject("id", UUID.class);
                    return new DeadLetterStep(id, rs.getString("source"), rs.getObject("reference", UUID.class),
                            rs.getString("reason"), rs.getInt("attempts"), Rows.instant(rs, "created_at"),
                            Rows.instant(rs, "resolved_at"), rs.getString("resolution"), match.matched().contains(id));
                })
                .list();
        EntityState entity = lone ? null : h.createQuery("""
                        SELECT state, version, updated_at FROM entities
                         WHERE aggregate_type = :type AND aggregate_id = :aggregateId""")
                .bind("type", match.aggregateType()).bind("aggregateId", match.aggregateId())
                .map((rs, ctx) -> new EntityState(rs.getString("state"), rs.getInt("version"),
                        Rows.instant(rs, "updated_at")))
                .findOne().orElse(null);
        String aggregate = lone ? null : match.aggregateType() + ":" + match.aggregateId();
        return new Story(query, aggregate, entity, inbox, outbox, deadLetters);
    }

    private List<OutboxStep> outbox(Handle h, Match match) {
        record Row(UUID id, String eventType, String status, Instant createdAt, Instant dispatchedAt,
                Instant processedAt) {}
        List<Row> rows = h.createQuery("""
                        SELECT * FROM (
                            SELECT id, event_type, status, created_at, dispatched_at, processed_at FROM outbox_events
                             WHERE aggregate_type = :type AND aggregate_id = :aggregateId
                             ORDER BY created_at DESC LIMIT :limit) latest
                         ORDER BY created_at, id""")
                .bind("type", match.aggregateType()).bind("aggregateId", match.aggregateId()).bind("limit", LIMIT)
                .map((rs, ctx) -> new Row(rs.getObject("id", UUID.class), rs.getString("event_type"),
                        rs.getString("status"), Rows.instant(rs, "created_at"), Rows.instant(rs, "dispatched_at"),
                        Rows.instant(rs, "processed_at")))
                .list();
        if (rows.isEmpty()) {
            return List.of();
        }
        List<UUID> ids = rows.stream().map(Row::id).toList();
        record DeliveryRow(UUID outboxId, DeliveryStep step) {}
        List<DeliveryRow> deliveries = h.createQuery("""
                        SELECT d.id, d.outbox_id, e.name, e.url, d.status, d.attempts, d.last_status, d.last_error,
                               d.next_attempt_at, d.completed_at
                          FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
                         WHERE d.outbox_id = ANY(:ids) ORDER BY d.created_at, d.id""")
                .bindArray("ids", UUID.class, ids)
                .map((rs, ctx) -> {
                    UUID id = rs.getObject("id", UUID.class);
                    return new DeliveryRow(rs.getObject("outbox_id", UUID.class), new DeliveryStep(id,
                            rs.getString("name"), rs.getString("url"), rs.getString("status"), rs.getInt("attempts"),
                            (Integer) rs.getObject("last_status"), rs.getString("last_error"),
                            Rows.instant(rs, "next_attempt_at"), Rows.instant(rs, "completed_at"),
                            match.matched().contains(id), new ArrayList<>()));
                })
                .list();
        Map<UUID, DeliveryStep> byId = deliveries.stream()
                .collect(Collectors.toMap(d -> d.step().id(), DeliveryRow::step));
        if (!byId.isEmpty()) {
            h.createQuery("""
                            SELECT delivery_id, attempt, started_at, status_code, latency_ms, error
                              FROM delivery_attempts WHERE delivery_id = ANY(:ids) ORDER BY id""")
                    .bindArray("ids", UUID.class, byId.keySet())
                    .map((rs, ctx) -> {
                        byId.get(rs.getObject("delivery_id", UUID.class)).tries().add(new AttemptStep(
                                rs.getInt("attempt"), Rows.instant(rs, "started_at"),
                                (Integer) rs.getObject("status_code"), rs.getInt("latency_ms"), rs.getString("error")));
                        return 0;
                    })
                    .list();
        }
        Map<UUID, List<DeliveryStep>> perOutbox = deliveries.stream().collect(Collectors.groupingBy(
                DeliveryRow::outboxId, Collectors.mapping(DeliveryRow::step, Collectors.toList())));
        return rows.stream().map(row -> new OutboxStep(row.id(), row.eventType(), row.status(), row.createdAt(),
                row.dispatchedAt(), row.processedAt(), links.workflow(OutboxDeliveryWorkflow.workflowId(row.id())),
                match.matched().contains(row.id()), perOutbox.getOrDefault(row.id(), List.of()))).toList();
    }

    private static UUID uuid(String text) {
        try {
            return text.length() == 36 ? UUID.fromString(text) : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
