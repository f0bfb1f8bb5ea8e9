package io.asicemu.p4rt.backend;

import java.math.BigInteger;
import java.util.List;

/**
 * Receives what the pipeline sends to the controller: punted packets and digest data. Called on the backend's
 * thread; implementations must not block (the service only enqueues onto gRPC streams).
 */
public interface CpuPortListener {
    /**
     * A packet punted to the CPU port.
     *
     * @param payload the whole frame (owned by the callee after the call).
     */
    void onPacketIn(byte[] payload, int ingressPort, int targetEgressPort, int puntReason);

    /**
     * Whether every controller that receives PacketIns reads its stream (gRPC flow control says its outbound buffer
     * has room). While not, the backend leaves punted packets on the CPU port's queue; once that is full the data path
     * drops and counts them ({@code ASICEMU_IN_DROP_REASON_CPU_QUEUE_FULL}, readable over P4Runtime), instead of
     * buffering without bound or losing them silently.
     *
     * @return false while a receiving controller's stream is not ready.
     */
    default boolean readyForPacketIns() {
        return true;
    }

    /**
     * Whether a controller that receives PacketIns (a primary whose role takes them) has its stream open now. When
     * host interfaces share the CPU port, the punts a controller's own rules asked for go to it only while this holds.
     *
     * @return true if some controller would receive a PacketIn sent now.
     */
    default boolean hasPacketInReceiver() {
        return true;
    }

    /** One digest message (struct members in P4Info order). */
    void onDigest(int digestId, List<BigInteger> members);

    /** Entries of idle-timeout tables not hit for their {@code idleTimeoutNs}; their timers restart. */
    void onIdleTimeout(List<P4Entity.TableEntry> entries);
}
