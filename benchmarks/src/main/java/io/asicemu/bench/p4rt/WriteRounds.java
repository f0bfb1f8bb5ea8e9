package io.asicemu.bench.p4rt;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * Footprint under table churn (not a JMH benchmark): a P4Runtime controller that writes {@code entries} IPv4 routes
 * (/24s, batches of 1000) into a running {@code asic-emu run}, deletes them, and repeats for {@code rounds}, printing
 * the switch process's VmRSS / VmHWM (from {@code /proc/<pid>/status}) after every insert and delete phase. Bounded
 * memory means the RSS after round 4 is not above round 1's.
 * <p>
 * Usage: {@code WriteRounds host port switchPid [rounds=4] [entries=100000] [rifPortIndex=0] [keep]} (the port must
 * have no configured router interface; {@code keep} leaves the last round's routes in place, to measure live data).
 */
public final class WriteRounds {
    private static final int IPV4 = 0x02000003;
    private static final int SET_NEXTHOP = 0x01000005;
    private static final int RIF_TABLE = 0x02000005;
    private static final int NEIGHBOR_TABLE = 0x02000006;
    private static final int NEXTHOP_TABLE = 0x02000007;
    private static final int SET_PORT_AND_SRC_MAC = 0x01000007;
    private static final int SET_DST_MAC = 0x01000008;
    private static final int SET_IP_NEXTHOP = 0x01000009;
    private static final long DEVICE = 1;
    private static final int BATCH = 1000;

    private WriteRounds() {}

    /**
     * @param args host, port, the switch's pid, rounds, entries per round, the router interface's port index, keep.
     * @throws Exception if the switch refuses a write or cannot be reached.
     */
    public static void main(final String[] args) throws Exception {
        final String host = args[0];
        final int port = Integer.parseInt(args[1]);
        final long pid = Long.parseLong(args[2]);
        final int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 4;
        final int entries = args.length > 4 ? Integer.parseInt(args[4]) : 100_000;
        final int rifPort = args.length > 5 ? Integer.parseInt(args[5]) : 0;
        final boolean keepLast = args.length > 6 && args[6].equals("keep");
        final ManagedChannel channel =
                NettyChannelBuilder.forAddress(host, port).usePlaintext().build();
        final P4RuntimeGrpc.P4RuntimeBlockingStub stub = P4RuntimeGrpc.newBlockingStub(channel);
        final LinkedBlockingQueue<StreamMessageResponse> arbitration = new LinkedBlockingQueue<>();
        final StreamObserver<StreamMessageRequest> stream = P4RuntimeGrpc.newStub(channel)
                .streamChannel(new StreamObserver<>() {
                    @Override
                    public void onNext(final StreamMessageResponse value) {
                        arbitration.add(value);
                    }

                    @Override
                    public void onError(final Throwable t) {
                        System.err.println("stream: " + t);
                    }

                    @Override
                    public void onCompleted() {}
                });
        stream.onNext(StreamMessageRequest.newBuilder()
                .setArbitration(MasterArbitrationUpdate.newBuilder()
                        .setDeviceId(DEVICE)
                        .setElectionId(Uint128.newBuilder().setLow(1)))
                .build());
        if (arbitration.poll(10, TimeUnit.SECONDS) == null) {
            throw new IllegalStateException("no arbitration answer");
        }
        write(
                stub,
                request()
                        .addUpdates(entry(RIF_TABLE, 1, SET_PORT_AND_SRC_MAC, rifPort, 0x020000000101L))
                        .addUpdates(entry(NEIGHBOR_TABLE, 1, SET_DST_MAC, 0x020000000202L))
                        .addUpdates(entry(NEXTHOP_TABLE, 1, SET_IP_NEXTHOP, 1, 0x0A0A0A02L))
                        .build());
        System.out.println("before: " + memory(pid));
        for (int round = 1; round <= rounds; round++) {
            final long start = System.nanoTime();
            for (int i = 0; i < entries; i += BATCH) {
                write(stub, batch(Update.Type.INSERT, i, Math.min(BATCH, entries - i)));
            }
            final long inserted = System.nanoTime();
            System.out.printf(
                    "round %d: %d inserted in %.1f s, %s%n", round, entries, (inserted - start) / 1e9, memory(pid));
            if (keepLast && round == rounds) {
                break;
            }
            for (int i = 0; i < entries; i += BATCH) {
                write(stub, batch(Update.Type.DELETE, i, Math.min(BATCH, entries - i)));
            }
            System.out.printf(
                    "round %d: %d deleted in %.1f s, %s%n",
                    round, entries, (System.nanoTime() - inserted) / 1e9, memory(pid));
        }
        stream.onCompleted();
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    /** Writes, or fails naming the first refused update's canonical code and message. */
    private static void write(final P4RuntimeGrpc.P4RuntimeBlockingStub stub, final WriteRequest request) {
        try {
            stub.write(request);
        } catch (final io.grpc.StatusRuntimeException e) {
            final com.google.rpc.Status status = io.grpc.protobuf.StatusProto.fromThrowable(e);
            if (status != null) {
                for (final com.google.protobuf.Any detail : status.getDetailsList()) {
                    try {
                        final p4.v1.P4RuntimeOuterClass.Error error =
                                detail.unpack(p4.v1.P4RuntimeOuterClass.Error.class);
                        if (error.getCanonicalCode() != 0) {
                            throw new IllegalStateException(
                                    "refused: " + error.getCanonicalCode() + " " + error.getMessage(), e);
                        }
                    } catch (final com.google.protobuf.InvalidProtocolBufferException notAnError) {
                        break;
                    }
                }
            }
            throw e;
        }
    }

    private static String memory(final long pid) throws IOException {
        final StringBuilder b = new StringBuilder();
        for (final String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS") || line.startsWith("VmHWM")) {
                b.append(line.replaceAll("\\s+", " ")).append("; ");
            }
        }
        return b.toString();
    }

    private static WriteRequest.Builder request() {
        return WriteRequest.newBuilder()
                .setDeviceId(DEVICE)
                .setElectionId(Uint128.newBuilder().setLow(1));
    }

    private static WriteRequest batch(final Update.Type type, final int from, final int count) {
        final WriteRequest.Builder b = request();
        for (int i = from; i < from + count; i++) {
            final long prefix = 0x0B000000L + ((long) i << 8);
            b.addUpdates(Update.newBuilder()
                    .setType(type)
                    .setEntity(Entity.newBuilder()
                            .setTableEntry(TableEntry.newBuilder()
                                    .setTableId(IPV4)
                                    .addMatch(FieldMatch.newBuilder()
                                            .setFieldId(1)
                                            .setExact(FieldMatch.Exact.newBuilder()
                                                    .setValue(canonical(0))))
                                    .addMatch(FieldMatch.newBuilder()
                                            .setFieldId(2)
                                            .setLpm(FieldMatch.LPM
                                                    .newBuilder()
                                                    .setValue(canonical(prefix))
                                                    .setPrefixLen(24)))
                                    .setAction(TableAction.newBuilder()
                                            .setAction(Action.newBuilder()
                                                    .setActionId(SET_NEXTHOP)
                                                    .addParams(Action.Param.newBuilder()
                                                            .setParamId(1)
                                                            .setValue(canonical(1))))))));
        }
        return b.build();
    }

    private static Update entry(final int table, final long key, final int action, final long... params) {
        final Action.Builder a = Action.newBuilder().setActionId(action);
        for (int i = 0; i < params.length; i++) {
            a.addParams(Action.Param.newBuilder().setParamId(i + 1).setValue(canonical(params[i])));
        }
        final TableEntry.Builder e = TableEntry.newBuilder()
                .setTableId(table)
                .addMatch(FieldMatch.newBuilder()
                        .setFieldId(1)
                        .setExact(FieldMatch.Exact.newBuilder().setValue(canonical(key))));
        if (table == NEIGHBOR_TABLE) {
            e.addMatch(FieldMatch.newBuilder()
                    .setFieldId(2)
                    .setExact(FieldMatch.Exact.newBuilder().setValue(canonical(0x0A0A0A02L))));
        }
        return Update.newBuilder()
                .setType(Update.Type.INSERT)
                .setEntity(Entity.newBuilder()
                        .setTableEntry(e.setAction(TableAction.newBuilder().setAction(a))))
                .build();
    }

    private static ByteString canonical(final long v) {
        final byte[] raw = BigInteger.valueOf(v).toByteArray();
        return raw.length > 1 && raw[0] == 0 ? ByteString.copyFrom(raw, 1, raw.length - 1) : ByteString.copyFrom(raw);
    }
}
