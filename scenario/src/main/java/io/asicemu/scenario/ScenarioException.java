package io.asicemu.scenario;

/** A scenario that cannot run as written; the message names the file and the field. */
public final class ScenarioException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ScenarioException(String message) {
        super(message);
    }
}
