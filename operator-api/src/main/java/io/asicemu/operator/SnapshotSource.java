package io.asicemu.operator;

import java.util.concurrent.TimeoutException;

/** Takes a {@link SwitchSnapshot} of the running switch without locking its data path. */
@FunctionalInterface
public interface SnapshotSource {
    /**
     * @return a fresh snapshot.
     * @throws TimeoutException if the data plane did not hand its counters over in time.
     */
    SwitchSnapshot take() throws TimeoutException;
}
