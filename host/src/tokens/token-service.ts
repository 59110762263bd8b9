import { KeyObject, randomUUID, sign } from 'node:crypto'
import { GovError } from '@gov/core'
import { type JSONWebKeySet, type JWTHeaderParameters, jwtVerify } from 'jose'
import type { Logger } from '../logging.js'
import type { GovMetrics } from '../metrics/metrics.js'
import type { SecretSource } from '../secrets/secret-source.js'
import { type CapabilityGrant, readClaims } from './capability-claims.js'
import { KeyRing } from './key-ring.js'
import {
  fingerprintOf,
  generateSigningKey,
  importSigningKey,
  type SigningKey,
  TOKEN_ALGORITHMS,
} from './signing-key.js'
import { TokenErrorCodes } from './token-errors.js'
import { SIGNING_KEY_SECRET, type TokenSettings } from './token-settings.js'
import { denied, KeyLookupRefusal, refusalOf, type VerifyResult } from './verify-result.js'

/** The JWT `typ` of a capability token (explicit typing, RFC 8725 §3.11): no other JWT passes for one. */
export const TOKEN_TYPE = 'gov-capability+jwt'
/** Longer than any token gov mints by far; longer strings are refused unread. */
const MAX_TOKEN_CHARS = 16_384
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/
/** A retired key outlives the last token it signed by this much, for clocks slightly apart. */
const CLOCK_SKEW_MS = 60_000
/** How often minting looks whether the configured key changed (another replica or an operator rotated it). */
const SYNC_INTERVAL_MS = 10_000
/** An unknown `kid` re-reads the secret at most this often, so made-up kids cannot hammer the vault. */
const FORCED_SYNC_INTERVAL_MS = 30_000

/**
 * At most this many distinct grants keep their token for reuse within one
 * second; further grants in that second are signed without being kept.
 */
const MAX_REUSED_PER_SECOND = 4_096

/** The tokens minted in one second with one key (see {@link TokenService.mint}). */
interface SameSecond {
  readonly second: number
  readonly key: SigningKey
  /** By {@link reuseKeyOf}. */
  readonly tokens: Map<string, MintedToken>
}

/**
 * Every claim of a grant's token that varies between calls, and the key's
 * `kid`, as one exact text: each string is written after its length (so no
 * content can run into the next field), each list after its size, an absent
 * session as `-` (a present one starts with a digit). Two grants get the same
 * text only when every one of these claims is the same. Built by
 * concatenation: `JSON.stringify` of the same fields cost a call into C++ per call.
 */
function reuseKeyOf(kid: string, grant: CapabilityGrant): string {
  const session = grant.sessionId
  let key = `${kid.length}:${kid}${grant.agentId.length}:${grant.agentId}${
    session === undefined ? '-' : `${session.length}:${session}`
  }${grant.pipeline.length}:${grant.pipeline}${grant.pipelineVersion};${grant.classification};${grant.tools.length}`
  for (const tool of grant.tools) key += `:${tool.length}:${tool}`
  key += `;${grant.labels.length}`
  for (const label of grant.labels) key += `:${label.length}:${label}`
  return key
}

/** Per signing key: its node:crypto KeyObject and the encoded header of its capability tokens. */
const signers = new WeakMap<SigningKey, { key: KeyObject; tokenHeader: string }>()

function encodedHeader(key: SigningKey, typ: string): string {
  return Buffer.from(JSON.stringify({ alg: key.alg, kid: key.kid, typ })).toString('base64url')
}

/**
 * Sign a compact JWS with node:crypto, synchronously. jose (WebCrypto) costs
 * ~180 µs per Ed25519 token here, node:crypto ~40 µs, on the hot path of every
 * allowed call; jose still verifies, generates and publishes the keys. A
 * capability token's header depends only on the key (`alg`, `kid`, `typ`), so
 * it is encoded once per key; another `typ` (signed documents) is encoded per call.
 */
function signCompact(signingKey: SigningKey, payload: object, typ: string = TOKEN_TYPE): string {
  let signer = signers.get(signingKey)
  if (!signer) {
    signer = {
      key: KeyObject.from(signingKey.privateKey as Parameters<typeof KeyObject.from>[0]),
      tokenHeader: encodedHeader(signingKey, TOKEN_TYPE),
    }
    signers.set(signingKey, signer)
  }
  const header = typ === TOKEN_TYPE ? signer.tokenHeader : encodedHeader(signingKey, typ)
  const input = `${header}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`
  // base64url text is ASCII: latin1 encodes it byte for byte, without UTF-8's checks.
  const bytes = Buffer.from(input, 'latin1')
  const signature =
    signingKey.alg === 'EdDSA'
      ? sign(null, bytes, signer.key)
      : sign('sha256', bytes, { key: signer.key, dsaEncoding: 'ieee-p1363' })
  return `${input}.${signature.toString('base64url')}`
}

