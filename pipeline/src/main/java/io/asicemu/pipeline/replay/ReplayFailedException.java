package io.asicemu.pipeline.replay;

/**
 * A replay stopped midway. What it produced until then was written anyway: the output captures up to the failure and
 * {@code counters.txt}, whose first line says the run is incomplete and why; {@link #partial()} describes them.
 */
public final class ReplayFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Replay.Result partial;

    /**
     * @param message what failed, when (cycles, virtual time) and why.
     * @param partial what was written.
     * @param cause the failure.
     */
    public ReplayFailedException(final String message, final Replay.Result partial, final Throwable cause) {
        super(message, cause);
        this.partial = partial;
    }

    /** @return the outputs and counters written before the failure. */
    public Replay.Result partial() {
        return partial;
    }
}
