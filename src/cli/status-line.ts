/**
 * The bottom line of a terminal kept as a live status (the progress line) while log lines scroll above
 * it. Both go through this one object so a log line never lands in the middle of the status text.
 */

/** What the status line needs of a terminal; process.stderr is one. */
/** What a terminal sees when a signal starts the graceful stop, which can take seconds (both commands). */
export const STOPPING_LINE = 'sharesink: stopping gracefully (Ctrl-C again exits at once)\n';

export interface StatusTerminal {
  write(text: string): boolean;
  readonly columns?: number | undefined;
}

const ERASE_LINE = '\r\x1b[2K';

export class StatusLine {
  readonly #out: StatusTerminal;
  #text: string | undefined;

  constructor(out: StatusTerminal) {
    this.#out = out;
  }

  /** Draws `text` in place of the current status (cut to the terminal width so it never wraps). */
  show(text: string): void {
    this.#text = text;
    this.#out.write(`${ERASE_LINE}${this.#fit(text)}`);
  }

  /**
   * Writes complete lines above the status: erase the status, print, draw it again, in one write so
   * nothing else can come between.
   */
  printAbove(lines: string): void {
    if (this.#text === undefined) this.#out.write(lines);
    else this.#out.write(`${ERASE_LINE}${lines}${this.#fit(this.#text)}`);
  }

  /** Leaves the last status text on screen and moves below it; later lines print plainly. */
  end(): void {
    if (this.#text !== undefined) this.#out.write('\n');
    this.#text = undefined;
  }

  #fit(text: string): string {
    return text.slice(0, (this.#out.columns || 200) - 1);
  }
}
