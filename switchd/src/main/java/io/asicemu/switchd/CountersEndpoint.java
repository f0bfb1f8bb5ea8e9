package io.asicemu.switchd;

import io.asicemu.tm.counter.TmCountersSnapshot;
import io.asicemu.veth.LinuxSwitch;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /counters} on the management address: the live switch's counters as text, one
 * {@code <port> <SAI/COUNTERS_DB name> <value>} per line, non-zero values only: the port, drop and punt counters
 * ({@code CountersSnapshot.render()}, as {@code replay} writes them) and then per queue, priority group and port PFC
 * the traffic manager's (e.g. {@code Ethernet4 queue 3 SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS 12},
 * {@code Ethernet0 SAI_PORT_STAT_PFC_3_TX_PKTS 5}). What a lab user reads with {@code curl}, and how the lab tests see
 * a switch's counters from outside its container.
 * <p>
 * HTTP/1.1, one request per connection ({@code Connection: close}), GET and HEAD of {@code /counters} only. Not the
 * JDK's {@code com.sun.net.httpserver}: its dispatcher polls its selector once a second and its idle-connection
 * timer runs every 10 s, whether or not anyone ever asks (1.2 wake-ups a second, the idle switch's largest after the
 * gRPC acceptor; docs/LAB.md session 10); a lab has four switches idle for hours. This server's thread blocks in
 * {@code accept} and wakes only for a client.
 * <p>
 * Threading: one request at a time on the server's own thread ("counters-http"); the traffic-manager snapshot is
 * taken on the data-plane thread through the command queue, so the data path never locks.
 */
