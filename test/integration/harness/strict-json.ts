/**
 * JSON.parse keeps the last of two equal keys without a word; log collectors differ (some keep the
 * first, some reject the line). This finds the keys an object holds twice, at any depth.
 */
export function duplicateKeys(json: string): string[] {
  const found: string[] = [];
  // one entry per open object (its keys so far, and whether a key comes next) or array (null)
  const open: Array<{ keys: Set<string>; keyNext: boolean } | null> = [];
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      let end = i + 1;
      while (json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
      const top = open.at(-1);
      if (top?.keyNext) {
        const key = JSON.parse(json.slice(i, end + 1)) as string;
        if (top.keys.has(key)) found.push(key);
        top.keys.add(key);
        top.keyNext = false;
      }
      i = end;
    } else if (c === '{') open.push({ keys: new Set(), keyNext: true });
    else if (c === '[') open.push(null);
    else if (c === '}' || c === ']') open.pop();
    else if (c === ',') {
      const top = open.at(-1);
      if (top) top.keyNext = true;
    }
  }
  return found;
}

/** Parses one JSON log line, failing on invalid JSON, a non-object, or a key written twice. */
export function parseLogLineStrictly(line: string): Record<string, unknown> {
  const value = JSON.parse(line) as unknown;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`not a JSON object: ${line}`);
  const dups = duplicateKeys(line);
  if (dups.length > 0)
    throw new Error(`duplicate key(s) ${dups.map((k) => `"${k}"`).join(', ')} in: ${line}`);
  return value as Record<string, unknown>;
}
