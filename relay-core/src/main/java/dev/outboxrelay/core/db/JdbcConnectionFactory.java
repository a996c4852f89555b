package dev.outboxrelay.core.db;

import dev.outboxrelay.core.config.Password;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Supplier;
import org.postgresql.Driver;
import org.postgresql.util.PSQLException;

final class JdbcConnectionFactory implements ConnectionFactory {

    private final String url;
    private final String user;
    private final Supplier<Optional<Password>> password;
    private final String target;

    JdbcConnectionFactory(String url, String user, Supplier<Optional<Password>> password) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.target = describe(url);
    }

    private static String describe(String url) {
        Properties parsed = Driver.parseURL(url, new Properties());
        if (parsed == null) {
            return url.replaceAll("\\?.*", "");
        }
        String[] hosts = parsed.getProperty("PGHOST", "localhost").split(",");
        String[] ports = parsed.getProperty("PGPORT", "5432").split(",");
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < hosts.length; i++) {
            s.append(i == 0 ? "" : ",").append(hosts[i]).append(':').append(ports[Math.min(i, ports.length - 1)]);
        }
        return s.append('/').append(parsed.getProperty("PGDBNAME", "")).toString();
    }

    @Override
    public Connection open(Properties extra) throws DatabaseConnectException {
        Properties props = new Properties();
        // Defaults only: settings in the URL win, so operators tune them there (documented).
        props.setProperty("connectTimeout", Integer.toString(CONNECT_TIMEOUT_SECONDS));
        props.setProperty("ApplicationName", "outbox-relay");
        props.putAll(extra);
        props.setProperty("user", user);
        password.get().ifPresent(p -> props.setProperty("password", p.reveal()));
        try {
            return DriverManager.getConnection(url, props);
        } catch (SQLException e) {
            throw new DatabaseConnectException(target, reason(e), e);
        }
    }

    static String reason(SQLException e) {
        if (e instanceof PSQLException pe && pe.getServerErrorMessage() != null
                && pe.getServerErrorMessage().getMessage() != null) {
            return pe.getServerErrorMessage().getMessage();
        }
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof ConnectException) {
                return "connection refused";
            }
            if (t instanceof UnknownHostException) {
                return "unknown host " + t.getMessage();
            }
            if (t instanceof NoRouteToHostException) {
                return "no route to host";
            }
            if (t instanceof SocketTimeoutException) {
                return "connection timed out";
            }
        }
        return String.valueOf(e.getMessage());
    }

    @Override
    public String target() {
        return target;
    }
}
