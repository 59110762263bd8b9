#!/bin/sh
# Entrypoint of the gov image. Core dumps are disabled here (soft and hard
# limit), so a crash never writes process memory (keys, prompts) to disk even
# when the runtime forgets `ulimit core=0`. VAULT_TOKEN_FILE, when set, is read
# into VAULT_TOKEN: the token stays out of the image, the compose file and
# `docker inspect`.
set -eu
ulimit -c 0
ulimit -Hc 0 2>/dev/null || true
if [ -n "${VAULT_TOKEN_FILE:-}" ]; then
  VAULT_TOKEN="$(cat "$VAULT_TOKEN_FILE")" || { echo "gov: VAULT_TOKEN_FILE $VAULT_TOKEN_FILE cannot be read" >&2; exit 1; }
  export VAULT_TOKEN
  unset VAULT_TOKEN_FILE
fi
exec node --import reflect-metadata /app/cli/bin/gov.js "$@"
