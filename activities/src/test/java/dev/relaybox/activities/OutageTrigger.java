package dev.relaybox.activities;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Puts a workflow on one exact path when the database goes away: Relaybox's real activities, wrapped so that the
 * chosen call, when a workflow makes it, first takes the database away and then goes on to it (and hangs, or fails,
 * as that outage makes it). Nothing else about the call changes; later attempts of it are counted, so that a test
 * can keep the database away through as many of them as it wants.
 */
public final class OutageTrigger {
    private final Runnable outage;
    private final AtomicInteger attemptsSinceOutage = new AtomicInteger();
    private volatile Armed armed;
    private volatile boolean fired;

    private record Armed(Class<?> activities, String method, Predicate<Object[]> arguments, AtomicInteger toGo) {}

    public OutageTrigger(Runnable outage) {
        this.outage = outage;
    }

    /** Takes the database away at the {@code nth} call of {@code method} whose arguments match. */
    public void at(Class<?> activities, String method, int nth, Predicate<Object[]> arguments) {
        armed = new Armed(activities, method, arguments, new AtomicInteger(nth));
    }

    public void at(Class<?> activities, String method, int nth) {
        at(activities, method, nth, arguments -> true);
    }

    public boolean fired() {
        return fired;
    }

    /** Attempts of the chosen call since the outage began, the one that began it included. */
    public int attemptsSinceOutage() {
        return attemptsSinceOutage.get();
    }

    public <T> T wrap(Class<T> activities, T target) {
        Object proxy = Proxy.newProxyInstance(
                activities.getClassLoader(), new Class<?>[] {activities}, (self, method, arguments) -> {
                    Object[] args = arguments == null ? new Object[0] : arguments;
                    Armed chosen = armed;
                    if (chosen != null
                            && chosen.activities == activities
                            && chosen.method.equals(method.getName())
                            && chosen.arguments.test(args)) {
                        synchronized (this) {
                            if (!fired && chosen.toGo.decrementAndGet() <= 0) {
                                outage.run();
                                fired = true;
                            }
                            if (fired) {
                                attemptsSinceOutage.incrementAndGet();
                            }
                        }
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        return activities.cast(proxy);
    }
}
