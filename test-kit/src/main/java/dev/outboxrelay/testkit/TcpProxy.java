package dev.outboxrelay.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP forwarder on 127.0.0.1 in front of a server, standing in for the fixed address (virtual IP, DNS name) that
 * clients keep across a database failover: {@link #redirect(int)} cuts every open connection, as the old server's
 * death does, and sends new ones to another port.
 */
public final class TcpProxy implements AutoCloseable {

    private static final String LOOPBACK = "127.0.0.1";

    private final ServerSocket listener;
    private final List<Socket> open = new ArrayList<>();
    private volatile int targetPort;
    private volatile boolean closed;
    private volatile boolean blackHole;

    private TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getByName(LOOPBACK));
        Thread acceptor = new Thread(this::accept, "outbox-testkit-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Starts forwarding a free local port to {@code 127.0.0.1:targetPort}. */
    public static TcpProxy to(int targetPort) {
        try {
            return new TcpProxy(targetPort);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not open a proxy port", e);
        }
    }

    /** The port clients connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    /** Closes every forwarded connection and sends new ones to {@code 127.0.0.1:newTargetPort}. */
    public void redirect(int newTargetPort) {
        targetPort = newTargetPort;
        closeOpen();
    }

    /**
     * A black hole, as a broken network path is: while on, bytes in either direction are dropped and a side that
     * closes is not told to the other, so neither end notices anything but silence. Off again, bytes flow; the
     * connections whose bytes were dropped are of no use any more, as after a real outage.
     */
    public void blackHole(boolean on) {
        blackHole = on;
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            try {
                Socket server = new Socket(LOOPBACK, targetPort);
                synchronized (open) {
                    open.add(client);
                    open.add(server);
                }
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                quietly(client); // target down: the client sees the connection refused-like close
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    if (!blackHole) {
                        out.write(buffer, 0, n);
                    }
                }
            } catch (IOException ignored) {
                // either side closed
            } finally {
                quietly(from);
                if (blackHole) {
                    // The close is lost in the hole too: the other end keeps waiting.
                    return;
                }
                quietly(to);
                synchronized (open) {
                    open.remove(from);
                    open.remove(to);
                }
            }
        }, "outbox-testkit-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private void closeOpen() {
        synchronized (open) {
            open.forEach(TcpProxy::quietly);
            open.clear();
        }
    }

    private static void quietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        closeOpen();
    }
}
