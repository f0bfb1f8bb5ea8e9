package io.asicemu.p4rt.backend;

import java.math.BigInteger;
import java.util.List;

/**
 * Receives what the pipeline sends to the controller: punted packets and digest data. Called on the backend's
 * thread; implementations must not block (the service only enqueues onto gRPC streams).
 */
public interface CpuPortListener
{
    /**
     * A packet punted to the CPU port.
     *
     * @param payload the whole frame (owned by the callee after the call).
     */
    void onPacketIn(byte[] payload, int ingressPort, int targetEgressPort, int puntReason);

    /** One digest message (struct members in P4Info order). */
    void onDigest(int digestId, List<BigInteger> members);

    /** Entries of idle-timeout tables not hit for their {@code idleTimeoutNs}; their timers restart. */
    void onIdleTimeout(List<P4Entity.TableEntry> entries);
}
