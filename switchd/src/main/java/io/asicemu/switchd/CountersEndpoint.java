package io.asicemu.switchd;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.asicemu.tm.counter.TmCountersSnapshot;
import io.asicemu.veth.LinuxSwitch;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code GET /counters} on the management address: the live switch's counters as text, one
 * {@code <port> <SAI/COUNTERS_DB name> <value>} per line, non-zero values only: the port, drop and punt counters
 * ({@code CountersSnapshot.render()}, as {@code replay} writes them) and then per queue, priority group and port PFC
 * the traffic manager's (e.g. {@code Ethernet4 queue 3 SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS 12},
 * {@code Ethernet0 SAI_PORT_STAT_PFC_3_TX_PKTS 5}). What a lab user reads with {@code curl}, and how the lab tests see
 * a switch's counters from outside its container.
 * <p>
 * Threading: one request at a time on the server's own thread (it blocks in accept when idle); the traffic-manager
 * snapshot is taken on the data-plane thread through the command queue, so the data path never locks.
 */
final class CountersEndpoint implements AutoCloseable {
    private static final Duration SNAPSHOT_TIMEOUT = SwitchSnapshots.SNAPSHOT_TIMEOUT;

    private final HttpServer server;

    private CountersEndpoint(final HttpServer server) {
        this.server = server;
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
        final HttpServer server = HttpServer.create(address, 4);
        server.setExecutor(Executors.newSingleThreadExecutor(
                r -> Thread.ofPlatform().daemon().name("counters-http").unstarted(r)));
        server.createContext("/counters", exchange -> serve(exchange, sw));
        server.start();
        return new CountersEndpoint(server);
    }

    /** @return the bound port. */
    int port() {
        return server.getAddress().getPort();
    }

    private static void serve(final HttpExchange exchange, final LinuxSwitch sw) throws IOException {
        try (exchange) {
            int status = 200;
            String body;
            try {
                body = render(sw);
            } catch (final TimeoutException e) {
                status = 503;
                body = "the data plane did not answer within " + SNAPSHOT_TIMEOUT.toSeconds() + " s\n";
            }
            final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
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
        server.stop(0);
    }
}
