package io.asicemu.p4rt.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.WriteOp;
import io.asicemu.p4rt.codec.CodecException;
import io.asicemu.p4rt.codec.EntityCodec;
import io.asicemu.p4rt.codec.WireWriteRequest;
import io.asicemu.p4rt.info.ActionInfo;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.p4rt.info.MatchFieldInfo;
import io.asicemu.p4rt.info.ParamInfo;
import io.asicemu.p4rt.info.TableInfo;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Test;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.CounterEntry;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * {@link WriteMarshaller} against the generated marshaller on random Write requests of every shape, valid or not, and
 * on malformed bytes (truncated, a byte changed, messages concatenated, which protobuf merges): both must fail alike
 * or parse to the same request, and every update read from the wire must decode ({@link EntityCodec}) to the same
 * entity or the same error as its protobuf form.
 */
class WriteMarshallerDifferentialTest {
    private static final MethodDescriptor.Marshaller<WriteRequest> GENERATED =
            P4RuntimeGrpc.getWriteMethod().getRequestMarshaller();
    private static final EntityCodec CODEC = new EntityCodec(FixedPipelineInfo.model());
    private static final List<TableInfo> TABLES =
            new ArrayList<>(FixedPipelineInfo.model().tables());

    /** A gRPC message stream: it knows its length, as the transport's do. */
    private static final class KnownLengthStream extends ByteArrayInputStream implements KnownLength {
        KnownLengthStream(final byte[] bytes) {
            super(bytes);
        }
    }

    @Property(tries = 3000)
    void shouldParseAndDecodeAsTheGeneratedParserWhenGivenAnyWrite(@ForAll final Random random) {
        final byte[] bytes = mangle(random, request(random).toByteArray(), random);
        Statistics.collect(compare(bytes, random.nextBoolean()));
        // the comparison means something only if each path is taken often enough
        Statistics.coverage(c -> {
            c.check("wire").percentage(p -> p >= 10);
            c.check("wire, decoded").percentage(p -> p >= 10); // a valid update compared
            c.check("generated").percentage(p -> p >= 5);
            c.check("malformed").percentage(p -> p >= 2);
        });
    }

    @Test
    void shouldReadTheCommonRouteShapeFromTheWire() throws Exception {
        final WriteRequest route = WriteRequest.newBuilder()
                .setDeviceId(1)
                .setElectionId(Uint128.newBuilder().setLow(1))
                .addUpdates(Update.newBuilder()
                        .setType(Update.Type.INSERT)
                        .setEntity(Entity.newBuilder()
                                .setTableEntry(TableEntry.newBuilder()
                                        .setTableId(0x02000003)
                                        .addMatch(FieldMatch.newBuilder()
                                                .setFieldId(1)
                                                .setExact(FieldMatch.Exact.newBuilder()
                                                        .setValue(ByteString.copyFrom(new byte[] {0}))))
                                        .addMatch(FieldMatch.newBuilder()
                                                .setFieldId(2)
                                                .setLpm(FieldMatch.LPM
                                                        .newBuilder()
                                                        .setValue(ByteString.copyFrom(new byte[] {10, 0, 1, 0}))
                                                        .setPrefixLen(24)))
                                        .setAction(TableAction.newBuilder()
                                                .setAction(Action.newBuilder()
                                                        .setActionId(0x01000005)
                                                        .addParams(Action.Param.newBuilder()
                                                                .setParamId(1)
                                                                .setValue(ByteString.copyFrom(new byte[] {1}))))))))
                .build();
        final WriteCall call = new WriteMarshaller().parse(new KnownLengthStream(route.toByteArray()));
        assertThat(call.wire()).as("read from the wire").isNotNull();
        assertThat(call.wire().updateCount()).isEqualTo(1);
        assertThat(WriteRequest.parseFrom(new WriteMarshaller().stream(call)))
                .as("streamed again as read")
                .isEqualTo(route);
        assertThat(compare(route.toByteArray(), true)).isEqualTo("wire, decoded");

        final WriteRequest withIdle = route.toBuilder()
                .setUpdates(
                        0,
                        route.getUpdates(0).toBuilder()
                                .setEntity(Entity.newBuilder()
                                        .setTableEntry(route.getUpdates(0).getEntity().getTableEntry().toBuilder()
                                                .setIdleTimeoutNs(5))))
                .build();
        assertThat(new WriteMarshaller()
                        .parse(new KnownLengthStream(withIdle.toByteArray()))
                        .request())
                .as("an idle timeout is the generated parser's")
                .isEqualTo(withIdle);
        final byte[] twice = concat(route.toByteArray(), route.toByteArray());
        assertThat(new WriteMarshaller().parse(new KnownLengthStream(twice)).request())
                .as("a merged request is the generated parser's")
                .isEqualTo(WriteRequest.parseFrom(ByteString.copyFrom(twice)));
    }

