package dev.relaybox.service.temporal;

import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The in-process Temporal server of embedded mode, listening on loopback only. It has no authentication,
 * so it must not be reachable from other hosts; the SDK's {@code TestServer.createPortBoundServer} binds
 * every interface, so this builds the same gRPC server with the same services on 127.0.0.1.
 */
public final class EmbeddedTemporalServer implements Closeable {
    private final TestServicesStarter services;
    private final Server server;
    private boolean closed;

    private EmbeddedTemporalServer(TestServicesStarter services, Server server) {
        this.services = services;
        this.server = server;
    }

    /** Starts on {@code port} of the loopback address, with time skipping locked (timers fire in real time). */
    public static EmbeddedTemporalServer start(int port) {
        TestServicesStarter services = new TestServicesStarter(true, 0);
        NettyServerBuilder builder = NettyServerBuilder.forAddress(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port), InsecureServerCredentials.create());
        GRPCServerHelper.registerServicesAndHealthChecks(services.getServices(), builder);
        try {
            return new EmbeddedTemporalServer(services, builder.build().start());
        } catch (IOException e) {
            services.close();
            throw new UncheckedIOException("cannot start the embedded Temporal server on 127.0.0.1:" + port, e);
        }
    }

    /** {@code 127.0.0.1:port}: the target clients use. */
    public String target() {
        return InetAddress.getLoopbackAddress().getHostAddress() + ":" + port();
    }

    public int port() {
        return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    }

    /** Idempotent: a recycle that failed after closing it closes it again when it retries. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        server.shutdown();
        try {
            server.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        services.close();
        server.shutdownNow();
    }
}
