package io.asicemu.operator;

import java.util.Map;
import java.util.function.Consumer;

/**
 * The running CONFIG_DB as the operator's Redis front changes it (HSET, HDEL, DEL, MULTI/EXEC; {@code asic-emu
 * config load}): the switch's composition root implements it over the one control model (switchd's
 * {@code RunningConfigAccess}: the running config with the edit applied becomes one
 * {@code SwitchConfig.reconfigure}), so this module depends on no engine and validates nothing itself. Plain data
 * in and out, in Redis form: {@code TABLE|key} → field → value, list fields under {@code field@} (comma-joined).
 */
public interface ConfigAccess {
    /**
     * @return the CONFIG_DB in force (with what runtime writes changed), in Redis form; the same object until it
     *     changes. Any thread.
     */
    Map<String, Map<String, String>> running();

    /**
     * Edits the running CONFIG_DB and applies the result as one change, or changes nothing. Blocks until the data
     * plane applied it: call it off the Redis front's I/O thread.
     *
     * @param edit receives a mutable copy of {@link #running()} (keys in their order; each hash mutable) and edits it
     *     in place; it runs under the switch's control lock, so it must be quick, and it may throw
     *     {@link ConfigRefusedException} itself to change nothing.
     * @throws ConfigRefusedException naming {@code TABLE|key|field} and why; then nothing changed.
     */
    void change(Consumer<Map<String, Map<String, String>>> edit);

    /**
     * @param listener told after every change of the running config, whatever made it (a Redis write, a register
     *     write, a P4Runtime register write), on the changing thread: it must only hand the news over.
     */
    void addChangeListener(Runnable listener);

    /** @param listener one given to {@link #addChangeListener}, no longer told. */
    void removeChangeListener(Runnable listener);

    /** A refused change; the message names {@code TABLE|key|field} and why. Nothing changed. */
    final class ConfigRefusedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** @param message {@code TABLE|key|field: why}. */
        public ConfigRefusedException(final String message) {
            super(message);
        }
    }
}
