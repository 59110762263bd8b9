import { createHash, createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto'
import { GovError } from '@gov/core'
import { type CryptoKey, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose'
import { TokenErrorCodes } from './token-errors.js'
import { SIGNING_KEY_SECRET } from './token-settings.js'

/** Signature algorithms gov signs with: Ed25519 (preferred) or P-256. Both are asymmetric. */
export type TokenAlgorithm = 'EdDSA' | 'ES256'

/** Every algorithm a gov token may carry; anything else is refused before a key is looked at. */
export const TOKEN_ALGORITHMS: readonly TokenAlgorithm[] = ['EdDSA', 'ES256']

/** One signing key pair with its published public half. */
export interface SigningKey {
  readonly kid: string
  readonly alg: TokenAlgorithm
  readonly privateKey: CryptoKey
  readonly publicKey: CryptoKey
  /** The public JWK as the JWKS publishes it (`kid`, `alg`, `use: sig`). */
  readonly publicJwk: JWK
  /**
   * SHA-256 of the secret text the key was imported from, to notice when the
   * secret changes without keeping the key text around; undefined for a generated key.
   */
  readonly fingerprint: string | undefined
}

/** Hash of a secret's text, compared to tell whether the configured key changed. */
export function fingerprintOf(secretText: string): string {
  return createHash('sha256').update(secretText.trim()).digest('base64url')
}

async function publish(
  alg: TokenAlgorithm,
  publicJwk: JWK,
  kid: string | undefined,
): Promise<{ kid: string; jwk: JWK }> {
  const { kty, crv, x, y } = publicJwk
  const bare: JWK = y === undefined ? { kty, crv, x } : { kty, crv, x, y }
  // RFC 7638 thumbprint: every replica that loads the same key derives the same kid.
  const id = kid ?? (await calculateJwkThumbprint(bare))
  return { kid: id, jwk: { ...bare, kid: id, alg, use: 'sig' } }
}

/** Generate a fresh Ed25519 key pair (development, or rotation without a configured key). */
export async function generateSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' })
  const { kid, jwk } = await publish('EdDSA', await exportJWK(publicKey), undefined)
  return { kid, alg: 'EdDSA', privateKey, publicKey, publicJwk: jwk, fingerprint: undefined }
}

function invalidKey(what: string): GovError {
  // Never echo the secret or a parser message that may quote it.
  return new GovError(
    TokenErrorCodes.KEY_INVALID,
    `${SIGNING_KEY_SECRET} ${what}; give a private Ed25519 or P-256 key as a JWK (JSON) or PKCS8 PEM`,
    500,
  )
}

function parseKey(text: string): { key: KeyObject; kid: string | undefined } {
  const trimmed = text.trim()
  if (trimmed.startsWith('{')) {
    let jwk: JsonWebKey & { kid?: unknown }
    try {
      jwk = JSON.parse(trimmed)
    } catch {
      throw invalidKey('is not valid JSON')
    }
    if (typeof jwk.d !== 'string') throw invalidKey('is a JWK without its private part')
    try {
      const kid = typeof jwk.kid === 'string' && jwk.kid.length > 0 ? jwk.kid : undefined
      return { key: createPrivateKey({ key: jwk, format: 'jwk' }), kid }
    } catch {
      throw invalidKey('is not a usable private JWK')
    }
  }
  try {
    return { key: createPrivateKey({ key: trimmed, format: 'pem' }), kid: undefined }
  } catch {
    throw invalidKey('is neither a JWK nor a private key PEM')
  }
}

function algorithmOf(key: KeyObject): TokenAlgorithm {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA'
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256'
  throw invalidKey(`holds a ${key.asymmetricKeyType ?? 'unknown'} key`)
}

/**
 * Import the configured signing key (`GOV_TOKEN_SIGNING_KEY`): a private JWK
 * (its `kid` is kept when present) or a PKCS8/SEC1 PEM. Throws
 * `GOV_ERR_TOKEN_KEY_INVALID` for anything else.
 */
export async function importSigningKey(secretText: string): Promise<SigningKey> {
  const { key, kid: givenKid } = parseKey(secretText)
  const alg = algorithmOf(key)
  const privateJwk = key.export({ format: 'jwk' }) as JWK
  const { d: _d, ...publicPart } = privateJwk
  const { kid, jwk } = await publish(alg, publicPart, givenKid)
  const [privateKey, publicKey] = await Promise.all([
    importJWK(privateJwk, alg, { extractable: false }),
    importJWK(publicPart, alg),
  ])
  return {
    kid,
    alg,
    privateKey: privateKey as CryptoKey,
    publicKey: publicKey as CryptoKey,
    publicJwk: jwk,
    fingerprint: fingerprintOf(secretText),
  }
}
