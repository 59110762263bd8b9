import { GovError, type Vendor } from '@gov/core'

/** A language-model provider gov forwards to. */
export interface Provider {
  /** `openai`, `anthropic`, `anthropic-openai` (Anthropic's OpenAI-compatible endpoint). */
  readonly name: string
  /** The wire format the provider speaks at `baseUrl + path`. */
  readonly format: Vendor
  readonly baseUrl: string
  /** Path appended to the base URL for this format's endpoint. */
  readonly path: string
  /** Name of the secret holding the provider key. */
  readonly keyName: string
}

/**
 * Routes a call to a provider by its endpoint format and model name. On the
 * OpenAI endpoint `claude-*` models go to Anthropic's OpenAI-compatible
 * endpoint, everything else to OpenAI; on the Anthropic endpoint only Anthropic
 * models exist, so an OpenAI model there is a clear 400.
 */
export class ProviderRouter {
  readonly #openai: Provider
  readonly #anthropic: Provider
  readonly #anthropicOpenAi: Provider
  readonly #openaiResponses: Provider

  constructor(urls: { openaiBaseUrl: string; anthropicBaseUrl: string }) {
    this.#openai = {
      name: 'openai',
      format: 'openai',
      baseUrl: urls.openaiBaseUrl,
      path: '/chat/completions',
      keyName: 'OPENAI_API_KEY',
    }
    this.#anthropic = {
      name: 'anthropic',
      format: 'anthropic',
      baseUrl: urls.anthropicBaseUrl,
      path: '/v1/messages',
      keyName: 'ANTHROPIC_API_KEY',
    }
    this.#openaiResponses = { ...this.#openai, format: 'openai-responses', path: '/responses' }
    this.#anthropicOpenAi = {
      ...this.#anthropic,
      name: 'anthropic-openai',
      format: 'openai',
      path: '/v1/chat/completions',
    }
  }

  route(format: Vendor, model: string): Provider {
    const anthropicModel = /^claude[-.]/i.test(model)
    if (format === 'openai-responses') {
      if (anthropicModel) {
        throw new GovError(
          'model_not_supported',
          `model "${model}" is not served by the Responses API; call it through /v1/messages or /v1/chat/completions`,
          400,
        )
      }
      return this.#openaiResponses
    }
    if (format === 'openai') return anthropicModel ? this.#anthropicOpenAi : this.#openai
    if (!anthropicModel && /^(gpt-|o\d|chatgpt-|text-|davinci|babbage)/i.test(model)) {
      throw new GovError(
        'model_not_supported',
        `model "${model}" is an OpenAI model; call it through /v1/chat/completions`,
        400,
      )
    }
    return this.#anthropic
  }

  list(): Provider[] {
    return [this.#openai, this.#anthropic]
  }
}
