package io.asicemu.pipeline.cpu;

import io.asicemu.pipeline.port.AnonymousMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The CPU port: punted packets (with ingress port and reason) go up through a single-producer single-consumer ring
 * of native slots (an anonymous mapping: a slot's pages become resident when a punt first reaches them, so the
 * ring, sized for {@code slots} largest frames, costs nothing at start and about a page a slot for ARP- and LLDP-sized
 * punts); packets from the controller come down through a queue the data thread drains between batches,
 * either straight out of a port (P4Runtime PacketOut with egress_port) or through the ingress pipeline as if received
 * on a port. That queue is bounded ({@value #INJECTION_FRAMES} frames and {@value #INJECTION_BYTES} bytes): a
 * controller that sends faster than the ports drain is refused (the caller tells it) and each refusal is counted on
 * the frame's port by the data-plane thread ({@link #drainRefusals}).
 * <p>
 * Threading: {@link #punt} and {@link #pollInjected} run on the data-plane thread (producer of punts, consumer of
 * injections); {@link #poll} runs on one consumer thread (P4Runtime's stream, the replay driver);
 * {@link #packetOut} and {@link #packetOutThroughIngress} may be called from any thread. The ring uses release/acquire
 * on its indexes; no locks. A full ring refuses the punt (the caller counts CPU_QUEUE_FULL).
 */
public final class CpuPort implements AutoCloseable {
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static {
        try {
            HEAD = MethodHandles.lookup().findVarHandle(CpuPort.class, "head", long.class);
            TAIL = MethodHandles.lookup().findVarHandle(CpuPort.class, "tail", long.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Arena arena = Arena.ofShared();
    private final MemorySegment ring;
    private final int slots;
    private final int slotBytes;
    private final int[] lengths;
    private final int[] ports;
    private final int[] reasons;
    private final long[] timestampsNs;

    @SuppressWarnings("unused")
    private volatile long head;

    @SuppressWarnings("unused")
    private volatile long tail;
    /** Frames waiting to be injected, at most. */
    public static final int INJECTION_FRAMES = 1024;
    /** Bytes waiting to be injected, at most (a controller's burst of jumbo frames cannot fill the heap). */
    public static final long INJECTION_BYTES = 4L << 20;

    // a lock-free linked queue with counted bounds (Agrona's array queue needs jdk.internal.misc exported)
    private final ConcurrentLinkedQueue<Injection> injections = new ConcurrentLinkedQueue<>();
    private final AtomicInteger injectionFrames = new AtomicInteger();
    private final AtomicLong injectionBytes = new AtomicLong();
    private final AtomicLongArray refusedByPort;
    private final AtomicLong refusedSinceDrain = new AtomicLong();
    private final ConsumerWakeup wakeup = new ConsumerWakeup();
    /** Whether the switch's kernel takes the punts through host interfaces (read on the data path per local frame). */
    private volatile boolean hostInterfaces;

    private final LearnRing learnEvents = new LearnRing(LearnRing.DEFAULT_CAPACITY, wakeup);

    /** A packet the controller sends. */
    public record Injection(byte[] frame, int port, boolean throughIngress) {}

    /**
     * @param slots punts the ring holds.
     * @param slotBytes the largest punted frame (longer ones are truncated).
     * @param maxPorts port indexes injections may name (refusals are counted per port below it).
     */
    public CpuPort(final int slots, final int slotBytes, final int maxPorts) {
        this.slots = slots;
        this.slotBytes = slotBytes;
        this.refusedByPort = new AtomicLongArray(Math.max(1, maxPorts));
        ring = AnonymousMemory.map((long) slots * slotBytes, arena, "the CPU port's punt ring");
        lengths = new int[slots];
        ports = new int[slots];
        reasons = new int[slots];
        timestampsNs = new long[slots];
    }

    /**
     * Data-plane thread: copies a frame into the punt ring.
     *
     * @param segment memory holding the frame.
     * @param offset its offset.
     * @param length its length.
     * @param ingressPort the port it came in on.
     * @param reason a {@link io.asicemu.pipeline.counter.PuntReason} index.
     * @param nowNs the time.
     * @return false if the ring is full.
     */
    public boolean punt(
            final MemorySegment segment,
            final long offset,
            final int length,
            final int ingressPort,
            final int reason,
            final long nowNs) {
        final long t = (long) TAIL.getOpaque(this);
        final long h = (long) HEAD.getAcquire(this);
        if (t - h == slots) {
            return false;
        }
        final int slot = (int) (t % slots);
        final int n = Math.min(length, slotBytes);
        MemorySegment.copy(segment, offset, ring, (long) slot * slotBytes, n);
        lengths[slot] = n;
        ports[slot] = ingressPort;
        reasons[slot] = reason;
        timestampsNs[slot] = nowNs;
        TAIL.setVolatile(this, t + 1); // volatile: ordered before the read of the consumer's waiting flag
        wakeup.wakeIfWaiting();
        return true;
    }

    /**
     * Consumer thread: hands up to {@code limit} punted packets to {@code handler}.
     *
     * @param handler receives each packet.
     * @param limit the most packets.
     * @return how many were handed over.
     */
    public int poll(final PacketInHandler handler, final int limit) {
        long h = (long) HEAD.getOpaque(this);
        final long t = (long) TAIL.getAcquire(this);
        int n = 0;
        while (h != t && n < limit) {
            final int slot = (int) (h % slots);
            handler.onPacket(
                    ring, (long) slot * slotBytes, lengths[slot], ports[slot], reasons[slot], timestampsNs[slot]);
            h++;
            n++;
            HEAD.setRelease(this, h);
        }
        return n;
    }

    /**
     * Names the one thread that drains the punt ring and the learn ring (so producers can wake it).
     *
     * @param thread the consumer, or null.
     */
    public void consumer(final Thread thread) {
        wakeup.consumer(thread);
    }

    /**
     * Consumer thread: announces it is about to block until the data plane adds to a ring.
     *
     * @return true if both rings are still empty (block now: the next punt or learn event unparks this thread),
     *         false if something arrived meanwhile (poll again).
     */
    public boolean prepareToWait() {
        wakeup.waiting(true);
        if (pending() > 0 || learnEvents.pending() > 0) {
            wakeup.waiting(false);
            return false;
        }
        return true;
    }

    /** Consumer thread: it stopped blocking (after {@link #prepareToWait} returned true). */
    public void doneWaiting() {
        wakeup.waiting(false);
    }

    /**
     * Says whether the switch's own kernel receives the punts through host interfaces. When it does, the data path
     * leaves to the kernel what the kernel must see to be the host of the switch's addresses: ICMP echo requests to
     * them are punted (not answered by the standalone data path), and copies of the ARP replies and IPv6 neighbor
     * advertisements addressed to the switch are punted beside the data path's own learning, so the kernel resolves
     * the neighbors it talks to. ARP requests and neighbor solicitations stay answered by the data path alone (the
     * kernel never sees them: no double answers). Set before traffic flows; any thread.
     *
     * @param on whether host interfaces drain the punts.
     */
    public void hostInterfaces(final boolean on) {
        hostInterfaces = on;
    }

    /** @return whether host interfaces drain the punts (see {@link #hostInterfaces(boolean)}). */
    public boolean hostInterfaces() {
        return hostInterfaces;
    }

    /** @return the FDB's learn-event ring (the data path produces, one control thread drains). */
    public LearnRing learnEvents() {
        return learnEvents;
    }

    /** @return punts waiting for the consumer. */
    public int pending() {
        return (int) ((long) TAIL.getAcquire(this) - (long) HEAD.getAcquire(this));
    }

    /**
     * Any thread: sends a frame out of a port (P4Runtime PacketOut with an egress port), bypassing ingress.
     *
     * @param frame the frame (copied by the caller's hand-over; do not modify it afterwards).
     * @param port the egress port index.
     * @return false if the injection queue is full: the frame is dropped and counted on {@code port}.
     */
    public boolean packetOut(final byte[] frame, final int port) {
        return inject(new Injection(frame, port, false));
    }

    /**
     * Any thread: injects a frame into the ingress pipeline as if it had been received on a port.
     *
     * @param frame the frame.
     * @param port the ingress port index.
     * @return false if the injection queue is full: the frame is dropped and counted on {@code port}.
     */
    public boolean packetOutThroughIngress(final byte[] frame, final int port) {
        return inject(new Injection(frame, port, true));
    }

    private boolean inject(final Injection injection) {
        final int length = injection.frame().length;
        final boolean fits = injectionFrames.incrementAndGet() <= INJECTION_FRAMES;
        if (injectionBytes.addAndGet(length) <= INJECTION_BYTES && fits) {
            injections.add(injection);
            return true;
        }
        injectionFrames.decrementAndGet();
        injectionBytes.addAndGet(-length);
        if (injection.port() >= 0 && injection.port() < refusedByPort.length()) {
            refusedByPort.incrementAndGet(injection.port());
        }
        refusedSinceDrain.incrementAndGet();
        return false;
    }

    /**
     * Data-plane thread: the next injection, or null.
     *
     * @return an injection or null.
     */
    public Injection pollInjected() {
        final Injection injection = injections.poll();
        if (injection != null) {
            injectionFrames.decrementAndGet();
            injectionBytes.addAndGet(-injection.frame().length);
        }
        return injection;
    }

    /** Receives refused injections per port. */
    @FunctionalInterface
    public interface RefusalSink {
        /** @param port the port index. @param frames frames refused since the last drain. */
        void refused(int port, long frames);
    }

    /**
     * Data-plane thread: hands over the injections refused since the last call, per port (cheap when there are
     * none: one volatile read).
     *
     * @param sink receives each port's count.
     */
    public void drainRefusals(final RefusalSink sink) {
        if (refusedSinceDrain.get() == 0) {
            return;
        }
        refusedSinceDrain.set(0); // before the per-port swaps: a refusal racing with this drain is seen next time
        for (int port = 0; port < refusedByPort.length(); port++) {
            if (refusedByPort.get(port) != 0) {
                sink.refused(port, refusedByPort.getAndSet(port, 0));
            }
        }
    }

    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
