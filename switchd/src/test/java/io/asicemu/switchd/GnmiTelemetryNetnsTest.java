package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.asicemu.operator.gnmi.proto.Encoding;
import io.asicemu.operator.gnmi.proto.GetRequest;
import io.asicemu.operator.gnmi.proto.Path;
import io.asicemu.operator.gnmi.proto.PathElem;
import io.asicemu.operator.gnmi.proto.SubscribeRequest;
import io.asicemu.operator.gnmi.proto.SubscribeResponse;
import io.asicemu.operator.gnmi.proto.Subscription;
import io.asicemu.operator.gnmi.proto.SubscriptionList;
import io.asicemu.operator.gnmi.proto.SubscriptionMode;
import io.asicemu.operator.gnmi.proto.TypedValue;
import io.asicemu.operator.gnmi.proto.gNMIGrpc;
import io.asicemu.testsupport.Concurrently;
import io.asicemu.testsupport.LoopbackPorts;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.testsupport.netns.Offloads;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/**
 * gNMI telemetry of a running switch ({@code run --gnmi-port --redis-port}) with real traffic between namespaces, with
 * a grpc-java client built from the same protos: a SAMPLE subscription every 100 ms sees port and queue counters
 * rise while two senders incast RoCEv2 into a receiver, over a wildcard path that expands to every port; an ON_CHANGE
 * subscription sees STATE_DB's PFC watchdog storm state of the receiver's queue 3 appear while the receiver storms PFC
 * (as CongestionTest drives it) while the senders incast into the paused queue at the same time, every frame of theirs
 * counted at ingress (received or discarded), and clear after the restoration time; and Get agrees with COUNTERS_DB
 * read by Debian's redis-cli.
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GnmiTelemetryNetnsTest {
    private static final String ROUTER = "02:aa:00:00:00:01";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Senders on Ethernet0/4, the receiver on Ethernet8 (10 Mb/s); priority 3 lossless; the watchdog on Ethernet8. */
    private static String config(final String receiverMac) {
        final StringBuilder json =
                new StringBuilder("{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"" + ROUTER + "\"}}, \"PORT\": {");
        final StringBuilder interfaces = new StringBuilder();
        final StringBuilder qos = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            final String port = "Ethernet" + 4 * i;
            final String sep = i == 0 ? "" : ",";
            json.append(sep)
                    .append('"')
                    .append(port)
                    .append("\": {\"speed\": \"")
                    .append(i == 2 ? "10" : "100000")
                    .append("\", \"admin_status\": \"up\", \"mtu\": \"9100\"}");
            interfaces
                    .append(sep)
                    .append('"')
                    .append(port)
                    .append("\": {}, \"")
                    .append(port)
                    .append("|10.0.")
                    .append(i + 1)
                    .append(".254/24\": {}");
            qos.append(sep)
                    .append('"')
                    .append(port)
                    .append(
                            "\": {\"dscp_to_tc_map\": \"AZURE\", \"tc_to_queue_map\":"
                                    + " \"AZURE\", \"tc_to_pg_map\": \"AZURE\", \"pfc_enable\": \"3\", \"pfcwd_sw_enable\": \"3\"}");
        }
        return json.append("}, \"INTERFACE\": {")
                .append(interfaces)
                .append("}, \"NEIGH\": {\"Ethernet8|10.0.3.1\": {\"neigh\": \"")
                .append(receiverMac)
                .append("\"}},")
                .append(" \"DSCP_TO_TC_MAP\": {\"AZURE\": {\"26\": \"3\", \"0\": \"0\"}},")
                .append(" \"TC_TO_QUEUE_MAP\": {\"AZURE\": {\"3\": \"3\", \"0\": \"0\"}},")
                .append(" \"TC_TO_PRIORITY_GROUP_MAP\": {\"AZURE\": {\"3\": \"3\", \"0\": \"0\"}},")
                .append(" \"PORT_QOS_MAP\": {")
                .append(qos)
                .append("},")
                .append(
                        " \"BUFFER_POOL\": {\"ing\": {\"type\": \"ingress\", \"mode\": \"static\", \"size\": \"20000000\"}},")
                .append(
                        " \"BUFFER_PROFILE\": {\"lossless\": {\"pool\": \"ing\", \"size\": \"0\", \"static_th\": \"20000\",")
                .append(" \"xoff\": \"400000\", \"xon\": \"2000\"}, \"lossy\": {\"pool\": \"ing\", \"size\": \"0\",")
                .append(" \"static_th\": \"400000\"}}, \"BUFFER_PG\": {\"Ethernet0|3\": {\"profile\": \"lossless\"},")
                .append(" \"Ethernet4|3\": {\"profile\": \"lossless\"}, \"Ethernet0|0\": {\"profile\": \"lossy\"},")
                .append(" \"Ethernet4|0\": {\"profile\": \"lossy\"}},")
                .append(" \"PFC_WD\": {\"GLOBAL\": {\"POLL_INTERVAL\": \"100\"}, \"Ethernet8\": {\"action\": \"drop\",")
                .append(" \"detection_time\": \"200\", \"restoration_time\": \"1000\"}}}")
                .toString();
    }

    private static Path path(final String... elems) {
        final Path.Builder p = Path.newBuilder();
        for (final String e : elems) {
            p.addElem(PathElem.newBuilder().setName(e));
        }
        return p.build();
    }

    private static Map<String, Object> object(final TypedValue v) throws Exception {
        return JSON.readValue(v.getJsonIetfVal().toByteArray(), new TypeReference<Map<String, Object>>() {});
    }

    private static StreamObserver<SubscribeRequest> subscribe(
            final ManagedChannel channel,
            final LinkedBlockingQueue<Object> events,
            final String db,
            final SubscriptionMode mode,
            final Path... paths) {
        final StreamObserver<SubscribeRequest> call = gNMIGrpc.newStub(channel).subscribe(new StreamObserver<>() {
            @Override
            public void onNext(final SubscribeResponse value) {
                events.add(value);
            }

            @Override
            public void onError(final Throwable t) {
                events.add(t);
            }

            @Override
            public void onCompleted() {
                events.add("completed");
            }
        });
        final SubscriptionList.Builder list = SubscriptionList.newBuilder()
                .setPrefix(Path.newBuilder().setTarget(db))
                .setMode(SubscriptionList.Mode.STREAM)
                .setEncoding(Encoding.JSON_IETF);
        for (final Path p : paths) {
            list.addSubscription(
                    Subscription.newBuilder().setPath(p).setMode(mode).setSampleInterval(100_000_000L));
        }
        call.onNext(SubscribeRequest.newBuilder().setSubscribe(list).build());
        return call;
    }

    /** The next update of the stream whose JSON value satisfies {@code wanted}, within the timeout. */
    private static Map<String, Object> awaitUpdate(
            final LinkedBlockingQueue<Object> events,
            final Duration timeout,
            final java.util.function.Predicate<Map<String, Object>> wanted)
            throws Exception {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            final Object e = events.poll(100, TimeUnit.MILLISECONDS);
            if (e instanceof Throwable t) {
                throw new AssertionError("the subscription failed", t);
            }
            if (e instanceof SubscribeResponse r
                    && r.hasUpdate()
                    && r.getUpdate().getUpdateCount() > 0) {
                final Map<String, Object> value =
                        object(r.getUpdate().getUpdate(0).getVal());
                if (wanted.test(value)) {
                    return value;
                }
            }
        }
        throw new AssertionError("no such update within " + timeout);
    }

    @SuppressWarnings("unchecked")
    private static long field(final Map<String, Object> value, final String key, final String field) {
        return Long.parseLong(((Map<String, String>) value.get(key)).get(field));
    }

    private static String send(final Netns host, final String ip) {
        return host.scapySend(
                "roce",
                "--iface",
                "eth1",
                "--smac",
                host.mac("eth1"),
                "--dmac",
                ROUTER,
                "--sip",
                ip,
                "--dip",
                "10.0.3.1",
                "--qps",
                "0x77",
                "--dscp",
                "26",
                "--ecn",
                "2",
                "--payload",
                "1000",
                "--count",
                "150");
    }

    @Test
    void shouldStreamCountersAndStormStateOfARunningSwitch() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            final Netns h2 = lab.namespace("h2");
            final Netns r = lab.namespace("r");
            final List<String> links = new ArrayList<>();
            int i = 0;
            for (final Netns host : List.of(h1, h2, r)) {
                host.disableIpv6();
                links.add(lab.switchLink("sw" + i++, host, "eth1", Offloads.CONTAINERLAB, 1500));
            }
            final java.nio.file.Path config = lab.newFile(".json");
            Files.writeString(config, config(r.mac("eth1")));
            final int gnmiPort = LoopbackPorts.free();
            final int redisPort = LoopbackPorts.free();
            final RunCommand run = new RunCommand();
            new CommandLine(run)
                    .parseArgs(
                            "--config",
                            config.toString(),
                            "--port-map",
                            "Ethernet0=" + links.get(0),
                            "--port-map",
                            "Ethernet4=" + links.get(1),
                            "--port-map",
                            "Ethernet8=" + links.get(2),
                            "--p4runtime-port",
                            "0",
                            "--gnmi-port",
                            Integer.toString(gnmiPort),
                            "--redis-port",
                            Integer.toString(redisPort));
            try (LiveSwitch sw = run.start()) {
                assertThat(sw.gnmiPort()).isEqualTo(gnmiPort);
                sw.dataPlane().awaitPorts(3, Duration.ofSeconds(5));
                sw.dataPlane().awaitIdleControl();
                final ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", gnmiPort)
                        .usePlaintext()
                        .build();
                try {
                    final LinkedBlockingQueue<Object> storms = new LinkedBlockingQueue<>();
                    final LinkedBlockingQueue<Object> ports = new LinkedBlockingQueue<>();
                    final LinkedBlockingQueue<Object> queues = new LinkedBlockingQueue<>();
                    subscribe(
                            channel,
                            storms,
                            "STATE_DB",
                            SubscriptionMode.ON_CHANGE,
                            path("PFC_WD_STORM", "Ethernet8:3"));
                    subscribe(channel, ports, "COUNTERS_DB", SubscriptionMode.SAMPLE, path("COUNTERS", "Ethernet*"));
                    subscribe(
                            channel,
                            queues,
                            "COUNTERS_DB",
                            SubscriptionMode.SAMPLE,
                            path("COUNTERS", "Ethernet8", "Queues"));
                    assertThat(awaitUpdate(storms, Duration.ofSeconds(5), v -> true))
                            .containsEntry("status", "operational");
                    // the wildcard expands over every port
                    final Map<String, Object> before = awaitUpdate(ports, Duration.ofSeconds(5), v -> true);
                    assertThat(before).containsOnlyKeys("Ethernet0", "Ethernet4", "Ethernet8");
                    final long rx0Before = field(before, "Ethernet0", "SAI_PORT_STAT_IF_IN_UCAST_PKTS");
                    final long q3Before = field(
                            awaitUpdate(queues, Duration.ofSeconds(5), v -> true),
                            "Ethernet8:3",
                            "SAI_QUEUE_STAT_PACKETS");

                    final long in0Before = rx0Before + field(before, "Ethernet0", "SAI_PORT_STAT_IF_IN_DISCARDS");

                    // the receiver storms PFC on priority 3 while the senders incast into its queue 3, all at once
                    // (threads of their own: the common pool's one thread on 2 CPUs ran them one after another)
                    final CompletableFuture<String> storm = Concurrently.supply(() -> r.scapySend(
                            "pfc",
                            "--iface",
                            "eth1",
                            "--smac",
                            r.mac("eth1"),
                            "--enable",
                            "0x08",
                            "--quanta",
                            "65535",
                            "--count",
                            "150",
                            "--interval",
                            "0.02"));
                    Thread.sleep(300);
                    final CompletableFuture<String> a = Concurrently.supply(() -> send(h1, "10.0.1.1"));
                    final CompletableFuture<String> b = Concurrently.supply(() -> send(h2, "10.0.2.1"));
                    final Map<String, Object> stormed =
                            awaitUpdate(storms, Duration.ofSeconds(20), v -> "stormed".equals(v.get("status")));
                    assertThat(Long.parseLong((String) stormed.get("detected"))).isPositive();
                    a.join();
                    b.join();
                    // every frame h1 sent into the paused queue is counted at Ethernet0: received, or discarded at
                    // ingress once the lossless priority group's headroom is full (the senders ignore PFC)
                    awaitUpdate(
                            ports,
                            Duration.ofSeconds(10),
                            v -> field(v, "Ethernet0", "SAI_PORT_STAT_IF_IN_UCAST_PKTS")
                                            + field(v, "Ethernet0", "SAI_PORT_STAT_IF_IN_DISCARDS")
                                    >= in0Before + 150);
                    storm.join();
                    final Map<String, Object> cleared =
                            awaitUpdate(storms, Duration.ofSeconds(20), v -> "operational".equals(v.get("status")));
                    assertThat(Long.parseLong((String) cleared.get("restored"))).isPositive();

                    // the queue restored, the same incast is received and sent: port and queue counters rise in the
                    // 100 ms samples
                    final long rx0Restored = field(
                            awaitUpdate(ports, Duration.ofSeconds(5), v -> true),
                            "Ethernet0",
                            "SAI_PORT_STAT_IF_IN_UCAST_PKTS");
                    final CompletableFuture<String> a2 = Concurrently.supply(() -> send(h1, "10.0.1.1"));
                    final CompletableFuture<String> b2 = Concurrently.supply(() -> send(h2, "10.0.2.1"));
                    a2.join();
                    b2.join();
                    awaitUpdate(
                            ports,
                            Duration.ofSeconds(10),
                            v -> field(v, "Ethernet0", "SAI_PORT_STAT_IF_IN_UCAST_PKTS") >= rx0Restored + 150);
                    awaitUpdate(
                            queues,
                            Duration.ofSeconds(10),
                            v -> field(v, "Ethernet8:3", "SAI_QUEUE_STAT_PACKETS") > q3Before);

                    // Get agrees with COUNTERS_DB over Redis (both read the same snapshot once traffic is over)
                    final String oid0 = redisCli(redisPort, "-n", "2", "hget", "COUNTERS_PORT_NAME_MAP", "Ethernet0");
                    Map<String, Object> viaGnmi = null;
                    Map<String, String> viaRedis = null;
                    for (int attempt = 0; attempt < 5 && (viaGnmi == null || !viaGnmi.equals(viaRedis)); attempt++) {
                        viaGnmi = object(gNMIGrpc.newBlockingStub(channel)
                                .get(GetRequest.newBuilder()
                                        .setPrefix(Path.newBuilder().setTarget("COUNTERS_DB"))
                                        .addPath(path("COUNTERS", "Ethernet0"))
                                        .setEncoding(Encoding.JSON_IETF)
                                        .build())
                                .getNotification(0)
                                .getUpdate(0)
                                .getVal());
                        viaRedis = hash(redisCli(redisPort, "-n", "2", "hgetall", "COUNTERS:" + oid0));
                    }
                    assertThat(viaGnmi).isEqualTo(viaRedis);
                    assertThat(viaRedis).containsKey("SAI_PORT_STAT_IF_IN_UCAST_PKTS");
                } finally {
                    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
                }
            }
        }
    }

    private static Map<String, String> hash(final String hgetall) {
        final String[] lines = hgetall.strip().split("\n");
        final Map<String, String> out = new LinkedHashMap<>();
        for (int k = 0; k + 1 < lines.length; k += 2) {
            out.put(lines[k], lines[k + 1]);
        }
        return out;
    }

    private static String redisCli(final int port, final String... args) throws Exception {
        final List<String> command =
                new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        return OperatorViewsNetnsTest.OperatorTestTools.run(command).strip();
    }
}
