// The Kafka Connect sink of bench scenario 3's Connect anchor (bench/connect-standalone.ts): the Java
// counterpart of sharesink's NoopSink with latency.ms, run by Kafka Connect standalone. Each task
// sleeps sleep.ms per non-empty put() (Connect calls put() one batch at a time per task) and notes
// every put in a progress file of its own; the harness reads them to count records per second over the
// same window as the other rows (warm-up after the first batch done, then the window).
package sharesink.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

public class SleepSinkConnector extends SinkConnector {
    static final String SLEEP_MS = "sleep.ms";
    static final String PROGRESS_DIR = "progress.dir";
    static final String TASK_INDEX = "task.index";
    static final String RECORDS_LOG = "records.log";

    static final ConfigDef CONFIG = new ConfigDef()
        .define(SLEEP_MS, ConfigDef.Type.LONG, 0L, ConfigDef.Range.atLeast(0), ConfigDef.Importance.HIGH,
            "Milliseconds each non-empty put() sleeps (the sink's latency).")
        .define(PROGRESS_DIR, ConfigDef.Type.STRING, ConfigDef.Importance.HIGH,
            "Directory for the progress files (one per task: '<epoch µs> <records>' per put).")
        .define(RECORDS_LOG, ConfigDef.Type.BOOLEAN, false, ConfigDef.Importance.LOW,
            "Also note every record of each put, flushed before put() returns (the rebalance scenario): "
                + "'r <epoch ms> <partition>:<offset>:<timestamp>,...'.");

    private Map<String, String> props = Map.of();

    @Override
    public String version() {
        return "0.0.0";
    }

    @Override
    public void start(Map<String, String> props) {
        this.props = Map.copyOf(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return SleepSinkTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>(maxTasks);
        for (int i = 0; i < maxTasks; i++) {
            Map<String, String> c = new HashMap<>(props);
            c.put(TASK_INDEX, String.valueOf(i));
            configs.add(c);
        }
        return configs;
    }

    @Override
    public void stop() {}

    @Override
    public ConfigDef config() {
        return CONFIG;
    }
}
