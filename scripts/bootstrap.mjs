#!/usr/bin/env node
// Dependency-free bootstrap behind `npm start`, `npm test`, `npm run worker|bench|chaos|build|auth|schemas|docs`.
// It makes a fresh clone on a fresh Debian machine runnable: installs npm dependencies when
// missing, makes sure redis-server, Chromium and (for tests and benches) the PostgreSQL server
// exist (apt-get when root, otherwise one message saying what to install), compiles the
// TypeScript, then runs the command. `test` runs the suite on SQLite, then on PostgreSQL.
import { spawnSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [command = 'start', ...args] = process.argv.slice(2);
// `test --store sqlite|postgres` runs one half of the suite; the option is this script's, not vitest's.
const { stores, rest } = command === 'test' ? storeOption(args) : { stores: null, rest: args };
const COMMANDS = {
  // The services get an IPC channel to this process: they stop by themselves when it is gone.
  start: { system: ['redis', 'chromium'], tsconfig: 'tsconfig.build.json', run: ['node', ['dist/src/supervisor.js', ...rest]], ipc: true },
  auth: { system: [], tsconfig: 'tsconfig.build.json', run: ['node', ['dist/src/auth/server.js', ...rest]], ipc: true },
  worker: { system: ['chromium'], tsconfig: 'tsconfig.build.json', run: ['node', ['dist/src/worker.js', ...rest]], ipc: true },
  bench: { system: ['redis', 'chromium', 'postgresql'], tsconfig: 'tsconfig.build.json', run: ['node', ['dist/bench/run-all.js', ...rest]] },
  chaos: { system: ['redis', 'chromium'], tsconfig: 'tsconfig.build.json', run: ['node', ['dist/chaos/run-all.js', ...rest]] },
  test: { system: ['redis', 'chromium', 'postgresql'], tsconfig: 'tsconfig.json', run: null, halves: ['node', ['node_modules/vitest/vitest.mjs', 'run', ...rest]] },
  build: { system: [], tsconfig: 'tsconfig.build.json', run: null },
  schemas: { system: [], tsconfig: 'tsconfig.build.json', run: ['node', ['dist/src/ops/write-schemas-main.js', ...rest]] },
  docs: { system: [], tsconfig: 'tsconfig.build.json', run: ['node', ['dist/src/docs/write-docs-main.js', ...rest]] },
};

/** How often a service command checks that the process that started it is still there (ms). */
const STARTER_CHECK_MS = 500;

const spec = COMMANDS[command];
if (!spec) fail(`Unknown command "${command}". Use one of: ${Object.keys(COMMANDS).join(', ')}.`);

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 3)) fail(`Node ${process.versions.node} is too old: this service needs Node 20.3 or newer.`);

ensureNodeModules();
ensureSystemPackages(spec.system);
build(spec.tsconfig);
if (spec.run) run(...spec.run, spec.ipc);
if (spec.halves) runHalves(...spec.halves);

/** Splits `--store sqlite|postgres` (or `--store=…`) off the test command's arguments; without it, both engines run. */
function storeOption(args) {
  const rest = [];
  let chosen = null;
  for (let i = 0; i < args.length; i += 1) {
    const inline = /^--store=(.*)$/.exec(args[i]);
    if (!inline && args[i] !== '--store') {
      rest.push(args[i]);
      continue;
    }
    chosen = inline ? inline[1] : args[(i += 1)];
    if (chosen !== 'sqlite' && chosen !== 'postgres') fail(`--store takes sqlite or postgres, not ${JSON.stringify(chosen ?? '')}.`);
  }
  return { stores: chosen ? [chosen] : ['sqlite', 'postgres'], rest };
}

/**
 * The suite once per store engine (TEST_STORE, read by test/helpers/test-backend.ts and
 * vitest.config.ts), one after the other; fails when either half fails.
 */
