package dev.relaybox.service.recovery;

import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.JsonBodyReader;
import dev.relaybox.service.auth.Caller;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.Size;
import java.util.List;

/**
 * The body of {@code POST /admin/dead-letters/{id}/replay}. Who replays is recorded as the caller's token
 * ({@link Caller}); a name the operator gives is kept beside it, never instead of it. With {@code payload} (and then
 * a {@code reason}), the source row's payload is replaced for the replay and an audit entry kept
 * ({@link DeadLetterEdits}). An unknown field is refused, so that a misspelt {@code payload} never replays the old one.
 */
@Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
public record ReplayRequest(
        @Size(max = 100) String by,

        @Schema(
                types = {"object"},
                description = "the corrected payload: a JSON object replacing the stored one")
        JsonNode payload,

        @Schema(description = "why the payload was changed; required with a payload") @Size(max = 500)
        String reason) {
    private static final List<Object> FIELDS = List.of("by", "payload", "reason");

    public ReplayRequest {
        // "payload": null is no correction, as no payload is.
        payload = payload == null || payload.isNull() ? null : payload;
    }

    @JsonAnySetter
    void refuseUnknownField(String name, Object value) throws UnrecognizedPropertyException {
        throw new UnrecognizedPropertyException(
                null, "unknown field \"" + name + "\"", JsonLocation.NA, ReplayRequest.class, name, FIELDS);
    }

    /** The corrected payload, checked for its shape, with {@code actor} (the caller's token); null for none. */
    public PayloadCorrection correction(String actor) {
        if (payload == null && reason == null) {
            return null;
        }
        if (payload == null) {
            throw ApiException.badRequest(
                    "invalid_request", "reason is kept with a corrected payload; a replay as it is takes none");
        }
        if (!payload.isObject()) {
            throw ApiException.badRequest("invalid_request", "payload must be a JSON object");
        }
        if (reason == null || reason.isBlank()) {
            throw ApiException.badRequest("invalid_request", "reason is required with a payload: say why it changed");
        }
        JsonBodyReader.requireStorable(payload);
        return new PayloadCorrection(payload, reason, actor, by == null || by.isBlank() ? null : by);
    }
}
