package dev.relaybox.service.production;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.relaybox.activities.KafkaBroker;
import dev.relaybox.activities.RabbitBroker;
import dev.relaybox.activities.SqsServer;
import dev.relaybox.service.RealTemporal;
import dev.relaybox.service.ScratchDirectories;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * The crash drill for broker destinations: Relaybox from the jar, on the dev-server engine, publishing the same events
 * to a RabbitMQ exchange, a Kafka topic and an SQS queue (real brokers), killed with kill -9 while it publishes and
 * started again on the same data. Every event reaches every broker; a message published again after the kill carries
 * the same {@code webhook-id}, as at-least-once delivery allows.
 */
class BrokerCrashDrillIT {
    private static final int EVENTS = 60;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void killMinus9WhilePublishingThenRestartLosesNoMessageAtAnyBroker() throws Exception {
        Path scratch = ScratchDirectories.create("relaybox-it-brokers");
        Path rabbitHome = scratch.resolve("rabbitmq");
        Path kafkaHome = scratch.resolve("kafka");
        Files.createDirectories(rabbitHome);
        Files.createDirectories(kafkaHome);
        Map<String, String> environment = EmbeddedJar.environment(scratch.resolve("relaybox"));
        environment.put("TEMPORAL_CLI", RealTemporal.cli().toString());
        environment.put("TEMPORAL_EMBEDDED_ENGINE", "dev-server");
        String api = "http://127.0.0.1:" + environment.get("PORT");
        Jdbi db = Jdbi.create(
                "jdbc:postgresql://127.0.0.1:" + environment.get("EMBEDDED_POSTGRES_PORT") + "/postgres",
                "postgres",
                "");

        try (RabbitBroker rabbit = RabbitBroker.start(rabbitHome);
                KafkaBroker kafka = KafkaBroker.start(kafkaHome);
                SqsServer sqs = SqsServer.start()) {
            try (Connection connection = rabbit.connect();
                    Channel channel = connection.createChannel()) {
                channel.exchangeDeclare("drill", BuiltinExchangeType.DIRECT, true);
                channel.queueDeclare("drill", true, false, false, null);
                channel.queueBind("drill", "drill", "drill");
            }
            kafka.createTopic("drill", 3);
            String queue = sqs.createQueue("drill");
            Set<String> atRabbit = new HashSet<>();
            List<String> atSqs = new ArrayList<>();

            JavaProcess first = EmbeddedJar.start("brokers-first", environment);
            create(
                    api,
                    "drill-rabbitmq",
                    rabbit.uri(),
                    Map.of("type", "rabbitmq", "exchange", "drill", "routingKey", "drill"));
            create(api, "drill-kafka", kafka.url(), Map.of("type", "kafka", "topic", "drill"));
            create(
                    api,
                    "drill-sqs",
                    queue,
                    Map.of(
                            "type",
                            "sqs",
                            "region",
                            SqsServer.REGION,
                            "accessKeyId",
                            "test",
                            "secretAccessKey",
                            "test"));
            db.useHandle(h -> h.execute(
                    "INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload) SELECT 'drill', "
                            + "'d-' || i, 'drill.sent', jsonb_build_object('n', i) FROM generate_series(1, ?) i",
                    EVENTS));
            await("the first messages")
                    .atMost(Duration.ofMinutes(1))
                    .until(() -> kafka.records("drill").size() > 0);
            first.kill();
            int beforeTheKill = kafka.records("drill").size();

            try (JavaProcess second = EmbeddedJar.start("brokers-second", environment)) {
                // A message published just before the kill is at its broker before the run started again records it.
                await("every event at every broker, and recorded as delivered")
                        .atMost(Duration.ofMinutes(3))
                        .pollInterval(Duration.ofMillis(500))
                        .until(() -> {
                            rabbit.drain("drill").forEach(m -> atRabbit.add(RabbitBroker.header(m, "webhook-id")));
                            sqs.drain(queue).forEach(m -> atSqs.add(SqsServer.attribute(m, "webhook-id")));
                            return atRabbit.size() == EVENTS
                                    && new HashSet<>(atSqs).size() == EVENTS
                                    && kafkaIds(kafka).size() == EVENTS
                                    && count(db, "SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'")
                                            == 3 * EVENTS;
                        });
                assertThat(beforeTheKill).as("killed while it was publishing").isLessThan(EVENTS);
                Set<String> written =
                        new HashSet<>(db.withHandle(h -> h.createQuery("SELECT id::text FROM outbox_events")
                                .mapTo(String.class)
                                .list()));
                assertThat(atRabbit).isEqualTo(written);
                assertThat(new HashSet<>(atSqs)).isEqualTo(written);
                assertThat(kafkaIds(kafka)).isEqualTo(written);
                assertThat(count(db, "SELECT count(*) FROM dead_letters")).isZero();
            }
        }
    }

    private static int count(Jdbi db, String sql) {
        return db.withHandle(h -> h.createQuery(sql).mapTo(int.class).one());
    }

    private static Set<String> kafkaIds(KafkaBroker kafka) {
        Set<String> ids = new HashSet<>();
        kafka.records("drill").forEach(r -> ids.add(KafkaBroker.header(r, "webhook-id")));
        return ids;
    }

    private void create(String api, String name, String url, Map<String, String> destination) throws Exception {
        String json = new ObjectMapper()
                .writeValueAsString(
                        Map.of("name", name, "url", url, "eventTypes", List.of("drill.*"), "destination", destination));
        HttpResponse<String> answer = http.send(
                HttpRequest.newBuilder(URI.create(api + "/admin/endpoints"))
                        .header("content-type", "application/json")
                        .header("authorization", "Bearer dev-admin-token")
                        .POST(HttpRequest.BodyPublishers.ofString(json))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
    }
}