function runHalves(program, args) {
  const names = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
  const outcomes = [];
  const failuresDir = mkdtempSync(join(tmpdir(), 'eval-backend-test-'));
  for (const store of stores) {
    say(`Test suite on ${names[store]}:`);
    // test/helpers/summary-reporter.ts appends each failed test there, a line each.
    const failuresFile = join(failuresDir, store);
    const result = spawnSync(program, args, { cwd: root, stdio: 'inherit', env: { ...process.env, TEST_STORE: store, TEST_FAILURES_FILE: failuresFile } });
    const failures = existsSync(failuresFile) ? readFileSync(failuresFile, 'utf8').trimEnd().split('\n') : [];
    outcomes.push({ store, passed: result.status === 0, failures });
    // Ctrl-C reached vitest too; do not start the other half.
    if (result.signal) break;
  }
  rmSync(failuresDir, { recursive: true, force: true });
  // Both halves' failures again at the very end, where a log cut to its tail still shows them.
  for (const { store, failures } of outcomes) for (const failure of failures) say(`${names[store]} failed: ${failure}`);
  say(outcomes.map(({ store, passed }) => `${names[store]}: ${passed ? 'passed' : 'FAILED'}`).join('; '));
  process.exit(outcomes.length === stores.length && outcomes.every(({ passed }) => passed) ? 0 : 1);
}

function ensureNodeModules() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  // `npm install` rather than `npm ci`: it honours the lock file, and unlike `npm ci` it does
  // not refuse a lock whose other-platform optional packages a registry mirror left out.
  say('Installing npm dependencies (npm install)...');
  exec('npm', ['install', '--no-audit', '--no-fund'], 'npm install failed; see the output above.');
}

