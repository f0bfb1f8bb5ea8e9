package io.asicemu.p4rt.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.UpdateStatus;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import org.junit.jupiter.api.Test;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.ActionProfileGroup;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Update;

/** Decode then encode gives back the canonical entry (as ONOS's TableEntryEncoderTest); unknown v1.5 options refused. */
class EntityCodecTest {
    private final EntityCodec codec = new EntityCodec(FixedPipelineInfo.model());

    private static ByteString b(final int... v) {
        final byte[] out = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (byte) v[i];
        }
        return ByteString.copyFrom(out);
    }

    @Test
    void shouldRoundTripCanonicalAclEntryWhenDecodingThenEncoding() throws CodecException {
        final TableEntry acl = TableEntry.newBuilder()
                .setTableId(0x0200000c)
                .setPriority(7)
                .addMatch(FieldMatch.newBuilder()
                        .setFieldId(1)
                        .setOptional(FieldMatch.Optional.newBuilder().setValue(b(1))))
                .addMatch(FieldMatch.newBuilder()
                        .setFieldId(3)
                        .setTernary(FieldMatch.Ternary.newBuilder()
                                .setValue(b(0x08, 0x06))
                                .setMask(b(0xff, 0xff))))
                .addMatch(FieldMatch.newBuilder()
                        .setFieldId(13)
                        .setRange(FieldMatch.Range.newBuilder()
                                .setLow(b(0x12, 0xb7))
                                .setHigh(b(0x12, 0xb7))))
                .setAction(TableAction.newBuilder()
                        .setAction(Action.newBuilder()
                                .setActionId(0x01000012)
                                .addParams(
                                        Action.Param.newBuilder().setParamId(1).setValue(b(3)))))
                .build();
        final var op = codec.decodeUpdate(Update.newBuilder()
                .setType(Update.Type.INSERT)
                .setEntity(Entity.newBuilder().setTableEntry(acl))
                .build());
        assertThat(codec.encodeTableEntry((P4Entity.TableEntry) op.entity())).isEqualTo(acl);
    }

    @Test
    void shouldAnswerUnimplementedWhenGroupCarriesUnknownV15SelectionOptions() {
        final ActionProfileGroup group = ActionProfileGroup.newBuilder()
                .setActionProfileId(0x11000001)
                .setGroupId(1)
                .setUnknownFields(UnknownFieldSet.newBuilder()
                        .addField(
                                5,
                                UnknownFieldSet.Field.newBuilder().addVarint(2).build())
                        .build())
                .build();
        final var ex = catchThrowableOfType(
                CodecException.class,
                () -> codec.decodeUpdate(Update.newBuilder()
                        .setType(Update.Type.INSERT)
                        .setEntity(Entity.newBuilder().setActionProfileGroup(group))
                        .build()));
        assertThat(ex.status()).isEqualTo(UpdateStatus.UNIMPLEMENTED);
    }

    @Test
    void shouldRejectFullRangeAndInvertedRangeWhenDecodingRangeField() {
        for (final FieldMatch.Range range : new FieldMatch.Range[] {
            FieldMatch.Range.newBuilder().setLow(b(0)).setHigh(b(0xff, 0xff)).build(),
            FieldMatch.Range.newBuilder().setLow(b(9)).setHigh(b(8)).build()
        }) {
            final TableEntry e = TableEntry.newBuilder()
                    .setTableId(0x0200000c)
                    .setPriority(1)
                    .addMatch(FieldMatch.newBuilder().setFieldId(13).setRange(range))
                    .setAction(TableAction.newBuilder()
                            .setAction(Action.newBuilder().setActionId(0x0100000f)))
                    .build();
            final var ex = catchThrowableOfType(
                    CodecException.class,
                    () -> codec.decodeUpdate(Update.newBuilder()
                            .setType(Update.Type.INSERT)
                            .setEntity(Entity.newBuilder().setTableEntry(e))
                            .build()));
            assertThat(ex.status()).isEqualTo(UpdateStatus.INVALID_ARGUMENT);
        }
    }
}
