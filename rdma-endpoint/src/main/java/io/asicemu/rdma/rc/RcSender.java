package io.asicemu.rdma.rc;

/**
 * The requester side of a RoCEv2 reliable connection carrying RDMA WRITE messages: splits posted messages into
 * MTU-sized packets with consecutive PSNs, keeps at most {@code windowPackets} unacknowledged, and recovers losses
 * go-back-N (IBTA vol. 1 §9.7): a sequence-error NAK or the local ACK timeout rewinds to the oldest unacknowledged
 * PSN. Retries are not limited (a real QP moves to the error state after {@code retry_cnt}; here the model keeps the
 * stream alive and counts every timeout instead).
 *
 * <p>Pull-based and time-driven: the host asks {@link #canSend()} and {@link #sendNext(long)} when its rate limiter
 * allows a packet, feeds ACK/NAKs, and calls {@link #advanceTo(long)} at {@link #nextEventNs()}. No allocation per
 * packet (the message ring grows only when messages are posted). Single-threaded.
 */
public final class RcSender {
    /** Reported when a message's last byte is acknowledged. */
    @FunctionalInterface
    public interface CompletionListener {
        void completed(long messageId, long bytes, long postedNs, long completedNs);
    }

    private final int startPsn;
    private final int mtuPayload;
    private final int windowPackets;
    private final long ackTimeoutNs;
    private final int ackRequestEvery;
    private final CompletionListener listener;

    // Message ring: packet indexes are 64-bit and monotonic; the PSN is the low 24 bits after startPsn.
    private long[] msgFirstIndex = new long[16];
    private long[] msgBytes = new long[16];
    private long[] msgPostedNs = new long[16];
    private long[] msgId = new long[16];
    private int msgHead;
    private int msgCount;
    private long nextMessageId;
    private long postedEndIndex;

    private long sndUna;
    private long sndNxt;
    private long sndMax;
    /** Ring position of the message holding sndNxt, relative to msgHead. */
    private int cursorMsg;

    private long ackDeadlineNs = Long.MAX_VALUE;

    // The packet last handed out by sendNext.
    private int packetPsn;
    private int packetPayload;
    private boolean packetFirst;
    private boolean packetLast;
    private boolean packetAckRequest;
    private boolean packetRetransmission;
    private long packetMessageId;

    private long packetsSent;
    private long packetsRetransmitted;
    private long timeouts;
    private long naksReceived;
    private long staleAcks;
    private long messagesCompleted;
    private long bytesCompleted;

    public RcSender(
            int startPsn,
            int mtuPayload,
            int windowPackets,
            long ackTimeoutNs,
            int ackRequestEvery,
            CompletionListener listener) {
        if (mtuPayload < 1
                || windowPackets < 1
                || windowPackets >= (1 << 23)
                || ackTimeoutNs < 1
                || ackRequestEvery < 1) {
            throw new IllegalArgumentException("bad RC sender settings: mtu payload " + mtuPayload + ", window "
                    + windowPackets + ", ack timeout " + ackTimeoutNs + " ns, ack request every " + ackRequestEvery);
        }
        this.startPsn = startPsn & Psn.MASK;
        this.mtuPayload = mtuPayload;
        this.windowPackets = windowPackets;
        this.ackTimeoutNs = ackTimeoutNs;
        this.ackRequestEvery = ackRequestEvery;
        this.listener = listener;
    }

    /** Queues an RDMA WRITE of {@code bytes} (0 is a one-packet write); returns its id. */
    public long postMessage(long bytes, long nowNs) {
        if (bytes < 0) {
            throw new IllegalArgumentException("message size " + bytes);
        }
        if (msgCount == msgFirstIndex.length) {
            grow();
        }
        int slot = (msgHead + msgCount) & (msgFirstIndex.length - 1);
        long packets = packetsOf(bytes);
        msgFirstIndex[slot] = postedEndIndex;
        msgBytes[slot] = bytes;
        msgPostedNs[slot] = nowNs;
        msgId[slot] = nextMessageId;
        msgCount++;
        postedEndIndex += packets;
        return nextMessageId++;
    }

    /** True when a packet (new or retransmitted) is waiting and the window has room. */
    public boolean canSend() {
        return sndNxt < postedEndIndex && sndNxt - sndUna < windowPackets;
    }

    /**
     * Hands out the next packet; read it with the {@code packet*} getters.
     *
     * @return its PSN
     */
    public int sendNext(long nowNs) {
        if (!canSend()) {
            throw new IllegalStateException("nothing to send or window full");
        }
        int slot = slot(cursorMsg);
        long first = msgFirstIndex[slot];
        long packets = packetsOf(msgBytes[slot]);
        long inMessage = sndNxt - first;
        packetPsn = psnOf(sndNxt);
        packetFirst = inMessage == 0;
        packetLast = inMessage == packets - 1;
        packetPayload = packetLast ? (int) (msgBytes[slot] - inMessage * mtuPayload) : mtuPayload;
        packetAckRequest = packetLast || (sndNxt + 1) % ackRequestEvery == 0;
        packetRetransmission = sndNxt < sndMax;
        packetMessageId = msgId[slot];
        packetsSent++;
        if (packetRetransmission) {
            packetsRetransmitted++;
        }
        sndNxt++;
        if (sndNxt > sndMax) {
            sndMax = sndNxt;
        }
        if (packetLast) {
            cursorMsg++;
        }
        if (ackDeadlineNs == Long.MAX_VALUE) {
            ackDeadlineNs = nowNs + ackTimeoutNs;
        }
        return packetPsn;
    }

