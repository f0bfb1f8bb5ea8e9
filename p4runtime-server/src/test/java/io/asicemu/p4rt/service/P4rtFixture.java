package io.asicemu.p4rt.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.rpc.Status;
import io.asicemu.p4rt.adapter.StandaloneP4Backend;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate;
import p4.v1.P4RuntimeOuterClass.Role;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/** A real server on loopback (Netty) with two devices on in-process stores, and a generated gRPC client. */
final class P4rtFixture implements AutoCloseable {
    static final int IPV4 = 0x02000003;
    static final int L3_ADMIT = 0x02000001;
    static final int WCMP = 0x02000008;
    static final int ACL_IN = 0x0200000c;
    static final int L2_FDB = 0x02000009;
    static final int NEXTHOP_TABLE = 0x02000007;
    static final int SET_NEXTHOP = 0x01000005;
    static final int DROP = 0x01000002;
    static final int NO_ACTION = 0x01000001;
    static final int ADMIT = 0x01000004;
    static final int WCMP_SET_NEXTHOP = 0x0100000a;
    static final int ACL_TRAP = 0x01000010;
    static final int SELECTOR = 0x11000001;

    final List<int[]> packetsOut = new CopyOnWriteArrayList<>();
    /** The clock of device 1's idle timeouts, advanced by tests. */
    final java.util.concurrent.atomic.AtomicLong clockNs = new java.util.concurrent.atomic.AtomicLong(1_000_000_000L);

    final List<byte[]> payloadsOut = new CopyOnWriteArrayList<>();
    final StandaloneP4Backend store1;
    final StandaloneP4Backend store2;
    final P4RuntimeServer server;
    final ManagedChannel channel;
    final P4RuntimeGrpc.P4RuntimeBlockingStub blocking;
    final P4RuntimeGrpc.P4RuntimeStub async;

