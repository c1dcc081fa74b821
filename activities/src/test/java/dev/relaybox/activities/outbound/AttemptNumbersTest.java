package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.store.DeliveryStore;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.outbound.DeliveryActivities;
import dev.relaybox.workflows.outbound.DeliveryPlan;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The attempt log numbers every request of a delivery once, whatever made it: an attempt made again because its
 * outcome never came back, and the first attempt of a resend, continue the count and say why. Real PostgreSQL, real
 * HTTP, the attempt activity called as its workflow would.
 */
class AttemptNumbersTest {
    final Jdbi jdbi = TestDatabase.fresh();
    final TestReceiver receiver = new TestReceiver();
    final TestActivityEnvironment activities = TestActivityEnvironment.newInstance();

    @AfterEach
    void stop() {
        activities.close();
        receiver.close();
    }

    @Test
    void aRepeatedAttemptAndAResendContinueTheCountAndSayWhy() {
        UUID delivery = oneDelivery();
        DeliveryActivities attempts = attemptActivity();

        receiver.script("/numbers", TestReceiver.Reply.of(503));
        attempts.attempt(delivery, 1);
        // The same attempt of the schedule again, as after a worker that recorded it died before answering.
        attempts.attempt(delivery, 1);
        receiver.script("/numbers", TestReceiver.Reply.of(200));
        attempts.attempt(delivery, 2);
        boolean resent = jdbi.withExtension(DeliveryStore.class, store -> store.resendDelivered(delivery));
        assertThat(resent).isTrue();
        attempts.attempt(delivery, 1);

        List<DeliveryStore.Attempt> log = jdbi.withExtension(DeliveryStore.class, store -> store.attempts(delivery));
        assertThat(log).extracting(DeliveryStore.Attempt::attempt).containsExactly(1, 2, 3, 4);
        assertThat(log).extracting(DeliveryStore.Attempt::statusCode).containsExactly(503, 503, 200, 200);
        assertThat(log.get(0).again()).isNull();
        assertThat(log.get(1).again()).startsWith("attempt 1 of its schedule made again: ");
        assertThat(log.get(2).again()).isNull();
        assertThat(log.get(3).again()).isEqualTo("a new schedule: the delivery was replayed or resent");
        assertThat(receiver.received("/numbers")).hasSize(4);
    }

    private UUID oneDelivery() {
        jdbi.useExtension(
                EndpointStore.class,
                store -> store.insert("numbers", receiver.url("/numbers"), WebhookSigner.newSecret(), List.of("*")));
        UUID outboxId = jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "1", "{}")));
        DeliveryPlan plan = jdbi.inTransaction(
                h -> new DeliveryPlanner(DeliverySettings.defaults().schedule()).plan(h, outboxId));
        return plan.targets().get(0).deliveryId();
    }

    private DeliveryActivities attemptActivity() {
        EndpointControlActivitiesImpl controls =
                new EndpointControlActivitiesImpl(jdbi, CircuitSettings.defaults(), new SimpleMeterRegistry());
        activities.registerActivitiesImplementations(new DeliveryActivitiesImpl(
                jdbi,
                DeliverySettings.defaults().withAllowedPrivateNetworks("127.0.0.0/8"),
                DeadLetters.loggingOnly(),
                new SimpleMeterRegistry(),
                HostResolver.SYSTEM,
                controls));
        return activities.newActivityStub(
                DeliveryActivities.class,
                ActivityOptions.newBuilder()
                        .setStartToCloseTimeout(Duration.ofSeconds(30))
                        .setRetryOptions(
                                RetryOptions.newBuilder().setMaximumAttempts(1).build())
                        .build());
    }
}
