package io.asicemu.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.math.BigInteger;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/** A P4Runtime controller over the generated grpc-java client: one arbitration stream and blocking Writes. */
final class P4RuntimeClient implements AutoCloseable {
    static final int IPV4_TABLE = 0x02000003;
    static final int RIF_TABLE = 0x02000005;
    static final int NEIGHBOR_TABLE = 0x02000006;
    static final int NEXTHOP_TABLE = 0x02000007;
    static final int SET_NEXTHOP_ID = 0x01000005;
    static final int SET_PORT_AND_SRC_MAC = 0x01000007;
    static final int SET_DST_MAC = 0x01000008;
    static final int SET_IP_NEXTHOP = 0x01000009;

    final ManagedChannel channel;
    final P4RuntimeGrpc.P4RuntimeBlockingStub stub;
    final LinkedBlockingQueue<StreamMessageResponse> received = new LinkedBlockingQueue<>();
    private final StreamObserver<StreamMessageRequest> stream;
    private final long deviceId;
    private long electionId;

    P4RuntimeClient(final String host, final int port, final long deviceId) {
        this.deviceId = deviceId;
        this.channel = NettyChannelBuilder.forAddress(host, port).usePlaintext().build();
        this.stub = P4RuntimeGrpc.newBlockingStub(channel);
        this.stream = P4RuntimeGrpc.newStub(channel).streamChannel(new StreamObserver<>() {
            @Override
            public void onNext(final StreamMessageResponse value) {
                received.add(value);
            }

            @Override
            public void onError(final Throwable t) {}

            @Override
            public void onCompleted() {}
        });
    }

    /** @return the arbitration status code the server answered. */
    int arbitrate(final long election) throws InterruptedException {
        this.electionId = election;
        stream.onNext(StreamMessageRequest.newBuilder()
                .setArbitration(MasterArbitrationUpdate.newBuilder()
                        .setDeviceId(deviceId)
                        .setElectionId(Uint128.newBuilder().setLow(election)))
                .build());
        while (true) {
            final StreamMessageResponse r = received.poll(10, TimeUnit.SECONDS);
            assertThat(r).as("arbitration answer within 10 s").isNotNull();
            if (r.hasArbitration()) {
                return r.getArbitration().getStatus().getCode();
            }
        }
    }

    void write(final Update... updates) {
        final WriteRequest.Builder w = WriteRequest.newBuilder()
                .setDeviceId(deviceId)
                .setElectionId(Uint128.newBuilder().setLow(electionId))
                .setAtomicity(WriteRequest.Atomicity.DATAPLANE_ATOMIC);
        for (final Update u : updates) {
            w.addUpdates(u);
        }
        try {
            stub.withDeadlineAfter(20, TimeUnit.SECONDS).write(w.build());
        } catch (final io.grpc.StatusRuntimeException e) {
            // P4Runtime puts one p4.v1.Error per update in the status details: say what each one was
            final StringBuilder why = new StringBuilder(e.getMessage());
            final com.google.rpc.Status status = io.grpc.protobuf.StatusProto.fromThrowable(e);
            if (status != null) {
                for (final com.google.protobuf.Any detail : status.getDetailsList()) {
                    try {
                        why.append("\n  ")
                                .append(detail.unpack(p4.v1.P4RuntimeOuterClass.Error.class)
                                        .getMessage());
                    } catch (final com.google.protobuf.InvalidProtocolBufferException ignored) {
                        why.append("\n  ").append(detail.getTypeUrl());
                    }
                }
            }
            throw new AssertionError(why.toString(), e);
        }
    }

    static ByteString v(final long value) {
        final byte[] raw = BigInteger.valueOf(value).toByteArray();
        return raw.length > 1 && raw[0] == 0 ? ByteString.copyFrom(raw, 1, raw.length - 1) : ByteString.copyFrom(raw);
    }

    static long mac(final String text) {
        return Long.parseLong(text.replace(":", ""), 16);
    }

    static long ipv4(final String dotted) {
        long value = 0;
        for (final String part : dotted.split("\\.")) {
            value = value << 8 | Integer.parseInt(part);
        }
        return value;
    }

    static FieldMatch exact(final int id, final long value) {
        return FieldMatch.newBuilder()
                .setFieldId(id)
                .setExact(FieldMatch.Exact.newBuilder().setValue(v(value)))
                .build();
    }

    static TableAction action(final int id, final long... params) {
        final Action.Builder b = Action.newBuilder().setActionId(id);
        for (int i = 0; i < params.length; i++) {
            b.addParamsBuilder().setParamId(i + 1).setValue(v(params[i]));
        }
        return TableAction.newBuilder().setAction(b).build();
    }

    static Update update(final Update.Type type, final TableEntry.Builder e) {
        return Update.newBuilder()
                .setType(type)
                .setEntity(Entity.newBuilder().setTableEntry(e))
                .build();
    }

    static Update routerInterface(final long id, final int port, final long mac) {
        return update(
                Update.Type.INSERT,
                TableEntry.newBuilder()
                        .setTableId(RIF_TABLE)
                        .addMatch(exact(1, id))
                        .setAction(action(SET_PORT_AND_SRC_MAC, port, mac)));
    }

    static Update neighbor(final long rif, final long ip, final long mac) {
        return update(
                Update.Type.INSERT,
                TableEntry.newBuilder()
                        .setTableId(NEIGHBOR_TABLE)
                        .addMatch(exact(1, rif))
                        .addMatch(exact(2, ip))
                        .setAction(action(SET_DST_MAC, mac)));
    }

    static Update nextHop(final long id, final long rif, final long ip) {
        return update(
                Update.Type.INSERT,
                TableEntry.newBuilder()
                        .setTableId(NEXTHOP_TABLE)
                        .addMatch(exact(1, id))
                        .setAction(action(SET_IP_NEXTHOP, rif, ip)));
    }

    static TableEntry.Builder route(final long address, final int length) {
        return TableEntry.newBuilder()
                .setTableId(IPV4_TABLE)
                .addMatch(exact(1, 0))
                .addMatch(FieldMatch.newBuilder()
                        .setFieldId(2)
                        .setLpm(FieldMatch.LPM.newBuilder().setValue(v(address)).setPrefixLen(length)));
    }

    static Update route(final Update.Type type, final long address, final int length, final long nextHop) {
        final TableEntry.Builder e = route(address, length);
        if (type != Update.Type.DELETE) {
            e.setAction(action(SET_NEXTHOP_ID, nextHop));
        }
        return update(type, e);
    }

    @Override
    public void close() throws InterruptedException {
        stream.onCompleted();
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
    }
}
