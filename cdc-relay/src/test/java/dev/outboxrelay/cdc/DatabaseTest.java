package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class DatabaseTest {

    @Test
    void everyDriverSettingOfTheUrlReachesDebezium() throws Exception {
        Database db = new Database(CdcSettings.builder("jdbc:postgresql://db.example.com:6543/app?sslmode=verify-full"
                        + "&sslrootcert=/etc/ssl/ca.pem&sslcert=/etc/ssl/relay.crt&sslkey=/etc/ssl/relay.pk8"
                        + "&sslpassword=kp&targetServerType=primary&connectTimeout=3", "relay", "pw").build());
        Map<String, String> p = db.debeziumProperties();
        assertThat(p).containsEntry("database.hostname", "db.example.com").containsEntry("database.port", "6543")
                .containsEntry("database.dbname", "app").containsEntry("database.user", "relay")
                .containsEntry("database.password", "pw").containsEntry("database.sslmode", "verify-full")
                .containsEntry("database.sslrootcert", "/etc/ssl/ca.pem")
                .containsEntry("database.sslcert", "/etc/ssl/relay.crt")
                .containsEntry("database.sslkey", "/etc/ssl/relay.pk8").containsEntry("database.sslpassword", "kp")
                .containsEntry("database.targetServerType", "primary").containsEntry("database.connectTimeout", "3")
                .doesNotContainKeys("database.PGHOST", "database.PGPORT", "database.PGDBNAME");
    }

    @Test
    void theRelaysConnectTimeoutAppliesUnlessTheUrlSetsOne() throws Exception {
        Database db = new Database(CdcSettings.builder("jdbc:postgresql://db/app", "relay", (String) null).build());
        assertThat(db.debeziumProperties()).containsEntry("database.connectTimeout", "10")
                .containsEntry("database.port", "5432").doesNotContainKey("database.password");
    }
}
