package dev.outboxrelay.schema;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;

/**
 * One numbered, named schema step with its SQL already rendered for a target (table names substituted).
 *
 * @param version     strictly increasing step number, starting at 1
 * @param description what the step does, recorded in the history table
 * @param sql             the rendered SQL; may hold several statements
 * @param formerChecksums checksums of earlier texts of this step (changed after release), still accepted in a
 *                        database's history
 */
public record Migration(int version, String description, String sql, Set<String> formerChecksums) {

    public Migration {
        if (version < 1) {
            throw new IllegalArgumentException("migration version must be >= 1, was " + version);
        }
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(sql, "sql");
        formerChecksums = Set.copyOf(formerChecksums);
    }

    /** A step that was never changed after release. */
    public Migration(int version, String description, String sql) {
        this(version, description, sql, Set.of());
    }

    /** Whether a history row's checksum is this step's, or that of an earlier text of it. */
    public boolean accepts(String recordedChecksum) {
        return checksum().equals(recordedChecksum) || formerChecksums.contains(recordedChecksum);
    }

    /** SHA-256 of the rendered SQL, so a changed script is detected instead of silently skipped. */
    public String checksum() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(sql.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always present in the JDK", e);
        }
    }
}
