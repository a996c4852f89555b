package dev.outboxrelay.testkit;

/**
 * Entry point of the child JVM started by {@link NonRootStartIT}: starts a dedicated {@link TestPostgres}
 * as whatever (non-root) user runs it and prints one line for the parent to check.
 */
public final class NonRootProbe {

    /** Printed first on success; the parent test looks for it. */
    static final String MARKER = "NON-ROOT-PROBE-OK";

    private NonRootProbe() {
    }

    /** Starts, queries and stops a server; exits non-zero on failure. */
    public static void main(String[] args) {
        try (TestPostgres pg = TestPostgres.start()) {
            TestDatabase db = pg.createDatabase("probe");
            System.out.println(MARKER + " root=" + OsCommands.isRoot() + " osUser=" + pg.osUser()
                    + " wal_level=" + db.queryString("SHOW wal_level")
                    + " relay=" + db.queryLong("SELECT count(*) FROM pg_roles WHERE rolname = 'relay'"));
        }
    }
}
