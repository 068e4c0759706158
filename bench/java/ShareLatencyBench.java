// A Java peer for bench scenario 3: `threads` KafkaShareConsumers in one group, each polling, "putting"
// (sleeping latencyMs per poll result, like a sink with that latency) and acknowledging every record
// with ACCEPT; the acknowledgements ride on the next poll (explicit acknowledgement mode).
// Prints one line: records/s over the window after the warm-up, the mean poll() time, and the
// end-to-end latency (record CreateTime to poll() return) of the records polled in the window.
//
//   java -cp <build dir>:<kafka jars> ShareLatencyBench <bootstrap> <topic> <group> <threads>
//        <latencyMs> <maxPollRecords> <warmupMs> <windowMs>
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public class ShareLatencyBench {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        String group = args[2];
        int threads = Integer.parseInt(args[3]);
        long latencyMs = Long.parseLong(args[4]);
        int maxPoll = Integer.parseInt(args[5]);
        long warmupMs = Long.parseLong(args[6]);
        long windowMs = Long.parseLong(args[7]);

        AtomicLong done = new AtomicLong();
        AtomicLong polls = new AtomicLong();
        AtomicLong pollNanos = new AtomicLong();
        AtomicLong firstAt = new AtomicLong();
        long startedAt = System.nanoTime();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicBoolean inWindow = new AtomicBoolean(false);
        List<long[]> latencies = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        List<KafkaShareConsumer<byte[], byte[]>> consumers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Properties p = new Properties();
            p.put("bootstrap.servers", bootstrap);
            p.put("group.id", group);
            p.put("client.id", "share-latency-bench-" + i);
            p.put("share.acknowledgement.mode", "explicit");
            p.put("max.poll.records", String.valueOf(maxPoll));
            // as ShareConsumerPerformance (--fetch-size) and sharesink's ShareConsumer: the broker's work per
            // ShareFetch grows with MaxBytes when a backlog waits (the client default is 50 MiB)
            p.put("fetch.max.bytes", "1048576");
            KafkaShareConsumer<byte[], byte[]> c =
                new KafkaShareConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            consumers.add(c);
            long[][] mine = { new long[1 << 16] };
            int[] count = { 0 };
            Thread t = new Thread(() -> {
                c.subscribe(List.of(topic));
                while (running.get()) {
                    long t0 = System.nanoTime();
                    ConsumerRecords<byte[], byte[]> records;
                    try {
                        records = c.poll(Duration.ofMillis(500));
                    } catch (org.apache.kafka.common.errors.WakeupException e) {
                        break;
                    }
                    pollNanos.addAndGet(System.nanoTime() - t0);
                    polls.incrementAndGet();
                    if (records.isEmpty()) continue;
                    if (inWindow.get()) {
                        long now = System.currentTimeMillis();
                        for (ConsumerRecord<byte[], byte[]> r : records) {
                            if (count[0] == mine[0].length) mine[0] = Arrays.copyOf(mine[0], count[0] * 2);
                            mine[0][count[0]++] = now - r.timestamp();
                        }
                    }
                    if (latencyMs > 0) {
                        try {
                            Thread.sleep(latencyMs);
                        } catch (InterruptedException e) {
                            break;
                        }
                    }
                    for (ConsumerRecord<byte[], byte[]> r : records) c.acknowledge(r, AcknowledgeType.ACCEPT);
                    firstAt.compareAndSet(0, System.nanoTime());
                    done.addAndGet(records.count());
                }
                synchronized (latencies) {
                    latencies.add(Arrays.copyOf(mine[0], count[0]));
                }
            });
            workers.add(t);
            t.start();
        }
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (firstAt.get() == 0 && System.nanoTime() < deadline) Thread.sleep(5);
        if (firstAt.get() == 0) throw new IllegalStateException("no record within 60 s");
        Thread.sleep(warmupMs);
        long d0 = done.get();
        long p0 = polls.get();
        long n0 = pollNanos.get();
        long t0 = System.nanoTime();
        inWindow.set(true);
        // markers for a harness that reads this process's CPU (/proc) over the same window
        System.out.println("WINDOW_START");
        System.out.flush();
        Thread.sleep(windowMs);
        inWindow.set(false);
        System.out.println("WINDOW_END");
        System.out.flush();
        long d1 = done.get();
        long p1 = polls.get();
        long n1 = pollNanos.get();
        long t1 = System.nanoTime();
        running.set(false);
        for (KafkaShareConsumer<byte[], byte[]> c : consumers) c.wakeup();
        for (Thread t : workers) t.join(10_000);
        double seconds = (t1 - t0) / 1e9;
        long[] all = latencies.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        System.out.printf("RESULT records=%d seconds=%.3f recordsPerSec=%.1f polls=%d meanPollMs=%.2f "
                + "samples=%d p50=%d p90=%d p99=%d max=%d firstRecordMs=%d%n",
            d1 - d0, seconds, (d1 - d0) / seconds, p1 - p0, p1 > p0 ? (n1 - n0) / 1e6 / (p1 - p0) : 0.0,
            all.length, pct(all, 50), pct(all, 90), pct(all, 99), all.length == 0 ? -1 : all[all.length - 1],
            (firstAt.get() - startedAt) / 1_000_000);
        for (KafkaShareConsumer<byte[], byte[]> c : consumers) c.close(Duration.ofSeconds(5));
    }

    /** Nearest-rank percentile of a sorted array; -1 when empty. */
    private static long pct(long[] sorted, int p) {
        if (sorted.length == 0) return -1;
        int rank = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank))];
    }
}
