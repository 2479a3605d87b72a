import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  boundOuterRows, boundRows, indexedBy, jsonCounts, jsonNumber, jsonText, likeInsensitive, lockedRows, nextCapRevision, postgresPool, postgresStore,
  sameTextIgnoringCase, sameValue, sqliteStore, weekStart, writeTransaction, type Store,
} from '../../src/db/dialect.js';
import { migratePostgres } from '../../src/db/migrate-postgres.js';
import { openDatabase } from '../../src/db/open-database.js';
import { isStorageFull } from '../../src/db/storage-full.js';
import { fillStore } from '../helpers/temp-store.js';
import { stopTestPostgres, testDatabase } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';

/** The columns these tests touch, of two migrated tables. */
interface Tables {
  models: { slug: string; name: string | null; list_input: number | null; created_at: string; updated_at: string };
  harness_config: { slug: string; max_parallelism: number | null; updated_at: string; revision: number };
}

const dir = mkdtempSync(join(tmpdir(), 'evb-dialect-'));
const stores: Record<'sqlite' | 'postgres', Store<Tables> | null> = { sqlite: null, postgres: null };

beforeAll(async () => {
  stores.sqlite = sqliteStore<Tables>(openDatabase(join(dir, 'backend.sqlite')));
  const pool = postgresPool({ connectionString: await testDatabase() });
  await migratePostgres(pool);
  stores.postgres = postgresStore<Tables>(pool);
});
afterAll(async () => {
  await stores.sqlite?.db.destroy();
  await stores.postgres?.db.destroy();
  await stopTestPostgres();
  rmSync(dir, { recursive: true, force: true });
});

const NOW = '2026-11-27T12:00:00.000Z';
const model = (slug: string, listInput: number | null = null) => ({ slug, name: null, list_input: listInput, created_at: NOW, updated_at: NOW });

