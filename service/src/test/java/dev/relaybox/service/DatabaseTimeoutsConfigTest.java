package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.codahale.metrics.MetricRegistry;
import dev.relaybox.store.StoppablePostgres;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.db.ManagedDataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped configuration bounds every database call: a frozen server fails a statement within the socket timeout,
 * under the 30 seconds a workflow's database call (a local activity) may take, so it is waited out as a database
 * error; and an operator can change it from the environment.
 */
class DatabaseTimeoutsConfigTest {

    @Test
    void aFrozenDatabaseFailsACallBeforeAWorkflowsDatabaseCallTimesOut() throws Exception {
        Map<String, String> properties =
                ShippedConfig.read(Map.of()).getDatabase().getProperties();

        assertThat(Integer.parseInt(properties.get("socketTimeout"))).isBetween(1, 29);
        assertThat(Integer.parseInt(properties.get("connectTimeout"))).isPositive();
        assertThat(Integer.parseInt(properties.get("loginTimeout"))).isPositive();
    }

    @Test
    void theSocketTimeoutComesFromItsVariable() throws Exception {
        assertThat(ShippedConfig.read(Map.of("DATABASE_SOCKET_TIMEOUT", "12"))
                        .getDatabase()
                        .getProperties())
                .containsEntry("socketTimeout", "12");
    }

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void theShippedPoolFailsACallToAFrozenServerInsteadOfHangingIt(@TempDir Path data) throws Exception {
        try (StoppablePostgres postgres = StoppablePostgres.start(data)) {
            // One second instead of the shipped 25: the property reaches the driver through the pool either way.
            DataSourceFactory database =
                    ShippedConfig.read(Map.of("DATABASE_SOCKET_TIMEOUT", "1")).getDatabase();
            database.setUrl(postgres.jdbcUrl());
            ManagedDataSource pool = database.build(new MetricRegistry(), "frozen");
            try (Connection connection = pool.getConnection();
                    Statement statement = connection.createStatement()) {
                postgres.pause();
                assertThatThrownBy(() -> statement.execute("SELECT 1")).isInstanceOf(SQLException.class);
                postgres.resume();
            } finally {
                postgres.resume();
                pool.stop();
            }
        }
    }
}
