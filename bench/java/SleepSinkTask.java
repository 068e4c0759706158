// The task of SleepSinkConnector (see there): sleeps sleep.ms per non-empty put(), then appends
// '<epoch µs> <records>' for that put to its progress file, flushed at most every 200 ms (and at stop)
// so the harness can follow progress from outside the JVM. The task's start and its partition
// assignments and revocations (rebalances of the consumer group) are noted too:
// 'start <epoch µs> 0', 'open <epoch µs> <partitions>', 'close <epoch µs> <partitions>'.
// With records.log=true (the rebalance scenario) each put also notes its records, in the format of
// bench/rebalance-sink.ts, 'r <epoch ms> <partition>:<offset>:<timestamp>,...', flushed at once.
package sharesink.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

public class SleepSinkTask extends SinkTask {
    private static final long FLUSH_EVERY_NANOS = 200_000_000L;

    private long sleepMs;
    private boolean recordsLog;
    private BufferedWriter out;
    private long lastFlush = System.nanoTime();

    @Override
    public String version() {
        return "0.0.0";
    }

    @Override
    public void start(Map<String, String> props) {
        sleepMs = Long.parseLong(props.getOrDefault(SleepSinkConnector.SLEEP_MS, "0"));
        recordsLog = Boolean.parseBoolean(props.getOrDefault(SleepSinkConnector.RECORDS_LOG, "false"));
        String dir = props.get(SleepSinkConnector.PROGRESS_DIR);
        if (dir == null) throw new ConnectException(SleepSinkConnector.PROGRESS_DIR + " is required");
        String index = props.getOrDefault(SleepSinkConnector.TASK_INDEX, "0");
        try {
            Files.createDirectories(Path.of(dir));
            // a task restarted in the same run appends to the same file
            out = Files.newBufferedWriter(Path.of(dir, "task-" + index + ".txt"), StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new ConnectException("cannot open the progress file in " + dir, e);
        }
        note("start " + epochMicros() + " 0");
        flushProgress();
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        if (!records.isEmpty()) {
            if (sleepMs > 0) {
                try {
                    Thread.sleep(sleepMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ConnectException("interrupted in put()", e);
                }
            }
            note(epochMicros() + " " + records.size());
            if (recordsLog) {
                StringBuilder line = new StringBuilder("r ").append(System.currentTimeMillis()).append(' ');
                boolean first = true;
                for (SinkRecord r : records) {
                    if (!first) line.append(',');
                    first = false;
                    Long ts = r.timestamp();
                    line.append(r.kafkaPartition()).append(':').append(r.kafkaOffset()).append(':')
                        .append(ts == null ? -1L : ts);
                }
                note(line.toString());
                flushProgress();
            }
        }
        // Connect also calls put() with no records when a poll returns none: progress still gets flushed
        long t = System.nanoTime();
        if (t - lastFlush >= FLUSH_EVERY_NANOS) {
            lastFlush = t;
            flushProgress();
        }
    }

    @Override
    public void open(Collection<TopicPartition> partitions) {
        note("open " + epochMicros() + " " + partitions.size());
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        note("close " + epochMicros() + " " + partitions.size());
    }

    @Override
    public void stop() {
        if (out == null) return;
        flushProgress();
        try {
            out.close();
        } catch (IOException e) {
            // nothing more to write
        }
        out = null;
    }

    private static long epochMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    private void note(String line) {
        if (out == null) return; // after stop()
        try {
            out.write(line);
            out.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void flushProgress() {
        try {
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
