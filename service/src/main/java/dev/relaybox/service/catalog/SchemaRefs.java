package dev.relaybox.service.catalog;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Moves a catalog schema into an OpenAPI document and back out. A stored schema is self-contained: its references
 * ({@code #/$defs/Address}) point into itself. Inside a document, {@code #} is the document, so on the way in such a
 * reference is anchored where the schema lands; on the way out, references into the schema itself become relative
 * again and those to elsewhere in the document (a {@code components} schema) are copied under the schema's
 * {@code $defs}, so what is stored never depends on the document it came from.
 */
final class SchemaRefs {
    private static final String REF = "$ref";
    private static final String DEFS = "$defs";

    private SchemaRefs() {}

    /** A copy of {@code schema} whose own references point to it at {@code location} in a document. */
    static JsonNode anchoredAt(JsonNode schema, JsonPointer location) {
        JsonNode copy = schema.deepCopy();
        rewrite(copy, ref -> ref.startsWith("#/") ? "#" + location + ref.substring(1) : ref);
        return copy;
    }

    /**
     * The schema at {@code location} in {@code document}, self-contained: references into it made relative, those to
     * elsewhere in the document copied under {@code $defs} (by their last name) and pointed there. A reference to
     * outside the document stays as it is (the catalog refuses it).
     */
    static JsonNode detached(JsonNode document, JsonPointer location) {
        JsonNode schema = document.at(location).deepCopy();
        Map<String, JsonNode> copied = new LinkedHashMap<>();
        detach(document, location, "#", schema, copied);
        if (!copied.isEmpty() && schema instanceof ObjectNode object) {
            ObjectNode defs = object.has(DEFS) ? (ObjectNode) object.get(DEFS) : object.putObject(DEFS);
            copied.forEach(defs::set);
        }
        return schema;
    }

    /** {@code own}: what a reference into {@code location} itself becomes, where the node ends up. */
    private static void detach(
            JsonNode document, JsonPointer location, String own, JsonNode node, Map<String, JsonNode> copied) {
        rewrite(node, ref -> {
            if (!ref.startsWith("#/")) {
                return ref;
            }
            String pointer = ref.substring(1);
            String here = location.toString();
            if (pointer.equals(here) || pointer.startsWith(here + "/")) {
                return own + pointer.substring(here.length());
            }
            JsonPointer target = JsonPointer.compile(pointer);
            String name = target.last().getMatchingProperty();
            String moved = "#/" + DEFS + "/" + name;
            if (!copied.containsKey(name)) {
                JsonNode definition = document.at(target).deepCopy();
                copied.put(name, definition);
                // What the copied definition refers to is copied beside it.
                detach(document, target, moved, definition, copied);
            }
            return moved;
        });
    }

    private interface RefRewrite {
        String apply(String ref);
    }

    private static void rewrite(JsonNode node, RefRewrite rewrite) {
        if (node instanceof ObjectNode object) {
            JsonNode ref = object.get(REF);
            if (ref != null && ref.isTextual()) {
                object.put(REF, rewrite.apply(ref.asText()));
            }
            object.properties().forEach(entry -> {
                if (!entry.getKey().equals(REF)) {
                    rewrite(entry.getValue(), rewrite);
                }
            });
        } else if (node != null && node.isArray()) {
            node.forEach(element -> rewrite(element, rewrite));
        }
    }
}
