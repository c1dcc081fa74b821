package dev.relaybox.service.recovery;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What an edit changed in a payload, as a list of values that differ, each named by its JSON Pointer. Objects are
 * compared field by field and arrays of one length element by element; an array whose length changed, or a value
 * whose type changed, is one change of the whole value. Fields of the new payload come in its order, removed ones
 * after them.
 */
final class PayloadDiff {
    /**
     * One value that differs. {@code from} is absent (Java null) for an added value, {@code to} for a removed one; a
     * JSON {@code null} on either side is a {@code NullNode}.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Change(String path, JsonNode from, JsonNode to) {}

    private PayloadDiff() {}

    static List<Change> between(JsonNode before, JsonNode after) {
        List<Change> changes = new ArrayList<>();
        compare("", before, after, changes);
        return changes;
    }

    private static void compare(String path, JsonNode before, JsonNode after, List<Change> changes) {
        if (before.equals(after)) {
            return;
        }
        if (before.isObject() && after.isObject()) {
            Set<String> names = new LinkedHashSet<>();
            after.fieldNames().forEachRemaining(names::add);
            before.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                String child = path + "/" + escape(name);
                JsonNode from = before.get(name);
                JsonNode to = after.get(name);
                if (from == null || to == null) {
                    changes.add(new Change(child, from, to));
                } else {
                    compare(child, from, to, changes);
                }
            }
            return;
        }
        if (before.isArray() && after.isArray() && before.size() == after.size()) {
            Iterator<JsonNode> from = before.elements();
            Iterator<JsonNode> to = after.elements();
            for (int i = 0; from.hasNext(); i++) {
                compare(path + "/" + i, from.next(), to.next(), changes);
            }
            return;
        }
        changes.add(new Change(path, before, after));
    }

    /** RFC 6901: {@code ~} and {@code /} in a field name are written {@code ~0} and {@code ~1}. */
    private static String escape(String name) {
        return name.replace("~", "~0").replace("/", "~1");
    }
}
