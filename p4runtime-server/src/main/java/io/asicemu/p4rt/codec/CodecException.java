package io.asicemu.p4rt.codec;

import io.asicemu.p4rt.backend.UpdateStatus;

/** A protobuf entity that breaks a P4Runtime rule; carries the status to report. */
public final class CodecException extends Exception {
    private static final long serialVersionUID = 1L;

    private final UpdateStatus status;

    public CodecException(final UpdateStatus status, final String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public UpdateStatus status() {
        return status;
    }
}
