package dev.relaybox.activities.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;

/** Reading the column types Relaybox's hand-written row mappers share. */
public final class Columns {
    private Columns() {}

    /** A {@code timestamptz} column as an instant; null when the column is. */
    public static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
