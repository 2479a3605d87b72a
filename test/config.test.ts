import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { SECOND } from '../src/time.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8787,
      dataDir: '/srv/app/data',
      catalogDir: '/srv/app/examples/catalog',
      redisUrl: null,
      authUrl: null,
      authPort: 8789,
      authCacheMs: 5 * SECOND,
      authTokenLifetimeMs: null,
      serviceToken: null,
      snapshotDir: '/srv/app/data/snapshot',
      allowExperimental: false,
      logLevel: 'info',
      corsOrigins: '*',
    });
  });

  it('reads CORS_ORIGINS as * or a list of bare origins, refusing anything else by name', () => {
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    expect(loadConfig({ CORS_ORIGINS: ' https://console.example , http://localhost:5173' }).corsOrigins)
      .toEqual(['https://console.example', 'http://localhost:5173']);
    for (const bad of ['https://console.example/', 'console.example', 'ftp://x.example', ' , ']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS=.* is not valid: expected \* or comma-separated origins/);
    }
  });

  it('reads TRUST_PROXY as false, true, a hop count or peers, refusing anything else by name', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8 , fd00::/8,192.0.2.1' }).trustProxy).toEqual(['10.0.0.0/8', 'fd00::/8', '192.0.2.1']);
    for (const bad of ['0', '101', 'balancer.internal', '10.0.0.0/33', 'fd00::/129', '10.0.0.1/8/1']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY=.* is not valid/);
    }
  });

  it('reads the access hardening, off by default, refusing bad values by name', () => {
    const defaults = loadConfig({});
    expect(defaults).toMatchObject({ registration: 'open', authRelayToken: null, showcaseJobMaxFiles: 100, showcaseJobMaxBytes: 1024 * 1024 * 1024 });
    expect([...defaults.operatorAccounts]).toEqual([]);
    const set = loadConfig({ REGISTRATION: 'closed', OPERATOR_ACCOUNTS: ' alice , Bob.Ops ', SHOWCASE_JOB_MAX_FILES: '5', SHOWCASE_JOB_MAX_MIB: '0.5' });
    expect(set).toMatchObject({ registration: 'closed', showcaseJobMaxFiles: 5, showcaseJobMaxBytes: 512 * 1024 });
    expect([...set.operatorAccounts]).toEqual(['alice', 'bob.ops']);
    for (const [name, value] of [['REGISTRATION', 'invite'], ['OPERATOR_ACCOUNTS', 'alice,bad name'], ['OPERATOR_ACCOUNTS', ' , '], ['SHOWCASE_JOB_MAX_FILES', '0'], ['SHOWCASE_JOB_MAX_MIB', '-1']] as const) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(expect.objectContaining({ problems: [expect.stringContaining(`${name}=`)] }));
    }
  });

  it('reads WORKER_QUEUES as a list of background queue names, all by default, refusing unknown, empty and repeated items by name', () => {
    expect(loadConfig({}).workerQueues).toEqual(['ingest', 'publish', 'probes', 'snapshot', 'billed-rates', 'stale-jobs']);
    expect(loadConfig({ WORKER_QUEUES: ' publish , stale-jobs' }).workerQueues).toEqual(['publish', 'stale-jobs']);
    for (const [bad, problem] of [['ingest,render', '"render" is not one'], ['ingest,,publish', 'an empty item'], ['ingest,', 'an empty item'], ['publish,ingest,publish', '"publish" is listed twice']]) {
      expect(() => loadConfig({ WORKER_QUEUES: bad }), bad).toThrow(expect.objectContaining({
        problems: [`WORKER_QUEUES=${JSON.stringify(bad)} is not valid: expected comma-separated names from ingest, publish, probes, snapshot, billed-rates, stale-jobs, each once (${problem}).`],
      }));
    }
  });

  it('leaves ingest out of the default WORKER_QUEUES on a shared store unless CATALOG_DIR is set on purpose', () => {
    const others = ['publish', 'probes', 'snapshot', 'billed-rates', 'stale-jobs'];
    const all = ['ingest', ...others];
    // The embedded one-machine default keeps ingesting its example catalog.
    expect(loadConfig({}).workerQueues).toEqual(all);
    for (const shared of [{ DATABASE_URL: 'postgres://db/evb' }, { BLOB_STORE_URL: 's3://eval-files/prod' }]) {
      expect(loadConfig(shared).workerQueues, JSON.stringify(shared)).toEqual(others);
      expect(loadConfig({ ...shared, CATALOG_DIR: '' }).workerQueues).toEqual(others);
      expect(loadConfig({ ...shared, CATALOG_DIR: '/srv/catalog' }).workerQueues).toEqual(all);
      expect(loadConfig({ ...shared, WORKER_QUEUES: 'ingest' }).workerQueues).toEqual(['ingest']);
    }
  });

  it('reads and normalises values', () => {
    const config = loadConfig({ PORT: '9000', REDIS_URL: 'redis+unix:///tmp/r.sock', ALLOW_EXPERIMENTAL: 'yes', AUTH_URL: 'http://auth:1/', AUTH_TOKEN_LIFETIME_HOURS: '1.5' }, '/x');
    expect(config.port).toBe(9000);
    expect(config.redisUrl).toBe('redis+unix:///tmp/r.sock');
    expect(config.allowExperimental).toBe(true);
    expect(config.authUrl).toBe('http://auth:1');
    expect(config.authTokenLifetimeMs).toBe(90 * 60 * SECOND);
  });

  it('reads DISCARD_REDIS_OF_STORE as a store id or none, refusing anything else by name', () => {
    expect(loadConfig({}).discardRedisOfStore).toBeNull();
    expect(loadConfig({ DISCARD_REDIS_OF_STORE: 'none' }).discardRedisOfStore).toBe('none');
    expect(loadConfig({ DISCARD_REDIS_OF_STORE: '0123456789abcdef0123456789abcdef' }).discardRedisOfStore).toBe('0123456789abcdef0123456789abcdef');
    for (const bad of ['yes', '*', '0123456789ABCDEF0123456789ABCDEF']) {
      expect(() => loadConfig({ DISCARD_REDIS_OF_STORE: bad }), bad).toThrow(/DISCARD_REDIS_OF_STORE=.* is not valid: expected a store id \(32 hex digits\) or none/);
    }
  });

  it('reads AUTH_DATABASE_URL as a PostgreSQL URL, refusing anything else by name without echoing it', () => {
    expect(loadConfig({}).authDatabaseUrl).toBeNull();
    for (const url of ['postgresql://auth:s3cret@db.example:5432/auth', 'postgres://auth@/auth?host=%2Fvar%2Frun%2Fpostgresql']) {
      expect(loadConfig({ AUTH_DATABASE_URL: url }).authDatabaseUrl).toBe(url);
    }
    for (const bad of ['mysql://auth:s3cret@db.example/auth', 's3cret', 'http://db.example', 'postgres://auth:s3 cret@db/auth']) {
      const error = (() => { try { loadConfig({ AUTH_DATABASE_URL: bad }); } catch (caught) { return caught as Error; } return null; })();
      expect(error, bad).toBeInstanceOf(ConfigError);
      expect(error!.message).toMatch(/AUTH_DATABASE_URL is not valid: expected a URL starting with postgres:\/\/ or postgresql:\/\//);
      expect(error!.message).not.toContain(bad);
    }
  });

  it('reads PUBLIC_BLOB_STREAMS as a positive count, 64 by default, refusing anything else by name', () => {
    expect(loadConfig({}).publicBlobStreams).toBe(64);
    expect(loadConfig({ PUBLIC_BLOB_STREAMS: '8' }).publicBlobStreams).toBe(8);
    for (const bad of ['0', '-1', '2.5', 'many']) expect(() => loadConfig({ PUBLIC_BLOB_STREAMS: bad }), bad).toThrow(/PUBLIC_BLOB_STREAMS=/);
  });

  it('names every bad variable in one error', () => {
    let caught: unknown;
    try {
      loadConfig({ PORT: '99999', REDIS_URL: 'http://not-redis', ALLOW_EXPERIMENTAL: 'maybe', LOG_LEVEL: 'loud', RENDER_THREADS: '1.5' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'REDIS_URL', 'ALLOW_EXPERIMENTAL', 'LOG_LEVEL', 'RENDER_THREADS']) expect(problems).toContain(`${name}=`);
    expect(problems).toContain('PORT="99999" is not valid: expected a number from 0 to 65535.');
  });

  it('reads DATABASE_POOL_SIZE (default 10) and refuses a value that is not a whole number from 1 to 1000 by name', () => {
    expect(loadConfig({}).databasePoolSize).toBe(10);
    expect(loadConfig({ DATABASE_POOL_SIZE: '25' }).databasePoolSize).toBe(25);
    for (const bad of ['0', '-3', '2.5', 'ten', '1001']) {
      expect(() => loadConfig({ DATABASE_POOL_SIZE: bad }), bad).toThrow(/DATABASE_POOL_SIZE="[^"]*" is not valid/);
    }
  });

  it('reads DATABASE_URL as a PostgreSQL URL (unix socket hosts too), and refuses a bad one by name without echoing it', () => {
    expect(loadConfig({}).databaseUrl).toBeNull();
    for (const url of ['postgres://evb:s3cret@db.internal:5432/evb', 'postgresql://db/evb?sslmode=require', 'postgres://postgres@/evb?host=%2Frun%2Fpostgresql']) {
      expect(loadConfig({ DATABASE_URL: url }).databaseUrl, url).toBe(url);
    }
    for (const bad of ['mysql://evb:s3cret@db/evb', 'evb:s3cret@db/evb', 'postgres://evb:s3cret@db:notaport/evb']) {
      let caught: unknown;
      try {
        loadConfig({ DATABASE_URL: bad });
      } catch (error) {
        caught = error;
      }
      expect(caught, bad).toBeInstanceOf(ConfigError);
      expect((caught as ConfigError).message).toContain('DATABASE_URL is not valid');
      expect((caught as ConfigError).message).not.toContain('s3cret');
    }
  });
});

