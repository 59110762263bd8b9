/** Coded errors of the capability token service. */
export const TokenErrorCodes = {
  /** `GOV_TOKEN_SIGNING_KEY` is not a private Ed25519 or P-256 key as JWK or PKCS8 PEM. */
  KEY_INVALID: 'GOV_ERR_TOKEN_KEY_INVALID',
  /** A rotation was asked while `GOV_TOKEN_SIGNING_KEY` still holds the key in use. */
  KEY_UNCHANGED: 'GOV_ERR_TOKEN_KEY_UNCHANGED',
} as const
