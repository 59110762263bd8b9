#!/bin/sh
# Initialise, unseal and provision Vault for gov (runs in the `vault-init`
# compose service, every start; idempotent).
#
# - First start: `vault operator init` (1 key share, for a trial; use 5 shares /
#   3 to unseal, or auto-unseal with a KMS, in production) writes the unseal key
#   and root token to /vault/init/init.json (a volume only this service mounts).
# - Every start: unseal when sealed.
# - Provisioning (until it once completed): KV v2 at secret/, the read-only policy `gov`
#   on secret/data/gov/*, gov's secrets (admin key, DATABASE_URL, REDIS_URL, a
#   fresh Ed25519 token-signing key, provider keys from the environment), and a
#   periodic token for the gateways (renewed by gov) in /vault/token/gov.token.
# Secret values come from the environment of this service (.env) and are never printed.
set -eu
export VAULT_ADDR="${VAULT_ADDR:-https://vault:8200}"
# Where the compose file mounts things (overridable for tests).
init_dir="${VAULT_INIT_DIR:-/vault/init}"
token_dir="${VAULT_GOV_TOKEN_DIR:-/vault/token}"
signing_key="${VAULT_INIT_SIGNING_KEY:-/vault/init-secrets/token-signing.key}"
[ -s "$signing_key" ] || { echo "vault-init: deploy/ca/out/token-signing.key is missing: run deploy/ca/make-ca.sh compose" >&2; exit 1; }
init="$init_dir/init.json"

until vault status >/dev/null 2>&1 || [ $? -eq 2 ]; do sleep 1; done

if [ ! -s "$init" ]; then
  umask 077
  vault operator init -key-shares=1 -key-threshold=1 -format=json >"$init.tmp"
  mv "$init.tmp" "$init"
fi
unseal_key="$(tr -d '\n ' <"$init" | sed -n 's/.*"unseal_keys_b64":\["\([^"]*\)".*/\1/p')"
if vault status >/dev/null 2>&1; then :; else vault operator unseal "$unseal_key" >/dev/null; fi

VAULT_TOKEN="$(tr -d '\n ' <"$init" | sed -n 's/.*"root_token":"\([^"]*\)".*/\1/p')"
export VAULT_TOKEN

# Provisioned once; the marker is written last, so a run that died half-way provisions again.
if [ ! -f "$init_dir/provisioned" ]; then
  vault secrets list | grep -q '^secret/' || vault secrets enable -path=secret kv-v2
  vault policy write gov - <<'POLICY'
path "secret/data/gov/*" { capabilities = ["read"] }
POLICY
  put() { printf '%s' "$2" | vault kv put -mount=secret "gov/$1" value=- >/dev/null; }
  put GOV_ADMIN_API_KEY "$GOV_ADMIN_API_KEY"
  put DATABASE_URL "postgres://gov:${POSTGRES_GOV_PASSWORD}@postgres:5432/gov?sslmode=verify-full&sslrootcert=/run/gov/tls/ca.crt"
  put REDIS_URL "rediss://:${REDIS_PASSWORD}@redis:6379"
  # Made on the host by deploy/ca/make-ca.sh (the Vault image has no openssl); every replica reads this one key.
  put GOV_TOKEN_SIGNING_KEY "$(cat "$signing_key")"
  if [ -n "${OPENAI_API_KEY:-}" ]; then put OPENAI_API_KEY "$OPENAI_API_KEY"; fi
  if [ -n "${ANTHROPIC_API_KEY:-}" ]; then put ANTHROPIC_API_KEY "$ANTHROPIC_API_KEY"; fi
  touch "$init_dir/provisioned"
fi

# A fresh periodic token at every start: it lives 24 h unless gov renews it (it does, at 2/3 of its TTL).
umask 077
vault token create -policy=gov -period=24h -orphan -display-name=gov -field=token >"$token_dir/gov.token.tmp"
chmod 0644 "$token_dir/gov.token.tmp"
mv "$token_dir/gov.token.tmp" "$token_dir/gov.token"
echo "vault-init: Vault unsealed; gov token written"
