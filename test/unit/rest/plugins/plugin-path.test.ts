// plugin.path: which connector modules a REST request may name. The file a connector.class resolves to
// must lie inside one of the directories, symbolic links followed, `..` and prefixes of names included.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { onPluginPath, pluginPathConnectors } from '../../../../src/rest/plugins/plugin-path.js';

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

describe('pluginPathConnectors (GET /connector-plugins)', () => {
  const dir = path.join(root, 'scan');
  mkdirSync(path.join(dir, 'nested'), { recursive: true });
  mkdirSync(path.join(dir, 'unresolvable-pkg'));
  const connector = `class C { version() { return '2.0.0'; } config() {} start() {} taskConfigs() { return []; } stop() {} }
class T { version() { return '2.0.0'; } start() {} put() {} stop() {} }
export default { connector: C, task: T };
`;
  writeFileSync(path.join(dir, 'orders-sink.mjs'), connector);
  writeFileSync(path.join(dir, 'b-sink.js'), connector);
  writeFileSync(path.join(dir, 'helper.mjs'), 'export const x = 1;\n');
  writeFileSync(path.join(dir, 'types.d.ts'), 'export {};\n');
  writeFileSync(path.join(dir, 'notes.json'), '{}\n');
  writeFileSync(path.join(dir, 'nested', 'deep-sink.mjs'), connector);
  writeFileSync(path.join(dir, 'unresolvable-pkg', 'package.json'), '{"name":"no-such-package-sharesink"}');
  writeFileSync(path.join(outside, 'outside-sink.mjs'), connector);
  symlinkSync(path.join(outside, 'outside-sink.mjs'), path.join(dir, 'link-sink.mjs'));

  it('lists the module files directly in a directory that import as connectors, sorted, by absolute path', async () => {
    expect(await pluginPathConnectors([dir])).toEqual([
      path.join(dir, 'b-sink.js'),
      path.join(dir, 'orders-sink.mjs'),
    ]);
    expect(await pluginPathConnectors([])).toEqual([]);
    expect(await pluginPathConnectors([path.join(root, 'missing')])).toEqual([]);
  });

  it('offers npm packages by name, only those the runtime would import from under plugin.path', async () => {
    const asked: string[] = [];
    const load = (specifier: string) => {
      asked.push(specifier);
      return Promise.resolve({});
    };
    // plugin.path=node_modules/@pinojs, and node_modules itself, whose @pinojs directory holds the same
    const scope = path.resolve('node_modules/@pinojs');
    expect(await pluginPathConnectors([scope], load)).toEqual(['@pinojs/redact']);
    const all = await pluginPathConnectors([path.resolve('node_modules')], load);
    expect(all).toEqual(expect.arrayContaining(['@pinojs/redact', 'pino']));
    asked.length = 0;
    expect(await pluginPathConnectors([dir], load)).not.toContain('no-such-package-sharesink');
    expect(asked).not.toContain('no-such-package-sharesink');
    expect(asked.some((a) => a.includes('link-sink') || a.includes('deep-sink'))).toBe(false);
  });
});
