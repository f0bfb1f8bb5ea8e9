package io.asicemu.p4rt;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import org.junit.jupiter.api.Test;
import p4.config.v1.P4InfoOuterClass;
import p4.v1.P4DataOuterClass;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass;

/** Our hand-written .proto files must match the P4Runtime v1.5 wire contract (numbers from the specification). */
class ProtoWireContractTest {
    private static int number(final Descriptor d, final String field) {
        return d.findFieldByName(field).getNumber();
    }

    @Test
    void shouldUseSpecFieldNumbersWhenEncodingCoreMessages() {
        assertThat(number(P4RuntimeOuterClass.WriteRequest.getDescriptor(), "role"))
                .isEqualTo(6);
        assertThat(number(P4RuntimeOuterClass.WriteRequest.getDescriptor(), "election_id"))
                .isEqualTo(3);
        assertThat(number(P4RuntimeOuterClass.TableEntry.getDescriptor(), "is_const"))
                .isEqualTo(13);
        assertThat(number(P4RuntimeOuterClass.TableEntry.getDescriptor(), "meter_counter_data"))
                .isEqualTo(12);
        assertThat(number(P4RuntimeOuterClass.FieldMatch.getDescriptor(), "range"))
                .isEqualTo(6);
        assertThat(number(P4RuntimeOuterClass.FieldMatch.getDescriptor(), "optional"))
                .isEqualTo(7);
        assertThat(number(P4RuntimeOuterClass.ActionProfileAction.getDescriptor(), "watch_port"))
                .isEqualTo(4);
        assertThat(number(P4RuntimeOuterClass.Entity.getDescriptor(), "digest_entry"))
                .isEqualTo(12);
        assertThat(number(P4RuntimeOuterClass.StreamMessageResponse.getDescriptor(), "error"))
                .isEqualTo(6);
        assertThat(number(P4RuntimeOuterClass.Role.getDescriptor(), "name")).isEqualTo(3);
        assertThat(number(P4RuntimeOuterClass.CapabilitiesRequest.getDescriptor(), "device_id"))
                .isEqualTo(1);
        assertThat(number(P4InfoOuterClass.P4Info.getDescriptor(), "type_info")).isEqualTo(200);
        assertThat(number(P4InfoOuterClass.ActionProfile.getDescriptor(), "sum_of_members"))
                .isEqualTo(7);
        assertThat(number(P4DataOuterClass.P4Data.getDescriptor(), "enum_value"))
                .isEqualTo(12);
        assertThat(P4InfoOuterClass.P4Ids.Prefix.DIGEST.getNumber()).isEqualTo(0x17);
        assertThat(P4RuntimeOuterClass.SdnPort.SDN_PORT_CPU.getNumber()).isEqualTo(-3);
    }

    @Test
    void shouldProduceSpecBytesWhenSerializingSmallMessages() {
        // Uint128{high:1 low:2}: tag(1,varint)=0x08 1, tag(2,varint)=0x10 2.
        assertThat(P4RuntimeOuterClass.Uint128.newBuilder()
                        .setHigh(1)
                        .setLow(2)
                        .build()
                        .toByteArray())
                .containsExactly(0x08, 0x01, 0x10, 0x02);
        // PacketMetadata{metadata_id:1 value:"\x05"}: 0x08 1, tag(2,len)=0x12 1 5.
        assertThat(P4RuntimeOuterClass.PacketMetadata.newBuilder()
                        .setMetadataId(1)
                        .setValue(ByteString.copyFrom(new byte[] {5}))
                        .build()
                        .toByteArray())
                .containsExactly(0x08, 0x01, 0x12, 0x01, 0x05);
    }

    @Test
    void shouldNameServiceAndMethodsAsTheSpecWhenGeneratingStubs() {
        assertThat(P4RuntimeGrpc.SERVICE_NAME).isEqualTo("p4.v1.P4Runtime");
        assertThat(P4RuntimeGrpc.getStreamChannelMethod().getFullMethodName())
                .isEqualTo("p4.v1.P4Runtime/StreamChannel");
        assertThat(P4RuntimeGrpc.getCapabilitiesMethod().getFullMethodName()).isEqualTo("p4.v1.P4Runtime/Capabilities");
    }
}