    /** @return the path taken: wire (and whether an update decoded), generated or malformed. */
    private static String compare(final byte[] bytes, final boolean knownLength) {
        WriteRequest expected = null;
        StatusRuntimeException expectedError = null;
        try {
            expected = GENERATED.parse(new ByteArrayInputStream(bytes));
        } catch (final StatusRuntimeException e) {
            expectedError = e;
        }
        WriteCall call = null;
        StatusRuntimeException error = null;
        try {
            final InputStream in = knownLength ? new KnownLengthStream(bytes) : new ByteArrayInputStream(bytes);
            call = new WriteMarshaller().parse(in);
        } catch (final StatusRuntimeException e) {
            error = e;
        }
        if (expectedError != null) {
            assertThat(error).as("fails as the generated parser does").isNotNull();
            assertThat(error.getStatus().getCode())
                    .isEqualTo(expectedError.getStatus().getCode());
            assertThat(error.getStatus().getDescription())
                    .isEqualTo(expectedError.getStatus().getDescription());
            assertThat(error.getCause()).hasSameClassAs(expectedError.getCause());
            return "malformed";
        }
        assertThat(error).as("parses as the generated parser does").isNull();
        if (call.wire() == null) {
            assertThat(call.request()).isEqualTo(expected);
            return "generated";
        }
        final WireWriteRequest wire = call.wire();
        assertThat(wire.header()).isEqualTo(expected.toBuilder().clearUpdates().build());
        assertThat(wire.updateCount()).isEqualTo(expected.getUpdatesCount());
        boolean decoded = false;
        for (int i = 0; i < wire.updateCount(); i++) {
            final Update u = expected.getUpdates(i);
            assertThat(u.getEntity().getEntityCase()).isEqualTo(Entity.EntityCase.TABLE_ENTRY);
            assertThat(wire.tableId(i)).isEqualTo(u.getEntity().getTableEntry().getTableId());
            assertThat(wire.type(i)).isEqualTo(u.getTypeValue());
            decoded |= sameDecode(u, wire, i);
        }
        return decoded ? "wire, decoded" : "wire";
    }

    /** @return whether the update is valid. */
    private static boolean sameDecode(final Update u, final WireWriteRequest wire, final int i) {
        WriteOp expected = null;
        CodecException expectedError = null;
        try {
            expected = CODEC.decodeUpdate(u);
        } catch (final CodecException e) {
            expectedError = e;
        }
        try {
            final WriteOp op = CODEC.decodeUpdate(wire, i);
            assertThat(expectedError).as("the protobuf form fails too").isNull();
            assertThat(op.kind()).isEqualTo(expected.kind());
            final P4Entity.TableEntry a = (P4Entity.TableEntry) expected.entity();
            final P4Entity.TableEntry b = (P4Entity.TableEntry) op.entity();
            assertThat(b.key()).isEqualTo(a.key());
            assertThat(b.action()).isEqualTo(a.action());
            assertThat(b.isDefault()).isEqualTo(a.isDefault());
            assertThat(b.idleTimeoutNs()).isEqualTo(a.idleTimeoutNs());
            assertThat(Arrays.equals(b.metadata(), a.metadata())).isTrue();
            assertThat(b.meter()).isEqualTo(a.meter());
            assertThat(b.counter()).isEqualTo(a.counter());
            assertThat(b.sinceLastHitNs()).isEqualTo(a.sinceLastHitNs());
            return true;
        } catch (final CodecException e) {
            assertThat(expectedError)
                    .as("the protobuf form fails too: " + e.getMessage())
                    .isNotNull();
            assertThat(e.status()).isEqualTo(expectedError.status());
            assertThat(e.getMessage()).isEqualTo(expectedError.getMessage());
            return false;
        }
    }

    // ---- random requests: mostly the common shape, with its edge values, and some of every other shape
    // ---------------

    private static WriteRequest request(final Random r) {
        final WriteRequest.Builder b = WriteRequest.newBuilder();
        if (r.nextInt(4) > 0) {
            b.setDeviceId(r.nextInt(3));
        }
        if (r.nextInt(3) == 0) {
            b.setRole(r.nextBoolean() ? "sdn" : "r\u00e9le");
        }
        if (r.nextInt(4) > 0) {
            b.setElectionId(Uint128.newBuilder().setHigh(r.nextInt(2)).setLow(r.nextInt(5)));
        }
        if (r.nextInt(3) == 0) {
            b.setAtomicityValue(r.nextInt(4)); // 3 is not a known atomicity
        }
        final int n = r.nextInt(6);
        for (int i = 0; i < n; i++) {
            b.addUpdates(update(r));
        }
        return b.build();
    }