/** A minted token and its id. */
export interface MintedToken {
  readonly token: string
  /** The `jti`, for the audit trail. */
  readonly id: string
  readonly kid: string
  /** Epoch seconds. */
  readonly expiresAt: number
}

/** The answer of a rotation. */
export interface RotationResult {
  readonly kid: string
  readonly previous_kid: string
  /** `configured` when the new key came from `GOV_TOKEN_SIGNING_KEY`, `generated` otherwise. */
  readonly source: 'configured' | 'generated'
  /** Until when (ISO time) tokens signed with the previous key still verify. */
  readonly previous_valid_until: string
}

export interface TokenServiceOptions {
  settings: TokenSettings
  secrets: SecretSource
  metrics: GovMetrics
  logger: Logger
  /** In production a generated key is worth a warning: tokens die with the process and differ per replica. */
  production: boolean
  /** Milliseconds since the epoch; injectable so tests can move time. */
  now?: () => number
}

/**
 * Mints and verifies capability tokens: short-lived asymmetric JWTs (EdDSA or
 * ES256) that tell a tool server what one agent may do in one session. The
 * signing key comes from `GOV_TOKEN_SIGNING_KEY`, or is generated at start.
 * Rotation keeps every token already handed out verifiable until it expires.
 * Counts `gov_capability_tokens_total{result=minted|denied|expired}`.
 */
export class TokenService {
  readonly #o: TokenServiceOptions
  readonly #now: () => number
  #ring: Promise<KeyRing> | undefined
  /** The key ring once loaded (rotations change it in place), so minting need not wait on a promise. */
  #loaded: KeyRing | undefined
  /** Tokens minted in the current second with the current key, by their claims except `jti`. */
  #sameSecond: SameSecond | undefined
  /** Key changes run one at a time; a failed one does not stop the next. */
  #queue: Promise<unknown> = Promise.resolve()
  #lastSync = 0
  #lastForcedSync = Number.NEGATIVE_INFINITY
  /** Fingerprint of a configured key already found unusable, so it is reported once. */
  #rejected: string | undefined

  constructor(options: TokenServiceOptions) {
    this.#o = options
    this.#now = options.now ?? Date.now
  }

  /** Load or generate the signing key; throws `GOV_ERR_TOKEN_KEY_INVALID` for an unusable configured key. */
  async start(): Promise<void> {
    await this.#keys()
  }

  /**
   * The token of an allowed call: freshly signed, or (with `reuse`
   * `same-second`, the default) the token an identical grant already got in
   * this second. A JWT's `iat` and `exp` count whole seconds, so two tokens of
   * one grant signed in one second could differ only in `jti`: the second
   * caller gets the first token, `jti` included, and no signature is paid.
   * Every claim value (agent, session, pipeline and version, classification,
   * tools, labels, issue second) and the signing key must match; `iss`, `aud`
   * and the lifetime are this service's fixed settings. Each token handed out
   * counts as `minted`. `reusable: false` says no other call can have this
   * grant (its session was made for this call alone): it is signed and not kept.
   */
  async mint(grant: CapabilityGrant, reusable = true): Promise<MintedToken> {
    return this.#mintWith(this.#loaded ?? (await this.#keys()), grant, reusable)
  }

  /**
   * {@link mint} without a promise, for the hot path; undefined only while the
   * signing key has not been loaded yet (then use {@link mint}).
   */
  mintNow(grant: CapabilityGrant, reusable = true): MintedToken | undefined {
    const ring = this.#loaded
    return ring && this.#mintWith(ring, grant, reusable)
  }

