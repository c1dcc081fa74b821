package dev.relaybox.bench;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The engine's ceilings, on their own task queue and worker (with Relaybox's slot counts), against the same Temporal
 * server Relaybox uses: a no-op workflow that runs one no-op activity, and the floor of "one workflow per event", a
 * no-op workflow that runs one no-op local activity, started eagerly by the process that runs its worker.
 */
final class BareTemporal implements AutoCloseable {
    static final String TASK_QUEUE = "relaybox-bench-bare";

    @WorkflowInterface
    public interface BareWorkflow {
        @WorkflowMethod
        void run(String id);
    }

    @WorkflowInterface
    public interface BareLocalWorkflow {
        @WorkflowMethod
        void run(String id);
    }

    @ActivityInterface
    public interface BareActivity {
        void touch(String id);
    }

    public static final class BareWorkflowImpl implements BareWorkflow {
        private final BareActivity activity = Workflow.newActivityStub(
                BareActivity.class,
                ActivityOptions.newBuilder()
                        .setStartToCloseTimeout(Duration.ofSeconds(60))
                        .build());

        @Override
        public void run(String id) {
            activity.touch(id);
        }
    }

    public static final class BareLocalWorkflowImpl implements BareLocalWorkflow {
        private final BareActivity activity = Workflow.newLocalActivityStub(
                BareActivity.class,
                LocalActivityOptions.newBuilder()
                        .setStartToCloseTimeout(Duration.ofSeconds(60))
                        .build());

        @Override
        public void run(String id) {
            activity.touch(id);
        }
    }

    /** When each id's activity ran: the bare equivalent of the receiver's arrival time. */
    static final Map<String, Long> TOUCHED = new ConcurrentHashMap<>();

    static final class BareActivityImpl implements BareActivity {
        @Override
        public void touch(String id) {
            TOUCHED.putIfAbsent(id, System.nanoTime());
        }
    }

    final WorkflowClient client;
    private final WorkerFactory factory;

    BareTemporal(Relaybox relaybox) {
        client = WorkflowClient.newInstance(
                relaybox.temporalStubs(),
                WorkflowClientOptions.newBuilder()
                        .setNamespace(relaybox.namespace())
                        .build());
        factory = WorkerFactory.newInstance(client);
        Worker worker = factory.newWorker(
                TASK_QUEUE,
                WorkerOptions.newBuilder()
                        .setMaxConcurrentActivityExecutionSize(
                                relaybox.config().getTemporal().getMaxConcurrentActivities())
                        .setMaxConcurrentWorkflowTaskExecutionSize(
                                relaybox.config().getTemporal().getMaxConcurrentWorkflowTasks())
                        .setMaxConcurrentLocalActivityExecutionSize(
                                relaybox.config().getTemporal().getMaxConcurrentLocalActivities())
                        .build());
        worker.registerWorkflowImplementationTypes(BareWorkflowImpl.class, BareLocalWorkflowImpl.class);
        worker.registerActivitiesImplementations(new BareActivityImpl());
        factory.start();
    }

    /** Starts one workflow; returns once the server accepted the start. */
    void start(String id) {
        BareWorkflow stub = client.newWorkflowStub(
                BareWorkflow.class,
                WorkflowOptions.newBuilder()
                        .setTaskQueue(TASK_QUEUE)
                        .setWorkflowId(id)
                        .build());
        WorkflowClient.start(stub::run, id);
    }

    /** Starts one local-activity workflow eagerly; returns once the server accepted the start. */
    void startLocal(String id) {
        BareLocalWorkflow stub = client.newWorkflowStub(
                BareLocalWorkflow.class,
                WorkflowOptions.newBuilder()
                        .setTaskQueue(TASK_QUEUE)
                        .setWorkflowId(id)
                        .setDisableEagerExecution(false)
                        .build());
        WorkflowClient.start(stub::run, id);
    }

    @Override
    public void close() throws InterruptedException {
        factory.shutdown();
        factory.awaitTermination(10, TimeUnit.SECONDS);
    }
}
