import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const SHARED_CSS = `
* { box-sizing: border-box; }
body { margin: 0; font-family: 'DejaVu Sans', sans-serif; color: #1d2433; background: #f4f6fb; }
header { height: 72px; display: flex; align-items: center; gap: 24px; padding: 0 40px;
  background: linear-gradient(90deg, var(--accent), #2b3a67); color: white; }
header nav a { color: rgba(255, 255, 255, .85); margin-right: 18px; text-decoration: none; }
main { display: grid; grid-template-columns: 2fr 1fr; gap: 28px; padding: 32px 40px; }
.hero { border-radius: 18px; padding: 36px; min-height: 300px; color: white;
  background: radial-gradient(circle at 20% 20%, var(--accent), #0f1626 75%); }
.hero h1 { font-size: 42px; margin: 0 0 12px; }
.cards { display: grid; grid-template-columns: repeat(3, 1fr); gap: 18px; margin-top: 24px; }
.card { background: white; border-radius: 12px; padding: 18px; box-shadow: 0 6px 18px rgba(20, 30, 60, .12); }
.card .chip { display: inline-block; width: 36px; height: 36px; border-radius: 50%; background: var(--accent); }
aside { background: white; border-radius: 14px; padding: 22px; box-shadow: 0 4px 14px rgba(20, 30, 60, .1); }
.bar { height: 14px; border-radius: 7px; margin: 12px 0; background: linear-gradient(90deg, var(--accent), #9fb3ff); }
`;

const WORDS = ['quarterly', 'pipeline', 'evaluation', 'latency', 'reviewer', 'dataset', 'mockup', 'release',
  'benchmark', 'signal', 'cohort', 'insight', 'velocity', 'render', 'baseline', 'forecast'];

function sentence(seed: number, length: number): string {
  return Array.from({ length }, (_, i) => WORDS[(seed * 7 + i * 5) % WORDS.length]).join(' ');
}

function mockupHtml(index: number): string {
  const hue = (index * 47) % 360;
  const cards = Array.from({ length: 6 }, (_, i) =>
    `<div class="card"><span class="chip" style="opacity:${0.4 + (i % 3) * 0.3}"></span>` +
    `<h3>${sentence(index + i, 2)}</h3><p>${sentence(index * 3 + i, 9)}</p></div>`).join('\n');
  const bars = Array.from({ length: 8 }, (_, i) =>
    `<div class="bar" style="width:${30 + ((index * 13 + i * 17) % 70)}%"></div>`).join('\n');
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Mockup ${index}</title>
<link rel="stylesheet" href="shared.css">
<style>:root { --accent: hsl(${hue} 70% 50%); }</style></head>
<body>
<header><strong>Screen ${index}</strong><nav><a href="#">Overview</a><a href="#">Runs</a><a href="#">Reviews</a></nav></header>
<main>
  <section>
    <div class="hero"><h1>${sentence(index, 3)}</h1><p>${sentence(index + 1, 24)}</p></div>
    <div class="cards">${cards}</div>
  </section>
  <aside><h2>Metrics ${index}</h2>${bars}<p>${sentence(index + 2, 30)}</p></aside>
</main>
</body></html>`;
}

/** Writes `count` distinct 1280×720 dashboard mockups sharing one stylesheet; returns their HTML paths. */
export async function writeSyntheticMockups(dir: string, count: number): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'shared.css'), SHARED_CSS);
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const htmlPath = join(dir, `mockup-${String(index).padStart(3, '0')}.html`);
      await writeFile(htmlPath, mockupHtml(index));
      return htmlPath;
    }),
  );
}
