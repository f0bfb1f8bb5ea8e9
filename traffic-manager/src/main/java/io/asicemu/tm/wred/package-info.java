/** WRED/ECN decisions on the instantaneous queue ({@link io.asicemu.tm.wred.WredTable}) and the seeded PRNG. */
package io.asicemu.tm.wred;