describe('the blob store configuration', () => {
  it('is the fs driver by default and the bucket, prefix, endpoint and region of BLOB_STORE_URL otherwise', () => {
    expect(loadConfig({}).blobStore).toEqual({ driver: 'fs' });
    const config = loadConfig({ BLOB_STORE_URL: 's3://eval-files/prod/eu', AWS_ENDPOINT_URL: 'http://127.0.0.1:9000', AWS_REGION: 'eu-west-1' });
    expect(config.blobStore).toEqual({ driver: 's3', bucket: 'eval-files', prefix: 'prod/eu', endpoint: 'http://127.0.0.1:9000', region: 'eu-west-1', credentials: null });
    expect(loadConfig({ BLOB_STORE_URL: 's3://eval-files' }).blobStore).toMatchObject({ bucket: 'eval-files', prefix: '', endpoint: null, region: 'us-east-1' });
  });

  it('keeps the credentials out of anything that serializes the configuration', () => {
    const config = loadConfig({ BLOB_STORE_URL: 's3://eval-files/p', AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'very-secret-key' });
    expect(config.blobStore.driver === 's3' && config.blobStore.credentials?.()).toEqual({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'very-secret-key' });
    expect(JSON.stringify(config)).not.toMatch(/very-secret-key|AKIDEXAMPLE/);
  });

  it('refuses a BLOB_STORE_URL that is not s3://bucket/prefix, naming the variable', () => {
    for (const value of ['https://bucket/prefix', 's3://Bad_Bucket/x', 's3://bucket/../x', 's3://key:secret@bucket/x', 's3://bucket//x']) {
      expect(() => loadConfig({ BLOB_STORE_URL: value }), value).toThrow(/BLOB_STORE_URL=/);
    }
  });
});
