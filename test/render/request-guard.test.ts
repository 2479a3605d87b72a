import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isRequestAllowed } from '../../src/render/request-guard.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'request-guard-')));
const root = join(base, 'version');
const outside = join(base, 'outside');
mkdirSync(join(root, 'css'), { recursive: true });
mkdirSync(outside);
writeFileSync(join(root, 'css', 'site.css'), 'body {}');
writeFileSync(join(outside, 'secret.css'), 'body {}');
symlinkSync(outside, join(root, 'linked-dir'));
symlinkSync(join(outside, 'secret.css'), join(root, 'linked.css'));
// A sibling whose name starts like the root must not count as inside it.
mkdirSync(`${root}-evil`);
writeFileSync(join(`${root}-evil`, 'x.css'), 'body {}');

const url = (path: string) => pathToFileURL(path).href;

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('isRequestAllowed', () => {
  it('allows files inside the root, with or without query and fragment', () => {
    expect(isRequestAllowed(url(join(root, 'css', 'site.css')), root)).toBe(true);
    expect(isRequestAllowed(`${url(join(root, 'css', 'site.css'))}?v=2#top`, root)).toBe(true);
  });

  it('refuses files reached with ../ out of the root', () => {
    expect(isRequestAllowed(`${url(root)}/css/../../outside/secret.css`, root)).toBe(false);
    expect(isRequestAllowed(url(join(outside, 'secret.css')), root)).toBe(false);
    expect(isRequestAllowed(url(join(`${root}-evil`, 'x.css')), root)).toBe(false);
  });

  it('refuses symlinks that point out of the root', () => {
    expect(isRequestAllowed(url(join(root, 'linked.css')), root)).toBe(false);
    expect(isRequestAllowed(url(join(root, 'linked-dir', 'secret.css')), root)).toBe(false);
  });

  it('refuses missing files, remote file hosts and everything between tasks', () => {
    expect(isRequestAllowed(url(join(root, 'missing.css')), root)).toBe(false);
    expect(isRequestAllowed('file://fileserver/share/site.css', root)).toBe(false);
    expect(isRequestAllowed(url(join(root, 'css', 'site.css')), null)).toBe(false);
  });

  it('refuses the network and allows only inert schemes', () => {
    for (const refused of ['http://127.0.0.1:8080/x', 'https://example.com/', 'ws://localhost/', 'ftp://x/', 'chrome://version', 'not a url']) {
      expect(isRequestAllowed(refused, root), refused).toBe(false);
    }
    for (const allowed of ['data:text/css,body{}', 'blob:file:///8d1c', 'about:blank']) {
      expect(isRequestAllowed(allowed, root), allowed).toBe(true);
    }
  });
});
