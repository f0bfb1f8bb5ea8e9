package io.asicemu.p4rt.service;

import com.google.rpc.Code;
import io.asicemu.p4rt.codec.ByteStrings;
import io.asicemu.p4rt.codec.CodecException;
import io.asicemu.p4rt.info.PacketMetadataInfo;
import io.asicemu.pipeline.counter.DropReason;
import io.asicemu.pipeline.cpu.CpuPort;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import p4.v1.P4RuntimeOuterClass;
import p4.v1.P4RuntimeOuterClass.PacketMetadata;
import p4.v1.P4RuntimeOuterClass.PacketOut;
import p4.v1.P4RuntimeOuterClass.StreamError;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;

/**
 * StreamChannel PacketOut and DigestListAck handling: validates packet_out metadata against the P4Info (each
 * non-padding field exactly once, canonical widths, an existing egress port) and answers bad messages with a
 * StreamError on the sender's stream. Stateless.
 */
final class PacketIo {
    private PacketIo() {}

    static void streamError(final Controller c, final Code code, final String message, final StreamError.Builder b) {
        c.send(StreamMessageResponse.newBuilder()
                .setError(b.setCanonicalCode(code.getNumber()).setMessage(message))
                .build());
    }

    private static void packetError(final Controller c, final Code code, final String message, final PacketOut p) {
        streamError(
                c,
                code,
                message,
                StreamError.newBuilder()
                        .setPacketOut(
                                P4RuntimeOuterClass.PacketOutError.newBuilder().setPacketOut(p)));
    }

    static void packetOut(final Controller c, final PacketOut p) {
        final Device d = c.device;
        if (d == null || !d.arbitration().isPrimary(c) || !RoleConfigs.receivesPacketIns(c.roleConfig)) {
            packetError(
                    c, Code.PERMISSION_DENIED, "only the primary (of a role with packet I/O) may send PacketOut", p);
            return;
        }
        if (p.getPayload().isEmpty()) {
            packetError(c, Code.INVALID_ARGUMENT, "PacketOut payload is empty", p);
            return;
        }
        final List<PacketMetadataInfo> fields = d.codec().model().packetOut();
        final Map<String, BigInteger> values = new HashMap<>();
        try {
            for (final PacketMetadata m : p.getMetadataList()) {
                final PacketMetadataInfo f = fields.stream()
                        .filter(x -> x.id() == m.getMetadataId())
                        .findFirst()
                        .orElseThrow(() -> new CodecException(
                                io.asicemu.p4rt.backend.UpdateStatus.INVALID_ARGUMENT,
                                "packet_out has no metadata id " + m.getMetadataId()));
                if (values.put(f.name(), ByteStrings.decode(m.getValue(), f.bitwidth(), "packet_out " + f.name()))
                        != null) {
                    throw new CodecException(
                            io.asicemu.p4rt.backend.UpdateStatus.INVALID_ARGUMENT,
                            "packet_out metadata " + f.name() + " appears twice");
                }
            }
        } catch (final CodecException ex) {
            packetError(c, Code.INVALID_ARGUMENT, ex.getMessage(), p);
            return;
        }
        for (final PacketMetadataInfo f : fields) {
            if (!f.name().equals("unused_pad") && !values.containsKey(f.name())) {
                packetError(c, Code.INVALID_ARGUMENT, "packet_out metadata " + f.name() + " is missing", p);
                return;
            }
        }
        final boolean submitToIngress = values.get("submit_to_ingress").signum() != 0;
        final int egressPort = values.get("egress_port").intValue();
        if (!submitToIngress && !d.backend().portExists(egressPort)) {
            packetError(c, Code.INVALID_ARGUMENT, "egress_port " + egressPort + " does not exist", p);
            return;
        }
        final byte[] payload = p.getPayload().toByteArray();
        final int mtu = submitToIngress ? -1 : d.backend().portMtu(egressPort);
        if (mtu > 0
                && !io.asicemu.pipeline.port.Port.fitsMtu(
                        java.lang.foreign.MemorySegment.ofArray(payload), 0, payload.length, mtu)) {
            // still handed down: the data path refuses it and counts it (ASICEMU_OUT_DROP_REASON_PACKET_OUT_REFUSED)
            packetError(
                    c,
                    Code.OUT_OF_RANGE,
                    "PacketOut of " + payload.length + " bytes exceeds egress_port " + egressPort + "'s MTU " + mtu
                            + " (at most MTU + 14 bytes, + 18 with a VLAN tag)",
                    p);
        }
        if (!d.backend().packetOut(payload, egressPort, submitToIngress)) {
            packetError(
                    c,
                    Code.RESOURCE_EXHAUSTED,
                    "PacketOut dropped: " + CpuPort.INJECTION_FRAMES + " frames or "
                            + CpuPort.INJECTION_BYTES + " bytes already wait for the data path (counted as "
                            + DropReason.PACKET_OUT_QUEUE_FULL.counterName() + " on port " + egressPort + ")",
                    p);
        }
    }

    static void digestAck(final Controller c, final P4RuntimeOuterClass.DigestListAck ack) {
        final Device d = c.device;
        if (d == null || !d.digests().ack(ack.getDigestId(), ack.getListId())) {
            streamError(
                    c,
                    Code.NOT_FOUND,
                    "no digest list " + ack.getListId() + " of digest " + ack.getDigestId() + " waits for an ack",
                    StreamError.newBuilder()
                            .setDigestListAck(P4RuntimeOuterClass.DigestListAckError.newBuilder()
                                    .setDigestListAck(ack)));
        }
    }
}
