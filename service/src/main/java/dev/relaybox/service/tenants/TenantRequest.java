package dev.relaybox.service.tenants;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.Json;
import dev.relaybox.store.TenantStore;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * {@code POST /admin/tenants} (with {@code key} and {@code name}) and {@code PATCH /admin/tenants/{key}} (any
 * field). {@code metadata} is the operator's own JSON object, kept as given (at most 16 KiB).
 */
public record TenantRequest(
        @Pattern(regexp = TenantStore.KEY, message = TenantStore.KEY_RULE)
        String key,

        @Size(min = 1, max = 200) String name,

        @Schema(
                types = {"object"},
                example = "{\"plan\": \"enterprise\"}")
        JsonNode metadata,

        @Valid Theme theme,
        Boolean enabled) {
    private static final int MAX_METADATA_CHARS = 16 * 1024;

    /** The portal's look; each field optional. */
    public record Theme(
            @Size(max = 100) String title,

            @Size(max = 2000) @Pattern(regexp = "https://\\S+|/\\S*", message = "must be an https:// URL or a path")
            String logoUrl,

            @Pattern(regexp = "#[0-9a-fA-F]{6}", message = "must be a colour like #2563eb")
            String accentColor) {}

    /** The metadata as stored JSON text, or null when absent; refuses what is not an object or too large. */
    String metadataText() {
        if (metadata == null || metadata.isNull()) {
            return null;
        }
        if (!metadata.isObject()) {
            throw ApiException.badRequest("invalid_request", "metadata must be a JSON object");
        }
        String text = Json.text(metadata);
        if (text.length() > MAX_METADATA_CHARS) {
            throw new ApiException(422, "metadata_too_large", "metadata must be at most 16 KiB of JSON");
        }
        return text;
    }

    String themeText() {
        return theme == null ? null : Json.text(theme);
    }
}
