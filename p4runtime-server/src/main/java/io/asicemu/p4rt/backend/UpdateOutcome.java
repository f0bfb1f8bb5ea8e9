package io.asicemu.p4rt.backend;

/** The outcome of one update with a message for the controller. Immutable. */
public record UpdateOutcome(UpdateStatus status, String message) {
    public static final UpdateOutcome OK = new UpdateOutcome(UpdateStatus.OK, "");

    public boolean ok() {
        return status == UpdateStatus.OK;
    }
}
