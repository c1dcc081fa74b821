package dev.relaybox.service.admin;

import dev.relaybox.service.auth.Caller;
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

/** {@code /admin/dead-letters}: what gave up, why, and where it came from. */
@Path("/admin/dead-letters")
@RolesAllowed(Caller.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public final class AdminDeadLettersResource {
    private final Jdbi jdbi;

    public AdminDeadLettersResource(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    public record DeadLetter(UUID id, String source, UUID reference, String reason, String lastError, int attempts,
            Instant createdAt, Instant resolvedAt, String resolvedBy, String resolution) {}

    @GET
    public Page<DeadLetter> list(@QueryParam("open") @DefaultValue("true") boolean open,
            @QueryParam("source") String source,
            @QueryParam("limit") @DefaultValue("50") @Min(1) @Max(500) int limit,
            @QueryParam("offset") @DefaultValue("0") @Min(0) int offset) {
        return jdbi.withHandle(h -> Page.of(h.createQuery("""
                                SELECT * FROM dead_letters
                                 WHERE (resolved_at IS NULL) = :open
                                   AND (CAST(:source AS text) IS NULL OR source = upper(:source))
                                 ORDER BY created_at DESC, id
                                 LIMIT :limit OFFSET :offset""")
                        .bind("open", open).bind("source", source)
                        .bind("limit", limit + 1).bind("offset", offset)
                        .map((rs, ctx) -> new DeadLetter(rs.getObject("id", UUID.class), rs.getString("source"),
                                rs.getObject("reference", UUID.class), rs.getString("reason"),
                                rs.getString("last_error"), rs.getInt("attempts"),
                                AdminDeliveriesResource.instant(rs, "created_at"),
                                AdminDeliveriesResource.instant(rs, "resolved_at"), rs.getString("resolved_by"),
                                rs.getString("resolution")))
                        .list(),
                limit, offset));
    }
}
