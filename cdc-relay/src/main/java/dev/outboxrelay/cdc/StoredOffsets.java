package dev.outboxrelay.cdc;

import dev.outboxrelay.schema.OutboxSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.sql.SQLException;

/**
 * Debezium's stream position where {@code --offset-store} keeps it: the relay's offsets table (default) or a
 * file. Whether there is one decides between resuming and a fresh start; a lost slot makes it worthless.
 */
final class StoredOffsets {

    private final CdcSettings settings;
    private final JdbcOffsetBackingStore.OffsetTable table;

    StoredOffsets(CdcSettings settings, Database database) {
        this.settings = settings;
        this.table = new JdbcOffsetBackingStore.OffsetTable(OutboxSchema.cdcOffsetsTable(settings.table()),
                settings.relayName(), database);
    }

    /** The table the engine's offset store reads and writes (also when the file store is chosen: unused then). */
    JdbcOffsetBackingStore.OffsetTable table() {
        return table;
    }

    /** True when a position is stored; a missing offsets table is a setup error naming the fix. */
    boolean exist() throws SQLException {
        if (settings.offsetStore() == CdcSettings.OffsetStore.DB) {
            try {
                return table.hasOffsets();
            } catch (SQLException e) {
                if ("42P01".equals(e.getSQLState())) {
                    throw new CdcSetupException("the CDC offsets table " + table.quotedTable()
                            + " does not exist: run `migrate` (schema version 3), or use --offset-store file", e);
                }
                throw e;
            }
        }
        return Files.isRegularFile(settings.offsetFile()) && settings.offsetFile().toFile().length() > 0;
    }

    /** Forgets the stored position. */
    void clear() throws SQLException, IOException {
        if (settings.offsetStore() == CdcSettings.OffsetStore.DB) {
            table.clear();
        } else {
            Files.deleteIfExists(settings.offsetFile());
        }
    }
}