final class CountersEndpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CountersEndpoint.class);
    private static final Duration SNAPSHOT_TIMEOUT = SwitchSnapshots.SNAPSHOT_TIMEOUT;
    static final String PATH = "/counters";
    /** A client that sends its request this slowly (or never) is dropped, so that it cannot hold the endpoint. */
    static final int READ_TIMEOUT_MS = 5_000;
    /** Request line and headers together; a real client's GET is a few hundred bytes. */
    static final int MAX_HEAD_BYTES = 16 * 1024;

    /** The body of a 200 answer. */
    @FunctionalInterface
    interface Body {
        /**
         * @return the text to serve.
         * @throws TimeoutException when it cannot be had in time (answered 503).
         */
        String render() throws TimeoutException;
    }

    private final ServerSocket socket;
    private final Body body;
    private final Thread thread;
    private volatile boolean closed;

    private CountersEndpoint(final ServerSocket socket, final Body body) {
        this.socket = socket;
        this.body = body;
        this.thread = Thread.ofPlatform().daemon().name("counters-http").unstarted(this::serve);
    }

    /**
     * Starts serving.
     *
     * @param address where to listen.
     * @param sw the switch whose counters to serve.
     * @return the running endpoint.
     * @throws IOException if the address cannot be bound.
     */
    static CountersEndpoint start(final InetSocketAddress address, final LinuxSwitch sw) throws IOException {
        return start(address, () -> render(sw));
    }

    /**
     * Starts serving {@code body} at {@link #PATH}.
     *
     * @param address where to listen.
     * @param body what GET answers.
     * @return the running endpoint.
     * @throws IOException if the address cannot be bound.
     */
    static CountersEndpoint start(final InetSocketAddress address, final Body body) throws IOException {
        final ServerSocket socket = new ServerSocket();
        try {
            socket.setReuseAddress(true);
            socket.bind(address, 4);
        } catch (final IOException e) {
            socket.close();
            throw e;
        }
        final CountersEndpoint endpoint = new CountersEndpoint(socket, body);
        endpoint.thread.start();
        return endpoint;
    }

    /** @return the bound port. */
    int port() {
        return socket.getLocalPort();
    }

    private void serve() {
        while (!closed) {
            try (Socket client = socket.accept()) {
                client.setSoTimeout(READ_TIMEOUT_MS);
                answer(client);
            } catch (final IOException e) {
                if (!closed) {
                    // one client's broken or slow connection; the endpoint goes on
                    LOG.debug("counters: {}", e.toString());
                }
            } catch (final RuntimeException e) {
                LOG.warn("counters: a request failed", e);
            }
        }
    }

    private void answer(final Socket client) throws IOException {
        final InputStream in = new BufferedInputStream(client.getInputStream(), 1024);
        final String requestLine = readLine(in, new int[] {MAX_HEAD_BYTES});
        final OutputStream out = client.getOutputStream();
        if (requestLine == null) {
            return; // closed before a request
        }
        final int[] left = {MAX_HEAD_BYTES - requestLine.length()};
        String header;
        do {
            header = readLine(in, left);
            if (header == null) {
                respond(out, 400, "Bad Request", "the request's headers were cut off or too long\n", true);
                return;
            }
        } while (!header.isEmpty());
        final String[] parts = requestLine.split(" ");
        if (parts.length != 3 || !parts[2].startsWith("HTTP/1.")) {
            respond(out, 400, "Bad Request", "not an HTTP/1.x request line\n", true);
            return;
        }
        final String method = parts[0];
        final int query = parts[1].indexOf('?');
        final String path = query < 0 ? parts[1] : parts[1].substring(0, query);
        if (!path.equals(PATH)) {
            respond(out, 404, "Not Found", "not found: only " + PATH + " is served here\n", true);
        } else if (!method.equals("GET") && !method.equals("HEAD")) {
            respond(out, 405, "Method Not Allowed", "only GET and HEAD are served here\n", true);
        } else {
            final boolean withBody = method.equals("GET");
            try {
                respond(out, 200, "OK", body.render(), withBody);
            } catch (final TimeoutException e) {
                respond(
                        out,
                        503,
                        "Service Unavailable",
                        "the data plane did not answer within " + SNAPSHOT_TIMEOUT.toSeconds() + " s\n",
                        withBody);
            }
        }
    }

    /**
     * @param left bytes the head may still take; decremented.
     * @return one CRLF- (or LF-) terminated line without its terminator, or null at the end of the stream or when the
     *     head is longer than {@link #MAX_HEAD_BYTES}.
     */
    private static String readLine(final InputStream in, final int[] left) throws IOException {
        final StringBuilder line = new StringBuilder(64);
        while (true) {
            final int b = in.read();
            if (b < 0 || --left[0] < 0) {
                return null;
            }
            if (b == '\n') {
                final int last = line.length() - 1;
                return last >= 0 && line.charAt(last) == '\r' ? line.substring(0, last) : line.toString();
            }
            line.append((char) b); // headers are ASCII (RFC 9110); anything else is only compared, never echoed
        }
    }

    private static void respond(
            final OutputStream out, final int status, final String reason, final String text, final boolean withBody)
            throws IOException {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        final String head = "HTTP/1.1 " + status + " " + reason + "\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: " + bytes.length + "\r\n"
                + (status == 405 ? "Allow: GET, HEAD\r\n" : "")
                + "Connection: close\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        if (withBody) {
            out.write(bytes);
        }
        out.flush();
    }

    /** The text of {@code /counters}. */
    static String render(final LinuxSwitch sw) throws TimeoutException {
        final AtomicReference<List<String>> ports = new AtomicReference<>();
        final TmCountersSnapshot tm = SwitchSnapshots.trafficManager(sw, ports, new java.util.HashMap<>(), List.of());
        final StringBuilder out = new StringBuilder(sw.counters().render());
        final List<String> names = ports.get();
        for (int port = 0; port < names.size(); port++) {
            final String name = names.get(port);
            if (name == null) {
                continue;
            }
            for (int q = 0; q < 8; q++) {
                append(out, name + " queue " + q, tm.queueFields(port, q));
            }
            for (int pg = 0; pg < 8; pg++) {
                append(out, name + " pg " + pg, tm.pgFields(port, pg));
            }
            append(out, name, tm.portPfcFields(port));
        }
        return out.toString();
    }

    private static void append(final StringBuilder out, final String prefix, final Map<String, String> fields) {
        fields.forEach((field, value) -> {
            if (!value.equals("0") && !value.equals("false") && !value.equals("operational")) {
                out.append(prefix)
                        .append(' ')
                        .append(field)
                        .append(' ')
                        .append(value)
                        .append('\n');
            }
        });
    }

    @Override
    public void close() {
        closed = true;
        try {
            socket.close(); // accept() throws at once
        } catch (final IOException e) {
            LOG.debug("counters: close: {}", e.toString());
        }
        try {
            thread.join(SNAPSHOT_TIMEOUT.toMillis() + READ_TIMEOUT_MS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
