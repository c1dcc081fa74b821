package dev.relaybox.service;

import dev.relaybox.activities.TestEngine;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.outbound.CircuitSettings;
import dev.relaybox.activities.outbound.DeliverySettings;
import dev.relaybox.activities.statemachine.StateMachine;
import dev.relaybox.activities.statemachine.StateMachineConfig;
import dev.relaybox.activities.statemachine.TransitionConfig;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.store.InboxSettings;
import dev.relaybox.workflows.outbound.DeliverySchedule;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;

/**
 * Temporal's test environment, started, running Relaybox's workflows and activities on {@code queue} against the
 * given database: one retry delay ({@code backoff}, also the recheck interval of deferred events), no circuit
 * breaker (every delivery keeps to its schedule, none waits for probes), private addresses allowed for the local
 * receiver, and the order state machine of {@link #orderMachine}.
 */
public final class RelayboxTestEngine {
    private RelayboxTestEngine() {}

    public static TestWorkflowEnvironment start(Jdbi jdbi, String queue, Duration backoff, Duration maxDeferral) {
        return TestEngine.start(
                queue,
                RelayboxWorkers.build(
                        jdbi,
                        RelayboxWorkers.Settings.defaults()
                                .withDelivery(DeliverySettings.defaults()
                                        .withSchedule(new DeliverySchedule(List.of(backoff), 0, Duration.ofHours(1)))
                                        .withAllowedPrivateNetworks("127.0.0.0/8"))
                                .withCircuit(CircuitSettings.defaults().withFailureThreshold(0))
                                .withMachines(orderMachine())
                                .withInbox(new InboxSettings(backoff, maxDeferral)),
                        DeadLetters.loggingOnly(),
                        new SimpleMeterRegistry()));
    }

    /** {@code order}: created from nothing, then paid. */
    public static Map<String, StateMachine> orderMachine() {
        Map<String, TransitionConfig> transitions = new LinkedHashMap<>();
        transitions.put("order.created", new TransitionConfig(List.of("none"), "created", null));
        transitions.put("order.paid", new TransitionConfig(List.of("created"), "paid", null));
        return StateMachine.fromConfig(
                Map.of("order", new StateMachineConfig(List.of("created", "paid"), "created", transitions)));
    }
}
