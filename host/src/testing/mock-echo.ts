/**
 * The mock provider's echo answers, in both vendors' formats, JSON or SSE.
 * The SSE is written here by hand, independently of the adapters' re-chunking,
 * so tests that run adapters against the mock are not checking code against itself.
 */

/** What an echo answer says: the text, as text or as a `send_message` tool call. */
export interface EchoInput {
  model: string
  text: string
  /** Answer with one `send_message({text})` tool call instead of text. */
  tool: boolean
  /** Size of the request body, for a plausible input token count. */
  requestChars: number
}

/** Rough tokens of a text: about four characters per token. */
function tokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4))
}

/** Random enough for a mock, and cheap: ids are made on every answer of a load benchmark. */
function randomId(prefix: string, length: number): string {
  let id = prefix
  while (id.length < prefix.length + length) id += Math.random().toString(36).slice(2)
  return id.slice(0, prefix.length + length)
}

/** A text cut into pieces of about four words, concatenating back to the text. */
function pieces(text: string): string[] {
  const words = text.match(/\S*\s*/g)?.filter((w) => w !== '') ?? []
  const out: string[] = []
  for (let i = 0; i < words.length; i += 4) out.push(words.slice(i, i + 4).join(''))
  return out
}

/** Echo as a `chat.completion` body. */
export function openAiEchoBody(input: EchoInput): Record<string, unknown> {
  const completion = tokens(input.text.length)
  const prompt = tokens(input.requestChars)
  const message = input.tool
    ? {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: randomId('call_', 18),
            type: 'function',
            function: { name: 'send_message', arguments: JSON.stringify({ text: input.text }) },
          },
        ],
        refusal: null,
        annotations: [],
      }
    : { role: 'assistant', content: input.text, refusal: null, annotations: [] }
  return {
    id: randomId('chatcmpl-mock', 16),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: input.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: input.tool ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    service_tier: 'default',
    system_fingerprint: 'fp_mock0000',
  }
}

/** Echo as a `chat.completion.chunk` stream; with `includeUsage`, the usage chunk as OpenAI sends it. */
export function openAiEchoSse(input: EchoInput, includeUsage: boolean): string {
  const body = openAiEchoBody(input)
  const usage = body.usage
  // Chunks differ only in their choices: the shared head is written once, which keeps the mock cheap under load.
  const head = JSON.stringify({
    id: body.id,
    object: 'chat.completion.chunk',
    created: body.created,
    model: body.model,
    system_fingerprint: 'fp_mock0000',
  }).slice(0, -1)
  const tail = includeUsage ? ',"usage":null}\n\n' : '}\n\n'
  let out = ''
  const chunk = (choices: unknown[]) => {
    out += `data: ${head},"choices":${JSON.stringify(choices)}${tail}`
  }
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }])
  if (input.tool) {
    const call = ((body.choices as Record<string, unknown>[])[0].message as { tool_calls: { id: string }[] })
      .tool_calls[0]
    const args = JSON.stringify({ text: input.text })
    delta({
      role: 'assistant',
      content: null,
      tool_calls: [
        { index: 0, id: call.id, type: 'function', function: { name: 'send_message', arguments: '' } },
      ],
    })
    for (let i = 0; i < args.length; i += 16) {
      delta({ tool_calls: [{ index: 0, function: { arguments: args.slice(i, i + 16) } }] })
    }
    delta({}, 'tool_calls')
  } else {
    delta({ role: 'assistant', content: '', refusal: null })
    for (const piece of pieces(input.text)) delta({ content: piece })
    delta({}, 'stop')
  }
  if (includeUsage) out += `data: ${head},"choices":[],"usage":${JSON.stringify(usage)}}\n\n`
  return `${out}data: [DONE]\n\n`
}

/** Echo as an Anthropic `message` body. */
export function anthropicEchoBody(input: EchoInput): Record<string, unknown> {
  const content = input.tool
    ? [
        {
          type: 'tool_use',
          id: randomId('toolu_mock', 16),
          name: 'send_message',
          input: { text: input.text },
        },
      ]
    : [{ type: 'text', text: input.text }]
  return {
    id: randomId('msg_mock', 16),
    type: 'message',
    role: 'assistant',
    model: input.model,
    content,
    stop_reason: input.tool ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: tokens(input.requestChars),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: tokens(input.text.length),
    },
  }
}

/** Echo as an Anthropic Messages event stream. */
export function anthropicEchoSse(input: EchoInput): string {
  const body = anthropicEchoBody(input)
  const usage = body.usage as Record<string, number>
  let out = ''
  const event = (type: string, data: Record<string, unknown> = {}) => {
    const rest = JSON.stringify(data)
    out += `event: ${type}\ndata: {"type":"${type}"${rest === '{}' ? '}' : `,${rest.slice(1)}`}\n\n`
  }
  event('message_start', {
    message: {
      ...body,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  })
  const block = (body.content as Record<string, unknown>[])[0]
  if (input.tool) {
    event('content_block_start', { index: 0, content_block: { ...block, input: {} } })
    event('ping')
    const json = JSON.stringify(block.input)
    for (let i = 0; i < json.length; i += 16) {
      event('content_block_delta', {
        index: 0,
        delta: { type: 'input_json_delta', partial_json: json.slice(i, i + 16) },
      })
    }
  } else {
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } })
    event('ping')
    for (const piece of pieces(input.text)) {
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } })
    }
  }
  event('content_block_stop', { index: 0 })
  event('message_delta', {
    delta: { stop_reason: body.stop_reason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  })
  event('message_stop')
  return out
}
