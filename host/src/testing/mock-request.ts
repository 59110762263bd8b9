/** Reading what the mock provider needs from a request body of either vendor. */

/** The vendors the mock serves, by path. */
export type MockVendor = 'openai' | 'anthropic'

const DIRECTIVE = /\[mock:([a-z0-9_]+)\]/

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function blockTexts(blocks: unknown[], type: string): string[] {
  const texts: string[] = []
  for (const block of blocks) {
    if (isRecord(block) && block.type === type && typeof block.text === 'string') texts.push(block.text)
  }
  return texts
}

/**
 * The text of the last user message (parts joined by newlines). In an
 * Anthropic user turn made only of tool results, the results' text stands in,
 * so tests see what reached the provider on that turn too.
 */
export function lastUserText(vendor: MockVendor, body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? body.messages : []
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]
    if (!isRecord(message) || message.role !== 'user') continue
    const content = message.content
    if (typeof content === 'string') return content
    if (!Array.isArray(content)) return ''
    const texts = blockTexts(content, 'text')
    if (texts.length || vendor === 'openai') return texts.join('\n')
    return content
      .filter((b) => isRecord(b) && b.type === 'tool_result')
      .flatMap((b) => {
        const inner = (b as Record<string, unknown>).content
        return typeof inner === 'string' ? [inner] : Array.isArray(inner) ? blockTexts(inner, 'text') : []
      })
      .join('\n')
  }
  return ''
}

/** The `[mock:<name>]` directive in a text, if any. */
export function findDirective(text: string): string | undefined {
  return DIRECTIVE.exec(text)?.[1]
}

/** Whether the request asks for a streamed answer. */
export function wantsStream(body: Record<string, unknown>): boolean {
  return body.stream === true
}

/** Whether an OpenAI request asks for the usage chunk in its stream. */
export function wantsUsage(body: Record<string, unknown>): boolean {
  const options = body.stream_options
  return isRecord(options) && options.include_usage === true
}
