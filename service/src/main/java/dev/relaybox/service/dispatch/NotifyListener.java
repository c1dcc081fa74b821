package dev.relaybox.service.dispatch;

import io.dropwizard.lifecycle.Managed;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one connection that LISTENs on {@code relaybox_dispatch} (NOTIFYed by triggers on every insert,
 * whoever inserts) and wakes the dispatcher. If the connection drops it reconnects; meanwhile the
 * dispatcher's polling keeps work moving.
 */
public final class NotifyListener implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(NotifyListener.class);
    private static final String CHANNEL = "relaybox_dispatch";

    private final String url;
    private final Properties credentials = new Properties();
    private final Runnable onNotify;
    private volatile boolean running;
    private Thread thread;

    public NotifyListener(String url, String user, String password, Runnable onNotify) {
        this.url = url;
        if (user != null) {
            credentials.setProperty("user", user);
        }
        if (password != null) {
            credentials.setProperty("password", password);
        }
        this.onNotify = onNotify;
    }

    @Override
    public void start() {
        running = true;
        thread = new Thread(this::listen, "relaybox-notify-listener");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(5_000);
    }

    private void listen() {
        while (running) {
            try (Connection connection = DriverManager.getConnection(url, credentials)) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("LISTEN " + CHANNEL);
                }
                PGConnection pg = connection.unwrap(PGConnection.class);
                while (running) {
                    PGNotification[] notifications = pg.getNotifications(1_000);
                    if (notifications != null && notifications.length > 0) {
                        onNotify.run();
                    }
                }
            } catch (SQLException e) {
                if (running) {
                    LOG.warn("LISTEN connection lost ({}); polling only until it is back", e.getMessage());
                    try {
                        Thread.sleep(2_000);
                    } catch (InterruptedException interrupted) {
                        return;
                    }
                }
            }
        }
    }
}
