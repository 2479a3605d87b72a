import { describe, expect, it } from 'vitest';
import { findOfficialEndpoint } from '../../src/models/official-endpoint.js';
import type { RouterEndpoint } from '../../src/models/router-responses.js';

function endpoint(providerName: string, tag: string | null = null): RouterEndpoint {
  return {
    name: providerName,
    providerName,
    tag,
    contextLength: null,
    quantization: null,
    rates: { inputPerMtok: null, cachedInputPerMtok: null, outputPerMtok: null },
  };
}

function officialName(author: string, endpoints: RouterEndpoint[]): string | null {
  return findOfficialEndpoint(author, endpoints)?.providerName ?? null;
}

describe('findOfficialEndpoint', () => {
  it.each([
    ['anthropic', 'Anthropic', 'anthropic'],
    ['openai', 'OpenAI', 'openai'],
    ['x-ai', 'xAI', 'xai'],
    ['z-ai', 'Z.AI', 'z-ai'],
    ['moonshotai', 'Moonshot AI', 'moonshotai'],
    ['meta-llama', 'Meta', 'meta/bf16'],
    ['mistralai', 'Mistral', 'mistral'],
    ['google', 'Google AI Studio', 'google-ai-studio'],
    ['amazon', 'Amazon Bedrock', 'amazon-bedrock'],
    ['qwen', 'Alibaba', 'alibaba'],
  ])('takes the %s model from "%s" among resellers', (author, official, tag) => {
    const endpoints = [endpoint('DeepInfra', 'deepinfra/fp8'), endpoint(official, tag), endpoint('Together', 'together')];
    expect(officialName(author, endpoints)).toBe(official);
  });

  it('matches on the tag when the provider name differs', () => {
    expect(officialName('z-ai', [endpoint('Novita', 'novita'), endpoint('Zhipu', 'z-ai/fp8')])).toBe('Zhipu');
  });

  it('prefers an exact match over a prefix match, wherever listed', () => {
    const endpoints = [endpoint('DeepSeek Cloud', 'deepseek-cloud'), endpoint('DeepSeek', 'deepseek')];
    expect(officialName('deepseek', endpoints)).toBe('DeepSeek');
  });

  it('takes the first listed among equally good matches', () => {
    const endpoints = [endpoint('Google Vertex', 'google-vertex'), endpoint('Google AI Studio', 'google-ai-studio')];
    expect(officialName('google', endpoints)).toBe('Google Vertex');
  });

  it('returns null when only third parties serve the model', () => {
    expect(officialName('nousresearch', [endpoint('Nebius', 'nebius/fp8'), endpoint('Together', 'together')])).toBeNull();
    expect(officialName('meta-llama', [endpoint('Fireworks', 'fireworks'), endpoint('Groq', 'groq')])).toBeNull();
    expect(officialName('anthropic', [])).toBeNull();
  });

  it('does not match on a prefix shorter than three characters', () => {
    expect(officialName('ab', [endpoint('Abacus', 'abacus')])).toBeNull();
  });

  it('does not treat a shared beginning as a match', () => {
    // "deepinfra" and "deepseek" share "deep" but neither is a prefix of the other.
    expect(officialName('deepseek', [endpoint('DeepInfra', 'deepinfra')])).toBeNull();
  });
});
