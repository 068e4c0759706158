/** A secret value that prints as `[hidden]`, so it never lands in a log line, a REST answer or an error. */
export class HiddenValue {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  value(): string {
    return this.#value;
  }
  toString(): string {
    return '[hidden]';
  }
  toJSON(): string {
    return '[hidden]';
  }
}
