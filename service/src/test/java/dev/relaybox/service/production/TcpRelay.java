package dev.relaybox.service.production;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder on 127.0.0.1: the fixed address Relaybox knows Temporal by, while the server process behind it
 * is replaced. While it has no target it closes every connection at once, as a dead server's port would.
 */
final class TcpRelay implements AutoCloseable {
    private final ServerSocket listener;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile int target;

    TcpRelay(int target) throws IOException {
        this.target = target;
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "tcp-relay");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Forwards new connections to {@code port}; 0 drops every connection, new or open. */
    void forwardTo(int port) {
        target = port;
        if (port == 0) {
            open.forEach(TcpRelay::closeQuietly);
        }
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                int port = target;
                if (port == 0) {
                    closeQuietly(client);
                    continue;
                }
                Socket server = new Socket();
                try {
                    server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
                } catch (IOException e) {
                    closeQuietly(client);
                    continue;
                }
                open.add(client);
                open.add(server);
                pipe(client, server);
                pipe(server, client);
            } catch (IOException e) {
                // Closed, or one connection failed: the next accept goes on.
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread thread = new Thread(
                () -> {
                    byte[] buffer = new byte[16 * 1024];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        int n;
                        while ((n = in.read(buffer)) >= 0) {
                            out.write(buffer, 0, n);
                            out.flush();
                        }
                    } catch (IOException e) {
                        // The other side went away.
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                        open.remove(from);
                        open.remove(to);
                    }
                },
                "tcp-relay-pipe");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Already closed.
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        open.forEach(TcpRelay::closeQuietly);
    }
}
