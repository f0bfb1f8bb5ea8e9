package io.asicemu.rdma.rc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RcSenderTest {
    private final List<long[]> done = new ArrayList<>();
    private final RcSender sender = new RcSender(
            0xFF_FFFE, 1000, 4, 50_000, 2, (id, bytes, posted, at) -> done.add(new long[] {id, bytes, posted, at}));

    @Test
    void messagesSplitIntoMtuPacketsWithWrappingPsns() {
        sender.postMessage(2_500, 0);
        sender.postMessage(0, 0);
        assertThat(sender.sendNext(1)).isEqualTo(0xFF_FFFE);
        assertThat(sender.packetFirst()).isTrue();
        assertThat(sender.packetPayload()).isEqualTo(1000);
        assertThat(sender.packetAckRequest()).isFalse();
        assertThat(sender.sendNext(2)).isEqualTo(0xFF_FFFF);
        assertThat(sender.packetAckRequest())
                .as("every 2nd packet asks for an ACK")
                .isTrue();
        assertThat(sender.sendNext(3)).isEqualTo(0);
        assertThat(sender.packetLast()).isTrue();
        assertThat(sender.packetPayload()).isEqualTo(500);
        assertThat(sender.sendNext(4)).isEqualTo(1);
        assertThat(sender.packetFirst()).isTrue();
        assertThat(sender.packetLast()).isTrue();
        assertThat(sender.packetPayload()).isZero();
        assertThat(sender.canSend()).isFalse();
    }

    @Test
    void theWindowBoundsOutstandingPackets() {
        sender.postMessage(10_000, 0);
        int sent = 0;
        while (sender.canSend()) {
            sender.sendNext(sent++);
        }
        assertThat(sent).isEqualTo(4);
        sender.onAck(0xFF_FFFF, 10);
        assertThat(sender.canSend()).isTrue();
        assertThat(sender.outstandingPackets()).isEqualTo(2);
    }

    @Test
    void aCumulativeAckCompletesMessagesInOrder() {
        sender.postMessage(1_500, 100);
        sender.postMessage(700, 200);
        for (int i = 0; i < 3; i++) {
            sender.sendNext(300 + i);
        }
        sender.onAck(0, 1_000); // third packet: both messages
        assertThat(done).hasSize(2);
        assertThat(done.get(0)).containsExactly(0, 1_500, 100, 1_000);
        assertThat(done.get(1)).containsExactly(1, 700, 200, 1_000);
        assertThat(sender.idle()).isTrue();
        assertThat(sender.nextEventNs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aNakGoesBackToTheExpectedPsn() {
        sender.postMessage(4_000, 0);
        for (int i = 0; i < 4; i++) {
            sender.sendNext(i);
        }
        sender.onNak(0xFF_FFFF, 10); // first packet arrived, second lost
        assertThat(sender.naksReceived()).isEqualTo(1);
        assertThat(sender.sendNext(11)).isEqualTo(0xFF_FFFF);
        assertThat(sender.packetRetransmission()).isTrue();
        assertThat(sender.sendNext(12)).isZero();
        assertThat(sender.packetsRetransmitted()).isEqualTo(2);
    }

    @Test
    void theAckTimeoutGoesBackAndRestarts() {
        sender.postMessage(2_000, 0);
        sender.sendNext(0);
        sender.sendNext(1);
        assertThat(sender.nextEventNs()).isEqualTo(50_000);
        sender.advanceTo(49_999);
        assertThat(sender.timeouts()).isZero();
        sender.advanceTo(50_000);
        assertThat(sender.timeouts()).isEqualTo(1);
        assertThat(sender.nextEventNs()).isEqualTo(100_000);
        assertThat(sender.sendNext(50_001)).isEqualTo(0xFF_FFFE);
    }

    @Test
    void staleAcksChangeNothing() {
        sender.postMessage(2_000, 0);
        sender.sendNext(0);
        sender.onAck(0xFF_FFFE, 1);
        sender.onAck(0xFF_FFFE, 2);
        sender.onAck(5, 3); // never sent
        assertThat(sender.staleAcks()).isEqualTo(2);
        assertThat(sender.unacknowledgedIndex()).isEqualTo(1);
    }
}