  #mintWith(ring: KeyRing, grant: CapabilityGrant, reusable: boolean): MintedToken {
    this.#syncInBackground()
    const key = ring.current
    const iat = Math.floor(this.#now() / 1000)
    let reuseKey: string | undefined
    let same: SameSecond | undefined
    if (reusable && this.#o.settings.reuse === 'same-second') {
      same = this.#sameSecond
      // Only this second's tokens are kept: a new second or a new signing key starts afresh.
      if (same === undefined || same.second !== iat || same.key !== key) {
        same = { second: iat, key, tokens: new Map() }
        this.#sameSecond = same
      }
      reuseKey = reuseKeyOf(key.kid, grant)
      const earlier = same.tokens.get(reuseKey)
      if (earlier !== undefined) {
        this.#o.metrics.tokenResult('minted').inc()
        return earlier
      }
    }
    const exp = iat + this.#o.settings.ttlSeconds
    const id = randomUUID()
    const { issuer, audience } = this.#o.settings
    // Two literal shapes (with and without `sid`), the claims in the same order, without a spread per token.
    // Serialised only, never kept: the grant's arrays need no copy.
    const payload =
      grant.sessionId === undefined
        ? {
            iss: issuer,
            sub: grant.agentId,
            aud: audience,
            iat,
            exp,
            jti: id,
            pipeline: grant.pipeline,
            pipeline_version: grant.pipelineVersion,
            classification: grant.classification,
            tools: grant.tools,
            labels: grant.labels,
          }
        : {
            iss: issuer,
            sub: grant.agentId,
            aud: audience,
            iat,
            exp,
            jti: id,
            sid: grant.sessionId,
            pipeline: grant.pipeline,
            pipeline_version: grant.pipelineVersion,
            classification: grant.classification,
            tools: grant.tools,
            labels: grant.labels,
          }
    const minted: MintedToken = { token: signCompact(key, payload), id, kid: key.kid, expiresAt: exp }
    if (same !== undefined && reuseKey !== undefined && same.tokens.size < MAX_REUSED_PER_SECOND)
      same.tokens.set(reuseKey, minted)
    this.#o.metrics.tokenResult('minted').inc()
    return minted
  }

  /**
   * Check a token: signature by a published key, issuer, audience (default the
   * configured one), expiry and the claims' shape. Never throws: any failure is
   * a refusal with a reason, counted as `denied` or `expired`.
   */
  async verify(token: unknown, audience?: string): Promise<VerifyResult> {
    const result = await this.#check(token, audience ?? this.#o.settings.audience)
    if (!result.valid) this.#o.metrics.tokenResult(result.result).inc()
    return result
  }

  /** Count a call the pipeline refused: it gets no token, which counts as denied. */
  countRefusedCall(): void {
    this.#o.metrics.tokenResult('denied').inc()
  }

  /** The public keys that verify tokens now: the signing key, the next one, and replaced keys whose tokens may still be live. */
  async jwks(): Promise<JSONWebKeySet> {
    const ring = await this.#keys()
    return { keys: ring.published(this.#now()).map((k) => k.publicJwk) }
  }

  /**
   * Sign `payload` as a compact JWS with the current token key, whose public
   * half the JWKS publishes (audit checkpoints use it). `typ` must differ from
   * a capability token's, so such a document never passes for a token.
   */
  async signDocument(typ: string, payload: object): Promise<{ jws: string; kid: string }> {
    if (typ === TOKEN_TYPE) throw new TypeError(`typ ${TOKEN_TYPE} is reserved for capability tokens`)
    const key = (await this.#keys()).current
    this.#syncInBackground()
    return {
      jws: signCompact(key, payload, typ),
      kid: key.kid,
    }
  }

  /**
   * Replace the signing key: with `GOV_TOKEN_SIGNING_KEY` when it holds a new
   * key (re-read from the vault), else with the generated key the JWKS already
   * published as next (and a new next key is prepared). Refuses with 409
   * `GOV_ERR_TOKEN_KEY_UNCHANGED` while the configured secret still holds the
   * key in use, since a generated key would differ on every replica.
   */
  rotate(): Promise<RotationResult> {
    return this.#serially(async () => {
      const ring = await this.#keys()
      this.#o.secrets.invalidate(SIGNING_KEY_SECRET)
      const text = await this.#o.secrets.get(SIGNING_KEY_SECRET)
      if (text !== undefined && fingerprintOf(text) === ring.current.fingerprint) {
        throw new GovError(
          TokenErrorCodes.KEY_UNCHANGED,
          `${SIGNING_KEY_SECRET} still holds the signing key in use; store a new key there, then rotate`,
          409,
        )
      }
      const [next, upcoming] =
        text === undefined
          ? await Promise.all([ring.next ?? generateSigningKey(), generateSigningKey()])
          : [await importSigningKey(text), undefined]
      const until = this.#keepUntil()
      const previous = ring.replace(next, until, upcoming)
      this.#o.logger.info(
        { kid: next.kid, previousKid: previous.kid },
        'capability token signing key rotated',
      )
      return {
        kid: next.kid,
        previous_kid: previous.kid,
        source: text === undefined ? 'generated' : 'configured',
        previous_valid_until: new Date(until).toISOString(),
      }
    })
  }

