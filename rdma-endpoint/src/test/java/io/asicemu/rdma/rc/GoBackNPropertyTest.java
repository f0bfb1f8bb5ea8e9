package io.asicemu.rdma.rc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * No sequence of losses, duplicates, reordering, ACK/NAK loss and timeouts makes the reliable connection send outside
 * its window, deliver a packet twice or out of order, acknowledge what was not delivered, or stop for ever: after
 * any such prefix, a clean channel completes every posted message within a bounded number of steps.
 */
class GoBackNPropertyTest {
    private static final long TIMEOUT_NS = 100_000;

    enum Kind {
        SEND,
        DELIVER,
        DROP,
        DUPLICATE,
        DELIVER_ACK,
        DROP_ACK,
        TICK,
        POST
    }

    record Action(Kind kind, int pick) {}

    record Packet(int psn, boolean ackRequest, boolean last) {}

    record Answer(boolean nak, int psn) {}

    @Provide
    Arbitrary<List<Action>> actions() {
        Arbitrary<Action> action = Combinators.combine(
                        Arbitraries.frequencyOf(
                                net.jqwik.api.Tuple.of(30, Arbitraries.just(Kind.SEND)),
                                net.jqwik.api.Tuple.of(25, Arbitraries.just(Kind.DELIVER)),
                                net.jqwik.api.Tuple.of(6, Arbitraries.just(Kind.DROP)),
                                net.jqwik.api.Tuple.of(4, Arbitraries.just(Kind.DUPLICATE)),
                                net.jqwik.api.Tuple.of(20, Arbitraries.just(Kind.DELIVER_ACK)),
                                net.jqwik.api.Tuple.of(4, Arbitraries.just(Kind.DROP_ACK)),
                                net.jqwik.api.Tuple.of(6, Arbitraries.just(Kind.TICK)),
                                net.jqwik.api.Tuple.of(5, Arbitraries.just(Kind.POST))),
                        Arbitraries.integers().between(0, 1_000))
                .as(Action::new);
        return action.list().ofMinSize(1).ofMaxSize(600);
    }

    @Property(tries = 400)
    void neverOutOfWindowNeverRedeliveredNeverStuck(
            @ForAll("actions") List<Action> actions,
            @ForAll @IntRange(min = 1, max = 16) int window,
            @ForAll @IntRange(min = 0, max = 0xFF_FFFF) int startPsn,
            @ForAll @Size(min = 1, max = 6) List<@IntRange(min = 0, max = 9_000) Integer> messages) {
        int mtu = 1024;
        List<Long> completed = new ArrayList<>();
        RcSender sender =
                new RcSender(startPsn, mtu, window, TIMEOUT_NS, 4, (id, bytes, posted, done) -> completed.add(id));
        RcReceiver receiver = new RcReceiver(startPsn);
        long now = 0;
        long posted = 0;
        long postedPackets = 0;
        for (int bytes : messages) {
            sender.postMessage(bytes, now);
            posted++;
            postedPackets += Math.max(1, (bytes + mtu - 1) / mtu);
        }
        List<Packet> wire = new ArrayList<>();
        List<Answer> acks = new ArrayList<>();
        long[] deliveredSoFar = {0};

        for (Action a : actions) {
            now += 1_000;
            switch (a.kind()) {
                case SEND -> {
                    if (sender.canSend()) {
                        int psn = sender.sendNext(now);
                        assertInWindow(sender, startPsn, psn, window);
                        wire.add(new Packet(psn, sender.packetAckRequest(), sender.packetLast()));
                    }
                }
                case DELIVER -> deliver(wire, a.pick(), receiver, acks, startPsn, deliveredSoFar);
                case DROP -> {
                    if (!wire.isEmpty()) {
                        wire.remove(a.pick() % wire.size());
                    }
                }
                case DUPLICATE -> {
                    if (!wire.isEmpty()) {
                        wire.add(wire.get(a.pick() % wire.size()));
                    }
                }
                case DELIVER_ACK -> {
                    if (!acks.isEmpty()) {
                        Answer ans = acks.remove(a.pick() % acks.size());
                        feed(sender, ans, now);
                    }
                }
                case DROP_ACK -> {
                    if (!acks.isEmpty()) {
                        acks.remove(a.pick() % acks.size());
                    }
                }
                case TICK -> {
                    now += a.pick() * 200L;
                    sender.advanceTo(now);
                }
                case POST -> {
                    int bytes = a.pick() * 7;
                    sender.postMessage(bytes, now);
                    posted++;
                    postedPackets += Math.max(1, (bytes + mtu - 1) / mtu);
                }
            }
            // Nothing is acknowledged that the responder did not hold.
            assertThat(sender.unacknowledgedIndex()).isLessThanOrEqualTo(deliveredSoFar[0]);
            assertThat(sender.outstandingPackets()).isLessThanOrEqualTo(window);
        }

        // Clean channel from here: in-order delivery, no loss; the sender must finish everything.
        int steps = 0;
        while (!sender.idle()) {
            assertThat(steps++)
                    .as("stuck: %d of %d messages done", completed.size(), posted)
                    .isLessThan(100_000);
            if (sender.canSend()) {
                now += 1_000;
                int psn = sender.sendNext(now);
                assertInWindow(sender, startPsn, psn, window);
                wire.add(new Packet(psn, sender.packetAckRequest(), sender.packetLast()));
                continue;
            }
            if (!wire.isEmpty()) {
                deliver(wire, 0, receiver, acks, startPsn, deliveredSoFar);
                continue;
            }
            if (!acks.isEmpty()) {
                feed(sender, acks.remove(0), now);
                continue;
            }
            now = Math.max(now, sender.nextEventNs());
            assertThat(now).as("no timer while work remains").isLessThan(Long.MAX_VALUE);
            sender.advanceTo(now);
        }
        assertThat(completed).hasSize((int) posted);
        for (int i = 0; i < completed.size(); i++) {
            assertThat(completed.get(i)).isEqualTo(i);
        }
        assertThat(deliveredSoFar[0]).isEqualTo(postedPackets);
        assertThat(receiver.delivered()).isEqualTo(postedPackets);
        assertThat(receiver.messagesDelivered()).isEqualTo(posted);
    }

    private static void deliver(
            List<Packet> wire, int pick, RcReceiver receiver, List<Answer> acks, int startPsn, long[] deliveredSoFar) {
        if (wire.isEmpty()) {
            return;
        }
        Packet p = wire.remove(pick % wire.size());
        long before = receiver.delivered();
        RcReceiver.Response r = receiver.onPacket(p.psn(), p.ackRequest(), p.last());
        if (receiver.delivered() > before) {
            // Delivered exactly the next PSN in order, once.
            assertThat(p.psn()).isEqualTo((int) ((startPsn + deliveredSoFar[0]) & Psn.MASK));
            deliveredSoFar[0]++;
        }
        switch (r) {
            case ACK -> acks.add(new Answer(false, receiver.ackPsn()));
            case NAK -> acks.add(new Answer(true, receiver.ackPsn()));
            default -> {}
        }
    }

    private static void feed(RcSender sender, Answer ans, long now) {
        if (ans.nak()) {
            sender.onNak(ans.psn(), now);
        } else {
            sender.onAck(ans.psn(), now);
        }
    }

    private static void assertInWindow(RcSender sender, int startPsn, int psn, int window) {
        long una = sender.unacknowledgedIndex();
        int d = Psn.distance((int) ((startPsn + una) & Psn.MASK), psn);
        assertThat(d).as("PSN %d outside [una, una + window)", psn).isBetween(0, window - 1);
    }
}