function ensureSystemPackages(needs) {
  const missing = [];
  if (needs.includes('redis') && !process.env.REDIS_URL && !onPath('redis-server')) missing.push('redis-server');
  if (needs.includes('chromium') && !process.env.CHROMIUM_PATH && !findChromium()) missing.push('chromium');
  // Tests and benches start throwaway clusters (src/db/managed-postgres.ts) from these binaries.
  if (needs.includes('postgresql') && !findPostgres()) missing.push('postgresql');
  if (missing.length === 0) return;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !onPath('apt-get')) {
    fail(
      `Missing system packages: ${missing.join(', ')}.\n` +
        `Install them (Debian/Ubuntu: sudo apt-get install -y ${missing.join(' ')} fonts-dejavu-core),\n` +
        'or point REDIS_URL at a running Redis and CHROMIUM_PATH at a Chromium binary' +
        (missing.includes('postgresql') ? ' (tests and benches need the PostgreSQL server binaries themselves).' : '.'),
    );
  }
  say(`Installing ${missing.join(', ')} with apt-get...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  exec('apt-get', ['update', '-qq'], 'apt-get update failed.', env);
  exec('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing, 'fonts-dejavu-core'], `apt-get install ${missing.join(' ')} failed.`, env);
}

function build(tsconfig) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  // Incremental: an unchanged tree compiles in about a second.
  exec('node', [tsc, '-p', tsconfig, '--incremental', '--tsBuildInfoFile', `dist/.${tsconfig}.tsbuildinfo`], 'TypeScript compilation failed; see the errors above.');
  copyAssets(join(root, 'src'), join(root, 'dist', 'src'));
}

/**
 * SQL migrations, Lua scripts and data files (probe conversations) live beside the modules
 * that load them. The copy mirrors them: one renamed or removed in src/ must not live on in
 * dist/, where the migration runner would still find it.
 */
function copyAssets(from, to) {
  const ASSET = /\.(sql|lua|json)$/;
  const assets = new Set();
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (entry.isDirectory()) copyAssets(source, join(to, entry.name));
    else if (ASSET.test(entry.name)) {
      assets.add(entry.name);
      copyAsset(source, join(to, entry.name));
    }
  }
  for (const entry of existsSync(to) ? readdirSync(to, { withFileTypes: true }) : []) {
    if (entry.isFile() && ASSET.test(entry.name) && !assets.has(entry.name)) rmSync(join(to, entry.name));
  }
}

/**
 * A process started from dist/ may be reading its assets while another `npm start` or `npm
 * test` builds (a test starting the service, say): an unchanged asset is left alone, a changed
 * one replaced by a rename, so a reader never finds it missing or half written.
 */
function copyAsset(source, target) {
  const bytes = readFileSync(source);
  if (existsSync(target) && readFileSync(target).equals(bytes)) return;
  mkdirSync(dirname(target), { recursive: true });
  const staged = `${target}.${process.pid}.tmp`;
  writeFileSync(staged, bytes);
  renameSync(staged, target);
}

function run(program, args, ipc = false) {
  // A service leads a process group of its own: a terminal's Ctrl-C signals the whole
  // foreground group, and the service would get it twice, from the terminal and forwarded,
  // the second meaning "exit now". It gets it once, from here.
  const child = spawn(program, args, { cwd: root, stdio: ipc ? ['inherit', 'inherit', 'inherit', 'ipc'] : 'inherit', detached: ipc });
  // The child handles SIGINT/SIGTERM itself (graceful shutdown); forward what we receive.
  let signalled = false;
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      signalled = true;
      child.kill(signal);
    });
  }
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  // A Ctrl-C reaches npm too, which may exit before the service has stopped: the child is
  // stopping already, and a second signal would make it exit at once, so send none.
  if (ipc) {
    stopWithStarter(() => {
      if (signalled) return;
      say('The process that started this one is gone: stopping the service.');
      child.kill('SIGTERM');
    });
  }
}

/**
 * Calls `stop` (which stops the service; this process exits with it) once the process that
 * started this one is gone, however it went. A signal would be forwarded, but `kill -9`
 * sends none, and `npm start` runs this file in a shell that outlives a killed npm: so the
 * parent and, under npm, npm itself are watched. Each is known by its pid and start time,
 * since pids are reused. The child needs no watching of its own: its IPC channel closes
 * when this process ends.
 */
function stopWithStarter(stop) {
  const starters = [process.ppid];
  const parent = procStat(process.ppid);
  if (process.env.npm_lifecycle_event && parent && ['sh', 'dash', 'bash'].includes(parent.comm) && parent.ppid > 1) starters.push(parent.ppid);
  const started = starters.map((pid) => ({ pid, startTime: procStat(pid)?.startTime }));
  // No /proc (not Linux): nothing to watch by.
  if (started.some(({ startTime }) => startTime === undefined)) return;
  const timer = setInterval(() => {
    if (started.every(({ pid, startTime }) => { const now = procStat(pid); return now && now.state !== 'Z' && now.startTime === startTime; })) return;
    clearInterval(timer);
    stop();
  }, STARTER_CHECK_MS);
  timer.unref();
}

/** Name, state, parent and start time (clock ticks since boot) from /proc/<pid>/stat; null once it is gone or off Linux. */
function procStat(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // `pid (comm) state ppid … starttime …`: comm may hold spaces, so split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { comm: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')), state: fields[0], ppid: Number(fields[1]), startTime: fields[19] };
}

function exec(program, args, message, env = process.env) {
  const result = spawnSync(program, args, { cwd: root, stdio: 'inherit', env });
  if (result.status !== 0) fail(message);
}

function onPath(program) {
  return spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
}

function findChromium() {
  return ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'].find(existsSync);
}

function findPostgres() {
  const root = '/usr/lib/postgresql';
  return existsSync(root) && readdirSync(root).some((major) => existsSync(join(root, major, 'bin', 'initdb')) && existsSync(join(root, major, 'bin', 'postgres')));
}

function say(message) {
  console.log(`[bootstrap] ${message}`);
}

function fail(message) {
  console.error(`[bootstrap] ${message}`);
  process.exit(1);
}

