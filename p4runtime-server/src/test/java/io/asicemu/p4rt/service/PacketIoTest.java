package io.asicemu.p4rt.service;

import static io.asicemu.p4rt.service.P4rtFixture.*;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.rpc.Code;
import java.math.BigInteger;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import p4.v1.P4RuntimeOuterClass.DigestEntry;
import p4.v1.P4RuntimeOuterClass.DigestListAck;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.PacketMetadata;
import p4.v1.P4RuntimeOuterClass.PacketOut;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.Update;

/** StreamChannel PacketIn/PacketOut and DigestList/ack (spec §Stream messages). */
@Timeout(60)
class PacketIoTest {
    private static final byte[] ARP = new byte[60];

    private P4rtFixture f;
    private P4rtFixture.Stream primary;

    @BeforeEach
    void start() throws Exception {
        f = new P4rtFixture();
        primary = f.primary(1, 10);
    }

    @AfterEach
    void stop() throws Exception {
        primary.close();
        f.close();
    }

    private static PacketMetadata md(final int id, final ByteString v) {
        return PacketMetadata.newBuilder().setMetadataId(id).setValue(v).build();
    }

    private static StreamMessageRequest packetOut(final PacketMetadata... metadata) {
        return StreamMessageRequest.newBuilder()
                .setPacket(PacketOut.newBuilder()
                        .setPayload(ByteString.copyFrom(ARP))
                        .addAllMetadata(List.of(metadata)))
                .build();
    }

    @Test
    void shouldDeliverPuntedPacketToPrimaryOnlyWithCanonicalMetadata() throws Exception {
        final var backup = f.new Stream().arbitrate(1, "", 5L);
        assertThat(backup.nextArbitrationCode()).isEqualTo(Code.ALREADY_EXISTS.getNumber());
        f.store1.punt(ARP, 3, 0, 7);
        final StreamMessageResponse in = primary.next();
        assertThat(in.hasPacket()).isTrue();
        assertThat(in.getPacket().getPayload().size()).isEqualTo(60);
        assertThat(in.getPacket().getMetadataList()).containsExactly(md(1, bytes(3)), md(2, bytes(0)), md(3, bytes(7)));
        assertThat(backup.received.poll(200, TimeUnit.MILLISECONDS)).isNull();
        backup.close();
    }

