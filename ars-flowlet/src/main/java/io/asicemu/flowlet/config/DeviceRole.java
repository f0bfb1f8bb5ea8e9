package io.asicemu.flowlet.config;

/**
 * Default ECMP/LAG hash seed and offset by {@code DEVICE_METADATA|localhost.type}, as sonic-buildimage's
 * {@code dockers/docker-orchagent/switch.json.j2} renders them (shared/reference §4.2): ToR 0/0, Leaf 10/10,
 * Spine 25/0, FabricSpine 40/0, UpperSpine 50/0, LowerRegionalHub 60/0, FabricRegionalHub 70/0,
 * UpperRegionalHub 80/0. Immutable.
 */
public enum DeviceRole {
    TOR(0, 0),
    LEAF(10, 10),
    SPINE(25, 0),
    FABRIC_SPINE(40, 0),
    UPPER_SPINE(50, 0),
    LOWER_REGIONAL_HUB(60, 0),
    FABRIC_REGIONAL_HUB(70, 0),
    UPPER_REGIONAL_HUB(80, 0),
    /** A type the template does not name: it keeps the template's initial 0/0. */
    OTHER(0, 0);

    private final int hashSeed;
    private final int hashOffset;

    DeviceRole(final int hashSeed, final int hashOffset) {
        this.hashSeed = hashSeed;
        this.hashOffset = hashOffset;
    }

    /**
     * @return default hash seed (ECMP and LAG).
     */
    public int hashSeed() {
        return hashSeed;
    }

    /**
     * @return default hash offset (ECMP and LAG).
     */
    public int hashOffset() {
        return hashOffset;
    }

    /**
     * Map a DEVICE_METADATA type (such as {@code ToRRouter}, {@code LeafRouter}, {@code SpineRouter}) to its role by
     * the substrings the template tests.
     *
     * @param deviceType the type string, may be null.
     * @return the role ({@link #OTHER} for null or unknown).
     */
    public static DeviceRole fromDeviceType(final String deviceType) {
        if (deviceType == null) {
            return OTHER;
        }
        if (deviceType.contains("ToR")) {
            return TOR;
        }
        if (deviceType.contains("LeafRouter")) {
            return LEAF;
        }
        if (deviceType.contains("FabricSpine")) {
            return FABRIC_SPINE;
        }
        if (deviceType.contains("UpperSpine")) {
            return UPPER_SPINE;
        }
        if (deviceType.contains("SpineRouter")) {
            return SPINE;
        }
        return switch (deviceType) {
            case "LowerRegionalHub" -> LOWER_REGIONAL_HUB;
            case "FabricRegionalHub" -> FABRIC_REGIONAL_HUB;
            case "UpperRegionalHub" -> UPPER_REGIONAL_HUB;
            default -> OTHER;
        };
    }
}
