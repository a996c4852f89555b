package dev.outboxrelay.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;

/**
 * A base backup of a running server through PostgreSQL's low-level API ({@code pg_backup_start}, a file copy,
 * {@code pg_backup_stop}), made into a standby that streams from a physical slot. Unlike {@code pg_basebackup}
 * it needs no client binaries, which zonky's distributions lack, so every supported version can have a standby.
 */
final class BaseBackup {

    /** Not copied: the primary's lock files, its slots (a real standby has none of its own) and its WAL. */
    private static final Set<String> SKIPPED_FILES = Set.of("postmaster.pid", "postmaster.opts");
    private static final String SLOTS = "pg_replslot";
    private static final String WAL = "pg_wal";

    private BaseBackup() {
    }

    /**
     * Creates physical slot {@code slot} on the primary (reserving WAL from now), copies {@code primaryData} to
     * {@code target} between the backup's start and stop, and leaves {@code backup_label} and
     * {@code standby.signal} there: the copy replays from the backup's start, streaming everything else.
     */
    static void copy(Connection primary, Path primaryData, Path target, String slot) throws IOException, SQLException {
        boolean v15 = primary.getMetaData().getDatabaseMajorVersion() >= 15;
        try (Statement st = primary.createStatement()) {
            st.execute("SELECT pg_create_physical_replication_slot('" + slot + "', true)");
            // Non-exclusive: the backup ends with this session. Full-page writes are forced on meanwhile, so a
            // copy taken while pages change replays correctly even with full_page_writes = off.
            st.execute(v15 ? "SELECT pg_backup_start('outbox-standby', true)"
                    : "SELECT pg_start_backup('outbox-standby', true, false)");
            copyTree(primaryData, target);
            try (ResultSet rs = st.executeQuery(v15 ? "SELECT labelfile FROM pg_backup_stop(false)"
                    : "SELECT labelfile FROM pg_stop_backup(false, false)")) {
                rs.next();
                Files.writeString(target.resolve("backup_label"), rs.getString(1), StandardCharsets.UTF_8);
            }
        }
        Files.writeString(target.resolve("standby.signal"), "", StandardCharsets.UTF_8);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Files.copy(dir, to.resolve(from.relativize(dir).toString()), StandardCopyOption.COPY_ATTRIBUTES);
                if (!from.equals(dir.getParent())) {
                    return FileVisitResult.CONTINUE;
                }
                return name(dir).equals(SLOTS) ? FileVisitResult.SKIP_SUBTREE
                        : name(dir).equals(WAL) ? copyOnlySubdirectories(dir) : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (!SKIPPED_FILES.contains(name(file))) {
                    try {
                        Files.copy(file, to.resolve(from.relativize(file).toString()),
                                StandardCopyOption.COPY_ATTRIBUTES);
                    } catch (NoSuchFileException e) {
                        // Removed while we copied (temporary files): the WAL replay does not need it.
                    }
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }

            private FileVisitResult copyOnlySubdirectories(Path dir) throws IOException {
                // pg_wal/archive_status must exist; the WAL itself is streamed from the primary.
                try (var children = Files.list(dir)) {
                    for (Path child : children.filter(Files::isDirectory).toList()) {
                        Files.copy(child, to.resolve(from.relativize(child).toString()),
                                StandardCopyOption.COPY_ATTRIBUTES);
                    }
                }
                return FileVisitResult.SKIP_SUBTREE;
            }
        });
    }

    private static String name(Path p) {
        return p.getFileName().toString();
    }
}
