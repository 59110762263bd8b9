/** Error and verdict codes of the scan_secrets step. */
export const SCAN_SECRETS_ERRORS = {
  /** An `allow_patterns` entry (or an `allow_list` entry written `/regex/`) does not compile, nests quantifiers, is too long or matches the empty string. */
  ALLOW_LIST_INVALID: 'GOV_ERR_SCAN_SECRETS_ALLOW_LIST_INVALID',
  /** `kinds` names a kind the step does not know. */
  UNKNOWN_KIND: 'GOV_ERR_SCAN_SECRETS_UNKNOWN_KIND',
} as const

/** Block code returned to the caller when `action` is `block` and a secret is found. */
export const SECRET_DETECTED = 'secret_detected'
