package io.asicemu.rdma.rc;

/**
 * The responder side of a reliable connection (IBTA vol. 1 §9.7.5): accepts packets strictly in PSN order, answers
 * an ACK where the requester asked for one, a duplicate with an ACK of the last PSN it holds (never delivering it
 * again), and the first packet past a gap with one sequence-error NAK naming the PSN it expects; further packets past
 * the same gap are dropped silently until the expected one arrives. Single-threaded, no allocation.
 */
public final class RcReceiver {
    /** What to answer a packet with. */
    public enum Response {
        /** Delivered; no answer needed. */
        NONE,
        /** Delivered (or a duplicate): send an ACK of {@link #ackPsn()}. */
        ACK,
        /** Out of sequence: send a NAK naming {@link #ackPsn()}, the expected PSN. */
        NAK,
        /** Out of sequence, already NAKed: drop silently. */
        DROP
    }

    private int expectedPsn;
    private int ackPsn;
    private boolean nakOutstanding;
    private long delivered;
    private long duplicates;
    private long outOfSequence;
    private long naksSent;
    private long messagesDelivered;

    public RcReceiver(int startPsn) {
        this.expectedPsn = startPsn & Psn.MASK;
    }

    public Response onPacket(int psn, boolean ackRequest, boolean lastOfMessage) {
        int d = Psn.distance(expectedPsn, psn & Psn.MASK);
        if (d == 0) {
            delivered++;
            if (lastOfMessage) {
                messagesDelivered++;
            }
            nakOutstanding = false;
            ackPsn = expectedPsn;
            expectedPsn = Psn.next(expectedPsn);
            return ackRequest ? Response.ACK : Response.NONE;
        }
        if (d < 0) {
            duplicates++;
            ackPsn = Psn.add(expectedPsn, -1);
            return Response.ACK;
        }
        outOfSequence++;
        if (nakOutstanding) {
            return Response.DROP;
        }
        nakOutstanding = true;
        naksSent++;
        ackPsn = expectedPsn;
        return Response.NAK;
    }

    /** The PSN the last ACK or NAK must carry. */
    public int ackPsn() {
        return ackPsn;
    }

    public int expectedPsn() {
        return expectedPsn;
    }

    public long delivered() {
        return delivered;
    }

    public long duplicates() {
        return duplicates;
    }

    public long outOfSequence() {
        return outOfSequence;
    }

    public long naksSent() {
        return naksSent;
    }

    public long messagesDelivered() {
        return messagesDelivered;
    }
}
