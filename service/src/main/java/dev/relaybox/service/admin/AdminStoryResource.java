package dev.relaybox.service.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.Json;
import dev.relaybox.service.api.OpenApiDocument;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.store.StoryQueries;
import dev.relaybox.workflows.AggregateKey;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code /admin/story?q=}: everything Relaybox knows about one event, found by any id an operator may hold — an
 * outbox id (which receivers see as {@code webhook-id}), a delivery id, an inbox id, a partner's event id, a dead
 * letter id, or an aggregate ({@code order:42}). The story is the event's aggregate: its inbound events with their
 * decisions, the outbound events emitted or enqueued for it, each one's deliveries and every attempt, the dead
 * letters among them, the payloads operators corrected on replaying them, and the entity's state, in time order.
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

    public record Story(
            String query,
            String aggregate,
            EntityState entity,
            List<InboxStep> inbox,
            List<OutboxStep> outbox,
            List<DeadLetterStep> deadLetters,
            List<PayloadEditStep> payloadEdits) {}

    public record EntityState(String state, int version, Instant updatedAt) {}

    public record InboxStep(
            UUID id,
            String partner,
            String partnerEventId,
            String eventType,
            String status,
            String summary,
            String outcome,
            String deferReason,
            String lastError,
            int attempts,
            Instant receivedAt,
            Instant processedAt,
            String temporalUrl,
            String traceId,
            boolean matched) {}

    public record OutboxStep(
            UUID id,
            String eventType,
            String status,
            String summary,
            Instant createdAt,
            Instant dispatchedAt,
            Instant processedAt,
            String temporalUrl,
            String traceId,
            boolean matched,
            List<DeliveryStep> deliveries) {}

    public record DeliveryStep(
            UUID id,
            String endpoint,
            String url,
            String status,
            String summary,
            int attempts,
            Integer lastStatus,
            String lastError,
            Instant nextAttemptAt,
            Instant completedAt,
            boolean matched,
            List<AttemptStep> tries) {}

    /** One try; {@code brokerConfirmed}: a broker destination confirmed it (no status code). */
    public record AttemptStep(
            int attempt, Instant startedAt, Integer statusCode, boolean brokerConfirmed, int latencyMs, String error) {}

    public record DeadLetterStep(
            UUID id,
            String source,
            UUID reference,
            String reason,
            int attempts,
            Instant createdAt,
            Instant resolvedAt,
            String resolution,
            boolean matched) {}

    /**
     * A dead letter replayed with a corrected payload: who (the caller's token, and the name given), when, why, what
     * changed, and the payload before ({@code previousPayload}: the first edit's is the one received or enqueued).
     * {@code rowId} is the inbox or outbox id; {@code signature} says an inbound edit was not signed by the partner.
     */
    public record PayloadEditStep(
            UUID id,
            UUID deadLetterId,
            String source,
            UUID rowId,
            Instant editedAt,
            String actor,
            String by,
            String reason,
            JsonNode changes,
            String signature,
            JsonNode previousPayload,
            JsonNode payload) {}

    /** What a query found: the aggregate, or a lone inbox event that names none, and the ids it matched. */
    private record Match(AggregateKey aggregate, UUID loneInbox, Set<UUID> matched) {}

    @GET
    @Operation(
            operationId = "eventStory",
            summary =
                    "One event's whole story, found by any id: outbox id / webhook-id, delivery, inbox, partner event id, dead letter or aggregate")
    public Story story(
            @Parameter(
                            description = "an id of any kind, or an aggregate as type:id",
                            required = true,
                            schema = @Schema(pattern = OpenApiDocument.NOT_BLANK))
                    @QueryParam("q")
                    String q) {
        String query = q == null ? "" : q.trim();
        if (query.isEmpty()) {
            throw ApiException.badRequest("invalid_request", "q is required: an id of any kind, or type:id");
        }
        return jdbi.withExtension(StoryQueries.class, queries -> {
            Match match = find(queries, query)
                    .orElseThrow(() -> ApiException.notFound(
                            "story_not_found",
                            "no outbox event, delivery, inbox event, partner event id, dead letter or aggregate matches \""
                                    + query + "\""));
            return tell(queries, query, match);
        });
    }

    private static Optional<Match> find(StoryQueries queries, String query) {
        UUID id = uuid(query);
        if (id != null) {
            Optional<Match> byId = findById(queries, id, new HashSet<>(Set.of(id)));
            if (byId.isPresent()) {
                return byId;
            }
        }
        Optional<Match> byPartnerEventId =
                queries.inboxByPartnerEventId(query).map(found -> inboxMatch(found, new HashSet<>()));
        if (byPartnerEventId.isPresent() || !query.contains(":")) {
            return byPartnerEventId;
        }
        AggregateKey aggregate;
        try {
            aggregate = AggregateKey.parse(query);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        return queries.known(aggregate) ? Optional.of(new Match(aggregate, null, Set.of())) : Optional.empty();
    }

    private static Optional<Match> findById(StoryQueries queries, UUID id, Set<UUID> matched) {
        Optional<Match> outbox = queries.outboxOrDelivery(id).map(found -> {
            matched.add(found.id());
            return new Match(found.aggregate(), null, matched);
        });
        if (outbox.isPresent()) {
            return outbox;
        }
        Optional<Match> inbox = queries.inbox(id).map(found -> inboxMatch(found, matched));
        if (inbox.isPresent()) {
            return inbox;
        }
        return queries.deadLetterReference(id).flatMap(reference -> {
            matched.add(reference);
            return findById(queries, reference, matched);
        });
    }

    private static Match inboxMatch(StoryQueries.Found found, Set<UUID> matched) {
        matched.add(found.id());
        AggregateKey aggregate = found.aggregate();
        return new Match(aggregate, aggregate == null ? found.id() : null, matched);
    }

    private Story tell(StoryQueries queries, String query, Match match) {
        boolean lone = match.loneInbox() != null;
        AggregateKey aggregate = match.aggregate();
        List<StoryQueries.InboxRow> inboxRows =
                lone ? queries.inboxAlone(match.loneInbox()) : queries.inboxOf(aggregate.type(), aggregate.id(), LIMIT);
        List<InboxStep> inbox = inboxRows.stream()
                .map(row -> new InboxStep(
                        row.id(),
                        row.partnerName(),
                        row.partnerEventId(),
                        row.eventType(),
                        row.status(),
                        StoryWords.inbound(row),
                        row.outcome(),
                        row.deferReason(),
                        row.lastError(),
                        row.attempts(),
                        row.receivedAt(),
                        row.processedAt(),
                        links.workflow(InboxEventWorkflow.workflowId(row.partnerName(), row.partnerEventId())),
                        row.traceId(),
                        match.matched().contains(row.id())))
                .toList();
        List<OutboxStep> outbox = lone ? List.of() : outbox(queries, match);
        Set<UUID> references = new HashSet<>();
        inbox.forEach(step -> references.add(step.id()));
        outbox.forEach(step -> step.deliveries().forEach(d -> references.add(d.id())));
        List<DeadLetterStep> deadLetters = references.isEmpty()
                ? List.of()
                : queries.deadLetters(references).stream()
                        .map(row -> new DeadLetterStep(
                                row.id(),
                                row.source(),
                                row.reference(),
                                row.reason(),
                                row.attempts(),
                                row.createdAt(),
                                row.resolvedAt(),
                                row.resolution(),
                                match.matched().contains(row.id())))
                        .toList();
        Set<UUID> rows = new HashSet<>();
        inbox.forEach(step -> rows.add(step.id()));
        outbox.forEach(step -> rows.add(step.id()));
        List<PayloadEditStep> edits = rows.isEmpty()
                ? List.of()
                : queries.payloadEdits(rows).stream()
                        .map(row -> new PayloadEditStep(
                                row.id(),
                                row.deadLetterId(),
                                row.source(),
                                row.rowId(),
                                row.editedAt(),
                                row.actor(),
                                row.declaredBy(),
                                row.reason(),
                                Json.parse(row.changes()),
                                row.signatureNote(),
                                Json.parse(row.previousPayload()),
                                Json.parse(row.payload())))
                        .toList();
        EntityState entity = lone
                ? null
                : queries.entity(aggregate.type(), aggregate.id())
                        .map(row -> new EntityState(row.state(), row.version(), row.updatedAt()))
                        .orElse(null);
        return new Story(query, lone ? null : aggregate.toString(), entity, inbox, outbox, deadLetters, edits);
    }

    private List<OutboxStep> outbox(StoryQueries queries, Match match) {
        List<StoryQueries.OutboxRow> rows =
                queries.outboxOf(match.aggregate().type(), match.aggregate().id(), LIMIT);
        if (rows.isEmpty()) {
            return List.of();
        }
        Instant now = Instant.now();
        List<StoryQueries.DeliveryRow> deliveries =
                queries.deliveries(rows.stream().map(StoryQueries.OutboxRow::id).toList());
        Map<UUID, List<AttemptStep>> tries = deliveries.isEmpty()
                ? Map.of()
                : queries
                        .attempts(deliveries.stream()
                                .map(StoryQueries.DeliveryRow::id)
                                .toList())
                        .stream()
                        .collect(Collectors.groupingBy(
                                StoryQueries.AttemptRow::deliveryId,
                                Collectors.mapping(
                                        a -> new AttemptStep(
                                                a.attempt(),
                                                a.startedAt(),
                                                a.statusCode(),
                                                a.brokerConfirmed(),
                                                a.latencyMs(),
                                                a.error()),
                                        Collectors.toList())));
        Map<UUID, List<DeliveryStep>> perOutbox = deliveries.stream()
                .collect(Collectors.groupingBy(
                        StoryQueries.DeliveryRow::outboxId,
                        Collectors.mapping(
                                d -> deliveryStep(d, tries.getOrDefault(d.id(), List.of()), match.matched(), now),
                                Collectors.toList())));
        return rows.stream()
                .map(row -> new OutboxStep(
                        row.id(),
                        row.eventType(),
                        row.status(),
                        StoryWords.outbound(
                                row.status(),
                                row.processedAt(),
                                perOutbox.getOrDefault(row.id(), List.of()).stream()
                                        .map(DeliveryStep::status)
                                        .toList()),
                        row.createdAt(),
                        row.dispatchedAt(),
                        row.processedAt(),
                        links.workflow(OutboxDeliveryWorkflow.workflowId(row.id())),
                        row.traceId(),
                        match.matched().contains(row.id()),
                        perOutbox.getOrDefault(row.id(), List.of())))
                .toList();
    }

    private static DeliveryStep deliveryStep(
            StoryQueries.DeliveryRow d, List<AttemptStep> tries, Set<UUID> matched, Instant now) {
        return new DeliveryStep(
                d.id(),
                d.endpoint(),
                d.url(),
                d.status(),
                StoryWords.delivery(d, tries.size(), now),
                d.attempts(),
                d.lastStatus(),
                d.lastError(),
                d.nextAttemptAt(),
                d.completedAt(),
                matched.contains(d.id()),
                tries);
    }

    private static UUID uuid(String text) {
        try {
            return text.length() == 36 ? UUID.fromString(text) : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
