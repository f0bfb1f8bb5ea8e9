package io.asicemu.pipeline.table;

/** What an ACL rule does with a matching packet (SONiC {@code PACKET_ACTION}, plus copy-to-CPU). */
public enum AclAction {
    /** Let it through (SONiC FORWARD). */
    FORWARD,
    /** Drop it (SONiC DROP). */
    DROP,
    /** Send it to the CPU port instead of forwarding (SONiC TRAP). */
    TRAP,
    /** Send a copy to the CPU port and forward the original (SONiC COPY). */
    COPY
}
