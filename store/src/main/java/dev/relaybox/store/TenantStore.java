package dev.relaybox.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.SqlObject;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * The statements on {@code tenants} and {@code portal_sessions}. A tenant is never deleted (its events and
 * deliveries name it); disabling one disables its endpoints with {@link #DISABLED_REASON} and revokes its portal
 * links, and enabling it again enables the endpoints that reason disabled, not the ones their owner turned off.
 */
@RegisterConstructorMapper(TenantStore.Tenant.class)
public interface TenantStore extends SqlObject {
    /** The tenant key: the operator's own customer key, safe in URLs and log lines. */
    String KEY = "[a-z0-9][a-z0-9_-]{0,63}";

    String KEY_RULE = "must be 1 to 64 lower-case letters, digits, '_' or '-', starting with a letter or digit";
    String DISABLED_REASON = "tenant disabled";

    /** {@code metadata} and {@code theme} are JSON objects as text. */
    record Tenant(
            String key,
            String name,
            String metadata,
            String theme,
            boolean enabled,
            Instant createdAt,
            Instant updatedAt) {}

    /** An open portal link's session: its tenant, and when it expires. */
    record PortalSession(UUID id, String tenant, Instant expiresAt) {}

    @SqlQuery("""
            INSERT INTO tenants (key, name, metadata, theme)
            VALUES (:key, :name, CAST(:metadata AS jsonb), CAST(:theme AS jsonb))
            ON CONFLICT (key) DO NOTHING
            RETURNING key, name, metadata::text, theme::text, enabled, created_at, updated_at""")
    Optional<Tenant> insert(
            @Bind("key") String key,
            @Bind("name") String name,
            @Bind("metadata") String metadata,
            @Bind("theme") String theme);

    @SqlQuery("""
            UPDATE tenants SET name = coalesce(:name, name),
                               metadata = coalesce(CAST(:metadata AS jsonb), metadata),
                               theme = coalesce(CAST(:theme AS jsonb), theme), updated_at = now()
             WHERE key = :key
            RETURNING key, name, metadata::text, theme::text, enabled, created_at, updated_at""")
    Optional<Tenant> update(
            @Bind("key") String key,
            @Bind("name") String name,
            @Bind("metadata") String metadata,
            @Bind("theme") String theme);

    @SqlQuery(
            "SELECT key, name, metadata::text, theme::text, enabled, created_at, updated_at FROM tenants WHERE key = :key")
    Optional<Tenant> find(@Bind("key") String key);

    @SqlQuery(
            "SELECT key, name, metadata::text, theme::text, enabled, created_at, updated_at FROM tenants ORDER BY key")
    List<Tenant> list();

    /** Call in one transaction with {@link #disableEndpoints} or {@link #enableEndpoints}. */
    @SqlUpdate("UPDATE tenants SET enabled = :enabled, updated_at = now() WHERE key = :key AND enabled <> :enabled")
    boolean setEnabled(@Bind("key") String key, @Bind("enabled") boolean enabled);

    default void disableEndpoints(String tenant) {
        getHandle()
                .createUpdate("""
                        UPDATE endpoints SET enabled = false, disabled_reason = :reason, updated_at = now()
                         WHERE tenant = :tenant AND enabled""")
                .bind("tenant", tenant)
                .bind("reason", DISABLED_REASON)
                .execute();
        getHandle()
                .createUpdate(
                        "UPDATE portal_sessions SET revoked_at = now() WHERE tenant = :tenant AND revoked_at IS NULL")
                .bind("tenant", tenant)
                .execute();
    }

    /** The endpoints the tenant's disabling turned off, enabled again; their ids, to resume what they paused. */
    @SqlQuery("""
            UPDATE endpoints SET enabled = true, disabled_reason = NULL, updated_at = now()
             WHERE tenant = :tenant AND NOT enabled AND disabled_reason = :reason
            RETURNING id""")
    List<UUID> enableEndpoints(@Bind("tenant") String tenant, @Bind("reason") String reason);

    @SqlQuery("""
            INSERT INTO portal_sessions (tenant, created_by, expires_at) VALUES (:tenant, :createdBy, :expiresAt)
            RETURNING id""")
    UUID openSession(
            @Bind("tenant") String tenant, @Bind("createdBy") String createdBy, @Bind("expiresAt") Instant expiresAt);

    /** The session, if it is still open and its tenant enabled. */
    @SqlQuery("""
            SELECT s.id, s.tenant, s.expires_at
              FROM portal_sessions s JOIN tenants t ON t.key = s.tenant
             WHERE s.id = :id AND s.revoked_at IS NULL AND s.expires_at > now() AND t.enabled""")
    @RegisterConstructorMapper(PortalSession.class)
    Optional<PortalSession> openSession(@Bind("id") UUID id);

    /** Revokes one of the tenant's links, or all of them when {@code sessionId} is null; how many. */
    @SqlUpdate("""
            UPDATE portal_sessions SET revoked_at = now()
             WHERE tenant = :tenant AND revoked_at IS NULL AND (CAST(:id AS uuid) IS NULL OR id = :id)""")
    int revoke(@Bind("tenant") String tenant, @Bind("id") UUID sessionId);
}
