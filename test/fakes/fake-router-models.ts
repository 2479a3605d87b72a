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
} as const;

const TOOLS = ['tools', 'tool_choice', 'max_tokens'];

function endpoint(
  providerName: string,
  tag: string,
  contextLength: number,
  quantization: string | null,
  pricing: WirePricing,
): WireEndpoint {
  return {
    name: `${providerName} | ${tag}`,
    provider_name: providerName,
    tag,
    context_length: contextLength,
    quantization,
    pricing: { request: '0', image: '0', ...pricing },
    max_completion_tokens: null,
    supported_parameters: TOOLS,
  };
}

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
  ];
}
