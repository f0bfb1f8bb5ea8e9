package io.asicemu.veth.afpacket;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.asicemu.parser.EtherType;
import io.asicemu.parser.EthernetFlyweight;
import io.asicemu.parser.NetworkOrder;
import io.asicemu.parser.VlanTagFlyweight;
import io.asicemu.pipeline.port.AnonymousMemory;
import io.asicemu.pipeline.port.Port;
import io.asicemu.pipeline.port.RxBatch;
import io.asicemu.veth.ffm.Kernel;
import io.asicemu.veth.ffm.Libc;
import io.asicemu.veth.ffm.NetDevice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A switch port on a Linux interface through an AF_PACKET socket with memory-mapped TPACKET_V2 RX and TX rings.
 * <p>
 * RX lends ring frames to the data path without copying. Ring slots are sized for the MTU the port opened with, at most
 * 2 KiB (2 KiB at MTU 1500), so a deep ring stays small whatever the MTU; a larger frame (a jumbo frame, or a GSO/TSO
 * super-frame of up to 64 KiB from a peer with offloads on) takes the copy path: the kernel queues it whole on the
 * socket (PACKET_COPY_THRESH) and marks its truncated slot TP_STATUS_COPY, and the port reads it with one recv(2) into
 * a 64 KiB scratch area. Per frame it: restores a VLAN tag the kernel moved into metadata (veth untags on receive),
 * completes the TCP/UDP checksum of frames flagged TP_STATUS_CSUMNOTREADY (peer with TX checksum offload on), and
 * segments TCP GSO super-frames larger than the MTU in software (or, with {@link AfPacketConfig#acceptGso()} off or for
 * non-TCP, drops and counts them, logging once {@code ethtool -K <peer> tx off}). Frames the kernel dropped because the
 * RX ring was full (PACKET_STATISTICS) and oversize drops are handed to the pipeline's counters by {@link
 * #takeRxOverflowDrops()}/{@link #takeRxOversizeDrops()}, which the agent calls periodically, off the per-packet path.
 * <p>
 * The MTU follows the link ({@link #mtu(int)}, from rtnetlink): TX refuses frames over it (the kernel would drop them
 * silently from the TX ring) and GSO segments are cut to it; an MTU above the one the rings were sized for needs the
 * port reopened ({@link #slotMtu()}), which {@code LinuxPorts} does.
 * <p>
 * Two sockets a port, as the reference C forwarder has: the receiving one (in the data plane's epoll set) ignores
 * outgoing frames (PACKET_IGNORE_OUTGOING), so own TX and kernel-originated frames are never re-switched; the sending
 * one is bound with protocol 0, so it receives nothing and nobody waits on it. With one socket for both rings, every
 * transmitted frame's release ({@code sock_wfree} → {@code sock_def_write_space}) found the epoll entry on the
 * socket's wait queue and took its lock with interrupts off: 6.9 % of the switch's CPU at half rate on the veth
 * harness, by {@code perf}. TX copies into the TX ring; {@link #flush()} kicks the kernel with one send per batch. V2 rather than
 * V3: V3 hands a block to user space only when it is full or its retire timer (ms) fires, which would add milliseconds
 * of latency at low rates.
 * <p>
 * Threading: as {@link Port}; counters are written by the data-plane thread only and read by others as snapshots
 * (plain long reads, possibly stale). {@link #linkState(boolean)} may be called from the discovery thread.
 */
public final class AfPacketPort implements Port {
    private static final Logger LOG = LoggerFactory.getLogger(AfPacketPort.class);
    private static final VarHandle INT_VH = ValueLayout.JAVA_INT.varHandle();
    private static final int L2_HEADROOM = EthernetFlyweight.HEADER_LENGTH + 2 * VlanTagFlyweight.TAG_LENGTH;
    /** The MAC addresses, which a restored VLAN tag follows. */
    private static final int MACS = EthernetFlyweight.ETHER_TYPE_OFFSET;

    private static final int TAG = VlanTagFlyweight.TAG_LENGTH;
    private static final int GSO_FRAME_BYTES = 65536;
    /** RX ring block: slots are packed into 16 KiB blocks (a slot never spans two; the rest of a block is unused). */
    private static final int RX_BLOCK_BYTES = 16384;
    /** RX slots are whole cache lines, so that no header or frame start straddles two. */
    private static final int CACHE_LINE = 64;

    private static final int MIN_TX_FRAMES = 8;
    /**
     * Each TX slot's frame follows a {@code struct virtio_net_hdr} (PACKET_VNET_HDR on the sending socket), whose
     * {@code hdr_len} tells the kernel how many bytes to copy into the socket buffer. Without it the kernel copies the
     * 14 B MAC header and hangs the rest of the ring slot on as a zero-copy page fragment, which a veth peer (any local
     * receiver) must then copy into a newly allocated page ({@code skb_copy_ubufs}): an allocation, a copy and a free
     * a frame. Copied whole, a frame costs one small copy: 10–28 % less kernel time a frame forwarded between veth
     * ports at a fixed 400 kpps, in four of four pairs (docs/PERFORMANCE.md, session 19). Slots have room for it
     * whether or not the kernel takes the option ({@link #txPrefix}).
     */
    private static final int TX_PREFIX = Kernel.VIRTIO_NET_HDR_SIZE;
    /** Frames up to this long are copied whole; longer ones (jumbo) keep the page fragments (no large allocation). */
    private static final int TX_COPY_MAX = 4096;

    private final String name;
    private final int ifIndex;
    /** The receiving socket: RX ring, PACKET_STATISTICS, recv(2) of frames larger than a slot, the poll descriptor. */
    private final int fd;
    /** The sending socket: TX ring only, bound with protocol 0. */
    private final int txFd;

    private final int slotMtu;
    private volatile int mtu;
    private final long speedMbps;
    private final int maxFrameLength;
    private final boolean acceptGso;
    private final Arena arena;
    private final MemorySegment errno;
    private final MemorySegment rxRingAddress;
    private final long rxRingBytes;
    private final MemorySegment txRingAddress;
    private final long txRingBytes;
    /** The RX ring. */
    private final MemorySegment ring;

    private final MemorySegment txRing;
    private final int rxFrames;
    private final int rxFrameSize;
    /** Where each RX slot starts in the ring: block * 16 KiB + index in the block * slot size. */
    private final int[] rxSlotOffsets;

    private final int txFrames;
    private final int txFrameSize;
    /** {@link #TX_PREFIX}, or 0 where the kernel refused PACKET_VNET_HDR (the frames then go as page fragments). */
    private final int txPrefix;

    private final FrameLayout view = new FrameLayout();
    private final TcpSegmenter segmenter;
    private final int[] segmentLengths = new int[AfPacketConfig.MAX_GSO_SEGMENTS];
    private final MemorySegment copyScratch;
    /** Where recv(2) writes a copied frame: 4 bytes into the scratch area, room to restore a VLAN tag in front. */
    private final MemorySegment copyTarget;

    private final MemorySegment statistics;
    private final MemorySegment statisticsLength;
    private boolean copyScratchLent;
    private volatile boolean linkUp;

    private int rxIndex;
    private int rxLentFrames;
    private int txIndex;
    private boolean txKickNeeded;
    private boolean gsoHintLogged;

    private long rxFrameCount;
    private long rxByteCount;
    private long rxChecksumCompletedCount;
    private long rxVlanRestoredCount;
    private long rxGsoFrameCount;
    private long rxGsoSegmentCount;
    private long rxOversizeDropCount;
    private long txFrameCount;
    private long txByteCount;
    private long txRingFullCount;
    private long txTooLongCount;
    private long txSendErrorCount;
    private long kernelDropCount;
    private long reportedKernelDrops;
    private long reportedOversizeDrops;
    private long rxCopiedFrameCount;

    private AfPacketPort(final String name, final AfPacketConfig config) {
        this.name = name;
        this.ifIndex = NetDevice.index(name);
        this.mtu = NetDevice.mtu(name);
        this.slotMtu = mtu;
        this.speedMbps = config.speedMbps();
        this.maxFrameLength = mtu + L2_HEADROOM;
        this.acceptGso = config.acceptGso();
        this.linkUp = (NetDevice.flags(name) & Kernel.IFF_RUNNING) != 0;
        this.arena = Arena.ofShared();
        this.errno = Libc.newErrnoSegment(arena);
        // a frame longer than its slot is truncated and queued whole for recv(2) (TP_STATUS_COPY)
        final int rxNeeded = (int) Kernel.TPACKET2_RX_MAC_OFFSET + maxFrameLength;
        // MTU-sized slots, at most 2 KiB: larger frames (jumbo, GSO) take the copy path, so ring memory stays at most
        // rxFrames x 2 KiB whatever the MTU. Slots are whole cache lines, not powers of two: at MTU 1500 a slot is
        // 1,600 B, 10 to a 16 KiB block, so 1,030 slots take 1.6 MiB where 1,024 slots of 2 KiB took 2 MiB (the ring's
        // pages are resident from the start), and a slot's header and first 62 bytes of frame lie in two whole lines
        this.rxFrameSize = Math.min(AfPacketConfig.MAX_RX_SLOT_BYTES, align(rxNeeded, CACHE_LINE));
        final int rxSlotsPerBlock = RX_BLOCK_BYTES / rxFrameSize;
        final int rxBlocks = (config.rxFrames() + rxSlotsPerBlock - 1) / rxSlotsPerBlock;
        this.rxFrames = rxBlocks * rxSlotsPerBlock;
        this.rxSlotOffsets = new int[rxFrames];
        for (int i = 0; i < rxFrames; i++) {
            rxSlotOffsets[i] = i / rxSlotsPerBlock * RX_BLOCK_BYTES + i % rxSlotsPerBlock * rxFrameSize;
        }
        final long rxRingBytes = (long) rxBlocks * RX_BLOCK_BYTES;
        this.txFrameSize = pow2((int) Kernel.TPACKET2_TX_DATA_OFFSET + TX_PREFIX + maxFrameLength);
        // TX ring memory bounded as if slots were 2 KiB: jumbo MTUs get fewer, larger slots (at least 8; a full ring
        // holds the traffic manager's frames in their queues and is handed to the kernel at once, transmitReady)
        this.txFrames = Math.min(config.txFrames(), Math.max(MIN_TX_FRAMES, Integer.highestOneBit((int)
                ((long) config.txFrames() * 2048 / txFrameSize))));
        // scratch for the copy path (GSO super-frames, jumbo frames) mapped, not allocated: resident only once such a
        // frame arrives (64 x (MTU + 22) B + 64 KiB a port: 2.7 MiB of a lab leaf's 4 ports at MTU 9500, 5 MiB of 32
        // ports at MTU 1500, that Arena.allocate zero-filled at start)
        this.segmenter = new TcpSegmenter(
                AnonymousMemory.map(
                        (long) AfPacketConfig.MAX_GSO_SEGMENTS * maxFrameLength, arena, "GSO segments of " + name),
                maxFrameLength);
        this.copyScratch = AnonymousMemory.map(GSO_FRAME_BYTES + 8, arena, "the copy path of " + name);
        this.copyTarget = copyScratch.asSlice(4);
        this.statistics = arena.allocate(Kernel.TPACKET_STATS);
        this.statisticsLength = arena.allocate(JAVA_INT);

        this.fd = openSocket("socket(AF_PACKET) for " + name, -1);
        this.txFd = openSocket("the sending socket(AF_PACKET) for " + name, fd);
        int vnetPrefix = 0;
        MemorySegment rxMapped = MemorySegment.NULL;
        MemorySegment txMapped = MemorySegment.NULL;
        final long txMappedBytes = (long) txFrameSize * txFrames;
        try (Arena setup = Arena.ofConfined()) {
            setInt(setup, fd, Kernel.PACKET_VERSION, Kernel.TPACKET_V2, "PACKET_VERSION");
            setInt(setup, fd, Kernel.PACKET_IGNORE_OUTGOING, 1, "PACKET_IGNORE_OUTGOING");
            // frames larger than a slot are also queued whole, for recv(2): GSO super-frames, jumbo frames
            setInt(setup, fd, Kernel.PACKET_COPY_THRESH, 1, "PACKET_COPY_THRESH");
            setRing(setup, fd, Kernel.PACKET_RX_RING, RX_BLOCK_BYTES, rxFrameSize, rxFrames, "PACKET_RX_RING");
            rxMapped = map(fd, rxRingBytes, "the RX ring of " + name);
            bind(setup, fd, (short) Kernel.ETH_P_ALL_BE);
            if (config.promiscuous()) {
                final MemorySegment mreq = setup.allocate(Kernel.PACKET_MREQ);
                mreq.set(JAVA_INT, Kernel.MREQ_IFINDEX, ifIndex);
                mreq.set(JAVA_SHORT, Kernel.MREQ_TYPE, (short) Kernel.PACKET_MR_PROMISC);
                check(
                        Libc.setsockopt(errno, fd, Kernel.SOL_PACKET, Kernel.PACKET_ADD_MEMBERSHIP, mreq, (int)
                                Kernel.PACKET_MREQ.byteSize()),
                        "PACKET_ADD_MEMBERSHIP promisc");
            }
            setInt(setup, txFd, Kernel.PACKET_VERSION, Kernel.TPACKET_V2, "PACKET_VERSION (TX)");
            setInt(setup, txFd, Kernel.PACKET_QDISC_BYPASS, 1, "PACKET_QDISC_BYPASS");
            setInt(setup, txFd, Kernel.PACKET_LOSS, 1, "PACKET_LOSS");
            // before the ring; a kernel that refuses it gets the frames as they are (page fragments), said once here
            if (trySetInt(setup, txFd, Kernel.PACKET_VNET_HDR, 1)) {
                vnetPrefix = TX_PREFIX;
            } else {
                LOG.warn(
                        "port {}: {}: sent frames go as page fragments of the TX ring (more kernel CPU a frame on veth)",
                        name,
                        Libc.describe("PACKET_VNET_HDR refused", errno));
            }
            final int txBlockBytes = txFrameSize * Math.max(1, 16384 / txFrameSize);
            setRing(setup, txFd, Kernel.PACKET_TX_RING, txBlockBytes, txFrameSize, txFrames, "PACKET_TX_RING");
            txMapped = map(txFd, txMappedBytes, "the TX ring of " + name);
            bind(setup, txFd, (short) 0); // protocol 0: the sending socket is never handed a frame
        } catch (final RuntimeException e) {
            unmap(rxMapped, rxRingBytes);
            unmap(txMapped, txMappedBytes);
            Libc.close(errno, fd);
            Libc.close(errno, txFd);
            arena.close();
            throw e;
        }
        this.txPrefix = vnetPrefix;
        this.rxRingAddress = rxMapped;
        this.rxRingBytes = rxRingBytes;
        this.txRingAddress = txMapped;
        this.txRingBytes = txMappedBytes;
        this.ring = rxMapped.reinterpret(rxRingBytes, arena, null);
        this.txRing = txMapped.reinterpret(txMappedBytes, arena, null);
    }

    /** Opens an AF_PACKET socket; on failure closes {@code openedFd} (if ≥ 0) and the arena, then throws. */
    private int openSocket(final String what, final int openedFd) {
        final int socketFd = Libc.socket(errno, Kernel.AF_PACKET, Kernel.SOCK_RAW | Kernel.SOCK_CLOEXEC, 0);
        if (socketFd < 0) {
            final IllegalStateException failure = new IllegalStateException(Libc.describe(what, errno));
            if (openedFd >= 0) {
                Libc.close(errno, openedFd);
            }
            arena.close();
            throw failure;
        }
        return socketFd;
    }

    private MemorySegment map(final int socketFd, final long bytes, final String what) {
        final MemorySegment mapped =
                Libc.mmap(errno, bytes, Kernel.PROT_READ | Kernel.PROT_WRITE, Kernel.MAP_SHARED, socketFd, 0);
        if (mapped.address() == Libc.MAP_FAILED) {
            throw new IllegalStateException(Libc.describe("mmap of " + what, errno));
        }
        return mapped;
    }

    private static void unmap(final MemorySegment mapped, final long bytes) {
        if (mapped.address() != 0 && mapped.address() != Libc.MAP_FAILED) {
            Libc.munmap(Libc.newErrnoSegment(Arena.global()), mapped, bytes);
        }
    }

    /**
     * Opens a port on an existing interface (which should be up; see {@link NetDevice#up(String)}).
     *
     * @param interfaceName the Linux interface name.
     * @param config ring sizes and options.
     * @return the open port.
     * @throws IllegalStateException if the interface does not exist or a socket call fails (message names errno).
     */
    public static AfPacketPort open(final String interfaceName, final AfPacketConfig config) {
        return new AfPacketPort(interfaceName, config);
    }

    @Override
    public String name() {
        return name;
    }

    /** @return the Linux interface index the socket is bound to. */
    public int ifIndex() {
        return ifIndex;
    }

    @Override
    public int receive(final RxBatch batch, final long nowNs) {
        int lent = 0;
        while (batch.remaining() > 0 && rxLentFrames < rxFrames) {
            final int frameIndex = nextRxSlot(rxLentFrames);
            final long hdr = rxSlotOffsets[frameIndex];
            final int status = (int) INT_VH.getAcquire(ring, hdr + Kernel.TP_STATUS);
            if ((status & Kernel.TP_STATUS_USER) == 0) {
                break;
            }
            final int added = onFrame(batch, hdr, status, frameIndex, nowNs);
            if (added < 0) {
                break;
            }
            rxLentFrames++;
            lent += added;
        }
        if (lent == 0 && rxLentFrames > 0) {
            release(batch); // only dropped frames were taken: the caller will not release, so hand them back now
        }
        return lent;
    }

    /** The kernel's receive timestamp of the next frame in the RX ring (CLOCK_REALTIME, as every packet socket's). */
    @Override
    public boolean rxWaitingSince(final long clockNs, final long epochNs) {
        if (rxLentFrames >= rxFrames) {
            return false;
        }
        final long hdr = rxSlotOffsets[nextRxSlot(rxLentFrames)];
        final int status = (int) INT_VH.getAcquire(ring, hdr + Kernel.TP_STATUS);
        if ((status & Kernel.TP_STATUS_USER) == 0) {
            return false;
        }
        return kernelRxNs(hdr) < epochNs;
    }

    /** @return slots added to the batch (0: frame dropped), or -1: not enough batch room, try next cycle. */
    private int onFrame(final RxBatch batch, final long hdr, final int status, final int frameIndex, final long nowNs) {
        int length = ring.get(JAVA_INT, hdr + Kernel.TP_LEN);
        if (ring.get(JAVA_INT, hdr + Kernel.TP_SNAPLEN) < length) {
            // larger than a slot: whole on the receive queue if the kernel could queue it (TP_STATUS_COPY)
            return (status & Kernel.TP_STATUS_COPY) != 0
                    ? onCopiedFrame(batch, hdr, status, frameIndex, nowNs)
                    : dropOversize();
        }
        long mac = hdr + (ring.get(JAVA_SHORT, hdr + Kernel.TP_MAC) & 0xffff);
        if ((status & Kernel.TP_STATUS_VLAN_VALID) != 0 && mac - TAG >= hdr + Kernel.TPACKET2_HDRLEN) {
            MemorySegment.copy(ring, mac, ring, mac - TAG, MACS);
            mac -= TAG;
            writeVlanTag(ring, mac, hdr, status);
            length += TAG;
            rxVlanRestoredCount++;
        }
        if (length > mtu + L2_HEADROOM) {
            return onSuperFrame(batch, mac, length, frameIndex, nowNs);
        }
        if ((status & Kernel.TP_STATUS_CSUMNOTREADY) != 0
                && view.wrap(ring, mac, length)
                && Checksums.completeL4(ring, mac, view)) {
            rxChecksumCompletedCount++;
        }
        batch.add(ring, mac, length, nowNs, frameIndex);
        rxFrameCount++;
        rxByteCount += length;
        if (FrameTrace.ON) {
            FrameTrace.rx(ring, mac, length, kernelRxNs(hdr), ifIndex);
        }
        return 1;
    }

    /** The kernel's receive timestamp of the slot at {@code hdr} (CLOCK_REALTIME ns). */
    private long kernelRxNs(final long hdr) {
        return Integer.toUnsignedLong(ring.get(JAVA_INT, hdr + Kernel.TP_SEC)) * 1_000_000_000L
                + ring.get(JAVA_INT, hdr + Kernel.TP_NSEC);
    }

    /**
     * A frame larger than a ring slot, queued whole on the socket: read it into the copy scratch area (one per batch),
     * restore its VLAN tag from the slot's metadata, then segment it (GSO), lend it (it fits the current MTU, which
     * grew after the rings were sized), or drop and count it.
     */
    private int onCopiedFrame(
            final RxBatch batch, final long hdr, final int status, final int frameIndex, final long nowNs) {
        if (copyScratchLent || batch.count() > 0 && batch.remaining() < AfPacketConfig.MAX_GSO_SEGMENTS) {
            // the scratch area holds a frame of this batch, or its segments might not fit: next cycle (the frame
            // stays queued until recv takes it, so nothing is read and then put back)
            return -1;
        }
        final long read = Libc.recv(errno, fd, copyTarget, GSO_FRAME_BYTES, Kernel.MSG_DONTWAIT);
        if (read < EthernetFlyweight.HEADER_LENGTH) {
            return dropOversize(); // the queued copy is gone (cannot happen while we are the only reader)
        }
        rxCopiedFrameCount++;
        long mac = 4;
        int length = (int) read;
        if ((status & Kernel.TP_STATUS_VLAN_VALID) != 0) {
            MemorySegment.copy(copyScratch, TAG, copyScratch, 0, MACS);
            mac = 0;
            writeVlanTag(copyScratch, mac, hdr, status);
            length += TAG;
            rxVlanRestoredCount++;
        }
        if (length > mtu + L2_HEADROOM) {
            return onSuperFrame(batch, copyScratch, mac, length, frameIndex, nowNs);
        }
        if ((status & Kernel.TP_STATUS_CSUMNOTREADY) != 0
                && view.wrap(copyScratch, mac, length)
                && Checksums.completeL4(copyScratch, mac, view)) {
            rxChecksumCompletedCount++;
        }
        copyScratchLent = true;
        batch.add(copyScratch, mac, length, nowNs, frameIndex);
        rxFrameCount++;
        rxByteCount += length;
        return 1;
    }

    private int onSuperFrame(
            final RxBatch batch, final long mac, final int length, final int frameIndex, final long nowNs) {
        return onSuperFrame(batch, ring, mac, length, frameIndex, nowNs);
    }

    private int onSuperFrame(
            final RxBatch batch,
            final MemorySegment memory,
            final long mac,
            final int length,
            final int frameIndex,
            final long nowNs) {
        if (!acceptGso || !view.wrap(memory, mac, length) || view.protocol != EtherType.PROTO_TCP) {
            return dropOversize();
        }
        final int segmentMtu = Math.min(mtu, slotMtu); // the segmenter's scratch slots fit the opening MTU
        segmenter.readTcpHeader(memory, mac, view);
        final int count = segmenter.segmentCount(view, segmentMtu, batch.capacity());
        if (count < 0) {
            return dropOversize();
        }
        if (count > batch.remaining()) {
            return batch.count() == 0 ? dropOversize() : -1;
        }
        final int firstSlot = segmenter.segment(memory, mac, view, segmentMtu, segmentLengths);
        for (int i = 0; i < count; i++) {
            batch.add(segmenter.scratch(), segmenter.slotOffset(firstSlot + i), segmentLengths[i], nowNs, frameIndex);
            rxByteCount += segmentLengths[i];
        }
        rxFrameCount += count;
        rxGsoFrameCount++;
        rxGsoSegmentCount += count;
        return count;
    }

    private int dropOversize() {
        rxOversizeDropCount++;
        if (!gsoHintLogged) {
            gsoHintLogged = true;
            LOG.warn(
                    "port {}: dropped a frame larger than MTU {} (a GSO/TSO super-frame): the peer has segmentation or"
                            + " TX checksum offload on; run `ethtool -K <peer-if> tx off` on the peer",
                    name,
                    mtu);
        }
        return 0;
    }

    @Override
    public void release(final RxBatch batch) {
        for (int i = 0; i < rxLentFrames; i++) {
            final long hdr = rxSlotOffsets[nextRxSlot(i)];
            INT_VH.setRelease(ring, hdr + Kernel.TP_STATUS, Kernel.TP_STATUS_KERNEL);
        }
        rxIndex = nextRxSlot(rxLentFrames);
        rxLentFrames = 0;
        copyScratchLent = false;
        segmenter.reset();
        batch.clear();
    }

    @Override
    public boolean transmit(final MemorySegment source, final long offset, final int length, final long timestampNs) {
        if (length < 14
                || length > txFrameSize - Kernel.TPACKET2_TX_DATA_OFFSET - txPrefix
                || !Port.fitsMtu(source, offset, length, mtu)) {
            txTooLongCount++; // the kernel would drop it from the ring without a trace (PACKET_LOSS)
            return false;
        }
        final long hdr = (long) txIndex * txFrameSize;
        final int status = (int) INT_VH.getAcquire(txRing, hdr + Kernel.TP_STATUS);
        if (status != Kernel.TP_STATUS_AVAILABLE && status != Kernel.TP_STATUS_WRONG_FORMAT) {
            txRingFullCount++;
            txKickNeeded = true;
            return false;
        }
        final long data = hdr + Kernel.TPACKET2_TX_DATA_OFFSET;
        if (txPrefix != 0) {
            // the rest of the virtio_net_hdr stays 0 (no checksum offload, no GSO): the ring is zeroed when mapped
            txRing.set(JAVA_SHORT, data + Kernel.VIRTIO_NET_HDR_LEN, (short) (length <= TX_COPY_MAX ? length : 0));
        }
        MemorySegment.copy(source, offset, txRing, data + txPrefix, length);
        txRing.set(JAVA_INT, hdr + Kernel.TP_LEN, length + txPrefix);
        INT_VH.setRelease(txRing, hdr + Kernel.TP_STATUS, Kernel.TP_STATUS_SEND_REQUEST);
        txIndex = (txIndex + 1) & (txFrames - 1);
        txKickNeeded = true;
        txFrameCount++;
        txByteCount += length;
        if (FrameTrace.ON) {
            FrameTrace.tx(source, offset, length, ifIndex, txFrameCount);
        }
        return true;
    }

    @Override
    public boolean transmitReady() {
        if (!linkUp || txSlotFree()) {
            return true; // a down link: transmit() refuses, and the caller counts the frame
        }
        flush(); // frames written but not yet handed to the kernel hold their slots until sent
        return txSlotFree();
    }

    private boolean txSlotFree() {
        final int status = (int) INT_VH.getAcquire(txRing, (long) txIndex * txFrameSize + Kernel.TP_STATUS);
        return status == Kernel.TP_STATUS_AVAILABLE || status == Kernel.TP_STATUS_WRONG_FORMAT;
    }

    @Override
    public void flush() {
        if (!txKickNeeded) {
            return;
        }
        final long kickNs = FrameTrace.ON ? System.nanoTime() : 0;
        final long sent = Libc.sendto(errno, txFd, MemorySegment.NULL, 0, Kernel.MSG_DONTWAIT, MemorySegment.NULL, 0);
        if (FrameTrace.ON) {
            FrameTrace.kick(ifIndex, kickNs, txFrameCount);
        }
        if (sent < 0) {
            final int error = Libc.errno(errno);
            if (error != Kernel.EAGAIN && error != Kernel.ENOBUFS && error != Kernel.EINTR) {
                txSendErrorCount++;
                txKickNeeded = false;
            }
            return;
        }
        txKickNeeded = false;
    }

    /** One {@code sendto} kicks the TX ring, whatever it holds. */
    @Override
    public boolean flushIsOneSystemCall() {
        return true;
    }

    @Override
    public boolean linkUp() {
        return linkUp;
    }

    /**
     * Sets the operational state (from a netlink link event).
     *
     * @param up whether the interface is running.
     */
    public void linkState(final boolean up) {
        this.linkUp = up;
    }

    @Override
    public int mtu() {
        return mtu;
    }

    /**
     * Follows the link's MTU (from an rtnetlink link event; any thread). Takes effect from the next frame.
     *
     * @param newMtu the interface's MTU now; at most {@link #slotMtu()} (a larger one needs the port reopened).
     */
    public void mtu(final int newMtu) {
        if (newMtu < 68 || newMtu > slotMtu) {
            throw new IllegalArgumentException("port " + name + ": MTU " + newMtu + " outside 68.." + slotMtu
                    + " (the rings were sized for MTU " + slotMtu + "; reopen the port)");
        }
        this.mtu = newMtu;
    }

    /** @return the MTU the rings were sized for (the largest {@link #mtu(int)} accepts). */
    public int slotMtu() {
        return slotMtu;
    }

    /** @return bytes of ring memory mapped for this port (RX + TX rings; bounded by the configuration). */
    public long ringBytes() {
        return rxRingBytes + txRingBytes;
    }

    @Override
    public long takeRxOverflowDrops() {
        final long total = kernelDropCount();
        final long delta = total - reportedKernelDrops;
        reportedKernelDrops = total;
        return delta;
    }

    @Override
    public long takeRxOversizeDrops() {
        final long delta = rxOversizeDropCount - reportedOversizeDrops;
        reportedOversizeDrops = rxOversizeDropCount;
        return delta;
    }

    @Override
    public boolean hasUnreportedRxDrops() {
        return rxOversizeDropCount != reportedOversizeDrops;
    }

    @Override
    public long speedMbps() {
        return speedMbps;
    }

    @Override
    public int pollFd() {
        return fd;
    }

    /** @return frames lent to the data path (GSO segments counted one by one). */
    public long rxFrameCount() {
        return rxFrameCount;
    }

    /** @return bytes lent to the data path. */
    public long rxByteCount() {
        return rxByteCount;
    }

    /** @return frames whose TCP/UDP checksum was completed in software (TP_STATUS_CSUMNOTREADY). */
    public long rxChecksumCompletedCount() {
        return rxChecksumCompletedCount;
    }

    /** @return frames whose VLAN tag was restored from ring metadata. */
    public long rxVlanRestoredCount() {
        return rxVlanRestoredCount;
    }

    /** @return GSO super-frames segmented in software. */
    public long rxGsoFrameCount() {
        return rxGsoFrameCount;
    }

    /** @return segments made from GSO super-frames. */
    public long rxGsoSegmentCount() {
        return rxGsoSegmentCount;
    }

    /** @return frames larger than the MTU that were dropped (rx_oversize_gso). */
    public long rxOversizeDropCount() {
        return rxOversizeDropCount;
    }

    /** @return frames larger than a ring slot read whole through the receive queue (TP_STATUS_COPY). */
    public long rxCopiedFrameCount() {
        return rxCopiedFrameCount;
    }

    /**
     * @return whether the kernel copies this port's TX frames (up to 4 KiB) whole into its socket buffers
     *     (PACKET_VNET_HDR taken), rather than sending them as page fragments of the ring.
     */
    public boolean txCopiesFramesWhole() {
        return txPrefix != 0;
    }

    /** @return frames put on the TX ring. */
    public long txFrameCount() {
        return txFrameCount;
    }

    /** @return bytes put on the TX ring. */
    public long txByteCount() {
        return txByteCount;
    }

    /** @return transmits refused because the TX ring was full. */
    public long txRingFullCount() {
        return txRingFullCount;
    }

    /** @return transmits refused because the frame exceeded the link's MTU (+ L2 header and one VLAN tag). */
    public long txTooLongCount() {
        return txTooLongCount;
    }

    /** @return kicks of the TX ring that failed with an error other than EAGAIN/ENOBUFS. */
    public long txSendErrorCount() {
        return txSendErrorCount;
    }

    /**
     * Reads and accumulates the kernel's drop count for this socket (PACKET_STATISTICS; frames lost because the RX
     * ring was full). Data-plane thread (or after it stopped); one syscall.
     *
     * @return drops since the port opened.
     */
    public long kernelDropCount() {
        // the kernel zeroes its counters on every read: accumulate here
        statisticsLength.set(JAVA_INT, 0, (int) Kernel.TPACKET_STATS.byteSize());
        if (arena.scope().isAlive()
                && Libc.getsockopt(errno, fd, Kernel.SOL_PACKET, Kernel.PACKET_STATISTICS, statistics, statisticsLength)
                        == 0) {
            kernelDropCount += statistics.get(JAVA_INT, Kernel.STATS_DROPS) & 0xffffffffL;
        }
        return kernelDropCount;
    }

    @Override
    public void close() {
        if (!arena.scope().isAlive()) {
            return;
        }
        arena.close();
        unmap(rxRingAddress, rxRingBytes);
        unmap(txRingAddress, txRingBytes);
        Libc.close(Libc.newErrnoSegment(Arena.global()), fd);
        Libc.close(Libc.newErrnoSegment(Arena.global()), txFd);
    }

    @Override
    public String toString() {
        return "AfPacketPort[" + name + " ifindex " + ifIndex + " mtu " + mtu + " rx " + rxFrames + "x" + rxFrameSize
                + " tx " + txFrames + "x" + txFrameSize + (txPrefix != 0 ? " copied whole" : " as page fragments")
                + "]";
    }

    private void setInt(final Arena setup, final int socketFd, final int option, final int value, final String what) {
        if (!trySetInt(setup, socketFd, option, value)) {
            check(-1, what);
        }
    }

    /** @return whether the SOL_PACKET option was set (if not, {@link #errno} says why). */
    private boolean trySetInt(final Arena setup, final int socketFd, final int option, final int value) {
        final MemorySegment v = setup.allocateFrom(JAVA_INT, value);
        return Libc.setsockopt(errno, socketFd, Kernel.SOL_PACKET, option, v, 4) >= 0;
    }

    /** @return the RX slot {@code ahead} slots after {@code rxIndex} ({@code ahead <= rxFrames}; no division). */
    private int nextRxSlot(final int ahead) {
        final int slot = rxIndex + ahead;
        return slot >= rxFrames ? slot - rxFrames : slot;
    }

    private static int align(final int value, final int alignment) {
        return (value + alignment - 1) / alignment * alignment;
    }

    private void setRing(
            final Arena setup,
            final int socketFd,
            final int option,
            final int blockSize,
            final int frameSize,
            final int frames,
            final String what) {
        final int framesPerBlock = blockSize / frameSize;
        final MemorySegment req = setup.allocate(Kernel.TPACKET_REQ);
        req.set(JAVA_INT, Kernel.REQ_BLOCK_SIZE, blockSize);
        req.set(JAVA_INT, Kernel.REQ_BLOCK_NR, frames / framesPerBlock);
        req.set(JAVA_INT, Kernel.REQ_FRAME_SIZE, frameSize);
        req.set(JAVA_INT, Kernel.REQ_FRAME_NR, frames);
        check(
                Libc.setsockopt(errno, socketFd, Kernel.SOL_PACKET, option, req, (int) Kernel.TPACKET_REQ.byteSize()),
                what);
    }

    private void bind(final Arena setup, final int socketFd, final short protocol) {
        final MemorySegment sll = setup.allocate(Kernel.SOCKADDR_LL);
        sll.set(JAVA_SHORT, Kernel.SLL_FAMILY, (short) Kernel.AF_PACKET);
        sll.set(JAVA_SHORT, Kernel.SLL_PROTOCOL, protocol);
        sll.set(JAVA_INT, Kernel.SLL_IFINDEX, ifIndex);
        check(Libc.bind(errno, socketFd, sll, (int) Kernel.SOCKADDR_LL.byteSize()), "bind to " + name);
    }

    private void check(final int result, final String what) {
        if (result < 0) {
            throw new IllegalStateException(Libc.describe(what + " on " + name, errno));
        }
    }

    private static int pow2(final int atLeast) {
        return Math.max(2048, Integer.highestOneBit(atLeast - 1) << 1);
    }

    /**
     * Puts back the VLAN tag the kernel took off a received frame (TP_STATUS_VLAN_VALID) after the MACs of the frame
     * that now starts at {@code mac}, with the TPID the kernel reports (802.1Q when it reports none).
     */
    private void writeVlanTag(final MemorySegment memory, final long mac, final long hdr, final int status) {
        final int tpid = (status & Kernel.TP_STATUS_VLAN_TPID_VALID) != 0
                ? ring.get(JAVA_SHORT, hdr + Kernel.TP_VLAN_TPID) & 0xffff
                : EtherType.VLAN;
        final long tag = mac + EthernetFlyweight.ETHER_TYPE_OFFSET;
        NetworkOrder.u16(memory, tag + VlanTagFlyweight.TPID_OFFSET, tpid);
        NetworkOrder.u16(memory, tag + VlanTagFlyweight.TCI_OFFSET, ring.get(JAVA_SHORT, hdr + Kernel.TP_VLAN_TCI));
    }
}
