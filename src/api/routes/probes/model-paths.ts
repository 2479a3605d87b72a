/**
 * Model ids hold a slash (`author/name`), and a route parameter cannot. A route under a
 * model is registered twice, for the id URL-encoded in one segment (`anthropic%2Fclaude-x`)
 * and spelled with its slash (`anthropic/claude-x`); `modelSlugOf` reads either back.
 */
export function modelPaths(suffix: string): [string, string] {
  return [`/models/:slug/${suffix}`, `/models/:author/:name/${suffix}`];
}

export function modelSlugOf(params: { slug?: string; author?: string; name?: string }): string {
  return params.slug ?? `${params.author}/${params.name}`;
}
