/**
 * Reading the shipped model: `model/weights.json`, checked and decoded into a
 * {@link LinearModel}, with a coded error when it is missing or malformed.
 */
import { readFileSync } from 'node:fs'
import { GovError } from '@gov/core'
import { InjectionDetector } from './detector.js'
import { LinearModel, type WeightsFile } from './linear-model.js'

/** Error code when the shipped weights are missing or malformed. */
export const MODEL_INVALID = 'GOV_ERR_INJECTION_MODEL_INVALID'

/** The shipped weights, next to the compiled sources: `<package>/model/weights.json`. */
export const DEFAULT_WEIGHTS_URL = new URL('../../model/weights.json', import.meta.url)

/** Build a model from a parsed weights file; throws {@link MODEL_INVALID} when it does not fit. */
export function modelFromFile(file: WeightsFile): LinearModel {
  if (file?.format !== 1 || !Number.isInteger(file.bits) || file.bits < 8 || file.bits > 24) {
    throw new GovError(MODEL_INVALID, 'injection model weights have an unknown format', 500)
  }
  const bytes = Buffer.from(file.weights, 'base64')
  if (bytes.length !== 2 << file.bits) {
    throw new GovError(MODEL_INVALID, 'injection model weights have the wrong size', 500, {
      expected: 2 << file.bits,
      actual: bytes.length,
    })
  }
  const weights = new Float32Array(1 << file.bits)
  for (let i = 0; i < weights.length; i++) weights[i] = bytes.readInt16LE(i * 2) * file.scale
  return new LinearModel(file.bits, file.bias, weights, file.combine)
}

/** Read and decode a weights file (the shipped one by default). */
export function loadModel(url: URL = DEFAULT_WEIGHTS_URL): LinearModel {
  let parsed: WeightsFile
  try {
    parsed = JSON.parse(readFileSync(url, 'utf8')) as WeightsFile
  } catch (error) {
    throw new GovError(MODEL_INVALID, 'injection model weights cannot be read', 500, {
      cause: (error as Error).message,
    })
  }
  return modelFromFile(parsed)
}

/** A detector with the rules and the weights shipped with the package (or those at `url`). */
export function loadDetector(url: URL = DEFAULT_WEIGHTS_URL): InjectionDetector {
  return new InjectionDetector(loadModel(url))
}