describe.each(['sqlite', 'postgres'] as const)('the %s dialect', (engine) => {
  const store = () => stores[engine]!;
  const clear = async () => {
    await store().db.deleteFrom('models').execute();
    await store().db.deleteFrom('harness_config').execute();
  };

  it('keeps a double to the last bit', async () => {
    await clear();
    await store().db.insertInto('models').values(model('m', 0.1 + 0.2)).execute();
    const row = await store().db.selectFrom('models').select('list_input').executeTakeFirstOrThrow();
    expect(row.list_input).toBe(0.30000000000000004);
  });

  it('answers counts, sums and bigint columns past 2^31 as numbers', async () => {
    await clear();
    const revision = 2 ** 40 + 1;
    await store().db.insertInto('harness_config').values([
      { slug: 'a', max_parallelism: null, updated_at: NOW, revision },
      { slug: 'b', max_parallelism: 2, updated_at: NOW, revision: 1 },
    ]).execute();
    const row = await store().db.selectFrom('harness_config')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('revision').as('total'), eb.fn.max('revision').as('newest')])
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ n: 2, total: revision + 1, newest: revision });
  });

  it('puts NULLs where the query says, not where the engine would', async () => {
    await clear();
    await store().db.insertInto('models').values([model('a', 2), model('b', null), model('c', 1)]).execute();
    const order = async (direction: 'asc' | 'desc', nulls: 'first' | 'last') => (await store().db.selectFrom('models').select('slug')
      .orderBy('list_input', (ob) => { const by = direction === 'asc' ? ob.asc() : ob.desc(); return nulls === 'first' ? by.nullsFirst() : by.nullsLast(); })
      .execute()).map((r) => r.slug);
    expect(await order('asc', 'last')).toEqual(['c', 'a', 'b']);
    expect(await order('asc', 'first')).toEqual(['b', 'c', 'a']);
    expect(await order('desc', 'last')).toEqual(['a', 'c', 'b']);
  });

  it('sorts text in byte order', async () => {
    await clear();
    const slugs = ['b', 'B', 'a', 'A', '_x', 'é', 'Z', 'a-b', 'a_b', 'ab'];
    await store().db.insertInto('models').values(slugs.map((slug) => model(slug))).execute();
    const sorted = (await store().db.selectFrom('models').select('slug').orderBy('slug').execute()).map((r) => r.slug);
    expect(sorted).toEqual([...slugs].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))));
    expect(sorted).toEqual(['A', 'B', 'Z', '_x', 'a', 'a-b', 'a_b', 'ab', 'b', 'é']);
  });

  it('spells the engine-specific fragments to the same answers', async () => {
    await clear();
    await store().db.insertInto('models').values([model('Hello', null), model('élan', 1)]).execute();
    const { engine: e, db } = store();
    const json = sql.val('{"subject":{"engine":"godot","runs":3}}');
    const row = await db.selectNoFrom([
      jsonText(e, json, ['subject', 'engine']).as('engine'),
      jsonNumber(e, json, ['subject', 'runs']).as('runs'),
      jsonText(e, json, ['subject', 'absent']).as('absent'),
      weekStart(e, sql.val('2026-11-29T23:59:59.999Z')).as('sunday'),
      weekStart(e, sql.val('2026-11-30T00:00:00.000Z')).as('monday'),
    ]).executeTakeFirstOrThrow();
    expect(row).toEqual({ engine: 'godot', runs: 3, absent: null, sunday: '2026-11-23', monday: '2026-11-30' });

    const slugsWhere = async (where: ReturnType<typeof sameValue>) => (await db.selectFrom('models').select('slug').where(where).orderBy('slug').execute()).map((r) => r.slug);
    expect(await slugsWhere(sameValue(e, sql.ref('list_input'), sql.val(null)))).toEqual(['Hello']);
    expect(await slugsWhere(likeInsensitive(e, sql.ref('slug'), sql.val('hel%')))).toEqual(['Hello']);
    // SQLite folds ASCII case only; over COLLATE "C" so does PostgreSQL's ILIKE.
    expect(await slugsWhere(likeInsensitive(e, sql.ref('slug'), sql.val('ÉLAN')))).toEqual([]);
    expect(await slugsWhere(likeInsensitive(e, sql.ref('slug'), sql.val('h\\%llo')))).toEqual([]);
    const hinted = await sql<{ n: number }>`SELECT count(*) AS n FROM harness_config ${indexedBy(e, 'sqlite_autoindex_harness_config_1')}`.execute(db);
    expect(hinted.rows).toEqual([{ n: 0 }]);
  });

  it('joins bound rows as the outer loop, typed, each row read once (a SQLite co-routine, not a flattened subquery)', async () => {
    await clear();
    await store().db.insertInto('models').values([model('a', 1), model('b', 2)]).execute();
    const rows = [[0, 'b', null], [1, 'a', 'x'], [2, 'b', 'y'], [3, 'none', null]];
    const query = sql<{ key: number; slug: string; note: string | null; listInput: number }>`SELECT c.key, c.slug, c.note, m.list_input AS "listInput"
      FROM ${boundOuterRows(engine, 'c', [['key', 'bigint'], ['slug', 'text'], ['note', 'text']], rows)} CROSS JOIN models AS m
      WHERE m.slug = c.slug ORDER BY c.key`;
    expect((await query.execute(store().db)).rows).toEqual([
      { key: 0, slug: 'b', note: null, listInput: 2 }, { key: 1, slug: 'a', note: 'x', listInput: 1 }, { key: 2, slug: 'b', note: 'y', listInput: 2 },
    ]);
    if (engine === 'sqlite') {
      const explained = await sql<{ detail: string }>`EXPLAIN QUERY PLAN ${query}`.execute(store().db);
      expect(explained.rows.map((step) => step.detail)).toContain('CO-ROUTINE c');
    }
  });

  it('upserts with ON CONFLICT, spelled alike on both', async () => {
    await clear();
    const put = (revision: number) => store().db.insertInto('harness_config').values({ slug: 'codex', max_parallelism: revision, updated_at: NOW, revision })
      .onConflict((oc) => oc.column('slug').doUpdateSet((eb) => ({ max_parallelism: eb.ref('excluded.max_parallelism'), revision: eb.ref('excluded.revision') })))
      .execute();
    await put(1);
    await put(2);
    await store().db.insertInto('harness_config').values({ slug: 'codex', max_parallelism: 9, updated_at: NOW, revision: 9 }).onConflict((oc) => oc.doNothing()).execute();
    expect(await store().db.selectFrom('harness_config').select(['slug', 'max_parallelism', 'revision']).execute()).toEqual([{ slug: 'codex', max_parallelism: 2, revision: 2 }]);
  });

  it('reads a JSON object of counts as integer rows per key, joined to the row it comes from', async () => {
    await clear();
    await store().db.insertInto('models').values([
      { ...model('a'), name: '{"x":2,"y":5}' }, { ...model('b'), name: '{"x":1}' }, { ...model('c'), name: null }, { ...model('d'), name: '{}' },
    ]).execute();
    const rows = await store().db.selectFrom('models as m')
      .innerJoin(jsonCounts(engine, sql.ref('m.name')).as('j'), (join) => join.onTrue())
      .select((eb) => ['j.key', eb.fn.sum<number>('j.value').as('n'), eb.fn.countAll<number>().as('models')])
      .groupBy('j.key').orderBy('j.key').execute();
    expect(rows).toEqual([{ key: 'x', n: 3, models: 2 }, { key: 'y', n: 5, models: 1 }]);
  });

  it('matches ASCII text ignoring case, and nothing looser', async () => {
    await clear();
    await store().db.insertInto('models').values([model('Acme/Coder'), model('acme_coder'), model('Émile')]).execute();
    const matching = async (value: string) => (await store().db.selectFrom('models').select('slug')
      .where(sameTextIgnoringCase(engine, sql.ref('slug'), sql.val(value))).orderBy('slug').execute()).map((r) => r.slug);
    expect(await matching('ACME/coder')).toEqual(['Acme/Coder']);
    expect(await matching('acme%coder')).toEqual([]);
    expect(await matching('ACME_CODER')).toEqual(['acme_coder']);
    // Non-ASCII letters are not folded, on either engine.
    expect(await matching('émile')).toEqual([]);
  });

  it('commits a write transaction whole, or leaves nothing of it', async () => {
    await clear();
    await writeTransaction(store(), async (trx) => { await trx.insertInto('models').values([model('kept-1'), model('kept-2')]).execute(); });
    await expect(writeTransaction(store(), async (trx) => {
      await trx.insertInto('models').values(model('lost')).execute();
      await trx.insertInto('models').values(model('kept-1')).execute();
    })).rejects.toThrow();
    expect((await store().db.selectFrom('models').select('slug').orderBy('slug').execute()).map((r) => r.slug)).toEqual(['kept-1', 'kept-2']);
  });
});

