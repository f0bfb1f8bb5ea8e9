package io.asicemu.switchd;

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

/**
 * A test controller over the generated grpc-java client: one arbitration stream and blocking Writes (switchd's network
 * tests and, through switchd's test jar, lab-tests' fabric).
 */
public final class P4RuntimeClient implements AutoCloseable {
    public static final int IPV4_TABLE = 0x02000003;
    public static final int RIF_TABLE = 0x02000005;
    public static final int NEIGHBOR_TABLE = 0x02000006;
    public static final int NEXTHOP_TABLE = 0x02000007;
    public static final int SET_NEXTHOP_ID = 0x01000005;
    public static final int SET_PORT_AND_SRC_MAC = 0x01000007;
    public static final int SET_DST_MAC = 0x01000008;
    public static final int SET_IP_NEXTHOP = 0x01000009;

    final ManagedChannel channel;
    final P4RuntimeGrpc.P4RuntimeBlockingStub stub;
    final LinkedBlockingQueue<StreamMessageResponse> received = new LinkedBlockingQueue<>();
    private final StreamObserver<StreamMessageRequest> stream;
    private final long deviceId;
    private long electionId;

    public P4RuntimeClient(final String host, final int port, final long deviceId) {
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
    public int arbitrate(final long election) throws InterruptedException {
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

    public void write(final Update... updates) {
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

    public static ByteString v(final long value) {
        final byte[] raw = BigInteger.valueOf(value).toByteArray();
        return raw.length > 1 && raw[0] == 0 ? ByteString.copyFrom(raw, 1, raw.length - 1) : ByteString.copyFrom(raw);
    }

    public static long mac(final String text) {
        return Long.parseLong(text.replace(":", ""), 16);
    }

    public static long ipv4(final String dotted) {
        long value = 0;
        for (final String part : dotted.split("\\.")) {
            value = value << 8 | Integer.parseInt(part);
        }
        return value;
    }

    public static FieldMatch exact(final int id, final long value) {
        return FieldMatch.newBuilder()
                .setFieldId(id)
                .setExact(FieldMatch.Exact.newBuilder().setValue(v(value)))
                .build();
    }

    public static TableAction action(final int id, final long... params) {
        final Action.Builder b = Action.newBuilder().setActionId(id);
        for (int i = 0; i < params.length; i++) {
            b.addParamsBuilder().setParamId(i + 1).setValue(v(params[i]));
        }
        return TableAction.newBuilder().setAction(b).build();
    }

    public static Update update(final Update.Type type, final TableEntry.Builder e) {
        return Update.newBuilder()
                .setType(type)
                .setEntity(Entity.newBuilder().setTableEntry(e))
                .build();
    }

    public static Update routerInterface(final long id, final int port, final long mac) {
        return update(
                Update.Type.INSERT,
                TableEntry.newBuilder()
                        .setTableId(RIF_TABLE)
                        .addMatch(exact(1, id))
                        .setAction(action(SET_PORT_AND_SRC_MAC, port, mac)));
    }

    public static Update neighbor(final long rif, final long ip, final long mac) {
        return update(
                Update.Type.INSERT,
                TableEntry.newBuilder()
                        .setTableId(NEIGHBOR_TABLE)
                        .addMatch(exact(1, rif))
                        .addMatch(exact(2, ip))
                        .setAction(action(SET_DST_MAC, mac)));
    }

    public static Update nextHop(final long id, final long rif, final long ip) {
        return update(
                Update.Type.INSERT,
                TableEntry.newBuilder()
                        .setTableId(NEXTHOP_TABLE)
                        .addMatch(exact(1, id))
                        .setAction(action(SET_IP_NEXTHOP, rif, ip)));
    }

    public static TableEntry.Builder route(final long address, final int length) {
        return TableEntry.newBuilder()
                .setTableId(IPV4_TABLE)
                .addMatch(exact(1, 0))
                .addMatch(FieldMatch.newBuilder()
                        .setFieldId(2)
                        .setLpm(FieldMatch.LPM.newBuilder().setValue(v(address)).setPrefixLen(length)));
    }

    public static Update route(final Update.Type type, final long address, final int length, final long nextHop) {
        final TableEntry.Builder e = route(address, length);
        if (type != Update.Type.DELETE) {
            e.setAction(action(SET_NEXTHOP_ID, nextHop));
        }
        return update(type, e);
    }

    /**
     * @param counterId a P4 counter's id.
     * @param index the cell.
     * @return {packets, bytes} as a P4Runtime Read of the counter entry returns them.
     */
    public long[] readCounter(final int counterId, final long index) {
        final var request = p4.v1.P4RuntimeOuterClass.ReadRequest.newBuilder()
                .setDeviceId(deviceId)
                .addEntities(Entity.newBuilder()
                        .setCounterEntry(p4.v1.P4RuntimeOuterClass.CounterEntry.newBuilder()
                                .setCounterId(counterId)
                                .setIndex(p4.v1.P4RuntimeOuterClass.Index.newBuilder()
                                        .setIndex(index))))
                .build();
        final var responses = stub.withDeadlineAfter(20, TimeUnit.SECONDS).read(request);
        while (responses.hasNext()) {
            for (final Entity e : responses.next().getEntitiesList()) {
                if (e.hasCounterEntry() && e.getCounterEntry().getIndex().getIndex() == index) {
                    final var data = e.getCounterEntry().getData();
                    return new long[] {data.getPacketCount(), data.getByteCount()};
                }
            }
        }
        throw new AssertionError("no counter entry " + counterId + "[" + index + "] in the Read answer");
    }

    @Override
    public void close() throws InterruptedException {
        stream.onCompleted();
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
    }
}
