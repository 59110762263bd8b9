#!/bin/sh
# Rolling upgrade of the gov replicas of a docker compose deployment.
#
#   scripts/upgrade.sh VERSION [--allow-unsigned]   upgrade to VERSION
#   scripts/upgrade.sh --rollback [VERSION]         go back to the version before the last upgrade (or VERSION)
#
# Steps: pull $GOV_IMAGE:VERSION; verify its signature with cosign when cosign
# is installed (an image that does not verify is refused unless
# --allow-unsigned); back up both databases (scripts/backup.sh); then, one
# replica at a time, recreate it on the new image and wait up to 60 s for its
# health check (/health/ready, the compose healthcheck) to report healthy. When
# a replica does not become healthy, every replica already moved is put back
# on the previous version and the script exits 1: the others never stopped
# serving. The versions are recorded in $GOV_STATE_DIR (current, previous).
#
# Environment:
#   GOV_IMAGE                   image repository (default ghcr.io/gov-project/gov)
#   GOV_COMPOSE_FILE            compose file (default docker-compose.yml at the repository root)
#   GOV_REPLICAS                compose services to roll, in order (default "gov-1 gov-2 gov-3")
#   GOV_STATE_DIR               where versions are recorded (default /var/lib/gov-upgrade)
#   GOV_COSIGN_KEY              cosign public key (default deploy/cosign.pub); keyless when unset and absent:
#   GOV_COSIGN_IDENTITY, GOV_COSIGN_ISSUER  expected signer identity (regexp) and OIDC issuer for keyless
#   GOV_BACKUP_CMD              backup command (default: scripts/backup.sh inside the running `backup`
#                               service, which has the database URLs and network: docker compose exec -T backup gov-backup)
#   GOV_ENV_FILE                the compose .env whose GOV_VERSION is updated after an upgrade, so a later
#                               `docker compose up -d` keeps the new version (default .env next to the compose file)
#   GOV_UPGRADE_HEALTH_TIMEOUT  seconds a replica has to become healthy (default 60)
#   GOV_UPGRADE_POLL_SECONDS    seconds between health polls (default 2)
# Exit codes: 0 done, 1 failed (and rolled back when it got that far), 2 usage errors.
set -eu

here="$(cd "$(dirname "$0")" && pwd)"
image="${GOV_IMAGE:-ghcr.io/gov-project/gov}"
compose_file="${GOV_COMPOSE_FILE:-$here/../docker-compose.yml}"
replicas="${GOV_REPLICAS:-gov-1 gov-2 gov-3}"
state="${GOV_STATE_DIR:-/var/lib/gov-upgrade}"
backup_cmd="${GOV_BACKUP_CMD:-}"
env_file="${GOV_ENV_FILE:-$(dirname "$compose_file")/.env}"
timeout="${GOV_UPGRADE_HEALTH_TIMEOUT:-60}"
poll="${GOV_UPGRADE_POLL_SECONDS:-2}"
cosign_key="${GOV_COSIGN_KEY:-$here/../deploy/cosign.pub}"

log() { printf '%s upgrade: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*"; }
die() { log "FAIL: $*"; exit 1; }
usage() {
  sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

target=""
rollback=0
allow_unsigned=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rollback) rollback=1 ;;
    --allow-unsigned) allow_unsigned=1 ;;
    -h|--help) usage ;;
    -*) echo "upgrade: unknown option $1" >&2; usage ;;
    *) [ -z "$target" ] || usage; target="$1" ;;
  esac
  shift
done

mkdir -p "$state"
current="$(cat "$state/current" 2>/dev/null || true)"
previous="$(cat "$state/previous" 2>/dev/null || true)"

if [ "$rollback" -eq 1 ] && [ -z "$target" ]; then
  [ -n "$previous" ] || die "nothing to roll back to: $state/previous is missing (give the version: --rollback VERSION)"
  target="$previous"
fi
[ -n "$target" ] || usage
case "$target" in
  *[!A-Za-z0-9._-]*|.*|-*) echo "upgrade: '$target' is not a version tag" >&2; exit 2 ;;
