package dev.relaybox.service.api;

import java.util.Locale;

/** The one error shape of every 4xx and 5xx answer: a stable code and a sentence for people. */
public record ApiError(String error, String reason) {
    /** The code of an answer that has no more specific one: its status's reason phrase, {@code method_not_allowed}. */
    static String codeOf(String reasonPhrase) {
        return reasonPhrase.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_");
    }
}
