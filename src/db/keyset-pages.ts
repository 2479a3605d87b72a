/**
 * Reads a table a page at a time, each page after the last row of the one before (keyset
 * pagination), until a page comes back short: `read(undefined)` reads the first page,
 * `read(last)` the page after `last`. Each page is read only when the one before has been
 * taken, so nothing holds more than a page.
 */
export async function* keysetPages<Row>(read: (last: Row | undefined) => Promise<Row[]>, limit: number): AsyncGenerator<Row[]> {
  let page = await read(undefined);
  while (page.length > 0) {
    yield page;
    if (page.length < limit) return;
    page = await read(page.at(-1));
  }
}
