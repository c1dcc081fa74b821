package dev.relaybox.store;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/** Applies the versioned schema in {@code db/migration}; safe to run on every start and from several instances. */
public final class Migrations {
    private Migrations() {}

    public static MigrateResult migrate(DataSource dataSource) {
        return Flyway.configure()
                .dataSource(withoutSocketTimeout(dataSource))
                .locations("classpath:db/migration")
                .load()
                .migrate();
    }

    /**
     * {@code dataSource}'s connections without the driver's socket timeout while they are held, restored when they
     * are closed (back to the pool). The pool's timeout bounds the statements Relaybox runs while it serves, so that
     * a frozen server fails a call instead of hanging it; a migration (an index built on a large table) may rightly
     * take far longer.
     */
    static DataSource withoutSocketTimeout(DataSource dataSource) {
        return (DataSource) Proxy.newProxyInstance(
                Migrations.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(dataSource, method, args);
                    return method.getName().equals("getConnection") ? untimed((Connection) result) : result;
                });
    }

    private static Connection untimed(Connection connection) throws SQLException {
        int timeout = connection.getNetworkTimeout();
        connection.setNetworkTimeout(Runnable::run, 0);
        return (Connection) Proxy.newProxyInstance(
                Migrations.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close") && !connection.isClosed()) {
                        connection.setNetworkTimeout(Runnable::run, timeout);
                    }
                    return invoke(connection, method, args);
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
