package dev.relaybox.service.catalog;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.relaybox.store.EventTypeStore;
import java.io.UncheckedIOException;
import java.util.List;
import org.jdbi.v3.core.Jdbi;

/**
 * The OpenAPI 3.1 {@code webhooks} section for receivers, read from the catalog when asked: one {@code POST} per
 * event type, whose body is the envelope Relaybox sends ({@code type}, {@code timestamp}, {@code data} = the type's
 * latest schema) and whose headers are the Standard Webhooks signature headers {@code WebhookSender} sets. Written as
 * JSON rather than through swagger-core's model, which would drop the schema keywords it does not model.
 */
public final class CatalogWebhooks {
    static final String MEDIA_TYPE = "application/json";
    static final String EXTENSION_VERSION = "x-relaybox-version";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Jdbi jdbi;

    public CatalogWebhooks(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** The section for the catalog as it is now. */
    public ObjectNode section() {
        List<EventTypeStore.Current> types = jdbi.withExtension(EventTypeStore.class, EventTypeStore::current);
        ObjectNode webhooks = JSON.createObjectNode();
        types.forEach(type -> webhooks.putObject(type.name()).set("post", operation(type)));
        return webhooks;
    }

    /** Where the envelope schema of a type's webhook is in the document. */
    static JsonPointer envelopeAt(String eventType) {
        return mediaAt(eventType, MEDIA_TYPE).appendProperty("schema");
    }

    /** Where a webhook's request body of one media type is in a document. */
    static JsonPointer mediaAt(String webhook, String mediaType) {
        return JsonPointer.empty()
                .appendProperty("webhooks")
                .appendProperty(webhook)
                .appendProperty("post")
                .appendProperty("requestBody")
                .appendProperty("content")
                .appendProperty(mediaType);
    }

    private static ObjectNode operation(EventTypeStore.Current type) {
        ObjectNode post = JSON.createObjectNode();
        post.put("operationId", "webhook." + type.name());
        post.putArray("tags").add("webhooks");
        post.put("summary", type.name() + ", version " + type.version());
        if (!type.description().isEmpty()) {
            post.put("description", type.description());
        }
        if (type.deprecated()) {
            post.put("deprecated", true);
        }
        post.put(EXTENSION_VERSION, type.version());
        signatureHeaders(post.putArray("parameters"));
        ObjectNode media = post.putObject("requestBody")
                .put("required", true)
                .put(
                        "description",
                        "The Standard Webhooks envelope; an endpoint with payloadFormat raw gets `data` alone.")
                .putObject("content")
                .putObject(MEDIA_TYPE);
        JsonPointer dataAt =
                envelopeAt(type.name()).appendProperty("properties").appendProperty("data");
        media.set("schema", envelope(type.name(), SchemaRefs.anchoredAt(json(type.schema()), dataAt)));
        if (type.example() != null) {
            media.putObject("example")
                    .put("type", type.name())
                    .put("timestamp", "2026-01-01T12:00:00.000000Z")
                    .set("data", json(type.example()));
        }
        ObjectNode responses = post.putObject("responses");
        responses.putObject("2XX").put("description", "Received: the delivery is done.");
        responses.putObject("410").put("description", "Gone: the endpoint is disabled and the event dead-lettered.");
        responses
                .putObject("default")
                .put(
                        "description",
                        "408, 425, 429 and 5xx (and timeouts) are retried on the endpoint's schedule, honouring "
                                + "Retry-After; any other answer dead-letters the event.");
        return post;
    }

    private static ObjectNode envelope(String eventType, JsonNode data) {
        ObjectNode schema = JSON.createObjectNode().put("type", "object");
        schema.putArray("required").add("type").add("timestamp").add("data");
        ObjectNode properties = schema.putObject("properties");
        properties.putObject("type").put("const", eventType);
        properties
                .putObject("timestamp")
                .put("type", "string")
                .put("format", "date-time")
                .put("description", "when the event was enqueued (UTC)");
        properties.set("data", data);
        return schema;
    }

    /** As {@code WebhookSender} signs every request. */
    private static void signatureHeaders(ArrayNode parameters) {
        header(
                parameters,
                "webhook-id",
                "The outbox event's id, the same on every retry: deduplicate on it.",
                JSON.createObjectNode().put("type", "string").put("format", "uuid"));
        header(
                parameters,
                "webhook-timestamp",
                "When this attempt was signed, in Unix seconds: refuse one too far from your clock.",
                JSON.createObjectNode().put("type", "string").put("pattern", "^[0-9]+$"));
        header(
                parameters,
                "webhook-signature",
                "v1,<base64 HMAC-SHA256 of \"{webhook-id}.{webhook-timestamp}.{body}\"> with the endpoint's secret "
                        + "(whsec_<base64 key>); several, space-separated, while a secret rotates: accept any that "
                        + "matches.",
                JSON.createObjectNode().put("type", "string"));
    }

    private static void header(ArrayNode parameters, String name, String description, ObjectNode schema) {
        parameters
                .addObject()
                .put("name", name)
                .put("in", "header")
                .put("required", true)
                .put("description", description)
                .set("schema", schema);
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
