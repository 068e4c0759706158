/** What {@link dropOldest} needs of a Map or a Set: both iterate keys in insertion order. */
interface Keyed<K> {
  readonly size: number;
  keys(): IterableIterator<K>;
  delete(key: K): boolean;
}

/**
 * Drops the oldest entries (the first inserted) of a Map or Set until it holds at most `max`: the
 * bound of a first-in-first-out cache, called after each insertion.
 */
export function dropOldest<K>(c: Keyed<K>, max: number): void {
  while (c.size > max) c.delete(c.keys().next().value as K);
}
