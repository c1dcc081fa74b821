package dev.relaybox.service.config;

import java.util.regex.Pattern;

/** JDBC URLs as logs may show them: host, port and database, never credentials or connection parameters. */
public final class DatabaseUrls {
    // jdbc:postgresql://user:password@host:port/db?password=...&sslkey=...
    private static final Pattern USER_INFO = Pattern.compile("(?<=//)[^/@?#]*@");

    private DatabaseUrls() {}

    public static String redacted(String jdbcUrl) {
        if (jdbcUrl == null) {
            return null;
        }
        String withoutParameters = jdbcUrl.split("[?#;]", 2)[0];
        return USER_INFO.matcher(withoutParameters).replaceFirst("");
    }
}
