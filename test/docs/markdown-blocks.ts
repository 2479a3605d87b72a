import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');

export interface FencedBlock {
  file: string;
  /** The info string's words: `sh quickstart` is ['sh', 'quickstart']. */
  info: string[];
  text: string;
}

/** README.md and every page under docs/, by path from the repository root. */
export function docFiles(): string[] {
  return ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
}

export function readDoc(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8');
}

/** The fenced code blocks of a Markdown file, in order. */
export function fencedBlocks(file: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  for (const match of readDoc(file).matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)) {
    blocks.push({ file, info: match[1]!.trim().split(/\s+/).filter(Boolean), text: match[2]! });
  }
  return blocks;
}
