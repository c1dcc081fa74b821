package dev.relaybox.service.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.service.api.Json;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.store.AuditLogStore;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code GET /admin/audit-log}: what operators changed (replays, corrections, discards), newest first, each entry with
 * its seal. It outlives the dead letters it speaks of; {@code relaybox audit} checks its chain.
 */
@Tag(name = "admin")
@Path("/admin/audit-log")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Caller.ADMIN)
public final class AdminAuditLogResource {
    /** One entry; {@code details} as stored. */
    public record AuditEntry(
            long seq,
            Instant recordedAt,
            String actor,
            String action,
            UUID subject,
            JsonNode details,
            String previousHash,
            String hash) {}

    /** A page; {@code nextBefore} is the {@code before} of the next, older page, null on the last. */
    public record AuditEntries(List<AuditEntry> items, Long nextBefore) {}

    private final Jdbi jdbi;

    public AdminAuditLogResource(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    @GET
    @Operation(operationId = "listAuditLog", summary = "The audit log, newest first")
    public AuditEntries list(
            @Parameter(description = "only entries numbered below this: the nextBefore of the previous page")
                    @QueryParam("before")
                    @Min(1)
                    Long before,
            @QueryParam("limit") @DefaultValue("50") @Min(1) @Max(500) int limit) {
        List<AuditEntry> items =
                jdbi.withExtension(AuditLogStore.class, store -> store.newestFirst(before, limit)).stream()
                        .map(e -> new AuditEntry(
                                e.seq(),
                                e.recordedAt(),
                                e.actor(),
                                e.action(),
                                e.subject(),
                                Json.parse(e.details()),
                                e.previousHash(),
                                e.hash()))
                        .toList();
        Long nextBefore = items.size() == limit ? items.get(items.size() - 1).seq() : null;
        return new AuditEntries(items, nextBefore);
    }
}
