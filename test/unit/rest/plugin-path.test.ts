// plugin.path: which connector modules a REST request may name. The file a connector.class resolves to
// must lie inside one of the directories, symbolic links followed, `..` and prefixes of names included.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { onPluginPath } from '../../../src/rest/plugin-path.js';

const root = mkdtempSync(path.join(tmpdir(), 'sharesink-plugin-path-'));
const plugins = path.join(root, 'plugins');
const outside = path.join(root, 'plugins-other');
mkdirSync(path.join(plugins, 'acme'), { recursive: true });
mkdirSync(outside);
const inner = path.join(plugins, 'acme', 'sink.mjs');
const stranger = path.join(outside, 'sink.mjs');
writeFileSync(inner, 'export default {};\n');
writeFileSync(stranger, 'export default {};\n');
symlinkSync(stranger, path.join(plugins, 'link.mjs'));

describe('onPluginPath', () => {
  it('accepts a module under a plugin.path directory, by absolute path or file: URL', () => {
    expect(onPluginPath(inner, [plugins])).toBe(true);
    expect(onPluginPath(pathToFileURL(inner).href, [plugins])).toBe(true);
    expect(onPluginPath(inner, [outside, plugins])).toBe(true);
  });

  it('refuses everything when plugin.path is empty', () => {
    expect(onPluginPath(inner, [])).toBe(false);
  });

  it('refuses a module outside, a `..` escape, a sibling whose name starts the same, and a link that leads out', () => {
    expect(onPluginPath(stranger, [plugins])).toBe(false);
    expect(onPluginPath(path.join(plugins, '..', 'plugins-other', 'sink.mjs'), [plugins])).toBe(false);
    expect(onPluginPath(`${plugins}/../plugins-other/sink.mjs`, [plugins])).toBe(false);
    expect(onPluginPath(path.join(plugins, 'link.mjs'), [plugins])).toBe(false);
    // the directory itself is not a module in it
    expect(onPluginPath(plugins, [plugins])).toBe(false);
  });

  it('resolves an npm package as the runtime imports it: allowed when installed under a plugin.path directory', () => {
    const nodeModules = path.resolve('node_modules');
    expect(onPluginPath('pino', [nodeModules])).toBe(true);
    expect(onPluginPath('pino', [plugins])).toBe(false);
    expect(onPluginPath('no-such-package-sharesink', [nodeModules])).toBe(false);
  });
});
