package dev.outboxrelay.cli;

import dev.outboxrelay.schema.OutboxSql;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The SQL of {@code dead-letters}: every statement touches live dead letters only (not discarded), so retry
 * and discard are idempotent: a second run finds nothing left to change.
 */
final class DeadLetterStore {

    /** Which dead letters; empty criteria with {@code all} false select every one (list only). */
    record Selection(List<UUID> ids, String aggregateType, Instant since) {
    }

    /** One dead letter as listed: bookkeeping only, never the payload. */
    record DeadLetter(UUID id, String aggregateType, String aggregateId, String eventType, int attempts,
                      OffsetDateTime createdAt, OffsetDateTime deadLetteredAt, String lastError) {
    }

    private final OutboxSql sql;

    DeadLetterStore(OutboxTable table) {
        this.sql = OutboxSql.forTable(table);
    }

    List<DeadLetter> list(Connection c, Selection s, int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.listDeadLetters())) {
            int i = bind(c, ps, s);
            ps.setInt(i, limit);
            List<DeadLetter> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new DeadLetter(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3),
                            rs.getString(4), rs.getInt(5), rs.getObject(6, OffsetDateTime.class),
                            rs.getObject(7, OffsetDateTime.class), rs.getString(8)));
                }
            }
            return rows;
        }
    }

    /** Puts the rows back for the relay: attempts reset, last_error kept as history. Returns their ids. */
    List<UUID> retry(Connection c, Selection s) throws SQLException {
        return update(c, "dead_lettered_at = NULL, attempts = 0", s, null);
    }

    /** Gives up on the rows for good, recording who and when. Returns their ids. */
    List<UUID> discard(Connection c, Selection s, String operator) throws SQLException {
        return update(c, "discarded_at = now(), discarded_by = ?", s, operator);
    }

    private List<UUID> update(Connection c, String set, Selection s, String firstParam) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.updateDeadLetters(set))) {
            int offset = 0;
            if (firstParam != null) {
                ps.setString(1, firstParam);
                offset = 1;
            }
            bind(c, ps, s, offset);
            List<UUID> ids = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getObject(1, UUID.class));
                }
            }
            return ids;
        }
    }

    private static int bind(Connection c, PreparedStatement ps, Selection s) throws SQLException {
        return bind(c, ps, s, 0);
    }

    /** Binds the selection after {@code offset} parameters; returns the next parameter index. */
    private static int bind(Connection c, PreparedStatement ps, Selection s, int offset) throws SQLException {
        java.sql.Array ids = s.ids().isEmpty() ? null : c.createArrayOf("uuid", s.ids().toArray());
        Timestamp since = s.since() == null ? null : Timestamp.from(s.since());
        int i = offset + 1;
        ps.setArray(i++, ids);
        ps.setArray(i++, ids);
        ps.setString(i++, s.aggregateType());
        ps.setString(i++, s.aggregateType());
        ps.setTimestamp(i++, since);
        ps.setTimestamp(i++, since);
        return i;
    }
}
