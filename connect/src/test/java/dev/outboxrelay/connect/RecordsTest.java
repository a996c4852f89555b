package dev.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.converters.ByteArrayConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class RecordsTest {

    @Test
    void theDaemonsBytesPassByteArrayConvertersUnchanged() {
        RecordHeaders headers = new RecordHeaders();
        headers.add("id", "e-1".getBytes(StandardCharsets.UTF_8));
        headers.add("type", "Created".getBytes(StandardCharsets.UTF_8));
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>("orders", null, 1234L,
                "k".getBytes(StandardCharsets.UTF_8), "{\"a\":1}".getBytes(StandardCharsets.UTF_8), headers);
        SourceRecord r = Records.of(record, Map.of("table", "public.outbox"), Map.of(Records.SEQ, 42L));
        assertThat(r.topic()).isEqualTo("orders");
        assertThat(r.kafkaPartition()).isNull(); // the producer's keyed partitioner decides, as in the daemon
        assertThat(r.timestamp()).isEqualTo(1234L);
        assertThat(Records.seqOf(r)).isEqualTo(42L);
        ByteArrayConverter converter = new ByteArrayConverter();
        converter.configure(Map.of(), false);
        assertThat(converter.fromConnectData("orders", r.valueSchema(), r.value())).isEqualTo(record.value());
        assertThat(converter.fromConnectHeader("orders", "id", r.headers().lastWithName("id").schema(),
                r.headers().lastWithName("id").value())).isEqualTo("e-1".getBytes(StandardCharsets.UTF_8));
        assertThat(r.headers().size()).isEqualTo(2);
    }

    @Test
    void thePartitionSerializesTheSameInEveryJvm() {
        org.apache.kafka.connect.json.JsonConverter json = new org.apache.kafka.connect.json.JsonConverter();
        json.configure(Map.of("schemas.enable", "false"), true);
        byte[] key = json.fromConnectData("offsets", null, java.util.List.of("outbox",
                Records.partition("public.outbox", "1/4")));
        assertThat(new String(key, StandardCharsets.UTF_8))
                .isEqualTo("[\"outbox\",{\"shard\":\"1/4\",\"table\":\"public.outbox\"}]");
    }
}
