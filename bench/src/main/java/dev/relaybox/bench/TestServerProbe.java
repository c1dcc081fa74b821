package dev.relaybox.bench;

import io.dropwizard.lifecycle.JettyManaged;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.Lock;
import org.eclipse.jetty.util.component.LifeCycle;

/**
 * Looks inside the embedded temporal-test-server (by reflection; diagnostics only): how many executions it holds,
 * and how long its time-skipping lock's event list has grown. That list ({@code SelfAdvancingTimerImpl.lockEvents},
 * a {@link LinkedList} "for debugging purposes only") gains entries that are never removed, and every timer-lock
 * release searches it from the head while holding the timer's global lock.
 */
final class TestServerProbe {
    private final Object timer;
    private final Field lockEvents;
    private final Map<?, ?> histories;

    private TestServerProbe(Object timer, Field lockEvents, Map<?, ?> histories) {
        this.timer = timer;
        this.lockEvents = lockEvents;
        this.histories = histories;
    }

    static Optional<TestServerProbe> find(Relaybox relaybox) {
        try {
            for (LifeCycle managed :
                    relaybox.support.getEnvironment().lifecycle().getManagedObjects()) {
                if (managed instanceof JettyManaged jetty
                        && jetty.getManaged().getClass().getSimpleName().equals("TemporalRuntime")) {
                    Object server = read(jetty.getManaged(), "embeddedServer");
                    if (server == null) {
                        return Optional.empty();
                    }
                    Object store = findField(server, "histories");
                    Object timer = findField(server, "lockEvents");
                    if (store == null || timer == null) {
                        return Optional.empty();
                    }
                    Field events = timer.getClass().getDeclaredField("lockEvents");
                    events.setAccessible(true);
                    return Optional.of(new TestServerProbe(timer, events, (Map<?, ?>) read(store, "histories")));
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            System.out.println("  (cannot look inside the embedded Temporal server: " + e + ")");
        }
        return Optional.empty();
    }

    int executions() {
        return histories.size();
    }

    int lockEvents() {
        try {
            return ((Collection<?>) lockEvents.get(timer)).size();
        } catch (IllegalAccessException e) {
            return -1;
        }
    }

    /**
     * Replaces the list with one that drops UNLOCK entries and removes LOCK entries in constant time. Only for the
     * --patch-test-server comparison: it shows what the list costs, it is not how Relaybox runs.
     */
    void patch() throws ReflectiveOperationException {
        Class<?> eventClass = Class.forName("io.temporal.internal.testservice.SelfAdvancingTimerImpl$LockEvent");
        Field type = eventClass.getDeclaredField("lockType");
        type.setAccessible(true);
        Object timerLock = read(timer, "lock");
        ((Lock) timerLock).lock();
        try {
            IndexedEvents replacement = new IndexedEvents(type);
            for (Object event : (Collection<?>) lockEvents.get(timer)) {
                replacement.add(event);
            }
            lockEvents.set(timer, replacement);
        } finally {
            ((Lock) timerLock).unlock();
        }
    }

    /** The same contract as the server's list for add / remove(Object) / iteration, in O(1). */
    static final class IndexedEvents extends LinkedList<Object> {
        private final transient Set<Object> live = Collections.newSetFromMap(new IdentityHashMap<>());
        private final transient Field type;

        IndexedEvents(Field type) {
            this.type = type;
        }

        @Override
        public boolean add(Object event) {
            try {
                if ("U".equals(String.valueOf(type.get(event)))) {
                    return true;
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            return live.add(event);
        }

        @Override
        public boolean remove(Object event) {
            return live.remove(event);
        }

        @Override
        public int size() {
            return live.size();
        }

        @Override
        public Iterator<Object> iterator() {
            return live.iterator();
        }
    }

    private static Object read(Object target, String name) throws ReflectiveOperationException {
        for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(target);
            } catch (NoSuchFieldException next) {
                // keep looking in the superclass
            }
        }
        throw new NoSuchFieldException(name);
    }

    /** The first object, breadth first through io.temporal objects, that declares a field with this name. */
    private static Object findField(Object root, String name) throws IllegalAccessException {
        Deque<Object> queue = new ArrayDeque<>();
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        queue.add(root);
        while (!queue.isEmpty()) {
            Object current = queue.poll();
            if (!seen.add(current)) {
                continue;
            }
            for (Class<?> c = current.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) {
                        continue;
                    }
                    if (f.getName().equals(name)) {
                        return current;
                    }
                    f.setAccessible(true);
                    Object value = f.get(current);
                    if (value != null && value.getClass().getName().startsWith("io.temporal.")) {
                        queue.add(value);
                    }
                }
            }
        }
        return null;
    }
}
