import type { PlanUsage } from '../../src/usage/price-plan.js'

/** Every provider of the bundled genai-prices data (0.1.8). */
export const ALL_PROVIDER_IDS = [
  'anthropic',
  'arcee',
  'avian',
  'aws',
  'azure',
  'baseten',
  'cerebras',
  'cloudflare',
  'cohere',
  'cursor',
  'deepseek',
  'doubleword',
  'fireworks',
  'github-copilot',
  'google',
  'groq',
  'huggingface_cerebras',
  'huggingface_fireworks-ai',
  'huggingface_groq',
  'huggingface_hyperbolic',
  'huggingface_nebius',
  'huggingface_novita',
  'huggingface_nscale',
  'huggingface_ovhcloud',
  'huggingface_publicai',
  'huggingface_sambanova',
  'huggingface_together',
  'minimax',
  'mistral',
  'modal',
  'moonshotai',
  'novita',
  'openai',
  'openrouter',
  'ovhcloud',
  'perplexity',
  'quicksilverpro',
  'together',
  'typesafe',
  'voyageai',
  'x-ai',
  'zai',
  'zhipuai',
]

/** A small seeded generator (mulberry32, `@gov/core/testing`): the same usages on every run. */
export { seededRandom as random } from '@gov/core/testing'

/** Token counts spread over magnitudes (0 to millions), some cached counts above the input. */
export function randomUsage(next: () => number): PlanUsage {
  const count = () => {
    const r = next()
    if (r < 0.05) return 0
    return Math.floor(10 ** (next() * 7))
  }
  const input = count()
  const roll = next()
  const cached = roll < 0.4 ? 0 : roll < 0.8 ? Math.floor(input * next()) : roll < 0.9 ? input : count()
  return { input, output: count(), cached }
}