esac
case "$timeout$poll" in
  *[!0-9.]*) echo "upgrade: GOV_UPGRADE_HEALTH_TIMEOUT and GOV_UPGRADE_POLL_SECONDS must be numbers" >&2; exit 2 ;;
esac
ref="$image:$target"

# The compose plugin (`docker compose`) when present, else the standalone docker-compose.
if docker compose version >/dev/null 2>&1; then
  compose() { docker compose -f "$compose_file" "$@"; }
elif command -v docker-compose >/dev/null 2>&1; then
  compose() { docker-compose -f "$compose_file" "$@"; }
else
  die "neither 'docker compose' nor docker-compose is installed"
fi

# wait_healthy SERVICE: 0 once the container's health check passes, 1 when it fails or time runs out.
wait_healthy() {
  service="$1"
  started="$(date +%s)"
  while :; do
    id="$(compose ps -q "$service" 2>/dev/null || true)"
    health="missing"
    [ -n "$id" ] && health="$(docker inspect --format '{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$id" 2>/dev/null || echo missing)"
    case "$health" in
      healthy) return 0 ;;
      unhealthy) log "$service reports unhealthy"; return 1 ;;
      none) log "$service has no health check: refusing to guess"; return 1 ;;
    esac
    if [ $(( $(date +%s) - started )) -ge "${timeout%.*}" ]; then
      log "$service not healthy after ${timeout} s (last: $health)"
      return 1
    fi
    sleep "$poll"
  done
}

# move SERVICE VERSION: recreate one replica on VERSION and wait for its health check.
move() {
  log "$1 -> $2"
  GOV_VERSION="$2" compose up -d --no-deps --force-recreate "$1" || return 1
  wait_healthy "$1"
}

log "pulling $ref"
docker pull "$ref" || die "cannot pull $ref"

if command -v cosign >/dev/null 2>&1; then
  if [ -f "$cosign_key" ]; then
    set -- --key "$cosign_key"
  else
    set -- --certificate-identity-regexp "${GOV_COSIGN_IDENTITY:-.*}" --certificate-oidc-issuer "${GOV_COSIGN_ISSUER:-https://token.actions.githubusercontent.com}"
  fi
  if cosign verify "$@" "$ref" >/dev/null 2>&1; then
    log "signature of $ref verified"
  elif [ "$allow_unsigned" -eq 1 ]; then
    log "WARNING: $ref has no valid signature; continuing because of --allow-unsigned"
  else
    die "$ref has no valid signature (cosign verify failed); refusing to deploy it (override with --allow-unsigned)"
  fi
else
  log "cosign is not installed: the signature of $ref is not checked"
fi

log "backing up the databases"
if [ -n "$backup_cmd" ]; then
  $backup_cmd || die "backup failed; nothing was changed"
else
  compose exec -T backup /usr/local/bin/gov-backup || die "backup failed; nothing was changed"
fi

moved=""
for service in $replicas; do
  moved="$moved $service"
  if move "$service" "$target"; then continue; fi
  if [ "$rollback" -eq 1 ] || [ -z "$current" ]; then
    die "$service did not become healthy on $target and there is no version to return to; check 'docker compose logs $service'"
  fi
  log "rolling back$moved to $current"
  failed=""
  for back in $moved; do
    move "$back" "$current" || failed="$failed $back"
  done
  [ -z "$failed" ] || die "$service failed on $target, and$failed did not come back on $current either: restore the backup taken above and investigate"
  die "$service did not become healthy on $target; rolled back to $current (the database backup taken before is in the backup folder)"
done

if [ "$target" != "$current" ]; then
  [ -n "$current" ] && printf '%s\n' "$current" >"$state/previous"
  printf '%s\n' "$target" >"$state/current"
fi
# The compose default must name the running version, or the next `docker compose up -d` reverts it.
if [ -f "$env_file" ]; then
  if grep -q '^GOV_VERSION=' "$env_file"; then
    sed -i "s/^GOV_VERSION=.*/GOV_VERSION=$target/" "$env_file"
  else
    printf 'GOV_VERSION=%s\n' "$target" >>"$env_file"
  fi
  log "GOV_VERSION=$target written to $env_file"
fi
log "done: $replicas run $target"
