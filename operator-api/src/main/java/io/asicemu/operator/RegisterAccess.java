package io.asicemu.operator;

import java.util.List;

/**
 * The chip's register map as the operator reaches it (over the Redis front's {@code ASICEMU.REGISTER} command): named
 * registers with live values, and validated writes. The switch's composition root implements it over the control
 * model (so this module depends on no engine); plain data in and out.
 */
public interface RegisterAccess {
    /**
     * @param name a register name, or null for every register.
     * @param instance an instance ({@code Ethernet8}, {@code Ethernet8|3}, a group id, a pool name), or null for
     *     every instance.
     * @return the matching rows, in address order.
     * @throws RegisterException naming the register or instance that does not exist.
     */
    List<Row> read(String name, String instance);

    /**
     * Applies one write atomically, through the same path a P4Runtime register write takes, or changes nothing.
     *
     * @param name a register name.
     * @param instance its instance ({@code ""} for a switch-wide register).
     * @param value decimal or {@code 0x} hex.
     * @return the row after the write.
     * @throws RegisterException naming register and instance when refused (read-only, no such instance, out of
     *     range, precondition).
     */
    Row write(String name, String instance, String value);

    /**
     * One register instance's value.
     *
     * @param name register name, e.g. {@code ECN_KMIN}.
     * @param instance instance label ({@code ""} for switch-wide ones).
     * @param address byte address of this instance.
     * @param value the value in force.
     * @param unit what the value counts (bytes, ns, %, ...).
     * @param access {@code RW} or {@code RO}.
     * @param decoded the value's bit fields as {@code NAME=value} text (empty for a one-field register).
     */
    record Row(String name, String instance, long address, long value, String unit, String access, String decoded) {}

    /** A refused read or write; the message names register and instance. */
    final class RegisterException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** @param message what was refused and why. */
        public RegisterException(final String message) {
            super(message);
        }
    }
}