    /** A positive ACK: every PSN up to and including {@code psn} arrived. */
    public void onAck(int psn, long nowNs) {
        acknowledgeThrough(psn, nowNs);
    }

    /** A PSN-sequence-error NAK: the responder expects {@code expectedPsn}; everything before it arrived. */
    public void onNak(int expectedPsn, long nowNs) {
        naksReceived++;
        int d = Psn.distance(psnOf(sndUna), expectedPsn);
        if (d < 0 || sndUna + d > sndMax) {
            staleAcks++;
            return;
        }
        if (d > 0) {
            acknowledgeThrough(Psn.add(expectedPsn, -1), nowNs);
        }
        rewindTo(sndUna);
        ackDeadlineNs = sndUna < sndMax ? nowNs + ackTimeoutNs : Long.MAX_VALUE;
    }

    /** Fires the ACK timeout if it is due: go back to the oldest unacknowledged PSN. */
    public void advanceTo(long nowNs) {
        if (nowNs >= ackDeadlineNs) {
            timeouts++;
            rewindTo(sndUna);
            ackDeadlineNs = sndUna < sndMax ? nowNs + ackTimeoutNs : Long.MAX_VALUE;
        }
    }

    public long nextEventNs() {
        return ackDeadlineNs;
    }

    private void acknowledgeThrough(int psn, long nowNs) {
        int d = Psn.distance(psnOf(sndUna), psn);
        if (d < 0 || sndUna + d >= sndMax) {
            staleAcks++;
            return;
        }
        sndUna += d + 1;
        if (sndNxt < sndUna) {
            rewindTo(sndUna);
        }
        while (msgCount > 0) {
            int slot = msgHead;
            long packets = packetsOf(msgBytes[slot]);
            if (msgFirstIndex[slot] + packets > sndUna) {
                break;
            }
            messagesCompleted++;
            bytesCompleted += msgBytes[slot];
            if (listener != null) {
                listener.completed(msgId[slot], msgBytes[slot], msgPostedNs[slot], nowNs);
            }
            msgHead = (msgHead + 1) & (msgFirstIndex.length - 1);
            msgCount--;
            cursorMsg--;
        }
        ackDeadlineNs = sndUna < sndMax ? nowNs + ackTimeoutNs : Long.MAX_VALUE;
    }

    private void rewindTo(long index) {
        sndNxt = index;
        cursorMsg = 0;
        while (cursorMsg < msgCount) {
            int slot = slot(cursorMsg);
            long packets = packetsOf(msgBytes[slot]);
            if (msgFirstIndex[slot] + packets > index) {
                break;
            }
            cursorMsg++;
        }
    }

    /** Packets a message of {@code bytes} takes (a zero-byte WRITE is one packet). */
    private long packetsOf(long bytes) {
        return Math.max(1, (bytes + mtuPayload - 1) / mtuPayload);
    }

    private int slot(int relative) {
        return (msgHead + relative) & (msgFirstIndex.length - 1);
    }

    private int psnOf(long index) {
        return (int) ((startPsn + index) & Psn.MASK);
    }

    private void grow() {
        int n = msgFirstIndex.length;
        long[] first = new long[n * 2];
        long[] bytes = new long[n * 2];
        long[] posted = new long[n * 2];
        long[] ids = new long[n * 2];
        for (int i = 0; i < msgCount; i++) {
            int s = (msgHead + i) & (n - 1);
            first[i] = msgFirstIndex[s];
            bytes[i] = msgBytes[s];
            posted[i] = msgPostedNs[s];
            ids[i] = msgId[s];
        }
        msgFirstIndex = first;
        msgBytes = bytes;
        msgPostedNs = posted;
        msgId = ids;
        msgHead = 0;
    }

    public int packetPsn() {
        return packetPsn;
    }

    public int packetPayload() {
        return packetPayload;
    }

    public boolean packetFirst() {
        return packetFirst;
    }

    public boolean packetLast() {
        return packetLast;
    }

    public boolean packetAckRequest() {
        return packetAckRequest;
    }

    public boolean packetRetransmission() {
        return packetRetransmission;
    }

    public long packetMessageId() {
        return packetMessageId;
    }

    /** Packets sent and not yet acknowledged. */
    public long outstandingPackets() {
        return sndNxt - sndUna;
    }

    /** Oldest unacknowledged packet, as a 64-bit index from the first PSN. */
    public long unacknowledgedIndex() {
        return sndUna;
    }

    public boolean idle() {
        return msgCount == 0;
    }

    public long packetsSent() {
        return packetsSent;
    }

    public long packetsRetransmitted() {
        return packetsRetransmitted;
    }

    public long timeouts() {
        return timeouts;
    }

    public long naksReceived() {
        return naksReceived;
    }

    public long staleAcks() {
        return staleAcks;
    }

    public long messagesCompleted() {
        return messagesCompleted;
    }

    public long bytesCompleted() {
        return bytesCompleted;
    }
}
