package dev.relaybox.store;

import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.jdbi.v3.sqlobject.SqlObject;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * The endpoints' secrets at rest (the signing secrets, the static request headers and the broker destinations): which are not sealed under the
 * current key, and re-sealing them. They are written and read by {@link EndpointStore} and {@link
 * EndpointHeadersStore}, sealed on the way in.
 */
public interface EndpointSecretsStore extends SqlObject {
    /** An endpoint's secrets as stored: sealed, or plaintext when written before secrets were sealed. */
    record StoredSecrets(UUID id, String secret, String previousSecret, String headers, String destination) {}

    @SqlQuery("SELECT id, secret, previous_secret, headers, destination FROM endpoints ORDER BY id")
    @RegisterConstructorMapper(StoredSecrets.class)
    List<StoredSecrets> storedSecrets();

    /** Replaces stored secrets unless the row changed since they were read (a rotation meanwhile is kept). */
    @SqlUpdate("""
            UPDATE endpoints SET secret = :secret, previous_secret = :previousSecret, headers = :headers,
                   destination = :destination
             WHERE id = :id AND secret = :was AND previous_secret IS NOT DISTINCT FROM :previousWas
               AND headers IS NOT DISTINCT FROM :headersWere AND destination IS NOT DISTINCT FROM :destinationWas""")
    boolean replaceStoredSecrets(
            @Bind("id") UUID id,
            @Bind("was") String was,
            @Bind("previousWas") String previousWas,
            @Bind("headersWere") String headersWere,
            @Bind("destinationWas") String destinationWas,
            @Bind("secret") String secret,
            @Bind("previousSecret") String previousSecret,
            @Bind("headers") String headers,
            @Bind("destination") String destination);

    /**
     * Seals every stored secret that is plaintext or, unless {@code plaintextOnly}, sealed under another key than the
     * current one; answers how many endpoints were re-sealed. Safe beside running instances: a row rotated
     * meanwhile is left as its writer sealed it.
     */
    default int resealSecrets(boolean plaintextOnly) {
        SecretBox box = getHandle().getConfig(SealedColumns.class).box();
        int resealed = 0;
        for (StoredSecrets stored : storedSecrets()) {
            String secret = resealed(box, stored.secret(), plaintextOnly);
            String previous = resealed(box, stored.previousSecret(), plaintextOnly);
            String headers = resealed(box, stored.headers(), plaintextOnly);
            String destination = resealed(box, stored.destination(), plaintextOnly);
            if (secret.equals(stored.secret())
                    && Objects.equals(previous, stored.previousSecret())
                    && Objects.equals(headers, stored.headers())
                    && Objects.equals(destination, stored.destination())) {
                continue;
            }
            if (replaceStoredSecrets(
                    stored.id(),
                    stored.secret(),
                    stored.previousSecret(),
                    stored.headers(),
                    stored.destination(),
                    secret,
                    previous,
                    headers,
                    destination)) {
                resealed++;
            }
        }
        return resealed;
    }

    /** How many endpoints have a secret that is plaintext or sealed under another key than the current one. */
    default long secretsNotUnderTheCurrentKey() {
        SecretBox box = getHandle().getConfig(SealedColumns.class).box();
        return storedSecrets().stream()
                .filter(s -> !box.sealedWithCurrentKey(s.secret())
                        || (s.previousSecret() != null && !box.sealedWithCurrentKey(s.previousSecret()))
                        || (s.headers() != null && !box.sealedWithCurrentKey(s.headers()))
                        || (s.destination() != null && !box.sealedWithCurrentKey(s.destination())))
                .count();
    }

    private static String resealed(SecretBox box, String stored, boolean plaintextOnly) {
        if (stored == null || box.sealedWithCurrentKey(stored)) {
            return stored;
        }
        if (SecretBox.isSealed(stored)) {
            return plaintextOnly ? stored : box.seal(box.open(stored));
        }
        return box.seal(stored);
    }
}