  #keys(): Promise<KeyRing> {
    this.#ring ??= this.#load().then((ring) => {
      this.#loaded = ring
      return ring
    })
    return this.#ring
  }

  async #load(): Promise<KeyRing> {
    this.#lastSync = this.#now()
    const text = await this.#o.secrets.get(SIGNING_KEY_SECRET)
    if (text !== undefined) return new KeyRing(await importSigningKey(text))
    const [key, next] = await Promise.all([generateSigningKey(), generateSigningKey()])
    if (this.#o.production) {
      this.#o.logger.warn(
        { kid: key.kid },
        `${SIGNING_KEY_SECRET} is not set: capability tokens are signed with a key generated at start, which differs per replica and dies with the process`,
      )
    }
    return new KeyRing(key, next)
  }

  #keepUntil(): number {
    return this.#now() + this.#o.settings.ttlSeconds * 1000 + CLOCK_SKEW_MS
  }

  #serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work)
    this.#queue = run.catch(() => {})
    return run
  }

  #syncInBackground(): void {
    const now = this.#now()
    if (now - this.#lastSync < SYNC_INTERVAL_MS) return
    this.#lastSync = now
    this.#serially(() => this.#adoptConfiguredKey()).catch((err) =>
      this.#o.logger.warn({ code: (err as GovError).code }, 'capability token key check failed'),
    )
  }

  /**
   * Follow `GOV_TOKEN_SIGNING_KEY` when it changed (a rotation in the vault, or
   * on another replica). An unset secret changes nothing: a vault hiccup must
   * not swap keys. Returns true when the signing key changed.
   */
  async #adoptConfiguredKey(): Promise<boolean> {
    const ring = await this.#keys()
    const text = await this.#o.secrets.get(SIGNING_KEY_SECRET)
    if (text === undefined) return false
    const fingerprint = fingerprintOf(text)
    if (fingerprint === ring.current.fingerprint || fingerprint === this.#rejected) return false
    let next: SigningKey
    try {
      next = await importSigningKey(text)
    } catch (err) {
      this.#rejected = fingerprint
      this.#o.logger.error(
        { code: (err as GovError).code },
        `${SIGNING_KEY_SECRET} changed to an unusable key; still signing with the previous one`,
      )
      return false
    }
    const previous = ring.replace(next, this.#keepUntil())
    this.#o.logger.info({ kid: next.kid, previousKid: previous.kid }, 'capability token signing key changed')
    return true
  }

  async #check(token: unknown, audience: string): Promise<VerifyResult> {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS || !COMPACT_JWS.test(token)) {
      return denied('malformed', 'token is not a compact JWS (three base64url parts)')
    }
    try {
      const ring = await this.#keys()
      const { payload } = await jwtVerify(token, (header) => this.#keyFor(ring, header), {
        issuer: this.#o.settings.issuer,
        audience,
        algorithms: [...TOKEN_ALGORITHMS],
        typ: TOKEN_TYPE,
        requiredClaims: ['sub', 'jti', 'iat', 'exp'],
        currentDate: new Date(this.#now()),
      })
      const claims = readClaims(payload)
      if (!claims) return denied('malformed', 'token claims lack the capability fields')
      return { valid: true, claims }
    } catch (err) {
      return refusalOf(err)
    }
  }

  async #keyFor(ring: KeyRing, header: JWTHeaderParameters) {
    const now = this.#now()
    let key = ring.find(header.kid, now)
    if (!key && header.kid !== undefined && now - this.#lastForcedSync >= FORCED_SYNC_INTERVAL_MS) {
      // Another replica may have moved to a new configured key before this one noticed.
      this.#lastForcedSync = now
      const changed = await this.#serially(() => {
        this.#o.secrets.invalidate(SIGNING_KEY_SECRET)
        return this.#adoptConfiguredKey()
      }).catch(() => false)
      if (changed) key = ring.find(header.kid, now)
    }
    if (!key) throw new KeyLookupRefusal('unknown_key', 'token kid names no key of this gateway')
    if (key.alg !== header.alg)
      throw new KeyLookupRefusal('bad_signature', 'token alg is not the key’s algorithm')
    return key.publicKey
  }
}
