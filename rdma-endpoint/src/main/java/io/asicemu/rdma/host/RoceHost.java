package io.asicemu.rdma.host;

import io.asicemu.parser.EtherType;
import io.asicemu.parser.EthernetFlyweight;
import io.asicemu.parser.MacControlFlyweight;
import io.asicemu.parser.NetworkOrder;
import io.asicemu.parser.PacketParser;
import io.asicemu.parser.ParseReason;
import io.asicemu.parser.ParseResult;
import io.asicemu.rdma.dcqcn.DcqcnParameters;
import io.asicemu.rdma.dcqcn.NotificationPoint;
import io.asicemu.rdma.dcqcn.ReactionPoint;
import io.asicemu.rdma.frame.RoceFrames;
import io.asicemu.rdma.rc.RcReceiver;
import io.asicemu.rdma.rc.RcSender;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A RoCEv2 NIC with one port: reliable-connection queue pairs that send RDMA WRITE messages paced at their DCQCN
 * rate, answer data with ACK/NAK and CE marks with CNPs, cut their rate on CNPs, retransmit go-back-N, and obey
 * received PFC per priority, as a NIC does. One wire: a frame starts when the previous one has left; ACK, NAK and
 * CNP go before data (NICs send them from a separate, higher-priority queue).
 *
 * <p>Event-driven with time as an input: the owner calls {@link #onFrame} for every frame that reaches the port and
 * {@link #advanceTo} at {@link #nextEventNs()}; frames leave through the {@link Wire} with the time their last bit
 * leaves the port. The same object runs a virtual-time scenario or a live AF_PACKET port. Single-threaded.
 */
public final class RoceHost {
    /** Where the host's frames go: {@code departNs} is when the last bit leaves the port. */
    @FunctionalInterface
    public interface Wire {
        void send(MemorySegment frame, long offset, int length, long departNs);
    }

    /** Called when a message's last byte is acknowledged (its flow completion time is {@code completedNs − postedNs}). */
    @FunctionalInterface
    public interface CompletionListener {
        void completed(QueuePair qp, long messageId, long bytes, long postedNs, long completedNs);
    }

    /** Ethernet preamble, start delimiter, FCS and inter-frame gap: what a frame costs on the wire beyond its bytes. */
    static final int WIRE_OVERHEAD_BYTES = 24;

    private static final int MIN_FRAME = 60;
    /** Where a MAC control frame's body (opcode, then the PFC fields) starts: after the untagged Ethernet header. */
    private static final int MAC_CONTROL = EthernetFlyweight.HEADER_LENGTH;

    private static final int CE = 0b11;
    private static final int CONTROL_QUEUE = 1024;
    private static final int MAX_FRAME = 9_216 + 18;

    private final String name;
    private final long mac;
    private final int ip;
    private final long gatewayMac;
    private final long lineRateBps;
    private final DcqcnParameters dcqcn;
    private final int mtuPayload;
    private final int windowPackets;
    private final long ackTimeoutNs;
    private final int dataDscp;
    private final int dataPriority;
    private final CompletionListener completionListener;
    private boolean congestionControl = true;

    private final List<QueuePair> qps = new ArrayList<>();
    private final PacketParser parser = new PacketParser();
    private final ParseResult parsed = new ParseResult();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment scratch;
    private final MemorySegment control;
    private final int[] controlLengths = new int[CONTROL_QUEUE];
    private int controlHead;
    private int controlCount;
    private final long[] pausedUntilNs = new long[8];
    private final long[] pausedNs = new long[8];

    private long wireFreeNs;
    private int nextQp;
    private long framesSent;
    private long framesReceived;
    private long framesIgnored;
    private long pfcFramesReceived;
    private long controlQueueDrops;

    public RoceHost(
            String name,
            long mac,
            int ip,
            long gatewayMac,
            long lineRateBps,
            DcqcnParameters dcqcn,
            int mtuPayload,
            int windowPackets,
            long ackTimeoutNs,
            int dataDscp,
            int dataPriority,
            CompletionListener completionListener) {
        this.name = name;
        this.mac = mac;
        this.ip = ip;
        this.gatewayMac = gatewayMac;
        this.lineRateBps = lineRateBps;
        this.dcqcn = dcqcn;
        this.mtuPayload = mtuPayload;
        this.windowPackets = windowPackets;
        this.ackTimeoutNs = ackTimeoutNs;
        this.dataDscp = dataDscp;
        this.dataPriority = dataPriority & 7;
        this.completionListener = completionListener;
        this.scratch = arena.allocate(MAX_FRAME);
        this.control = arena.allocate((long) CONTROL_QUEUE * 128);
    }

    /**
     * Turns DCQCN off or on for this NIC, as {@code ROCE_CC_PRIO_MASK} does for a priority: off, CE marks are not
     * answered with CNPs and CNPs do not cut the rate (they are still counted).
     */
    public RoceHost congestionControl(boolean enabled) {
        this.congestionControl = enabled;
        return this;
    }

    /**
     * Opens a queue pair to {@code remoteQpn} at {@code peerIp}. The peer opens the mirror one; both start at PSN 0.
     *
     * @param udpSrcPort the QP's RoCEv2 entropy port
     */
    public QueuePair connect(int localQpn, int peerIp, int remoteQpn, int udpSrcPort) {
        for (QueuePair qp : qps) {
            if (qp.localQpn == localQpn) {
                throw new IllegalArgumentException(name + " already has QP " + localQpn);
            }
        }
        QueuePair qp = new QueuePair(localQpn, peerIp, remoteQpn, udpSrcPort);
        qps.add(qp);
        return qp;
    }

    /** A frame reached the port at {@code nowNs}. */
    public void onFrame(MemorySegment frame, long offset, int length, long nowNs) {
        framesReceived++;
        if (length >= MIN_FRAME
                && NetworkOrder.u48(frame, offset + EthernetFlyweight.DST_MAC_OFFSET) == MacControlFlyweight.DST_MAC
                && NetworkOrder.u16(frame, offset + EthernetFlyweight.ETHER_TYPE_OFFSET) == EtherType.MAC_CONTROL
                && NetworkOrder.u16(frame, offset + MAC_CONTROL + MacControlFlyweight.OPCODE_OFFSET)
                        == MacControlFlyweight.OPCODE_PFC) {
            onPfc(frame, offset, nowNs);
            return;
        }
        if (parser.parse(frame, offset, length, parsed) != ParseReason.OK || !parsed.roce() || parsed.ipv4Dst() != ip) {
            framesIgnored++;
            return;
        }
        QueuePair qp = find(parsed.bthDestQp());
        if (qp == null) {
            framesIgnored++;
            return;
        }
        if (parsed.cnp()) {
            if (congestionControl) {
                qp.reaction.onCnp(nowNs);
            }
            qp.cnpsReceived++;
        } else if (RoceFrames.isAcknowledge(parsed)) {
            int syndrome = RoceFrames.aethSyndrome(frame, parsed);
            if (RoceFrames.isNak(syndrome)) {
                qp.sender.onNak(parsed.bthPsn(), nowNs);
            } else {
                qp.sender.onAck(parsed.bthPsn(), nowNs);
            }
        } else if (RoceFrames.isRdmaWrite(parsed)) {
            onData(qp, nowNs);
        } else {
            framesIgnored++;
        }
    }

    private void onData(QueuePair qp, long nowNs) {
        int payload = parsed.icrcOffset() - parsed.rocePayloadOffset();
        boolean last = RoceFrames.isLastOfMessage(parsed.bthOpcode());
        long deliveredBefore = qp.receiver.delivered();
        RcReceiver.Response response = qp.receiver.onPacket(parsed.bthPsn(), parsed.bthAckReq(), last);
        if (qp.receiver.delivered() > deliveredBefore) {
            qp.bytesReceived += payload;
        }
        if (parsed.ecn() == CE) {
            qp.ceMarksReceived++;
            if (congestionControl && qp.notification.onCeMarked(nowNs)) {
                queueControl(qp.frames.writeCnp(scratch, 0, qp.remoteQpn, qp.udpSrcPort, dcqcn.cnpDscp()));
                qp.cnpsSent++;
            }
        }
        int msn = (int) (qp.receiver.messagesDelivered() & 0xFF_FFFF);
        switch (response) {
            case ACK ->
                queueControl(qp.frames.writeAck(
                        scratch, 0, qp.remoteQpn, qp.receiver.ackPsn(), msn, qp.udpSrcPort, dataDscp));
            case NAK ->
                queueControl(qp.frames.writeNak(
                        scratch, 0, qp.remoteQpn, qp.receiver.ackPsn(), msn, qp.udpSrcPort, dataDscp));
            default -> {}
        }
    }

    private void onPfc(MemorySegment frame, long offset, long nowNs) {
        pfcFramesReceived++;
        int enable = NetworkOrder.u16(frame, offset + MAC_CONTROL + MacControlFlyweight.PFC_CLASS_ENABLE_OFFSET);
        for (int p = 0; p < MacControlFlyweight.PRIORITY_COUNT; p++) {
            if ((enable & (1 << p)) != 0) {
                int quanta =
                        NetworkOrder.u16(frame, offset + MAC_CONTROL + MacControlFlyweight.PFC_QUANTA_OFFSET + 2 * p);
                long pauseNs = (quanta * 512L * 1_000_000_000L + lineRateBps - 1) / lineRateBps;
                long until = nowNs + pauseNs;
                long pausedFrom = Math.max(nowNs, pausedUntilNs[p]);
                if (until > pausedFrom) {
                    pausedNs[p] += until - pausedFrom;
                } else if (until < pausedUntilNs[p]) {
                    pausedNs[p] -= pausedUntilNs[p] - Math.max(until, nowNs);
                }
                pausedUntilNs[p] = until;
            }
        }
    }

    /** Sends everything due by {@code nowNs} and fires the QPs' timers. */
    public void advanceTo(long nowNs, Wire wire) {
        for (QueuePair qp : qps) {
            qp.sender.advanceTo(nowNs);
            qp.reaction.advanceTo(nowNs);
            qp.postDue(nowNs);
        }
        while (wireFreeNs <= nowNs) {
            if (controlCount > 0) {
                int slot = controlHead;
                transmit(control, (long) slot * 128, controlLengths[slot], nowNs, wire);
                controlHead = (controlHead + 1) % CONTROL_QUEUE;
                controlCount--;
                continue;
            }
            QueuePair qp = nextReadyQp(nowNs);
            if (qp == null) {
                return;
            }
            sendData(qp, nowNs, wire);
        }
    }

    /** The next time something can happen without a frame arriving, or {@link Long#MAX_VALUE}. */
    public long nextEventNs() {
        long next = Long.MAX_VALUE;
        if (controlCount > 0) {
            next = wireFreeNs;
        }
        boolean paused = pausedUntilNs[dataPriority] > wireFreeNs;
        for (QueuePair qp : qps) {
            next = Math.min(next, qp.sender.nextEventNs());
            next = Math.min(next, qp.nextPostNs());
            if (qp.sender.canSend()) {
                long ready = Math.max(wireFreeNs, qp.nextSendNs);
                if (paused) {
                    ready = Math.max(ready, pausedUntilNs[dataPriority]);
                }
                next = Math.min(next, ready);
            }
        }
        return next;
    }

    private QueuePair nextReadyQp(long nowNs) {
        if (pausedUntilNs[dataPriority] > nowNs) {
            return null;
        }
        int n = qps.size();
        for (int i = 0; i < n; i++) {
            QueuePair qp = qps.get((nextQp + i) % n);
            if (qp.sender.canSend() && qp.nextSendNs <= nowNs) {
                nextQp = (nextQp + i + 1) % n;
                return qp;
            }
        }
        return null;
    }

    private void sendData(QueuePair qp, long nowNs, Wire wire) {
        RcSender s = qp.sender;
        int psn = s.sendNext(nowNs);
        int length = qp.frames.writeData(
                scratch,
                0,
                qp.remoteQpn,
                psn,
                s.packetFirst(),
                s.packetLast(),
                s.packetAckRequest(),
                s.packetPayload(),
                qp.udpSrcPort,
                dataDscp,
                0,
                0,
                (int) Math.min(Integer.MAX_VALUE, qp.messageBytes(s.packetMessageId())));
        long start = Math.max(wireFreeNs, nowNs);
        transmit(scratch, 0, length, nowNs, wire);
        qp.reaction.onBytesSent(length, nowNs);
        qp.bytesSent += s.packetPayload();
        // Pacing: the next packet of this QP may start one packet time at the QP's current rate after this one.
        long wireBits = (long) (Math.max(length, MIN_FRAME) + WIRE_OVERHEAD_BYTES) * 8;
        qp.nextSendNs = start + (long) Math.ceil(wireBits * 1e9 / qp.reaction.currentRateBps());
    }

    private void transmit(MemorySegment frame, long offset, int length, long nowNs, Wire wire) {
        long wireBits = (long) (Math.max(length, MIN_FRAME) + WIRE_OVERHEAD_BYTES) * 8;
        long serializationNs = (wireBits * 1_000_000_000L + lineRateBps - 1) / lineRateBps;
        wireFreeNs = Math.max(wireFreeNs, nowNs) + serializationNs;
        wire.send(frame, offset, length, wireFreeNs);
        framesSent++;
    }

    private void queueControl(int length) {
        if (controlCount == CONTROL_QUEUE || length > 128) {
            controlQueueDrops++;
            return;
        }
        int slot = (controlHead + controlCount) % CONTROL_QUEUE;
        MemorySegment.copy(scratch, 0, control, (long) slot * 128, length);
        controlLengths[slot] = length;
        controlCount++;
    }

    private QueuePair find(int qpn) {
        for (QueuePair qp : qps) {
            if (qp.localQpn == qpn) {
                return qp;
            }
        }
        return null;
    }

    public String name() {
        return name;
    }

    public int ip() {
        return ip;
    }

    public long mac() {
        return mac;
    }

    public List<QueuePair> queuePairs() {
        return qps;
    }

    public long framesSent() {
        return framesSent;
    }

    public long framesReceived() {
        return framesReceived;
    }

    public long framesIgnored() {
        return framesIgnored;
    }

    public long pfcFramesReceived() {
        return pfcFramesReceived;
    }

    /** Time priority {@code priority} was paused by PFC frames received (an XON or a shorter pause ends it early). */
    public long pausedNs(int priority) {
        return pausedNs[priority];
    }

    /**
     * Time priority {@code priority} has been paused up to {@code nowNs}: {@link #pausedNs} less the part of a pause
     * still to come, so a series sampled over time shows when the pause happened, not when its frame arrived.
     */
    public long pausedNsUpTo(int priority, long nowNs) {
        return pausedNs[priority] - Math.max(0, pausedUntilNs[priority] - nowNs);
    }

    public long controlQueueDrops() {
        return controlQueueDrops;
    }

    /** One RC queue pair of this host: requester and responder, DCQCN reaction and notification points. */
    public final class QueuePair {
        private final int localQpn;
        private final int peerIp;
        private final int remoteQpn;
        private final int udpSrcPort;
        private final RoceFrames frames;
        private final RcSender sender;
        private final RcReceiver receiver = new RcReceiver(0);
        private final ReactionPoint reaction;
        private final NotificationPoint notification;
        private final List<long[]> scheduledPosts = new ArrayList<>();
        private final List<long[]> postedMessages = new ArrayList<>();
        private long nextSendNs;
        private long bytesPosted;
        private long bytesSent;
        private long bytesReceived;
        private long ceMarksReceived;
        private long cnpsSent;
        private long cnpsReceived;

        QueuePair(int localQpn, int peerIp, int remoteQpn, int udpSrcPort) {
            this.localQpn = localQpn;
            this.peerIp = peerIp;
            this.remoteQpn = remoteQpn;
            this.udpSrcPort = udpSrcPort;
            this.frames = new RoceFrames(mac, gatewayMac, ip, peerIp);
            this.reaction = new ReactionPoint(dcqcn, lineRateBps);
            this.notification = new NotificationPoint(dcqcn);
            this.sender =
                    new RcSender(0, mtuPayload, windowPackets, ackTimeoutNs, 16, (id, bytes, postedNs, completedNs) -> {
                        while (!postedMessages.isEmpty() && postedMessages.get(0)[0] <= id) {
                            postedMessages.remove(0);
                        }
                        if (completionListener != null) {
                            completionListener.completed(this, id, bytes, postedNs, completedNs);
                        }
                    });
        }

        /** Posts an RDMA WRITE of {@code bytes} at {@code atNs} (now or later). */
        public void post(long bytes, long atNs) {
            int i = scheduledPosts.size();
            while (i > 0 && scheduledPosts.get(i - 1)[0] > atNs) {
                i--;
            }
            scheduledPosts.add(i, new long[] {atNs, bytes});
            bytesPosted += bytes;
        }

        /** Bytes of every message posted so far, sent or not. */
        public long bytesPosted() {
            return bytesPosted;
        }

        void postDue(long nowNs) {
            while (!scheduledPosts.isEmpty() && scheduledPosts.get(0)[0] <= nowNs) {
                long[] post = scheduledPosts.remove(0);
                long id = sender.postMessage(post[1], post[0]);
                postedMessages.add(new long[] {id, post[1]});
            }
        }

        long nextPostNs() {
            return scheduledPosts.isEmpty() ? Long.MAX_VALUE : scheduledPosts.get(0)[0];
        }

        long messageBytes(long id) {
            for (long[] m : postedMessages) {
                if (m[0] == id) {
                    return m[1];
                }
            }
            return 0;
        }

        public int localQpn() {
            return localQpn;
        }

        public int peerIp() {
            return peerIp;
        }

        public int remoteQpn() {
            return remoteQpn;
        }

        public int udpSrcPort() {
            return udpSrcPort;
        }

        public RcSender sender() {
            return sender;
        }

        public RcReceiver receiver() {
            return receiver;
        }

        public ReactionPoint reaction() {
            return reaction;
        }

        public NotificationPoint notification() {
            return notification;
        }

        public long bytesSent() {
            return bytesSent;
        }

        public long bytesReceived() {
            return bytesReceived;
        }

        public long ceMarksReceived() {
            return ceMarksReceived;
        }

        public long cnpsSent() {
            return cnpsSent;
        }

        public long cnpsReceived() {
            return cnpsReceived;
        }

        public String host() {
            return name;
        }
    }
}
