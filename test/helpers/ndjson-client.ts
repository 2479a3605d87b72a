/** Reads an NDJSON response line by line; `lines` includes the bare heartbeat lines as ''. */
export async function openLive(url: string) {
  const response = await fetch(url);
  const lines: string[] = [];
  let ended = false;
  const done = (async () => {
    let rest = '';
    const decoder = new TextDecoder();
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      rest += decoder.decode(chunk, { stream: true });
      const parts = rest.split('\n');
      rest = parts.pop()!;
      lines.push(...parts);
    }
    ended = true;
  })();
  const until = async (check: () => boolean, timeoutMs = 3000) => {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out; lines: ${JSON.stringify(lines)}`);
      await new Promise((wake) => setTimeout(wake, 20));
    }
  };
  return { response, lines, done, until, get ended() { return ended; } };
}
