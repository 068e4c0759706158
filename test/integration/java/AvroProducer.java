// Writes Avro records in the Confluent wire format the way a Java producer does: registers the schema
// with the registry's Confluent API (POST /subjects/{topic}-value/versions), encodes each record with
// Apache Avro's GenericDatumWriter (logical types through Avro's own conversions), frames it (magic 0,
// 4-byte id) and sends it with Kafka's Java producer. Run as a single-file program:
//   java -cp <avro + kafka-clients> AvroProducer.java <bootstrap> <registry url> <topic> <schema file> <records file> [<key schema file>]
// The records file holds one JSON object per line: field values as Avro's JSON encoding would not
// carry logical types, so decimals are strings, dates ISO days, timestamps epoch millis. With a key
// schema file, each line is {"key": …, "value": …}: the key is registered as <topic>-key and framed the
// same way, and a null value is sent as a tombstone (a record with a null value), as Debezium does.
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Properties;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

public class AvroProducer {
  static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], registry = args[1], topic = args[2];
    String schemaText = Files.readString(Path.of(args[3]));
    Schema schema = new Schema.Parser().parse(schemaText);
    int id = register(registry, topic + "-value", schemaText);
    Schema keySchema = null;
    int keyId = 0;
    if (args.length > 5) {
      String keyText = Files.readString(Path.of(args[5]));
      keySchema = new Schema.Parser().parse(keyText);
      keyId = register(registry, topic + "-key", keyText);
    }

    GenericData data = new GenericData();
    data.addLogicalTypeConversion(new Conversions.DecimalConversion());
    data.addLogicalTypeConversion(new TimeConversions.DateConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimeMillisConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimeMicrosConversion());
    GenericDatumWriter<Object> writer = new GenericDatumWriter<>(schema, data);
    GenericDatumWriter<Object> keyWriter = keySchema == null ? null : new GenericDatumWriter<>(keySchema, data);

    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("key.serializer", ByteArraySerializer.class.getName());
    props.put("value.serializer", ByteArraySerializer.class.getName());
    props.put("acks", "all");
    int sent = 0;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (String line : Files.readAllLines(Path.of(args[4]))) {
        if (line.isBlank()) continue;
        JsonNode node = JSON.readTree(line);
        byte[] key = null;
        if (keySchema != null) {
          key = framed(keyId, keyWriter, toAvro(keySchema, node.get("key")));
          node = node.get("value");
        }
        byte[] value = node == null || node.isNull() ? null : framed(id, writer, toAvro(schema, node));
        producer.send(new ProducerRecord<>(topic, key, value)).get();
        sent++;
      }
    }
    System.out.println("sent " + sent + " records with schema id " + id);
  }

  /** Confluent's wire format: magic byte 0, the 4-byte schema id, the Avro binary body. */
  static byte[] framed(int id, GenericDatumWriter<Object> writer, Object datum) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(0);
    out.write(ByteBuffer.allocate(4).putInt(id).array());
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    writer.write(datum, encoder);
    encoder.flush();
    return out.toByteArray();
  }

  static int register(String registry, String subject, String schemaText) throws Exception {
    String body = JSON.writeValueAsString(java.util.Map.of("schema", schemaText));
    HttpRequest request = HttpRequest.newBuilder(URI.create(registry + "/subjects/" + subject + "/versions"))
        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    HttpResponse<String> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) throw new IllegalStateException("register: HTTP " + response.statusCode() + " " + response.body());
    return JSON.readTree(response.body()).get("id").asInt();
  }

  /** A JSON value as the Java object GenericDatumWriter expects for `schema`. */
  static Object toAvro(Schema schema, JsonNode node) {
    if (node == null || node.isNull()) return null;
    if (schema.getLogicalType() instanceof LogicalTypes.Decimal d) {
      BigDecimal v = new BigDecimal(node.asText()).setScale(d.getScale());
      return schema.getType() == Schema.Type.FIXED ? new Conversions.DecimalConversion().toFixed(v, schema, d) : v;
    }
    if (schema.getLogicalType() instanceof LogicalTypes.Date) return LocalDate.parse(node.asText());
    if (schema.getLogicalType() instanceof LogicalTypes.TimestampMillis) return Instant.ofEpochMilli(node.asLong());
    if (schema.getLogicalType() instanceof LogicalTypes.TimestampMicros) return Instant.ofEpochMilli(node.asLong());
    if (schema.getLogicalType() instanceof LogicalTypes.TimeMillis) return java.time.LocalTime.ofNanoOfDay(node.asLong() * 1_000_000L);
    if (schema.getLogicalType() instanceof LogicalTypes.TimeMicros) return java.time.LocalTime.ofNanoOfDay(node.asLong() * 1_000_000L);
    switch (schema.getType()) {
      case RECORD: {
        GenericData.Record r = new GenericData.Record(schema);
        for (Schema.Field f : schema.getFields()) r.put(f.name(), toAvro(f.schema(), node.get(f.name())));
        return r;
      }
      case UNION: {
        for (Schema branch : schema.getTypes()) if (branch.getType() != Schema.Type.NULL) return toAvro(branch, node);
        return null;
      }
      case ARRAY: {
        java.util.List<Object> list = new java.util.ArrayList<>();
        for (JsonNode item : node) list.add(toAvro(schema.getElementType(), item));
        return list;
      }
      case MAP: {
        java.util.Map<String, Object> map = new java.util.HashMap<>();
        node.fields().forEachRemaining(e -> map.put(e.getKey(), toAvro(schema.getValueType(), e.getValue())));
        return map;
      }
      case ENUM: return new GenericData.EnumSymbol(schema, node.asText());
      case STRING: return node.asText();
      case INT: return node.asInt();
      case LONG: return node.asLong();
      case FLOAT: return (float) node.asDouble();
      case DOUBLE: return node.asDouble();
      case BOOLEAN: return node.asBoolean();
      case BYTES: return ByteBuffer.wrap(java.util.Base64.getDecoder().decode(node.asText()));
      default: throw new IllegalArgumentException("unsupported in this test producer: " + schema);
    }
  }
}