    private static Update update(final Random r) {
        if (r.nextInt(3) == 0) {
            return validUpdate(r);
        }
        final Update.Builder u = Update.newBuilder().setTypeValue(r.nextInt(10) == 0 ? r.nextInt(6) : 1 + r.nextInt(3));
        if (r.nextInt(20) == 0) {
            return u.build(); // no entity
        }
        if (r.nextInt(15) == 0) {
            return u.setEntity(Entity.newBuilder()
                            .setCounterEntry(CounterEntry.newBuilder().setCounterId(r.nextInt(5))))
                    .build();
        }
        return u.setEntity(Entity.newBuilder().setTableEntry(tableEntry(r))).build();
    }

    /** A valid route-like update: a direct table, every field of its kind with a small value, an entry action. */
    private static Update validUpdate(final Random r) {
        final List<TableInfo> direct = new ArrayList<>();
        for (final TableInfo t : TABLES) {
            if (t.implementationId() == 0 && !t.isConst() && !t.fields().isEmpty()) {
                direct.add(t);
            }
        }
        final TableInfo t = direct.get(r.nextInt(direct.size()));
        final TableEntry.Builder e = TableEntry.newBuilder().setTableId(t.id());
        final ByteString one = ByteString.copyFrom(new byte[] {1});
        for (final MatchFieldInfo f : t.fields()) {
            final FieldMatch.Builder m = FieldMatch.newBuilder().setFieldId(f.id());
            switch (f.kind()) {
                case EXACT -> m.setExact(FieldMatch.Exact.newBuilder().setValue(one));
                case LPM ->
                    m.setLpm(FieldMatch.LPM
                            .newBuilder()
                            .setValue(ByteString.copyFrom(new byte[] {0}))
                            .setPrefixLen(1 + r.nextInt(f.bitwidth())));
                case TERNARY ->
                    m.setTernary(FieldMatch.Ternary.newBuilder().setValue(one).setMask(one));
                case RANGE ->
                    m.setRange(FieldMatch.Range.newBuilder().setLow(one).setHigh(one));
                case OPTIONAL -> m.setOptional(FieldMatch.Optional.newBuilder().setValue(one));
            }
            e.addMatch(m);
        }
        if (t.needsPriority()) {
            e.setPriority(1 + r.nextInt(100));
        }
        final List<Integer> refs = new ArrayList<>();
        t.actionRefs().forEach((id, scope) -> {
            if (scope.allowsEntry()) {
                refs.add(id);
            }
        });
        final ActionInfo info = FixedPipelineInfo.model().action(refs.get(r.nextInt(refs.size())));
        final Action.Builder a = Action.newBuilder().setActionId(info.id());
        for (final ParamInfo p : info.params()) {
            a.addParams(Action.Param.newBuilder().setParamId(p.id()).setValue(one));
        }
        if (r.nextBoolean()) {
            e.setMetadata(bytes(r, 1 + r.nextInt(3)));
        }
        return Update.newBuilder()
                .setTypeValue(1 + r.nextInt(3))
                .setEntity(Entity.newBuilder()
                        .setTableEntry(e.setAction(TableAction.newBuilder().setAction(a))))
                .build();
    }

    private static TableEntry tableEntry(final Random r) {
        final TableInfo t = TABLES.get(r.nextInt(TABLES.size()));
        final TableEntry.Builder e = TableEntry.newBuilder().setTableId(r.nextInt(20) == 0 ? r.nextInt(9) : t.id());
        for (final MatchFieldInfo f : t.fields()) {
            if (r.nextInt(6) > 0) {
                e.addMatch(match(r, f));
            }
        }
        if (r.nextInt(15) == 0 && !t.fields().isEmpty()) {
            e.addMatch(match(r, t.fields().get(0))); // twice
        }
        if (r.nextInt(15) == 0) {
            e.addMatch(FieldMatch.newBuilder().setFieldId(r.nextInt(40))); // no match type or an unknown field
        }
        if (r.nextInt(3) > 0) {
            e.setPriority(r.nextInt(4) == 0 ? r.nextInt(3) - 1 : 10);
        }
        if (r.nextInt(5) > 0) {
            e.setAction(tableAction(r, t));
        }
        if (r.nextInt(4) == 0) {
            e.setMetadata(bytes(r, r.nextInt(4)));
        }
        switch (r.nextInt(25)) {
            case 0 -> e.setIdleTimeoutNs(r.nextInt(3) - 1);
            case 1 -> e.setIsDefaultAction(true);
            case 2 -> e.setIsConst(true);
            case 3 -> e.setTimeSinceLastHit(TableEntry.IdleTimeout.newBuilder().setElapsedNs(1));
            default -> {}
        }
        return e.build();
    }