    P4rtFixture() throws Exception {
        store1 = new StandaloneP4Backend(
                FixedPipelineInfo.model(),
                32,
                (p, port, ingress) -> {
                    payloadsOut.add(p);
                    packetsOut.add(new int[] {port, ingress ? 1 : 0});
                },
                clockNs::get);
        store2 = new StandaloneP4Backend(FixedPipelineInfo.model(), 32, (p, port, ingress) -> {});
        final P4RuntimeService service = new P4RuntimeService();
        service.addDevice(new Device(1, store1));
        service.addDevice(new Device(2, store2));
        server = new P4RuntimeServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), service).start();
        channel = NettyChannelBuilder.forAddress(
                        InetAddress.getLoopbackAddress().getHostAddress(), server.port())
                .usePlaintext()
                .maxInboundMetadataSize(1024 * 1024)
                .build();
        blocking = P4RuntimeGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
        async = P4RuntimeGrpc.newStub(channel);
    }

    @Override
    public void close() throws Exception {
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
        server.close();
    }

    static Uint128 eid(final long low) {
        return Uint128.newBuilder().setLow(low).build();
    }

    static ByteString bytes(final int... b) {
        final byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = (byte) b[i];
        }
        return ByteString.copyFrom(out);
    }

    static ByteString value(final long v) {
        final byte[] raw = BigInteger.valueOf(v).toByteArray();
        return raw.length > 1 && raw[0] == 0 ? ByteString.copyFrom(raw, 1, raw.length - 1) : ByteString.copyFrom(raw);
    }

    static FieldMatch exact(final int id, final ByteString v) {
        return FieldMatch.newBuilder()
                .setFieldId(id)
                .setExact(FieldMatch.Exact.newBuilder().setValue(v))
                .build();
    }

    static FieldMatch lpm(final int id, final ByteString v, final int len) {
        return FieldMatch.newBuilder()
                .setFieldId(id)
                .setLpm(FieldMatch.LPM.newBuilder().setValue(v).setPrefixLen(len))
                .build();
    }

    static FieldMatch ternary(final int id, final ByteString v, final ByteString mask) {
        return FieldMatch.newBuilder()
                .setFieldId(id)
                .setTernary(FieldMatch.Ternary.newBuilder().setValue(v).setMask(mask))
                .build();
    }

    static Action action(final int id, final ByteString... params) {
        final Action.Builder b = Action.newBuilder().setActionId(id);
        for (int i = 0; i < params.length; i++) {
            b.addParamsBuilder().setParamId(i + 1).setValue(params[i]);
        }
        return b.build();
    }

    /** An IPv4 route vrf 0, 10.0.0.0/8 (or the given prefix) → set_nexthop_id(nh). */
    static TableEntry route(final ByteString prefix, final int len, final int nexthop) {
        return TableEntry.newBuilder()
                .setTableId(IPV4)
                .addMatch(exact(1, value(0)))
                .addMatch(lpm(2, prefix, len))
                .setAction(p4.v1.P4RuntimeOuterClass.TableAction.newBuilder()
                        .setAction(action(SET_NEXTHOP, value(nexthop))))
                .build();
    }

    static Update update(final Update.Type type, final TableEntry e) {
        return Update.newBuilder()
                .setType(type)
                .setEntity(Entity.newBuilder().setTableEntry(e))
                .build();
    }

    static Update update(final Update.Type type, final Entity e) {
        return Update.newBuilder().setType(type).setEntity(e).build();
    }

    static WriteRequest write(final long device, final long eid, final Update... updates) {
        return WriteRequest.newBuilder()
                .setDeviceId(device)
                .setElectionId(eid(eid))
                .addAllUpdates(List.of(updates))
                .build();
    }

    /** @return the rpc status of a failed call. */
    static Status statusOf(final StatusRuntimeException ex) {
        final Status s = StatusProto.fromThrowable(ex);
        return s != null
                ? s
                : Status.newBuilder().setCode(ex.getStatus().getCode().value()).build();
    }

    /** @return the canonical codes of the per-update p4.v1.Error list of a failed Write. */
    static List<Integer> updateCodes(final StatusRuntimeException ex) throws Exception {
        final Status s = StatusProto.fromThrowable(ex);
        assertThat(s.getCode()).isEqualTo(com.google.rpc.Code.UNKNOWN.getNumber());
        final java.util.ArrayList<Integer> out = new java.util.ArrayList<>();
        for (final com.google.protobuf.Any a : s.getDetailsList()) {
            out.add(a.unpack(p4.v1.P4RuntimeOuterClass.Error.class).getCanonicalCode());
        }
        return out;
    }

    /** A StreamChannel client that queues every message it receives. */
    final class Stream implements AutoCloseable {
        final LinkedBlockingQueue<StreamMessageResponse> received = new LinkedBlockingQueue<>();
        final LinkedBlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        final StreamObserver<StreamMessageRequest> out;

        Stream() {
            out = async.streamChannel(new StreamObserver<>() {
                @Override
                public void onNext(final StreamMessageResponse value) {
                    received.add(value);
                }

                @Override
                public void onError(final Throwable t) {
                    errors.add(t);
                }

                @Override
                public void onCompleted() {}
            });
        }

        Stream arbitrate(final long device, final String role, final Long electionId) {
            final MasterArbitrationUpdate.Builder b = MasterArbitrationUpdate.newBuilder()
                    .setDeviceId(device)
                    .setRole(Role.newBuilder().setName(role));
            if (electionId != null) {
                b.setElectionId(eid(electionId));
            }
            out.onNext(StreamMessageRequest.newBuilder().setArbitration(b).build());
            return this;
        }

        StreamMessageResponse next() throws InterruptedException {
            final StreamMessageResponse r = received.poll(10, TimeUnit.SECONDS);
            assertThat(r).as("a stream message within 10 s").isNotNull();
            return r;
        }

        /** @return the status code of the next arbitration notification. */
        int nextArbitrationCode() throws InterruptedException {
            final StreamMessageResponse r = next();
            assertThat(r.hasArbitration()).as("arbitration update, got %s", r).isTrue();
            return r.getArbitration().getStatus().getCode();
        }

        io.grpc.Status.Code endedWith() throws InterruptedException {
            final Throwable t = errors.poll(10, TimeUnit.SECONDS);
            assertThat(t).as("the stream ended with an error").isNotNull();
            return io.grpc.Status.fromThrowable(t).getCode();
        }

        @Override
        public void close() {
            out.onCompleted();
        }
    }

    /** Opens a stream, arbitrates and checks the first notification code. */
    Stream primary(final long device, final long electionId) throws InterruptedException {
        final Stream s = new Stream().arbitrate(device, "", electionId);
        assertThat(s.nextArbitrationCode()).isEqualTo(com.google.rpc.Code.OK.getNumber());
        return s;
    }
}
