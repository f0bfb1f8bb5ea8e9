package io.asicemu.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.asicemu.operator.gnmi.GnmiServer;
import io.asicemu.operator.gnmi.GnmiService;
import io.asicemu.operator.gnmi.proto.CapabilityRequest;
import io.asicemu.operator.gnmi.proto.CapabilityResponse;
import io.asicemu.operator.gnmi.proto.Encoding;
import io.asicemu.operator.gnmi.proto.GetRequest;
import io.asicemu.operator.gnmi.proto.GetResponse;
import io.asicemu.operator.gnmi.proto.Path;
import io.asicemu.operator.gnmi.proto.PathElem;
import io.asicemu.operator.gnmi.proto.Poll;
import io.asicemu.operator.gnmi.proto.SubscribeRequest;
import io.asicemu.operator.gnmi.proto.SubscribeResponse;
import io.asicemu.operator.gnmi.proto.Subscription;
import io.asicemu.operator.gnmi.proto.SubscriptionList;
import io.asicemu.operator.gnmi.proto.SubscriptionMode;
import io.asicemu.operator.gnmi.proto.TypedValue;
import io.asicemu.operator.gnmi.proto.gNMIGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The gNMI server against a grpc-java client built from the same protos: Capabilities, Get (agreeing with
 * redis-cli's COUNTERS_DB), SONiC's paths and wildcards, canonical error codes, Subscribe STREAM (SAMPLE, ON_CHANGE,
 * TARGET_DEFINED), ONCE and POLL, and a subscriber that does not read (coalesced, bounded, others served).
 */
@Timeout(60)
class GnmiServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration MIN_INTERVAL = Duration.ofMillis(100);

    /** Counters scale with each snapshot taken; the storm state of Ethernet4 queue 3 is the test's to set. */
    private final AtomicLong scale = new AtomicLong(1);

    private final AtomicReference<String[]> storm = new AtomicReference<>(new String[] {"stormed", "1", "0"});
    private volatile boolean frozen;
    private volatile boolean withoutWatchdogConfig;
    private SnapshotCache cache;
    private GnmiServer server;
    private OperatorRedisServer redis;
    private ManagedChannel channel;

    private void start() throws Exception {
        cache = new SnapshotCache(this::take, MIN_INTERVAL);
        server = GnmiServer.start(
                new InetSocketAddress("127.0.0.1", 0), cache, GnmiService.Limits.defaults(MIN_INTERVAL), null);
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port())
                .usePlaintext()
                .build();
    }

    private SwitchSnapshot take() {
        final long s = frozen ? scale.get() : scale.getAndIncrement();
        final SwitchSnapshot snapshot = withStorm(SampleSnapshots.sample(s, System.nanoTime()), storm.get());
        if (!withoutWatchdogConfig) {
            return snapshot;
        }
        final Map<String, Map<String, String>> config = new LinkedHashMap<>(snapshot.config());
        config.remove("PFC_WD|Ethernet0");
        return new SwitchSnapshot(
                snapshot.takenAtNs(),
                snapshot.ports(),
                snapshot.pools(),
                config,
                snapshot.switchCapabilities(),
                snapshot.aclRules(),
                snapshot.arsGroups());
    }

    /** The sample with Ethernet4 queue 3's PFC watchdog status, storms detected and restored set. */
    private static SwitchSnapshot withStorm(final SwitchSnapshot s, final String[] status) {
        final List<SwitchSnapshot.Port> ports = new ArrayList<>();
        for (final SwitchSnapshot.Port p : s.ports()) {
            final List<Map<String, String>> queues = new ArrayList<>();
            for (int q = 0; q < SwitchSnapshot.CLASSES; q++) {
                // storm counts stay put (the sample scales them) unless the test changes the storm state
                final Map<String, String> fields =
                        new LinkedHashMap<>(p.queues().get(q));
                final boolean watched = p.name().equals("Ethernet4") && q == 3;
                fields.put("PFC_WD_STATUS", watched ? status[0] : "operational");
                fields.put("PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", watched ? status[1] : "0");
                fields.put("PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED", watched ? status[2] : "0");
                queues.add(fields);
            }
            ports.add(new SwitchSnapshot.Port(p.name(), p.operUp(), p.stats(), queues, p.priorityGroups(), p.pfc()));
        }
        return new SwitchSnapshot(
                s.takenAtNs(), ports, s.pools(), s.config(), s.switchCapabilities(), s.aclRules(), s.arsGroups());
    }

    @AfterEach
    void stop() throws Exception {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private static Path path(final String... elems) {
        final Path.Builder p = Path.newBuilder();
        for (final String e : elems) {
            p.addElem(PathElem.newBuilder().setName(e));
        }
        return p.build();
    }

    private static Path target(final String db) {
        return Path.newBuilder().setTarget(db).build();
    }

    private static Map<String, Object> object(final TypedValue v) throws Exception {
        assertThat(v.getValueCase()).isEqualTo(TypedValue.ValueCase.JSON_IETF_VAL);
        return JSON.readValue(v.getJsonIetfVal().toByteArray(), new TypeReference<Map<String, Object>>() {});
    }

    private TypedValue get(final String db, final Encoding encoding, final String... elems) {
        final GetResponse r = gNMIGrpc.newBlockingStub(channel)
                .withDeadlineAfter(10, TimeUnit.SECONDS)
                .get(GetRequest.newBuilder()
                        .setPrefix(target(db))
                        .addPath(path(elems))
                        .setEncoding(encoding)
                        .build());
        assertThat(r.getNotificationCount()).isEqualTo(1);
        assertThat(r.getNotification(0).getPrefix().getTarget()).isEqualTo(db);
        assertThat(r.getNotification(0).getTimestamp()).isGreaterThan(1_700_000_000_000_000_000L);
        return r.getNotification(0).getUpdate(0).getVal();
    }

    private Map<String, String> redisHash(final int db, final String key) throws Exception {
        final String out = OperatorRedisServerTest.run(List.of(
                "redis-cli",
                "-h",
                "127.0.0.1",
                "-p",
                Integer.toString(redis.port()),
                "-n",
                Integer.toString(db),
                "hgetall",
                key));
        final String[] lines = out.strip().split("\n");
        final Map<String, String> hash = new LinkedHashMap<>();
        for (int i = 0; i + 1 < lines.length; i += 2) {
            hash.put(lines[i], lines[i + 1]);
        }
        return hash;
    }

    @Test
    void shouldAnswerCapabilitiesWithVersionModelAndEncodings() throws Exception {
        start();
        final CapabilityResponse caps =
                gNMIGrpc.newBlockingStub(channel).capabilities(CapabilityRequest.getDefaultInstance());
        assertThat(caps.getGNMIVersion()).isEqualTo("0.7.0");
        assertThat(caps.getSupportedEncodingsList()).containsExactly(Encoding.JSON, Encoding.JSON_IETF);
        assertThat(caps.getSupportedModels(0).getName()).isEqualTo("sonic-db");
    }

    @Test
    void shouldGetWhatRedisCliReadsFromCountersDb() throws Exception {
        frozen = true;
        start();
        redis = OperatorRedisServer.start(
                new InetSocketAddress("127.0.0.1", 0), cache, null, OperatorRedisServer.Limits.defaults());
        final String oid = redisHash(2, "COUNTERS_PORT_NAME_MAP").get("Ethernet4");
        assertThat(oid).startsWith("oid:0x");
        final Map<String, String> viaRedis = redisHash(2, "COUNTERS:" + oid);
        assertThat(viaRedis).containsKey("SAI_PORT_STAT_IF_IN_OCTETS");
        // the port's hash by name (SONiC's virtual path), by oid, and every port by wildcard
        assertThat(object(get("COUNTERS_DB", Encoding.JSON_IETF, "COUNTERS", "Ethernet4")))
                .isEqualTo(viaRedis);
        assertThat(object(get("COUNTERS_DB", Encoding.JSON_IETF, "COUNTERS", oid)))
                .isEqualTo(viaRedis);
        final Map<String, Object> all = object(get("COUNTERS_DB", Encoding.JSON_IETF, "COUNTERS", "Ethernet*"));
        assertThat(all).containsOnlyKeys("Ethernet0", "Ethernet4");
        assertThat(all.get("Ethernet4")).isEqualTo(viaRedis);
        assertThat(all.get("Ethernet0"))
                .isEqualTo(redisHash(
                        2, "COUNTERS:" + redisHash(2, "COUNTERS_PORT_NAME_MAP").get("Ethernet0")));
        // a ONCE subscription reads the same
        final Recorder once = new Recorder();
        gNMIGrpc.newStub(channel)
                .subscribe(once)
                .onNext(SubscribeRequest.newBuilder()
                        .setSubscribe(SubscriptionList.newBuilder()
                                .setPrefix(target("COUNTERS_DB"))
                                .setMode(SubscriptionList.Mode.ONCE)
                                .setEncoding(Encoding.JSON_IETF)
                                .addSubscription(Subscription.newBuilder().setPath(path("COUNTERS", "Ethernet4"))))
                        .build());
        assertThat(object(once.response().getUpdate().getUpdate(0).getVal())).isEqualTo(viaRedis);
        assertThat(once.response().getSyncResponse()).isTrue();
        // one field: a string, as SONiC sends it
        assertThat(get("COUNTERS_DB", Encoding.JSON_IETF, "COUNTERS", "Ethernet4", "SAI_PORT_STAT_IF_IN_OCTETS")
                        .getStringVal())
                .isEqualTo(viaRedis.get("SAI_PORT_STAT_IF_IN_OCTETS"));
        // queues, keyed port:queue, each equal to the queue's hash
        final Map<String, Object> queues =
                object(get("COUNTERS_DB", Encoding.JSON_IETF, "COUNTERS", "Ethernet4", "Queues"));
        assertThat(queues).hasSize(8).containsKey("Ethernet4:3");
        final String q3 = redisHash(2, "COUNTERS_QUEUE_NAME_MAP").get("Ethernet4:3");
        assertThat(queues.get("Ethernet4:3")).isEqualTo(redisHash(2, "COUNTERS:" + q3));
        assertThat(object(get("COUNTERS_DB", Encoding.JSON_IETF, "COUNTERS", "Ethernet*", "Queues")))
                .hasSize(16);
        // the PFC watchdog's queues: the PFC-enabled ones (3 and 4)
        assertThat(object(get("COUNTERS_DB", Encoding.JSON_IETF, "COUNTERS", "Ethernet*", "Pfcwd")))
                .containsOnlyKeys("Ethernet0:3", "Ethernet0:4", "Ethernet4:3", "Ethernet4:4");
        // STATE_DB and CONFIG_DB with | keys; JSON encoding in json_val
        assertThat(object(get("STATE_DB", Encoding.JSON_IETF, "PFC_WD_STORM", "Ethernet4:3")))
                .isEqualTo(redisHash(6, "PFC_WD_STORM|Ethernet4:3"));
        final TypedValue wred = get("CONFIG_DB", Encoding.JSON, "WRED_PROFILE", "AZURE_LOSSLESS");
        assertThat(JSON.readValue(wred.getJsonVal().toByteArray(), Map.class))
                .isEqualTo(redisHash(4, "WRED_PROFILE|AZURE_LOSSLESS"));
        assertThat(object(get("CONFIG_DB", Encoding.JSON_IETF, "PORT"))).containsOnlyKeys("Ethernet0", "Ethernet4");
    }

    @Test
    void shouldRefuseWithCanonicalCodes() throws Exception {
        start();
        assertThatThrownBy(() -> get("COUNTERS_DB", Encoding.JSON_IETF, "COUNTERS", "Ethernet99"))
                .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.NOT_FOUND))
                .hasMessageContaining("Ethernet99");
        assertThatThrownBy(() -> get("STATE_DB", Encoding.JSON_IETF, "NO_SUCH_TABLE"))
                .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.NOT_FOUND));
        assertThatThrownBy(() -> get("APPL_DB", Encoding.JSON_IETF, "ROUTE_TABLE"))
                .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.NOT_FOUND));
        assertThatThrownBy(() -> get("", Encoding.JSON_IETF, "COUNTERS", "Ethernet0"))
                .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        assertThatThrownBy(() -> get("COUNTERS_DB", Encoding.PROTO, "COUNTERS", "Ethernet0"))
                .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.UNIMPLEMENTED))
                .hasMessageContaining("encoding PROTO");
        // a sample interval faster than the switch hands counters over
        final Recorder r = new Recorder();
        gNMIGrpc.newStub(channel)
                .subscribe(r)
                .onNext(streamRequest(
                        "COUNTERS_DB", SubscriptionMode.SAMPLE, 1_000_000, path("COUNTERS", "Ethernet0")));
        assertThat(Status.fromThrowable(r.error()).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        // a poll before any subscription list
        final Recorder p = new Recorder();
        gNMIGrpc.newStub(channel)
                .subscribe(p)
                .onNext(SubscribeRequest.newBuilder()
                        .setPoll(Poll.getDefaultInstance())
                        .build());
        assertThat(Status.fromThrowable(p.error()).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    }

    private static SubscribeRequest streamRequest(
            final String db, final SubscriptionMode mode, final long intervalNs, final Path... paths) {
        final SubscriptionList.Builder list = SubscriptionList.newBuilder()
                .setPrefix(target(db))
                .setMode(SubscriptionList.Mode.STREAM)
                .setEncoding(Encoding.JSON_IETF);
        for (final Path p : paths) {
            list.addSubscription(
                    Subscription.newBuilder().setPath(p).setMode(mode).setSampleInterval(intervalNs));
        }
        return SubscribeRequest.newBuilder().setSubscribe(list).build();
    }

    /** A client's view of one Subscribe RPC. */
    static final class Recorder implements StreamObserver<SubscribeResponse> {
        final LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();

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

        Object next() throws InterruptedException {
            final Object e = events.poll(10, TimeUnit.SECONDS);
            assertThat(e).as("an event within 10 s").isNotNull();
            return e;
        }

        SubscribeResponse response() throws InterruptedException {
            final Object e = next();
            assertThat(e).isInstanceOf(SubscribeResponse.class);
            return (SubscribeResponse) e;
        }

        Throwable error() throws InterruptedException {
            Object e;
            do {
                e = next();
            } while (!(e instanceof Throwable));
            return (Throwable) e;
        }
    }

    private static long octets(final SubscribeResponse r) throws Exception {
        return Long.parseLong(
                (String) object(r.getUpdate().getUpdate(0).getVal()).get("SAI_PORT_STAT_IF_IN_OCTETS"));
    }

    @Test
    void shouldSampleEvery100MsAndSeePortAndQueueCountersRise() throws Exception {
        start();
        final Recorder r = new Recorder();
        final StreamObserver<SubscribeRequest> call = gNMIGrpc.newStub(channel).subscribe(r);
        call.onNext(streamRequest(
                "COUNTERS_DB",
                SubscriptionMode.SAMPLE,
                100_000_000,
                path("COUNTERS", "Ethernet0"),
                path("COUNTERS", "Ethernet0", "Queues")));
        // the initial values of both paths, then sync_response
        final SubscribeResponse port0 = r.response();
        final SubscribeResponse queues0 = r.response();
        assertThat(r.response().getSyncResponse()).isTrue();
        assertThat(port0.getUpdate().getPrefix().getTarget()).isEqualTo("COUNTERS_DB");
        assertThat(port0.getUpdate().getUpdate(0).getPath()).isEqualTo(path("COUNTERS", "Ethernet0"));
        long lastOctets = octets(port0);
        long lastQueuePackets = queuePackets(queues0);
        long lastStamp = port0.getUpdate().getTimestamp();
        for (int i = 0; i < 10; i++) {
            final SubscribeResponse port = r.response();
            final SubscribeResponse queues = r.response();
            assertThat(port.getUpdate().getUpdate(0).getPath()).isEqualTo(path("COUNTERS", "Ethernet0"));
            assertThat(octets(port)).isGreaterThan(lastOctets);
            assertThat(queuePackets(queues)).isGreaterThan(lastQueuePackets);
            // sampled every 100 ms (the target's stamps: the client may receive them bunched on a loaded machine)
            assertThat(port.getUpdate().getTimestamp() - lastStamp).isGreaterThanOrEqualTo(90_000_000L);
            lastOctets = octets(port);
            lastQueuePackets = queuePackets(queues);
            lastStamp = port.getUpdate().getTimestamp();
        }
        call.onCompleted();
    }

    private static long queuePackets(final SubscribeResponse r) throws Exception {
        @SuppressWarnings("unchecked")
        final Map<String, String> q3 = (Map<String, String>)
                object(r.getUpdate().getUpdate(0).getVal()).get("Ethernet0:3");
        return Long.parseLong(q3.get("SAI_QUEUE_STAT_PACKETS"));
    }

    @Test
    void shouldSendStormStateOnChangeOnly() throws Exception {
        start();
        final Recorder r = new Recorder();
        // TARGET_DEFINED on STATE_DB is ON_CHANGE
        gNMIGrpc.newStub(channel)
                .subscribe(r)
                .onNext(streamRequest(
                        "STATE_DB",
                        SubscriptionMode.TARGET_DEFINED,
                        0,
                        path("PFC_WD_STORM", "Ethernet4:3"),
                        path("PFC_WD_STORM")));
        assertThat(object(r.response().getUpdate().getUpdate(0).getVal())).containsEntry("status", "stormed");
        assertThat(object(r.response().getUpdate().getUpdate(0).getVal())).hasSize(4);
        assertThat(r.response().getSyncResponse()).isTrue();
        // nothing changes: nothing is sent although counters move every snapshot
        assertThat(r.events.poll(500, TimeUnit.MILLISECONDS)).isNull();
        storm.set(new String[] {"operational", "1", "1"});
        final SubscribeResponse cleared = r.response();
        assertThat(object(cleared.getUpdate().getUpdate(0).getVal()))
                .containsEntry("status", "operational")
                .containsEntry("restored", "1");
        // the table subscription sends only the key that changed
        final SubscribeResponse table = r.response();
        assertThat(object(table.getUpdate().getUpdate(0).getVal())).containsOnlyKeys("Ethernet4:3");
        assertThat(r.events.poll(500, TimeUnit.MILLISECONDS)).isNull();
        storm.set(new String[] {"stormed", "2", "1"});
        assertThat(object(r.response().getUpdate().getUpdate(0).getVal())).containsEntry("status", "stormed");
    }

    @Test
    void shouldAnswerOnceThenClose() throws Exception {
        start();
        final Recorder r = new Recorder();
        gNMIGrpc.newStub(channel)
                .subscribe(r)
                .onNext(SubscribeRequest.newBuilder()
                        .setSubscribe(SubscriptionList.newBuilder()
                                .setPrefix(target("COUNTERS_DB"))
                                .setMode(SubscriptionList.Mode.ONCE)
                                .setEncoding(Encoding.JSON_IETF)
                                .addSubscription(Subscription.newBuilder().setPath(path("COUNTERS", "Ethernet*"))))
                        .build());
        assertThat(object(r.response().getUpdate().getUpdate(0).getVal())).containsOnlyKeys("Ethernet0", "Ethernet4");
        assertThat(r.response().getSyncResponse()).isTrue();
        assertThat(r.next()).isEqualTo("completed");
        assertThat(server.service().openSubscriptions()).isZero();
    }

    @Test
    void shouldAnswerEachPollWithFreshValuesAndSync() throws Exception {
        start();
        final Recorder r = new Recorder();
        final StreamObserver<SubscribeRequest> call = gNMIGrpc.newStub(channel).subscribe(r);
        call.onNext(SubscribeRequest.newBuilder()
                .setSubscribe(SubscriptionList.newBuilder()
                        .setPrefix(target("COUNTERS_DB"))
                        .setMode(SubscriptionList.Mode.POLL)
                        .setEncoding(Encoding.JSON_IETF)
                        .addSubscription(Subscription.newBuilder().setPath(path("COUNTERS", "Ethernet0"))))
                .build());
        long last = octets(r.response());
        assertThat(r.response().getSyncResponse()).isTrue();
        for (int i = 0; i < 3; i++) {
            Thread.sleep(MIN_INTERVAL.toMillis() + 20); // a fresh snapshot for each poll
            call.onNext(SubscribeRequest.newBuilder()
                    .setPoll(Poll.getDefaultInstance())
                    .build());
            final long now = octets(r.response());
            assertThat(now).isGreaterThan(last);
            assertThat(r.response().getSyncResponse()).isTrue();
            last = now;
        }
        // nothing is sent between polls
        assertThat(r.events.poll(300, TimeUnit.MILLISECONDS)).isNull();
        call.onCompleted();
        assertThat(r.next()).isEqualTo("completed");
    }

    @Test
    void shouldCoalesceForASubscriberThatDoesNotReadWhileServingOthers() throws Exception {
        start();
        // a client that takes one message and then never asks for more: gRPC's flow control stops the server
        final LinkedBlockingQueue<SubscribeResponse> slow = new LinkedBlockingQueue<>();
        final ClientResponseObserver<SubscribeRequest, SubscribeResponse> stalled = new ClientResponseObserver<>() {
            @Override
            public void beforeStart(final ClientCallStreamObserver<SubscribeRequest> requestStream) {
                requestStream.disableAutoRequestWithInitial(1);
            }

            @Override
            public void onNext(final SubscribeResponse value) {
                slow.add(value);
            }

            @Override
            public void onError(final Throwable t) {}

            @Override
            public void onCompleted() {}
        };
        // the whole COUNTERS table (every port, queue and PG hash) at the fastest rate: tens of KB per sample; on a
        // connection of its own, as another collector would be (an unread HTTP/2 stream holds its connection's window)
        final ManagedChannel slowChannel = NettyChannelBuilder.forAddress("127.0.0.1", server.port())
                .usePlaintext()
                .build();
        final StreamObserver<SubscribeRequest> slowCall =
                gNMIGrpc.newStub(slowChannel).subscribe(stalled);
        slowCall.onNext(streamRequest("COUNTERS_DB", SubscriptionMode.SAMPLE, 0, path("COUNTERS")));
        final Recorder fast = new Recorder();
        gNMIGrpc.newStub(channel)
                .subscribe(fast)
                .onNext(streamRequest(
                        "COUNTERS_DB", SubscriptionMode.SAMPLE, 100_000_000, path("COUNTERS", "Ethernet0")));
        fast.response();
        assertThat(fast.response().getSyncResponse()).isTrue();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (server.service().coalescedUpdates() < 5 && System.nanoTime() < deadline) {
            fast.response(); // the reading client keeps getting its samples meanwhile
        }
        assertThat(server.service().coalescedUpdates()).isGreaterThanOrEqualTo(5);
        assertThat(slow).hasSize(1);
        final long sampled = server.service().coalescedUpdates();
        for (int i = 0; i < 5; i++) {
            assertThat(octets(fast.response())).isPositive();
        }
        assertThat(server.service().coalescedUpdates()).isGreaterThan(sampled);
        slowChannel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void shouldSuppressRedundantSamplesButKeepTheHeartbeatAndSendADeleteWhenAPathVanishes() throws Exception {
        frozen = true;
        start();
        final Recorder sampled = new Recorder();
        final SubscribeRequest.Builder request =
                streamRequest("COUNTERS_DB", SubscriptionMode.SAMPLE, 100_000_000, path("COUNTERS", "Ethernet0"))
                        .toBuilder();
        request.getSubscribeBuilder()
                .getSubscriptionBuilder(0)
                .setSuppressRedundant(true)
                .setHeartbeatInterval(500_000_000L);
        gNMIGrpc.newStub(channel).subscribe(sampled).onNext(request.build());
        final long first = sampled.response().getUpdate().getTimestamp();
        assertThat(sampled.response().getSyncResponse()).isTrue();
        // frozen counters: nothing every 100 ms, one heartbeat after 500 ms with the same value
        final SubscribeResponse heartbeat = sampled.response();
        assertThat(heartbeat.getUpdate().getTimestamp() - first).isGreaterThanOrEqualTo(450_000_000L);
        assertThat(octets(heartbeat)).isEqualTo(scale.get() * 1000);

        final Recorder config = new Recorder();
        gNMIGrpc.newStub(channel)
                .subscribe(config)
                .onNext(streamRequest("CONFIG_DB", SubscriptionMode.ON_CHANGE, 0, path("PFC_WD", "Ethernet0")));
        assertThat(object(config.response().getUpdate().getUpdate(0).getVal())).containsEntry("action", "drop");
        assertThat(config.response().getSyncResponse()).isTrue();
        withoutWatchdogConfig = true;
        final SubscribeResponse deleted = config.response();
        assertThat(deleted.getUpdate().getUpdateCount()).isZero();
        assertThat(deleted.getUpdate().getDeleteList()).containsExactly(path("PFC_WD", "Ethernet0"));
    }
}
