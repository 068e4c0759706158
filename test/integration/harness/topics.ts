/**
 * The topics one test file makes, deleted once its tests are done. Call it at the top of the file:
 *
 *   const { newTopic, topicName } = topicsForTest({ partitions: 2 });
 *   const topic = await newTopic('cl-ok');       // created, with the file's partition count
 *   const dlq = topicName('cl-ok-dlq');          // a name only: the task under test creates it
 */
import { afterAll } from 'vitest';
import { createTopic, deleteTopics, kafkaClient, uniqueTopic } from './kafka.js';

export interface TestTopics {
  /** Creates a topic with a unique name made from `name`. */
  newTopic(
    name: string,
    options?: { partitions?: number; configs?: Record<string, string> },
  ): Promise<string>;
  /** A unique name for a topic something else creates (a task's dead-letter topic), deleted with the rest. */
  topicName(name: string): string;
}

export function topicsForTest(defaults: { partitions?: number } = {}): TestTopics {
  const topics: string[] = [];
  afterAll(async () => {
    if (topics.length === 0) return;
    // a name the test never got to create, or deleted itself, would fail the whole deletion
    const admin = kafkaClient('sharesink-test-admin').admin();
    await admin.connect();
    const existing = new Set(await admin.listTopics().finally(() => admin.disconnect()));
    const made = topics.filter((t) => existing.has(t));
    if (made.length > 0) await deleteTopics(made);
  });
  const topicName = (name: string): string => {
    const topic = uniqueTopic(name);
    topics.push(topic);
    return topic;
  };
  return {
    topicName,
    async newTopic(name, options = {}) {
      const topic = topicName(name);
      await createTopic(topic, { partitions: defaults.partitions ?? 1, ...options });
      return topic;
    },
  };
}
