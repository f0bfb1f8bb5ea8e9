package io.asicemu.pipeline.control;

/**
 * The ACL part of the control model, as committed: the names of the ingress and egress ACL rules in force, in the
 * order of their counters (the rules themselves are compiled into the data path's tables; a replace restarts their
 * counters), and whose the ingress ACL is: the configuration's (ACL_TABLE/ACL_RULE) until a controller replaces it,
 * then the controller's (a later config change of ACL_* is refused rather than wiping the controller's rules). Written
 * by the control thread, read by counter snapshots on any thread.
 */
final class AclState {
    private static final String[] NONE = new String[0];

    private volatile String[] ingressNames = NONE;
    private volatile String[] egressNames = NONE;
    /** Whether the ingress ACL in force is the configuration's (control thread only). */
    private boolean configIngress = true;

    /** Starts again from a configuration's ingress ACL (ACL_TABLE/ACL_RULE); no egress rules. */
    void reset(final String[] configuredIngressNames) {
        ingressNames = configuredIngressNames == null ? NONE : configuredIngressNames;
        egressNames = NONE;
        configIngress = true;
    }

    boolean configIngress() {
        return configIngress;
    }

    void configIngress(final boolean isConfigs) {
        configIngress = isConfigs;
    }

    String[] ingressNames() {
        return ingressNames;
    }

    String[] egressNames() {
        return egressNames;
    }

    void ingressNames(final String[] names) {
        ingressNames = names;
    }

    void egressNames(final String[] names) {
        egressNames = names;
    }
}
