package dev.relaybox.activities.outbound;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.GetGeneratedKeys;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

@RegisterConstructorMapper(Endpoint.class)
public interface EndpointDao {

    @SqlUpdate("""
            INSERT INTO endpoints (name, url, secret, event_types)
            VALUES (:name, :url, :secret, :eventTypes)
            ON CONFLICT (name) DO NOTHING""")
    @GetGeneratedKeys
    Optional<Endpoint> insert(@Bind("name") String name, @Bind("url") String url, @Bind("secret") String secret,
            @Bind("eventTypes") List<String> eventTypes);

    /** Makes a configured endpoint match its configuration; a disabled one stays disabled. */
    @SqlUpdate("""
            INSERT INTO endpoints (name, url, secret, event_types)
            VALUES (:name, :url, :secret, :eventTypes)
            ON CONFLICT (name) DO UPDATE SET
                url = excluded.url,
                event_types = excluded.event_types,
                previous_secret = CASE WHEN endpoints.secret <> excluded.secret THEN endpoints.secret ELSE endpoints.previous_secret END,
                previous_secret_expires_at = CASE WHEN endpoints.secret <> excluded.secret THEN :previousSecretExpiresAt
                                                  ELSE endpoints.previous_secret_expires_at END,
                secret = excluded.secret,
                updated_at = now()""")
    void upsert(@Bind("name") String name, @Bind("url") String url, @Bind("secret") String secret,
            @Bind("eventTypes") List<String> eventTypes, @Bind("previousSecretExpiresAt") Instant previousSecretExpiresAt);

    @SqlQuery("SELECT * FROM endpoints WHERE id = :id")
    Optional<Endpoint> find(@Bind("id") UUID id);

    @SqlQuery("SELECT * FROM endpoints ORDER BY name")
    List<Endpoint> list();

    @SqlUpdate("""
            UPDATE endpoints SET url = :url, event_types = :eventTypes, updated_at = now()
            WHERE id = :id""")
    boolean update(@Bind("id") UUID id, @Bind("url") String url, @Bind("eventTypes") List<String> eventTypes);

    @SqlUpdate("""
            UPDATE endpoints SET enabled = :enabled, disabled_reason = :reason, updated_at = now()
            WHERE id = :id""")
    boolean setEnabled(@Bind("id") UUID id, @Bind("enabled") boolean enabled, @Bind("reason") String reason);

    /** The new secret signs from now on; the old one keeps signing beside it until {@code graceUntil}. */
    @SqlUpdate("""
            UPDATE endpoints SET previous_secret = secret, previous_secret_expires_at = :graceUntil,
                                 secret = :secret, updated_at = now()
            WHERE id = :id""")
    boolean rotateSecret(@Bind("id") UUID id, @Bind("secret") String secret, @Bind("graceUntil") Instant graceUntil);
}
