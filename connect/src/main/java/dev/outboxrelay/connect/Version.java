package dev.outboxrelay.connect;

/** The plugin's version, as Connect's REST API shows it. */
final class Version {

    private Version() {
    }

    static String get() {
        String v = Version.class.getPackage().getImplementationVersion();
        return v != null ? v : "0.1.0-SNAPSHOT";
    }
}
