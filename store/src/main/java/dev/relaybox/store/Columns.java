package dev.relaybox.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;

/** Reading the column types Relaybox's hand-written row mappers share. */
public final class Columns {
    /**
     * The trace id in a row's W3C {@code traceparent} ({@code 00-<trace id>-<span id>-<flags>}) as {@code trace_id};
     * null without one. Spaces on both sides: it joins two text blocks, whose indentation is stripped.
     */
    public static final String TRACE_ID = " nullif(split_part(traceparent, '-', 2), '') AS trace_id ";

    private Columns() {}

    /** A {@code timestamptz} column as an instant; null when the column is. */
    public static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
