import { describeFetchFailure } from '../http/describe-fetch-failure.js';
import { MINUTE, SECOND } from '../time.js';

/** How long a release may take before the publish fails (ms). */
const RELEASE_TIMEOUT = 2 * MINUTE;
/** How long a prune may take before it is left to the artifact service's sweep (ms). */
const PRUNE_TIMEOUT = 10 * SECOND;

export interface ReleaseLinks {
  sourceRepo: string | null;
  playableBuild: string | null;
}

/**
 * The artifact service: it holds built runs and media, does the external release work of a
 * publish (source repo, playable build) and prunes a deleted run's tree.
 */
export function artifactService(options: { url: string | null; serviceToken: string | null }) {
  const headers = (): Record<string, string> => (options.serviceToken ? { authorization: `Bearer ${options.serviceToken}` } : {});
  const runUrl = (id: string, tail: string) => `${options.url}/runs/${encodeURIComponent(id)}/${tail}`;

  return {
    /** True when publishing goes through the artifact service; otherwise it is local only. */
    releases: options.url !== null,

    async release(id: string): Promise<ReleaseLinks> {
      let response: Response;
      try {
        response = await fetch(runUrl(id, 'release'), { method: 'POST', headers: headers(), signal: AbortSignal.timeout(RELEASE_TIMEOUT) });
      } catch (error) {
        throw new Error(`The artifact service at ${options.url} ${describeFetchFailure(error, RELEASE_TIMEOUT)}.`, { cause: error });
      }
      if (!response.ok) throw new Error(`The artifact service refused the release of run ${id} with HTTP ${response.status}.`);
      // A body that cannot be read says nothing about what was released: publishing without links would hide that.
      const body = await response.json().catch((error: unknown) => {
        throw new Error(`The artifact service answered the release of run ${id} with a body that is not JSON (${error instanceof Error ? error.message : String(error)}).`);
      });
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new Error(`The artifact service answered the release of run ${id} with ${JSON.stringify(body).slice(0, 100)}, not an object with sourceRepo and playableBuild.`);
      }
      const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
      const { sourceRepo, playableBuild } = body as Record<string, unknown>;
      return { sourceRepo: text(sourceRepo), playableBuild: text(playableBuild) };
    },

    /**
     * Best-effort prune of a deleted run's tree; only when both the URL and the service token
     * are configured. Resolves to what happened, never rejects: a leftover tree is swept later.
     */
    async prune(id: string): Promise<'pruned' | 'skipped' | string> {
      if (!options.url || !options.serviceToken) return 'skipped';
      try {
        const response = await fetch(runUrl(id, 'artifacts'), { method: 'DELETE', headers: headers(), signal: AbortSignal.timeout(PRUNE_TIMEOUT) });
        await response.body?.cancel();
        return response.ok || response.status === 404 ? 'pruned' : `answered HTTP ${response.status}`;
      } catch (error) {
        return describeFetchFailure(error, PRUNE_TIMEOUT);
      }
    },
  };
}

export type ArtifactService = ReturnType<typeof artifactService>;
