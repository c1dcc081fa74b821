package dev.relaybox.activities;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Hands out connections to a database that can be swapped between test cases, and that can go away for a while
 * the way a restarting server does: connection attempts are refused, then work again.
 */
public final class TestDataSource implements DataSource {
    private volatile DataSource target;
    private int serveBeforeOutage;
    private int refuseDuringOutage;
    private int refused;

    public TestDataSource(DataSource target) {
        this.target = target;
    }

    public void switchTo(DataSource target) {
        this.target = target;
    }

    /** Serves the next {@code served} connections, refuses the {@code refusedThen} after them, then serves again. */
    public synchronized void outage(int served, int refusedThen) {
        serveBeforeOutage = served;
        refuseDuringOutage = refusedThen;
    }

    public synchronized int refused() {
        return refused;
    }

    private synchronized void refuseIfDown() throws SQLException {
        if (serveBeforeOutage > 0) {
            serveBeforeOutage--;
        } else if (refuseDuringOutage > 0) {
            refuseDuringOutage--;
            refused++;
            throw new SQLException("Connection refused: the database is restarting", "08001");
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        refuseIfDown();
        return target.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        refuseIfDown();
        return target.getConnection(username, password);
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return target.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return target.isWrapperFor(type);
    }
}
