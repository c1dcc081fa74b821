package dev.relaybox.activities.workers;

import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.inbound.InboundRoutes;
import dev.relaybox.activities.inbound.InboxActivitiesImpl;
import dev.relaybox.activities.outbound.CircuitSettings;
import dev.relaybox.activities.outbound.DeliveryActivitiesImpl;
import dev.relaybox.activities.outbound.DeliverySettings;
import dev.relaybox.activities.outbound.EndpointControlActivitiesImpl;
import dev.relaybox.activities.outbound.HostResolver;
import dev.relaybox.activities.statemachine.StateMachine;
import dev.relaybox.store.InboxSettings;
import dev.relaybox.workflows.inbound.InboxActivities;
import dev.relaybox.workflows.inbound.InboxEventWorkflowImpl;
import dev.relaybox.workflows.outbound.DeliveryActivities;
import dev.relaybox.workflows.outbound.EndpointControlActivities;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflowImpl;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.worker.Worker;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;

/**
 * Relaybox's workflows and the activities they call, on the task queues a worker serves: the workflow queue; its HTTP
 * queue where attempts run in their own slots (so slow receivers cannot take the slots the database calls need); and
 * the worker's own HTTP queue, where it waits for the first attempts it handed over. The application and every test
 * build the activities with {@link #build} and wire their workers here.
 */
public record RelayboxWorkers(DeliveryActivities delivery, EndpointControlActivities controls, InboxActivities inbox) {
    /** What the activities are built from: the application's come from its configuration, a test's from defaults. */
    public record Settings(
            DeliverySettings delivery,
            CircuitSettings circuit,
            InboxSettings inbox,
            Map<String, StateMachine> machines,
            InboundRoutes routes,
            HostResolver resolver) {
        public static Settings defaults() {
            return new Settings(
                    DeliverySettings.defaults(),
                    CircuitSettings.defaults(),
                    InboxSettings.defaults(),
                    Map.of(),
                    InboundRoutes.none(),
                    HostResolver.SYSTEM);
        }

        public Settings withDelivery(DeliverySettings delivery) {
            return new Settings(delivery, circuit, inbox, machines, routes, resolver);
        }

        public Settings withCircuit(CircuitSettings circuit) {
            return new Settings(delivery, circuit, inbox, machines, routes, resolver);
        }

        public Settings withInbox(InboxSettings inbox) {
            return new Settings(delivery, circuit, inbox, machines, routes, resolver);
        }

        public Settings withMachines(Map<String, StateMachine> machines) {
            return new Settings(delivery, circuit, inbox, machines, routes, resolver);
        }

        public Settings withRoutes(InboundRoutes routes) {
            return new Settings(delivery, circuit, inbox, machines, routes, resolver);
        }

        public Settings withResolver(HostResolver resolver) {
            return new Settings(delivery, circuit, inbox, machines, routes, resolver);
        }
    }

    /**
     * Every activity over one database: the endpoint controls, the delivery activities that settle each attempt
     * through them, and the inbox activities.
     */
    public static RelayboxWorkers build(Jdbi jdbi, Settings settings, DeadLetters deadLetters, MeterRegistry metrics) {
        EndpointControlActivitiesImpl controls = new EndpointControlActivitiesImpl(jdbi, settings.circuit(), metrics);
        return new RelayboxWorkers(
                new DeliveryActivitiesImpl(
                        jdbi, settings.delivery(), deadLetters, metrics, settings.resolver(), controls),
                controls,
                new InboxActivitiesImpl(
                        jdbi, settings.machines(), settings.routes(), settings.inbox(), deadLetters, metrics));
    }

    /** These activities with {@code delivery} in place of their own: a test that wraps them to fault their calls. */
    public RelayboxWorkers withDelivery(DeliveryActivities delivery) {
        return new RelayboxWorkers(delivery, controls, inbox);
    }

    /** {@code ownHttpWorker}: on a queue unique to this process ({@link OutboxDeliveryWorkflow#ownHttpTaskQueue}). */
    public void registerOn(Worker worker, Worker httpWorker, Worker ownHttpWorker) {
        worker.registerWorkflowImplementationTypes(OutboxDeliveryWorkflowImpl.class, InboxEventWorkflowImpl.class);
        worker.registerActivitiesImplementations(delivery, controls, inbox);
        httpWorker.registerActivitiesImplementations(delivery);
        ownHttpWorker.registerActivitiesImplementations(delivery);
        // Not when wrapped (tests that fault its calls): then a first attempt holds its workflow task throughout.
        if (delivery instanceof DeliveryActivitiesImpl impl) {
            impl.takeHandedOverAttemptsOn(ownHttpWorker.getTaskQueue());
        }
    }
}