describe('a SQLite write transaction', () => {
  it('takes the write lock when it begins, so a write in between cannot void its read', async () => {
    // A deferred BEGIN would let the other connection commit here and fail this transaction's
    // own write with SQLITE_BUSY_SNAPSHOT; BEGIN IMMEDIATE makes the other one wait (here: fail at once).
    const other = openDatabase(join(dir, 'backend.sqlite'));
    other.pragma('busy_timeout = 0');
    try {
      await writeTransaction(stores.sqlite!, async (trx) => {
        await trx.selectFrom('models').select('slug').execute();
        expect(() => other.prepare("INSERT INTO models (slug, created_at, updated_at) VALUES ('other', 'x', 'x')").run()).toThrow(/locked|busy/i);
        await trx.insertInto('models').values(model('mine')).execute();
      });
    } finally {
      other.close();
    }
    expect(await stores.sqlite!.db.selectFrom('models').select('slug').where('slug', 'in', ['mine', 'other']).execute()).toEqual([{ slug: 'mine' }]);
  });

  it('fails with the full disk, not with the rollback SQLite refuses after ending the transaction itself', async () => {
    const handle = openDatabase(join(dir, 'full.sqlite'));
    const full = sqliteStore<{ filler: { text: string } }>(handle);
    try {
      await sql`CREATE TABLE filler (text TEXT NOT NULL)`.execute(full.db);
      const lift = fillStore(handle);
      try {
        // On SQLITE_FULL SQLite may roll the whole transaction back itself; a ROLLBACK after
        // it fails "no transaction is active", which used to replace the error (a 500, not a 503).
        const failure = await writeTransaction(full, async (trx) => {
          for (let i = 0; i < 1000; i += 1) await trx.insertInto('filler').values({ text: 'x'.repeat(10_000) }).execute();
        }).catch((error: unknown) => error);
        expect(isStorageFull(failure), String(failure)).toBe(true);
        expect(handle.inTransaction).toBe(false);
      } finally {
        lift();
      }
      expect(await full.db.selectFrom('filler').select((eb) => eb.fn.countAll<number>().as('rows')).executeTakeFirst()).toEqual({ rows: 0 });
      await writeTransaction(full, async (trx) => { await trx.insertInto('filler').values({ text: 'after' }).execute(); });
    } finally {
      await full.db.destroy();
    }
  });
});

