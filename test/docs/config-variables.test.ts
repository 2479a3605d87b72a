import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, type Env } from '../../src/config.js';
import { ENV_VARIABLES, ENV_VARIABLE_NAMES } from '../../src/config-variables.js';

const ROOT = resolve(__dirname, '../..');
/** Variables some branches of loadConfig read only when another is set. */
const BRANCHES: Env[] = [{}, { BLOB_STORE_URL: 's3://docs-bucket/prefix' }];

/** Every key loadConfig reads of the environment, whatever it holds. */
function keysRead(env: Env): Set<string> {
  const read = new Set<string>();
  const recording = new Proxy(env, {
    get(target, key) {
      if (typeof key === 'string') read.add(key);
      return typeof key === 'string' ? target[key] : undefined;
    },
  });
  loadConfig(recording, '/srv/app');
  return read;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs)$/.test(name) ? [path] : [];
  });
}

describe('the environment table (src/config-variables.ts)', () => {
  const byConfig = ENV_VARIABLES.filter((variable) => variable.readIn === undefined);

  it('names every variable loadConfig reads, and loadConfig reads every variable it gives to loadConfig', () => {
    const read = new Set(BRANCHES.flatMap((env) => [...keysRead(env)]));
    const missing = [...read].filter((name) => !ENV_VARIABLE_NAMES.has(name) || ENV_VARIABLES.find((v) => v.name === name)!.readIn !== undefined);
    expect(missing, 'read by loadConfig but without an entry in ENV_VARIABLES (src/config-variables.ts)').toEqual([]);
    expect(byConfig.map((variable) => variable.name).filter((name) => !read.has(name)), 'in ENV_VARIABLES but read by nobody').toEqual([]);
  });

  it('gives each default as loadConfig applies it: setting a variable to its documented default changes nothing', () => {
    for (const variable of byConfig.filter((entry) => entry.default !== null)) {
      for (const base of BRANCHES) {
        expect(loadConfig({ ...base, [variable.name]: variable.default! }, '/srv/app'), `${variable.name}=${variable.default}`).toEqual(loadConfig(base, '/srv/app'));
      }
    }
  });

  it('says what unset means wherever no default value does, and names each variable once', () => {
    expect(ENV_VARIABLES.filter((variable) => variable.default === null && !variable.unset).map((variable) => variable.name)).toEqual([]);
    expect(ENV_VARIABLE_NAMES.size).toBe(ENV_VARIABLES.length);
  });

  it('points each variable read outside loadConfig at a file that reads it', () => {
    for (const variable of ENV_VARIABLES.filter((entry) => entry.readIn !== undefined)) {
      expect(readFileSync(join(ROOT, variable.readIn!), 'utf8'), `${variable.name} in ${variable.readIn}`).toMatch(new RegExp(`(env\\.|env\\(')${variable.name}\\b`));
    }
  });

  it('names every variable the code reads from process.env', () => {
    // System variables, and the inputs of child scripts that tests spawn.
    const notOurs = new Set(['PATH', 'HOME', 'URL', 'DIR', 'DEBIAN_FRONTEND']);
    const unlisted = new Set<string>();
    for (const dir of ['src', 'scripts', 'bin', 'bench', 'chaos', 'test']) {
      for (const file of sourceFiles(join(ROOT, dir))) {
        for (const match of readFileSync(file, 'utf8').matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)) {
          if (!ENV_VARIABLE_NAMES.has(match[1]!) && !notOurs.has(match[1]!)) unlisted.add(`${match[1]} (${file.slice(ROOT.length + 1)})`);
        }
      }
    }
    expect([...unlisted]).toEqual([]);
  });
});
