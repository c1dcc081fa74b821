package dev.relaybox.service.admin;

import com.google.protobuf.Timestamp;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.failure.v1.Failure;
import io.temporal.api.sdk.v1.UserMetadata;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.StringJoiner;

/** The values of a workflow history as a timeline shows them: JSON as its text, failures with their causes, short. */
final class HistoryText {
    private static final int MAX_VALUE_LENGTH = 400;

    private HistoryText() {}

    static String failure(Failure failure) {
        StringBuilder text = new StringBuilder(failure.getMessage());
        Failure cause = failure;
        while (cause.hasCause()) {
            cause = cause.getCause();
            text.append(": ").append(cause.getMessage());
        }
        return shortened(text.toString());
    }

    static String text(UserMetadata metadata) {
        return metadata.hasSummary() ? unquoted(value(metadata.getSummary())) : "";
    }

    static String values(Payloads payloads) {
        StringJoiner all = new StringJoiner(", ");
        payloads.getPayloadsList().forEach(p -> all.add(value(p)));
        return shortened(all.toString());
    }

    /** JSON payloads as their JSON text; anything else by its encoding and size. */
    static String value(Payload payload) {
        String encoding = payload.getMetadataOrDefault("encoding", null) == null
                ? ""
                : payload.getMetadataOrThrow("encoding").toStringUtf8();
        if (encoding.equals("binary/null")) {
            return "null";
        }
        if (encoding.startsWith("json/") || encoding.isEmpty()) {
            return shortened(unquoted(payload.getData().toString(StandardCharsets.UTF_8)));
        }
        return "(" + payload.getData().size() + " bytes, " + encoding + ")";
    }

    static String unquoted(String json) {
        return json.length() >= 2
                        && json.startsWith("\"")
                        && json.endsWith("\"")
                        && json.indexOf('"', 1) == json.length() - 1
                ? json.substring(1, json.length() - 1)
                : json;
    }

    static String shortened(String text) {
        return text.length() <= MAX_VALUE_LENGTH ? text : text.substring(0, MAX_VALUE_LENGTH) + "…";
    }

    static Instant instant(Timestamp t) {
        return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
    }

    /** 1h, 5m, 1m 30s, 250ms: durations as a schedule is written. */
    static String words(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        if (d.toMillis() < 1000) {
            return d.toMillis() + "ms";
        }
        StringJoiner parts = new StringJoiner(" ");
        long seconds = d.getSeconds();
        if (seconds >= 86400) {
            parts.add(seconds / 86400 + "d");
        }
        if (seconds % 86400 >= 3600) {
            parts.add(seconds % 86400 / 3600 + "h");
        }
        if (seconds % 3600 >= 60) {
            parts.add(seconds % 3600 / 60 + "m");
        }
        if (seconds % 60 > 0) {
            parts.add(seconds % 60 + "s");
        }
        return parts.toString();
    }
}