describe.each(['sqlite', 'postgres'] as const)('the %s jobs fragments', (engine) => {
  it('reads rows bound as a few parameters as a table, whatever their number', async () => {
    const rows = [[3, 'c'], [1, null], [2, 'b ✓']];
    const table = boundRows(engine, 'r', [['n', 'bigint'], ['label', 'text']], rows);
    const read = await sql<{ n: number; label: string | null }>`SELECT r.n, r.label FROM ${table} ORDER BY r.n`.execute(stores[engine]!.db);
    expect(read.rows).toEqual([{ n: 1, label: null }, { n: 2, label: 'b ✓' }, { n: 3, label: 'c' }]);
    const compiled = sql`SELECT r.n FROM ${boundRows(engine, 'r', [['n', 'bigint']], Array.from({ length: 5000 }, (_, i) => [i]))}`.compile(stores[engine]!.db);
    expect(compiled.parameters).toHaveLength(1);
    expect(() => boundRows(engine, 'r; DROP TABLE jobs', [['n', 'bigint']], [])).toThrow(/plain identifier/);
  });

  it('draws cap revisions past every stored one, one per draw', async () => {
    const { db } = stores[engine]!;
    await db.deleteFrom('harness_config').execute();
    const put = (slug: string) => db.insertInto('harness_config').values({ slug, max_parallelism: null, updated_at: NOW, revision: nextCapRevision(engine) })
      .onConflict((oc) => oc.column('slug').doUpdateSet({ revision: nextCapRevision(engine) })).returning('revision').executeTakeFirstOrThrow();
    const first = (await put('codex')).revision;
    const second = (await put('claude')).revision;
    const third = (await put('codex')).revision;
    expect(first).toBeLessThan(second);
    expect(second).toBeLessThan(third);
  });
});

describe('a PostgreSQL write transaction', () => {
  it('keeps the rows it read with lockedRows from another writer until it ends', async () => {
    const store = stores.postgres!;
    await store.db.deleteFrom('models').execute();
    await store.db.insertInto('models').values(model('locked', 1)).execute();
    const readLocked = (trx: Kysely<Tables>) => lockedRows('postgres', trx.selectFrom('models').select('list_input').where('slug', '=', 'locked')).executeTakeFirstOrThrow();
    let release!: () => void;
    const released = new Promise<void>((done) => (release = done));
    let holding!: () => void;
    const held = new Promise<void>((done) => (holding = done));
    const first = writeTransaction(store, async (trx) => {
      const { list_input } = await readLocked(trx);
      holding();
      await released;
      await trx.updateTable('models').set({ list_input: list_input! + 1 }).where('slug', '=', 'locked').execute();
    });
    await held;
    // The second read-then-write waits for the first to commit, then reads its write: no increment is lost.
    const second = writeTransaction(store, async (trx) => {
      const { list_input } = await readLocked(trx);
      await trx.updateTable('models').set({ list_input: list_input! + 1 }).where('slug', '=', 'locked').execute();
    });
    await until(async () => (await lockWaiters()) === 1, 5_000, 'the second transaction to wait for the row');
    release();
    await Promise.all([first, second]);
    expect(await store.db.selectFrom('models').select('list_input').where('slug', '=', 'locked').executeTakeFirst()).toEqual({ list_input: 3 });

    async function lockWaiters(): Promise<number> {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(store.db);
      return rows[0]!.n;
    }
  });

  it('takes no lock on SQLite, where BEGIN IMMEDIATE holds the database already', () => {
    const query = stores.sqlite!.db.selectFrom('models').select('slug');
    expect(lockedRows('sqlite', query).compile().sql).toBe(query.compile().sql);
    expect(lockedRows('postgres', query).compile().sql).toMatch(/ for update$/);
  });
});
