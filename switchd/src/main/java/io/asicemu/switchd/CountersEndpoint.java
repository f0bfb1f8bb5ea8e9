package io.asicemu.switchd;

import io.asicemu.operator.ListenerStats;
import io.asicemu.operator.ManagementHttpServer;
import io.asicemu.tm.counter.TmCountersSnapshot;
import io.asicemu.veth.LinuxSwitch;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
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
 * HTTP/1.1, one request per connection ({@code Connection: close}), GET and HEAD of {@code /counters} only, on
 * operator-api's {@link ManagementHttpServer} (Netty): every client served at once (a slow one holds only its own
 * connection), a deadline for the request head, a cap of connections in which silent ones give way, bounded request
 * lines and headers (SECURITY.md). Not the JDK's {@code com.sun.net.httpserver}: its dispatcher polls its selector
 * once a second whether or not anyone asks (docs/LAB.md session 10); this server's loop sleeps until a client comes.
 * <p>
 * Threading: Netty's one I/O thread ("counters-http"); the body is made on a {@code counters-render} thread, and the
 * traffic-manager snapshot is taken on the data-plane thread through the command queue, so the data path never locks.
 */
final class CountersEndpoint implements AutoCloseable {
    static final String PATH = "/counters";
    /** All headers together; a real client's GET is a few hundred bytes. */
    static final int MAX_HEAD_BYTES = ManagementHttpServer.MAX_HEADER_BYTES;

    /** The body of a 200 answer. */
    @FunctionalInterface
    interface Body {
        /**
         * @return the text to serve.
         * @throws TimeoutException when it cannot be had in time (answered 503).
         */
        String render() throws TimeoutException;
    }

    private final ManagementHttpServer server;
    private final ListenerStats stats;

    private CountersEndpoint(final ManagementHttpServer server, final ListenerStats stats) {
        this.server = server;
        this.stats = stats;
    }

    /**
     * Starts serving.
     *
     * @param address where to listen.
     * @param sw the switch whose counters to serve.
     * @param options the listener's bounds.
     * @return the running endpoint.
     * @throws IOException if the address cannot be bound.
     */
    static CountersEndpoint start(
            final InetSocketAddress address, final LinuxSwitch sw, final ManagementHttpServer.Options options)
            throws IOException {
        return start(address, () -> render(sw), options);
    }

    /**
     * Starts serving {@code body} at {@link #PATH} with {@link ManagementHttpServer.Options#defaults()}.
     *
     * @param address where to listen.
     * @param body what GET answers.
     * @return the running endpoint.
     * @throws IOException if the address cannot be bound.
     */
    static CountersEndpoint start(final InetSocketAddress address, final Body body) throws IOException {
        return start(address, body, ManagementHttpServer.Options.defaults());
    }

    /**
     * Starts serving {@code body} at {@link #PATH}.
     *
     * @param address where to listen.
     * @param body what GET answers.
     * @param options the listener's bounds.
     * @return the running endpoint.
     * @throws IOException if the address cannot be bound.
     */
    static CountersEndpoint start(
            final InetSocketAddress address, final Body body, final ManagementHttpServer.Options options)
            throws IOException {
        final ListenerStats stats = new ListenerStats("counters");
        return new CountersEndpoint(
                ManagementHttpServer.start(address, PATH, "text/plain; charset=utf-8", body::render, options, stats),
                stats);
    }

    /** @return the bound port. */
    int port() {
        return server.port();
    }

    /** @return the listener's counters. */
    ListenerStats stats() {
        return stats;
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
        server.close();
    }
}
