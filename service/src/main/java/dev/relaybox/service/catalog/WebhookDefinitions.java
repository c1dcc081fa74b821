package dev.relaybox.service.catalog;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.store.EventTypeStore.Definition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The event types an OpenAPI 3.1 document's {@code webhooks} describe: one per webhook with a {@code POST} whose JSON
 * body has a schema. A body shaped as Relaybox's envelope ({@code type} and {@code data}) gives {@code data} as the
 * type's schema and {@code type}'s {@code const} as its name; any other body is the schema itself, named by the
 * webhook. References into {@code components} are copied into the schema ({@link SchemaRefs}); the example, the
 * description and {@code deprecated} come from the operation.
 */
public final class WebhookDefinitions {
    private WebhookDefinitions() {}

    /** Throws {@link IllegalArgumentException} saying what the document lacks. */
    public static List<Definition> read(JsonNode document) {
        String version = document.path("openapi").asText();
        if (!version.startsWith("3.1")) {
            throw new IllegalArgumentException(
                    "not an OpenAPI 3.1 document (openapi: \"" + version + "\"): webhooks are an OpenAPI 3.1 section");
        }
        JsonNode webhooks = document.path("webhooks");
        if (!webhooks.isObject() || webhooks.isEmpty()) {
            throw new IllegalArgumentException("the document has no webhooks");
        }
        List<Definition> definitions = new ArrayList<>();
        for (Map.Entry<String, JsonNode> webhook : webhooks.properties()) {
            definitions.add(
                    definition(document, webhook.getKey(), webhook.getValue().path("post")));
        }
        return definitions;
    }

    private static Definition definition(JsonNode document, String webhook, JsonNode post) {
        JsonPointer mediaAt = mediaType(webhook, post);
        JsonNode media = document.at(mediaAt);
        JsonPointer bodyAt = followed(document, mediaAt.appendProperty("schema"));
        JsonNode body = document.at(bodyAt);
        if (body.isMissingNode()) {
            throw new IllegalArgumentException("webhook " + webhook + ": its request body has no schema");
        }
        boolean envelope =
                body.path("properties").has("type") && body.path("properties").has("data");
        JsonPointer schemaAt = envelope ? bodyAt.appendProperty("properties").appendProperty("data") : bodyAt;
        JsonNode constType = body.path("properties").path("type").path("const");
        String name = envelope && constType.isTextual() ? constType.asText() : webhook;
        JsonNode example = example(media);
        if (envelope && example != null && example.has("data")) {
            example = example.get("data");
        }
        JsonNode description = post.get("description");
        return new Definition(
                name,
                description == null ? null : description.asText(),
                SchemaRefs.detached(document, schemaAt).toString(),
                example == null ? null : example.toString(),
                post.path("deprecated").asBoolean(false));
    }

    /** The JSON body of the webhook's POST: {@code application/json}, else the first JSON media type. */
    private static JsonPointer mediaType(String webhook, JsonNode post) {
        if (post.isMissingNode()) {
            throw new IllegalArgumentException("webhook " + webhook + " has no post operation");
        }
        JsonNode content = post.path("requestBody").path("content");
        String chosen = content.has(CatalogWebhooks.MEDIA_TYPE) ? CatalogWebhooks.MEDIA_TYPE : null;
        for (Map.Entry<String, JsonNode> media : content.properties()) {
            if (chosen == null && media.getKey().endsWith("json")) {
                chosen = media.getKey();
            }
        }
        if (chosen == null) {
            throw new IllegalArgumentException("webhook " + webhook + " has no JSON request body");
        }
        return CatalogWebhooks.mediaAt(webhook, chosen);
    }

    /** Where a schema that is only a reference within the document ends up. */
    private static JsonPointer followed(JsonNode document, JsonPointer at) {
        JsonPointer location = at;
        for (int hops = 0; hops < 10; hops++) {
            JsonNode ref = document.at(location).path("$ref");
            if (!ref.isTextual() || !ref.asText().startsWith("#/")) {
                return location;
            }
            location = JsonPointer.compile(ref.asText().substring(1));
        }
        throw new IllegalArgumentException("references at " + at + " go round in circles");
    }

    private static JsonNode example(JsonNode media) {
        if (media.has("example")) {
            return media.get("example");
        }
        for (JsonNode named : media.path("examples")) {
            if (named.has("value")) {
                return named.get("value");
            }
        }
        return null;
    }
}