    private static FieldMatch match(final Random r, final MatchFieldInfo f) {
        final FieldMatch.Builder m = FieldMatch.newBuilder().setFieldId(f.id());
        final int kind = r.nextInt(8) == 0 ? r.nextInt(5) : f.kind().ordinal();
        final int width = (f.bitwidth() + 7) / 8;
        switch (kind) {
            case 0 -> m.setExact(FieldMatch.Exact.newBuilder().setValue(value(r, width)));
            case 1 ->
                m.setLpm(FieldMatch.LPM
                        .newBuilder()
                        .setValue(r.nextInt(4) == 0 ? value(r, width) : ByteString.copyFrom(new byte[width]))
                        .setPrefixLen(r.nextInt(4) == 0 ? r.nextInt(f.bitwidth() + 3) - 1 : Math.min(8, f.bitwidth())));
            case 2 ->
                m.setTernary(FieldMatch.Ternary.newBuilder()
                        .setValue(value(r, width))
                        .setMask(value(r, width)));
            case 3 ->
                m.setRange(FieldMatch.Range.newBuilder().setLow(value(r, width)).setHigh(value(r, width)));
            default -> m.setOptional(FieldMatch.Optional.newBuilder().setValue(value(r, width)));
        }
        return m.build();
    }

    private static TableAction tableAction(final Random r, final TableInfo t) {
        switch (r.nextInt(12)) {
            case 0:
                return TableAction.newBuilder().setActionProfileMemberId(1).build();
            case 1:
                return TableAction.newBuilder().build(); // no action
            default:
                break;
        }
        final List<Integer> refs = new ArrayList<>(t.actionRefs().keySet());
        final int id = refs.isEmpty() || r.nextInt(15) == 0 ? r.nextInt(9) : refs.get(r.nextInt(refs.size()));
        final Action.Builder a = Action.newBuilder().setActionId(id);
        final ActionInfo info = FixedPipelineInfo.model().action(id);
        if (info != null) {
            for (final ParamInfo p : info.params()) {
                if (r.nextInt(10) > 0) {
                    a.addParams(
                            Action.Param.newBuilder().setParamId(p.id()).setValue(value(r, (p.bitwidth() + 7) / 8)));
                }
            }
        }
        if (r.nextInt(10) == 0) {
            a.addParams(Action.Param.newBuilder().setParamId(r.nextInt(4)).setValue(bytes(r, 1)));
        }
        return TableAction.newBuilder().setAction(a).build();
    }

    /** Mostly a value of the field's width; sometimes empty, too wide, padded or zero. */
    private static ByteString value(final Random r, final int width) {
        return switch (r.nextInt(10)) {
            case 0 -> ByteString.EMPTY;
            case 1 -> bytes(r, width + 1);
            case 2 -> ByteString.copyFrom(new byte[] {0});
            default -> bytes(r, Math.max(1, r.nextInt(width + 1)));
        };
    }

    private static ByteString bytes(final Random r, final int n) {
        final byte[] b = new byte[n];
        r.nextBytes(b);
        return ByteString.copyFrom(b);
    }

    /** Mostly as serialized; else truncated, a byte changed, or followed by another request (protobuf merges them). */
    private static byte[] mangle(final Random r, final byte[] bytes, final Random more) {
        switch (r.nextInt(8)) {
            case 0:
                return bytes.length == 0 ? bytes : Arrays.copyOf(bytes, r.nextInt(bytes.length));
            case 1: {
                if (bytes.length == 0) {
                    return bytes;
                }
                final byte[] b = bytes.clone();
                b[r.nextInt(b.length)] = (byte) r.nextInt(256);
                return b;
            }
            case 2:
                return concat(bytes, request(more).toByteArray());
            case 3: {
                // one update given as two Update messages in one field: protobuf merges them into one
                final Update u = update(r);
                final byte[] merged = concat(u.toByteArray(), update(r).toByteArray());
                final ByteArrayOutputStream out = new ByteArrayOutputStream();
                out.writeBytes(bytes);
                out.write(4 << 3 | 2);
                int len = merged.length;
                while ((len & ~0x7f) != 0) {
                    out.write((len & 0x7f) | 0x80);
                    len >>>= 7;
                }
                out.write(len);
                out.writeBytes(merged);
                return out.toByteArray();
            }
            default:
                return bytes;
        }
    }

    private static byte[] concat(final byte[] a, final byte[] b) {
        final byte[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