    @Test
    void shouldSendPacketOutOfRequestedPortWhenMetadataIsValid() throws Exception {
        primary.out.onNext(packetOut(md(1, bytes(0, 5)), md(2, bytes(0))));
        primary.out.onNext(packetOut(md(1, bytes(0)), md(2, bytes(1))));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (f.packetsOut.size() < 2 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(f.packetsOut).hasSize(2);
        assertThat(f.packetsOut.get(0)).containsExactly(5, 0);
        assertThat(f.packetsOut.get(1)).containsExactly(0, 1);
    }

    @Test
    void shouldAnswerStreamErrorWhenPacketOutIsBadOrNotFromPrimary() throws Exception {
        primary.out.onNext(packetOut(md(1, bytes(5))));
        var r = primary.next();
        assertThat(r.getError().getCanonicalCode()).isEqualTo(Code.INVALID_ARGUMENT.getNumber());
        assertThat(r.getError().hasPacketOut()).isTrue();
        primary.out.onNext(packetOut(md(1, bytes(200)), md(2, bytes(0))));
        assertThat(primary.next().getError().getMessage()).contains("egress_port 200");
        primary.out.onNext(packetOut(md(1, bytes(1)), md(2, bytes(2))));
        assertThat(primary.next().getError().getMessage()).contains("submit_to_ingress");
        final var backup = f.new Stream().arbitrate(1, "", 5L);
        backup.next();
        backup.out.onNext(packetOut(md(1, bytes(1)), md(2, bytes(0))));
        assertThat(backup.next().getError().getCanonicalCode()).isEqualTo(Code.PERMISSION_DENIED.getNumber());
        assertThat(f.packetsOut).isEmpty();
        backup.close();
    }

    @Test
    void shouldBatchDeduplicateAndReleaseOnAckWhenDigestsArrive() throws Exception {
        f.blocking.write(write(
                1,
                10,
                update(
                        Update.Type.INSERT,
                        Entity.newBuilder()
                                .setDigestEntry(DigestEntry.newBuilder()
                                        .setDigestId(0x17000001)
                                        .setConfig(DigestEntry.Config.newBuilder()
                                                .setMaxListSize(2)
                                                .setMaxTimeoutNs(TimeUnit.SECONDS.toNanos(30))
                                                .setAckTimeoutNs(TimeUnit.SECONDS.toNanos(30))))
                                .build())));
        final List<BigInteger> learnA =
                List.of(BigInteger.valueOf(10), BigInteger.valueOf(0x0200_0000_0001L), BigInteger.valueOf(3));
        final List<BigInteger> learnB =
                List.of(BigInteger.valueOf(10), BigInteger.valueOf(0x0200_0000_0002L), BigInteger.valueOf(4));
        f.store1.digest(0x17000001, learnA);
        f.store1.digest(0x17000001, learnA);
        f.store1.digest(0x17000001, learnB);
        final var list = primary.next().getDigest();
        assertThat(list.getDigestId()).isEqualTo(0x17000001);
        assertThat(list.getDataCount()).isEqualTo(2);
        assertThat(list.getData(0).getStruct().getMembers(2).getBitstring()).isEqualTo(bytes(3));
        f.store1.digest(0x17000001, learnA);
        f.store1.digest(0x17000001, learnB);
        assertThat(primary.received.poll(200, TimeUnit.MILLISECONDS))
                .as("suppressed until acked")
                .isNull();
        primary.out.onNext(StreamMessageRequest.newBuilder()
                .setDigestAck(DigestListAck.newBuilder().setDigestId(0x17000001).setListId(list.getListId()))
                .build());
        primary.out.onNext(StreamMessageRequest.newBuilder()
                .setDigestAck(DigestListAck.newBuilder().setDigestId(0x17000001).setListId(999))
                .build());
        assertThat(primary.next().getError().hasDigestListAck()).isTrue();
        f.store1.digest(0x17000001, learnA);
        f.store1.digest(0x17000001, learnB);
        final var again = primary.next().getDigest();
        assertThat(again.getListId()).isNotEqualTo(list.getListId());
        assertThat(again.getDataCount()).isEqualTo(2);
    }

    @Test
    void shouldFlushPartialListWhenMaxTimeoutPasses() throws Exception {
        f.blocking.write(write(
                1,
                10,
                update(
                        Update.Type.INSERT,
                        Entity.newBuilder()
                                .setDigestEntry(DigestEntry.newBuilder()
                                        .setDigestId(0x17000001)
                                        .setConfig(DigestEntry.Config.newBuilder()
                                                .setMaxListSize(100)
                                                .setMaxTimeoutNs(TimeUnit.MILLISECONDS.toNanos(50))
                                                .setAckTimeoutNs(TimeUnit.SECONDS.toNanos(1))))
                                .build())));
        f.store1.digest(0x17000001, List.of(BigInteger.ONE, BigInteger.TWO, BigInteger.ONE));
        assertThat(primary.next().getDigest().getDataCount()).isEqualTo(1);
    }

    @Test
    void shouldNotifyIdleEntryOnceAndRestartTimerWhenIdleTimeoutPasses() throws Exception {
        final p4.v1.P4RuntimeOuterClass.TableEntry fdb = p4.v1.P4RuntimeOuterClass.TableEntry.newBuilder()
                .setTableId(L2_FDB)
                .addMatch(exact(1, value(10)))
                .addMatch(exact(2, value(0x020000000001L)))
                .setAction(p4.v1.P4RuntimeOuterClass.TableAction.newBuilder().setAction(action(0x0100000b, value(3))))
                .setIdleTimeoutNs(1_000_000_000L)
                .setMetadata(bytes(0xAB))
                .build();
        f.blocking.write(write(1, 10, update(Update.Type.INSERT, fdb)));
        f.clockNs.addAndGet(999_999_999L);
        assertThat(f.store1.checkIdleTimeouts()).isZero();
        final var read = f.blocking
                .read(p4.v1.P4RuntimeOuterClass.ReadRequest.newBuilder()
                        .setDeviceId(1)
                        .addEntities(Entity.newBuilder()
                                .setTableEntry(p4.v1.P4RuntimeOuterClass.TableEntry.newBuilder()
                                        .setTableId(L2_FDB)
                                        .setTimeSinceLastHit(
                                                p4.v1.P4RuntimeOuterClass.TableEntry.IdleTimeout.getDefaultInstance())))
                        .build())
                .next();
        assertThat(read.getEntities(0).getTableEntry().getTimeSinceLastHit().getElapsedNs())
                .isEqualTo(999_999_999L);
        f.clockNs.addAndGet(1);
        assertThat(f.store1.checkIdleTimeouts()).isEqualTo(1);
        final var note = primary.next().getIdleTimeoutNotification();
        assertThat(note.getTableEntryCount()).isEqualTo(1);
        assertThat(note.getTableEntry(0).getMatchList()).isEqualTo(fdb.getMatchList());
        assertThat(note.getTableEntry(0).getIdleTimeoutNs()).isEqualTo(1_000_000_000L);
        assertThat(note.getTableEntry(0).getMetadata()).isEqualTo(bytes(0xAB));
        assertThat(f.store1.checkIdleTimeouts())
                .as("timer restarted after notifying")
                .isZero();
        f.clockNs.addAndGet(500_000_000L);
        f.store1.entryHit(new io.asicemu.p4rt.backend.EntryKey(
                L2_FDB,
                List.of(
                        io.asicemu.p4rt.backend.FieldMatchValue.exact(1, BigInteger.TEN),
                        io.asicemu.p4rt.backend.FieldMatchValue.exact(2, BigInteger.valueOf(0x020000000001L))),
                0));
        f.clockNs.addAndGet(999_999_999L);
        assertThat(f.store1.checkIdleTimeouts()).as("a hit restarts the timer").isZero();
    }
}
