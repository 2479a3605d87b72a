/**
 * Canned listings of the fake routing provider, in OpenRouter's wire shape: prices are USD
 * per token as decimal strings; `endpoints` is what `/models/{author}/{slug}/endpoints` lists.
 */
export interface WirePricing {
  prompt?: string;
  completion?: string;
  input_cache_read?: string;
  input_cache_write?: string;
  request?: string;
  image?: string;
}

export interface WireEndpoint {
  name: string;
  provider_name: string;
  tag: string;
  context_length: number;
  quantization: string | null;
  pricing: WirePricing;
  max_completion_tokens: number | null;
  supported_parameters: string[];
}

export interface FakeRouterModel {
  id: string;
  name: string;
  description: string;
  context_length: number;
  /** The headline price `/models` shows, which need not be the official endpoint's. */
  pricing: WirePricing;
  endpoints: WireEndpoint[];
}

/** Slugs of the canned models by the case each one covers. */
export const FAKE_SLUGS = {
  /** Official endpoint (Anthropic) lists input, cached input and output; listed after a reseller. */
  allRates: 'anthropic/claude-sonnet-4',
  /** Official endpoint ("Meta" for `meta-llama`) lists no cached rate; a cheaper reseller does. */
  noCachedRate: 'meta-llama/llama-4-maverick',
  /** Served by third parties only: no official endpoint, so no rate at all. */
  noOfficialEndpoint: 'nousresearch/hermes-4-70b',
  /** Official endpoint lists an input rate but no output rate. */
  noOutputRate: 'acme/preview-1',
  /** Not listed by the provider. */
  unlisted: 'acme/ghost-1',
  /**
   * Served by its developer (Alibaba, for the `qwen/` author) and by endpoints that each
   * fall to one candidate filter: flex, fp8, over the developer's price, no cache-read
   * price, no tool_choice, unknown quantization, and Z.AI (for ban lists).
   */
  candidates: 'qwen/qwen3-coder',
} as const;

const TOOLS = ['tools', 'tool_choice', 'max_tokens'];

function endpoint(
  providerName: string,
  tag: string,
  contextLength: number,
  quantization: string | null,
  pricing: WirePricing,
  supportedParameters: string[] = TOOLS,
): WireEndpoint {
  return {
    name: `${providerName} | ${tag}`,
    provider_name: providerName,
    tag,
    context_length: contextLength,
    quantization,
    pricing: { request: '0', image: '0', ...pricing },
    max_completion_tokens: null,
    supported_parameters: supportedParameters,
  };
}

/** Per-Mtok figures as the wire's per-token decimal strings. */
const perToken = (perMtokFigure: number) => String(Number((perMtokFigure / 1e6).toPrecision(12)));
const perMtok = (input: number, output: number, cacheRead?: number): WirePricing => ({
  prompt: perToken(input),
  completion: perToken(output),
  ...(cacheRead === undefined ? {} : { input_cache_read: perToken(cacheRead) }),
});

export function cannedModels(): FakeRouterModel[] {
  const sonnet = { prompt: '0.000003', completion: '0.000015', input_cache_read: '0.0000003', input_cache_write: '0.00000375' };
  return [
    {
      id: FAKE_SLUGS.allRates,
      name: 'Anthropic: Claude Sonnet 4',
      description: 'A fast, capable model for coding and agents.',
      context_length: 200_000,
      pricing: sonnet,
      endpoints: [
        // Listed first and priced differently, so picking it instead of Anthropic's would show.
        endpoint('Google Vertex', 'google-vertex', 200_000, null, { ...sonnet, prompt: '0.0000036' }),
        endpoint('Anthropic', 'anthropic', 200_000, null, sonnet),
        endpoint('Amazon Bedrock', 'amazon-bedrock', 200_000, null, { ...sonnet, prompt: '0.0000033' }),
      ],
    },
    {
      id: FAKE_SLUGS.noCachedRate,
      name: 'Meta: Llama 4 Maverick',
      description: 'An open-weights mixture-of-experts model.',
      context_length: 1_048_576,
      pricing: { prompt: '0.00000015', completion: '0.0000006' },
      endpoints: [
        endpoint('DeepInfra', 'deepinfra/fp8', 131_072, 'fp8', {
          prompt: '0.00000015',
          completion: '0.0000006',
          input_cache_read: '0.00000005',
        }),
        endpoint('Meta', 'meta/bf16', 1_048_576, 'bf16', { prompt: '0.00000025', completion: '0.00000095' }),
        endpoint('DeepInfra', 'deepinfra/bf16', 1_048_576, 'bf16', { prompt: '0.0000002', completion: '0.0000008' }),
      ],
    },
    {
      id: FAKE_SLUGS.noOfficialEndpoint,
      name: 'Nous: Hermes 4 70B',
      description: 'A hybrid reasoning model.',
      context_length: 131_072,
      pricing: { prompt: '0.00000013', completion: '0.0000004' },
      endpoints: [
        endpoint('Nebius', 'nebius/fp8', 131_072, 'fp8', { prompt: '0.00000013', completion: '0.0000004' }),
        endpoint('Together', 'together', 65_536, 'fp16', { prompt: '0.00000015', completion: '0.00000045' }),
      ],
    },
    {
      id: FAKE_SLUGS.noOutputRate,
      name: 'Acme: Preview 1',
      description: 'A preview whose output price is not announced yet.',
      context_length: 32_768,
      pricing: { prompt: '0.000001' },
      endpoints: [endpoint('Acme', 'acme', 32_768, null, { prompt: '0.000001' })],
    },
    {
      id: FAKE_SLUGS.candidates,
      name: 'Qwen: Qwen3 Coder',
      description: 'An open-weights coding model.',
      context_length: 262_144,
      pricing: perMtok(1, 5, 0.1),
      endpoints: [
        endpoint('Together', 'together/bf16', 262_144, 'bf16', perMtok(0.9, 4.5, 0.09)),
        endpoint('Alibaba', 'alibaba/bf16', 262_144, 'bf16', perMtok(1, 5, 0.1)),
        endpoint('Together', 'together/bf16-turbo', 262_144, 'bf16', perMtok(0.8, 4, 0.08)),
        endpoint('DeepInfra', 'deepinfra/fp8', 262_144, 'fp8', perMtok(0.3, 1.2, 0.03)),
        endpoint('Flexy', 'flexy/flex', 262_144, 'bf16', perMtok(0.2, 1, 0.02)),
        endpoint('Pricey', 'pricey/bf16', 262_144, 'bf16', perMtok(2, 8, 0.2)),
        endpoint('NoCache', 'nocache/bf16', 262_144, 'bf16', perMtok(0.7, 3)),
        endpoint('NoTools', 'notools/bf16', 262_144, 'bf16', perMtok(0.6, 3, 0.06), ['max_tokens', 'tools']),
        endpoint('Vague', 'vague', 262_144, 'unknown', perMtok(0.5, 2, 0.05)),
        endpoint('Z.AI', 'z-ai/bf16', 262_144, 'bf16', perMtok(0.75, 4, 0.075)),
      ],
    },
  ];
}
