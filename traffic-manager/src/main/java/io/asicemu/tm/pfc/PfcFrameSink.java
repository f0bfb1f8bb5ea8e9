package io.asicemu.tm.pfc;

/**
 * Receives the PFC frames the traffic manager decides to send; the pipeline builds the 802.1Qbb frame (reference
 * §6.1: DA 01:80:C2:00:00:01, EtherType 0x8808, opcode 0x0101, class-enable vector, 8 quanta) and sends it on the
 * port ahead of queued data. The TM has already reserved the port's wire for it, starting when the frame in flight
 * (if any) ends, so data resumes after it. Called on the data-plane thread from {@code admit}, {@code dequeue} or
 * {@code poll}.
 */
@FunctionalInterface
public interface PfcFrameSink {
    /**
     * Send one PFC frame.
     *
     * @param nowNs              emulated time of the decision.
     * @param port               port index to send it on (the ingress port of the congested PG).
     * @param classEnableVector  bit n set when {@code quanta[n]} is valid.
     * @param quanta             8 pause times in quanta (0 = XON); reused after return, copy what you keep.
     */
    void onPfcFrame(long nowNs, int port, int classEnableVector, int[] quanta);
}
