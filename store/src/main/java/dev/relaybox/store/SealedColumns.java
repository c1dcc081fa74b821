package dev.relaybox.store;

import java.sql.Types;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.argument.Argument;
import org.jdbi.v3.core.argument.QualifiedArgumentFactory;
import org.jdbi.v3.core.config.JdbiConfig;
import org.jdbi.v3.core.qualifier.QualifiedType;

/**
 * The key that {@link Sealed} columns are sealed with, as JDBI configuration: statements seal what they bind and open
 * what they map with the box installed here. Without one, a sealed column is refused with what to set.
 */
public final class SealedColumns implements JdbiConfig<SealedColumns> {
    private static final QualifiedType<String> SEALED =
            QualifiedType.of(String.class).with(Sealed.class);

    private SecretBox box;

    public SealedColumns() {}

    private SealedColumns(SealedColumns other) {
        this.box = other.box;
    }

    /** Seals and opens {@link Sealed} values of {@code jdbi}'s statements with {@code box}. */
    static void install(Jdbi jdbi, SecretBox box) {
        jdbi.getConfig(SealedColumns.class).box = box;
        jdbi.registerArgument((QualifiedArgumentFactory) (type, value, config) -> {
            if (!SEALED.equals(type)) {
                return Optional.empty();
            }
            String sealed =
                    value == null ? null : config.get(SealedColumns.class).box().seal((String) value);
            return Optional.of((Argument) (position, statement, context) -> {
                if (sealed == null) {
                    statement.setNull(position, Types.VARCHAR);
                } else {
                    statement.setString(position, sealed);
                }
            });
        });
        jdbi.registerColumnMapper(SEALED, (rs, column, context) -> {
            String stored = rs.getString(column);
            return stored == null
                    ? null
                    : context.getConfig(SealedColumns.class).box().open(stored);
        });
    }

    public SecretBox box() {
        if (box == null) {
            throw new IllegalStateException("endpoint signing secrets are sealed at rest and this process has no key: "
                    + "set RELAYBOX_SECRETS_KEY");
        }
        return box;
    }

    @Override
    public SealedColumns createCopy() {
        return new SealedColumns(this);
    }
}
