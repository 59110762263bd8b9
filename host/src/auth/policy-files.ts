import { fileURLToPath } from 'node:url'

// Resolved from dist/src/auth/ (and src/auth/ alike) to host/policies/, which the package ships.
const POLICIES_DIR = new URL('../../../policies/', import.meta.url)

/** The policy that ships with gov; `GOV_POLICY_FILE` replaces it. */
export const DEFAULT_POLICY_FILE = fileURLToPath(new URL('default.cedar', POLICIES_DIR))

/** gov's Cedar schema: the entity model every policy is validated against. */
export const SCHEMA_FILE = fileURLToPath(new URL('gov.cedarschema', POLICIES_DIR))
