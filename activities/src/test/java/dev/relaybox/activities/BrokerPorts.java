package dev.relaybox.activities;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What the broker fixtures share: a free loopback port to tell a broker process, and waiting until the process takes
 * connections on it. (Plain code, no test library: the benchmark starts brokers with these fixtures too.)
 */
final class BrokerPorts {
    private static final Duration STARTUP = Duration.ofSeconds(90);

    private BrokerPorts() {}

    static int free() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Returns once {@code process} takes connections on {@code port}; fails when it exits or takes too long. */
    static void awaitListening(Process process, int port, String name, Path log) throws IOException {
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (!takesConnections(port)) {
            if (!process.isAlive()) {
                throw new IOException(name + " exited with " + process.exitValue() + "; see " + log);
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(name + " did not take connections within " + STARTUP + "; see " + log);
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
    }

    private static boolean takesConnections(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
