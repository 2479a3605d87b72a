import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUTH_MIGRATIONS, AUTH_POSTGRES_MIGRATIONS } from '../../src/auth/auth-store.js';
import { declaredStep } from '../../src/db/migration-files.js';
import { POSTGRES_MIGRATIONS } from '../../src/db/migrate-postgres.js';
import { BACKEND_MIGRATIONS } from '../../src/db/open-database.js';

/**
 * The migrations of both engines as one manifest: every file has its twin under the same
 * number and name, every migration written since the upgrade marks says whether it is an
 * expand or a contract step, both twins say the same, and an expand step holds nothing that
 * would break a process of the previous build reading the same database.
 */
const FOLDERS = [
  { name: 'backend', sqlite: BACKEND_MIGRATIONS, postgres: POSTGRES_MIGRATIONS, lastUnmarked: 92 },
  { name: 'auth service', sqlite: AUTH_MIGRATIONS, postgres: AUTH_POSTGRES_MIGRATIONS, lastUnmarked: 2 },
];

/** Statements an older build cannot live beside: what it reads disappears or changes meaning. */
const BREAKING = [
  /\bDROP\s+(TABLE|COLUMN|VIEW|TRIGGER)\b/i,
  /\bRENAME\b/i,
  /\bALTER\s+COLUMN\s+\S+\s+(SET\s+DATA\s+)?TYPE\b/i,
  /\bSET\s+NOT\s+NULL\b/i,
  /\bADD\s+COLUMN\b[^;]*\bNOT\s+NULL\b(?![^;]*\bDEFAULT\b)/i,
];

const sqlFiles = (dir: string) => readdirSync(dir).filter((name) => /^\d{4}_.*\.sql$/.test(name)).sort();
/** The statements of a migration, its comments left out. */
const statements = (text: string) => text.replace(/--[^\n]*/g, '');

describe.each(FOLDERS)('the $name migrations', ({ sqlite, postgres, lastUnmarked }) => {
  it('come in twins, one per engine, under one number and name', () => {
    expect(sqlFiles(postgres)).toEqual(sqlFiles(sqlite));
  });

  it('each say their upgrade step, the same on both engines, since the marks began', () => {
    const problems: string[] = [];
    for (const name of sqlFiles(sqlite)) {
      if (Number(name.slice(0, 4)) <= lastUnmarked) continue;
      const steps = [sqlite, postgres].map((dir) => declaredStep(readFileSync(join(dir, name), 'utf8')));
      if (steps.includes(null)) problems.push(`${name} lacks "-- upgrade: expand" or "-- upgrade: contract" on one engine or both`);
      else if (steps[0] !== steps[1]) problems.push(`${name} is ${steps[0]} on SQLite but ${steps[1]} on PostgreSQL`);
    }
    expect(problems).toEqual([]);
  });

  it('hold nothing an older build would break on in an expand step', () => {
    const problems: string[] = [];
    for (const dir of [sqlite, postgres]) {
      for (const name of sqlFiles(dir)) {
        const text = readFileSync(join(dir, name), 'utf8');
        if (declaredStep(text) !== 'expand') continue;
        const found = BREAKING.find((pattern) => pattern.test(statements(text)));
        if (found) problems.push(`${dir}${name}: an expand step may only add, but it matches ${found}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('the expand-step lint', () => {
  it('catches what would break an older build, and lets additions through', () => {
    const breaks = (text: string) => BREAKING.some((pattern) => pattern.test(statements(text)));
    expect(breaks('ALTER TABLE runs DROP COLUMN cost;')).toBe(true);
    expect(breaks('ALTER TABLE runs RENAME TO old_runs;')).toBe(true);
    expect(breaks('ALTER TABLE runs ALTER COLUMN cost TYPE bigint;')).toBe(true);
    expect(breaks('ALTER TABLE runs ADD COLUMN flag integer NOT NULL;')).toBe(true);
    expect(breaks('ALTER TABLE runs ADD COLUMN flag integer NOT NULL DEFAULT 0;')).toBe(false);
    expect(breaks('CREATE INDEX runs_flag ON runs (flag); -- DROP TABLE runs later')).toBe(false);
  });
});
