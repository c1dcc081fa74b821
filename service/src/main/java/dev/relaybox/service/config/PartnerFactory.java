package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.inbound.InboundRoutes;
import dev.relaybox.activities.inbound.PartnerSignature;
import dev.relaybox.workflows.VisibilityLimits;
import io.dropwizard.util.DataSize;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.util.List;
import java.util.Optional;

/**
 * One partner that sends webhooks: how it signs them, and where its event id, event type and aggregate
 * id are found (a header, or a JSON pointer into the body).
 */
public final class PartnerFactory {
    /** Where a value is found: exactly one of a header name or a JSON pointer such as {@code /data/object/id}. */
    public record FieldLocation(
            @JsonProperty("header") String header,
            @JsonProperty("pointer") String pointer) {
        public boolean inHeader() {
            return header != null && !header.isBlank();
        }

        /** The scalar at the pointer as text; empty when missing, null, blank or not a scalar, or for a header. */
        public Optional<String> inBody(JsonNode body) {
            if (inHeader()) {
                return Optional.empty();
            }
            JsonNode node = body.at(pointer);
            String value = node.isValueNode() && !node.isNull() ? node.asText() : null;
            return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
        }

        String problem(String field) {
            boolean hasHeader = header != null && !header.isBlank();
            boolean hasPointer = pointer != null && !pointer.isBlank();
            if (hasHeader == hasPointer) {
                return field + " needs exactly one of header or pointer";
            }
            if (hasPointer && !pointer.startsWith("/")) {
                return field + ".pointer must start with '/' (a JSON pointer), not \"" + pointer + "\"";
            }
            return null;
        }
    }

    /** Events of {@code eventTypes} (patterns as in endpoint filters) go to the endpoints named. */
    public record RouteFactory(
            @NotEmpty @JsonProperty("eventTypes") List<String> eventTypes,
            @NotEmpty @JsonProperty("endpoints") List<String> endpoints) {
        InboundRoutes.Route build() {
            return new InboundRoutes.Route(eventTypes, endpoints);
        }
    }

    @Valid
    @NotNull
    @JsonProperty
    private PartnerSignature signature;

    /** Where verified events go as received, with or without a state machine for their aggregate type. */
    @Valid
    @NotNull
    @JsonProperty
    private List<RouteFactory> routes = List.of();

    @NotNull
    @JsonProperty
    private FieldLocation eventId;

    @NotNull
    @JsonProperty
    private FieldLocation eventType;

    @NotNull
    @JsonProperty
    private FieldLocation aggregateId;

    /** Which state machine this partner's events drive. */
    @NotNull
    @JsonProperty
    private String aggregateType;

    @NotNull
    @JsonProperty
    private DataSize maxBodySize = DataSize.kibibytes(256);

    /**
     * Take the event id from a header the scheme does not sign (GitHub's {@code X-GitHub-Delivery}). Its cost: a
     * signed body can be sent again under any new id and is stored as a new event (for a scheme without a signed
     * timestamp, at any time), so only the state machine's STALE answer stands between a replay and its effect.
     */
    @JsonProperty
    private boolean trustUnsignedEventIdHeader;

    /**
     * Take any field (event id, type, aggregate id) from a header the scheme does not sign. The same cost as above for
     * the event id; for the type or aggregate id, a captured body can be sent again under another type or aggregate.
     * Every field taken from a header is part of what tells a resend from another event under the same id, so such a
     * request sent first makes the real one a conflict (409), not a duplicate.
     */
    @JsonProperty
    private boolean trustUnsignedHeaders;

    /**
     * Embedded mode: the data directory's own signing secret for this partner where the configuration sets none (or
     * only blank ones), under the variable that would set it.
     */
    public void useEmbeddedSecretWhereUnset(EmbeddedCredentials credentials, String variable) {
        boolean unset = signature.secrets().stream().allMatch(secret -> secret == null || secret.isBlank());
        if (unset) {
            String secret = credentials.value(variable, EmbeddedCredentials::newSigningSecret);
            signature = new PartnerSignature(
                    signature.scheme(),
                    List.of(secret),
                    signature.toleranceSeconds(),
                    signature.header(),
                    signature.encoding());
        }
    }

    public PartnerSignature getSignature() {
        return signature;
    }

    public FieldLocation getEventId() {
        return eventId;
    }

    public FieldLocation getEventType() {
        return eventType;
    }

    public FieldLocation getAggregateId() {
        return aggregateId;
    }

    public String getAggregateType() {
        return aggregateType;
    }

    public List<RouteFactory> getRoutes() {
        return routes;
    }

    public List<InboundRoutes.Route> routes() {
        return routes.stream().map(RouteFactory::build).toList();
    }

    public long maxBodyBytes() {
        return maxBodySize.toBytes();
    }

    private String unsignedEventIdProblem() {
        if (trustUnsignedEventIdHeader || trustUnsignedHeaders || !unsignedHeader(eventId)) {
            return null;
        }
        return "eventId header " + eventId.header() + " is not signed by the "
                + signature.scheme().configName()
                + " scheme: anyone holding one signed body could send it again under new ids, or under an id the"
                + " partner has yet to use so that the real event is refused; take the id from the body"
                + " ({pointer: ...}) or, accepting that replays under new ids are stored as new events,"
                + " set trustUnsignedEventIdHeader: true";
    }

    private String unsignedFieldProblem(String field, FieldLocation location) {
        if (trustUnsignedHeaders || !unsignedHeader(location)) {
            return null;
        }
        return field + " header " + location.header() + " is not signed by the "
                + signature.scheme().configName()
                + " scheme: anyone holding one signed body could send it again under another " + field
                + "; take it from the body ({pointer: ...}) or, accepting that, set trustUnsignedHeaders: true";
    }

    private boolean unsignedHeader(FieldLocation location) {
        String header = location.header();
        return header != null
                && !header.isBlank()
                && signature.scheme() != null
                && !signature.scheme().signsHeader(header);
    }

    /** A partner's name: in the webhook URL, metric labels and search attributes. */
    public static final String NAME = "[A-Za-z0-9][A-Za-z0-9_.-]{0,99}";

    /** An aggregate type: part of every entity's key and of search attributes, as the outbox API bounds it. */
    static final String AGGREGATE_TYPE = "[A-Za-z0-9][A-Za-z0-9_.-]{0,99}";

    /** What makes this partner unusable, naming it, or null. */
    public String problem(String name) {
        if (name == null || !name.matches(NAME)) {
            return "partner name '" + VisibilityLimits.truncate(name, 120)
                    + "' must be letters, digits, '.', '_' or '-', at most 100";
        }
        if (!aggregateType.matches(AGGREGATE_TYPE)) {
            return "partner '" + name + "': aggregateType must be letters, digits, '.', '_' or '-', at most 100";
        }
        String problem = signature.problem();
        if (problem == null) {
            problem = eventId.problem("eventId");
        }
        if (problem == null) {
            problem = unsignedEventIdProblem();
        }
        if (problem == null) {
            problem = eventType.problem("eventType");
        }
        if (problem == null) {
            problem = unsignedFieldProblem("eventType", eventType);
        }
        if (problem == null) {
            problem = aggregateId.problem("aggregateId");
        }
        if (problem == null) {
            problem = unsignedFieldProblem("aggregateId", aggregateId);
        }
        return problem == null ? null : "partner '" + name + "': " + problem;
    }
}
