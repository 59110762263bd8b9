/**
 * Reading the shipped model: `model/model.json` and the weight files it
 * names, checked and decoded into a {@link LinearModel}, with a coded error
 * when anything is missing or malformed.
 */
import { readFileSync } from 'node:fs'
import { GovError } from '@gov/core'
import { BASE_CUE_COUNT, CUE_NAMES } from './cues.js'
import { InjectionDetector } from './detector.js'
import { type ChannelFileEntry, type ChannelWeights, LinearModel, type ModelFile } from './linear-model.js'

/** Error code when the shipped model is missing or malformed. */
export const MODEL_INVALID = 'GOV_ERR_INJECTION_MODEL_INVALID'

/** The shipped model, next to the compiled sources: `<package>/model/model.json`. */
export const DEFAULT_MODEL_URL = new URL('../../model/model.json', import.meta.url)

function invalid(message: string, details?: Record<string, unknown>): GovError {
  return new GovError(MODEL_INVALID, message, 500, details)
}

function channelWeights(bits: number, entry: ChannelFileEntry, bytes: Buffer): ChannelWeights {
  if (!Number.isFinite(entry?.bias) || !Number.isFinite(entry?.scale))
    throw invalid('injection model has no bias or scale for a channel')
  const encoding = entry.encoding ?? 'int16'
  if (encoding !== 'int8' && encoding !== 'int16')
    throw invalid('injection model names an unknown weight encoding', { encoding })
  if (
    entry.cueCount !== undefined &&
    !(
      Number.isInteger(entry.cueCount) &&
      entry.cueCount >= BASE_CUE_COUNT &&
      entry.cueCount <= CUE_NAMES.length
    )
  )
    throw invalid('injection model names an unknown cue set', { cueCount: entry.cueCount })
  const width = encoding === 'int8' ? 1 : 2
  if (bytes.length !== width << bits)
    throw invalid('injection model weights have the wrong size', {
      expected: width << bits,
      actual: bytes.length,
    })
  // A typed view, copied (so the file's buffer can go, and the copy is 2-byte aligned).
  // Little-endian, as every supported platform is. The model sums these integer values as
  // they are (linear-model.ts); no float32 copy is kept.
  const copy = new Uint8Array(bytes.length)
  copy.set(bytes)
  const values = encoding === 'int8' ? new Int8Array(copy.buffer) : new Int16Array(copy.buffer)
  return {
    bias: entry.bias,
    ...(entry.cues === true ? { cues: true } : {}),
    ...(entry.cueCount !== undefined ? { cueCount: entry.cueCount } : {}),
    stored: { values, scale: entry.scale },
  }
}

/**
 * Build a model from a parsed `model.json` and a reader of the weight files
 * it names; throws {@link MODEL_INVALID} when they do not fit.
 */
export function modelFromFile(file: ModelFile, readWeights: (name: string) => Buffer): LinearModel {
  if (file?.format !== 2 || !Number.isInteger(file.bits) || file.bits < 8 || file.bits > 24) {
    throw invalid('injection model has an unknown format')
  }
  if (!file.channels?.direct || !file.channels?.tool || !file.combine?.direct || !file.combine?.tool)
    throw invalid('injection model lacks a channel')
  const read = (entry: ChannelFileEntry) => {
    if (typeof entry.weights !== 'string' || !/^[\w.-]+$/.test(entry.weights))
      throw invalid('injection model names no weight file for a channel')
    return channelWeights(file.bits, entry, readWeights(entry.weights))
  }
  return new LinearModel(
    file.bits,
    { direct: read(file.channels.direct), tool: read(file.channels.tool) },
    file.combine,
  )
}

/** Read and decode a model (the shipped one by default). */
export function loadModel(url: URL = DEFAULT_MODEL_URL): LinearModel {
  try {
    const file = JSON.parse(readFileSync(url, 'utf8')) as ModelFile
    return modelFromFile(file, (name) => readFileSync(new URL(name, url)))
  } catch (error) {
    if (error instanceof GovError) throw error
    throw invalid('injection model cannot be read', { cause: (error as Error).message })
  }
}

/** A detector with the rules and the model shipped with the package (or the model at `url`). */
export function loadDetector(url: URL = DEFAULT_MODEL_URL): InjectionDetector {
  return new InjectionDetector(loadModel(url))
}
