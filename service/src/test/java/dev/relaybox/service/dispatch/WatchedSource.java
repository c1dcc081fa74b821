package dev.relaybox.service.dispatch;

import dev.relaybox.store.DeadLetterSource;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.jdbi.v3.core.Handle;

/** The real source, telling the test about every start before it is made. */
record WatchedSource(DispatchSource delegate, Consumer<DispatchSource.Row> onStart) implements DispatchSource {
    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public List<Row> claimUndispatched(Handle handle, int limit) {
        return delegate.claimUndispatched(handle, limit);
    }

    @Override
    public void markDispatched(Handle handle, List<UUID> ids) {
        delegate.markDispatched(handle, ids);
    }

    @Override
    public void markUndispatched(Handle handle, List<UUID> ids) {
        delegate.markUndispatched(handle, ids);
    }

    @Override
    public boolean quarantine(Handle handle, UUID id, String reason) {
        return delegate.quarantine(handle, id, reason);
    }

    @Override
    public DeadLetterSource deadLetterSource() {
        return delegate.deadLetterSource();
    }

    @Override
    public List<Row> claimStranded(Handle handle, Instant before, int limit) {
        return delegate.claimStranded(handle, before, limit);
    }

    @Override
    public Optional<Row> find(Handle handle, UUID id) {
        return delegate.find(handle, id);
    }

    @Override
    public List<Row> claimUnfinished(Handle handle, Instant before, int limit) {
        return delegate.claimUnfinished(handle, before, limit);
    }

    @Override
    public void start(Row row) {
        onStart.accept(row);
        delegate.start(row);
    }

    @Override
    public boolean restart(Row row) {
        onStart.accept(row);
        return delegate.restart(row);
    }
}
