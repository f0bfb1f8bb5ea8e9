package io.asicemu.p4rt.backend;

/**
 * A write was recorded and queued, but the data plane did not acknowledge it in time (it will still apply it). The
 * service ends the RPC with DEADLINE_EXCEEDED: gRPC's code for "the deadline passed; the operation may have
 * completed", since retrying the same INSERT would be refused as ALREADY_EXISTS.
 */
public final class DataPlaneTimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public DataPlaneTimeoutException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
