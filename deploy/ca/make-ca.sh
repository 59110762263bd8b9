#!/bin/sh
# The internal CA of a gov deployment, with openssl. Private keys are written
# next to the certificates (mode 0600) and are never committed (deploy/ca/out/
# is git-ignored).
#
#   deploy/ca/make-ca.sh init [--days 3650]                   create the CA (refuses to overwrite one)
#   deploy/ca/make-ca.sh issue NAME [--days 30] [--san DNS,…] [--owner UID]
#                                                             issue NAME.crt/NAME.key for a service
#   deploy/ca/make-ca.sh compose [--owner-map]                the CA, every certificate docker-compose.yml mounts,
#                                                             and the shared token-signing key
#
# OUT (default deploy/ca/out) is where files go. --owner UID chowns the key to
# the user the service runs as (needs root): 999 for gov, postgres and redis,
# 100 for vault, 99 for haproxy. Certificates of services are short-lived on
# purpose; re-issue them (cron, or a workload-identity system in production)
# and gov picks the new files up without a restart. The health monitor and
# `gov doctor` warn 30 days before the CA itself expires.
set -eu

here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$here/out}"
umask 077

die() { echo "make-ca: $*" >&2; exit 2; }

init() {
  days=3650
  while [ $# -gt 0 ]; do
    case "$1" in
      --days) days="$2"; shift 2 ;;
      *) die "unknown argument $1" ;;
    esac
  done
  [ -f "$out/ca.key" ] && die "$out/ca.key exists; move it away to make a new CA"
  mkdir -p "$out"
  # Containers running as other users mount single files from here; the keys themselves stay 0600.
  chmod 755 "$out"
  openssl ecparam -name prime256v1 -genkey -noout -out "$out/ca.key"
  openssl req -x509 -new -key "$out/ca.key" -sha256 -days "$days" \
    -subj "/CN=gov internal CA $(date -u +%Y-%m-%d)" \
    -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$out/ca.crt"
  chmod 644 "$out/ca.crt"
  echo "make-ca: CA written to $out/ca.crt (valid $days days)"
}

issue() {
  [ $# -ge 1 ] || die "issue needs a NAME"
  name="$1"; shift
  case "$name" in *[!A-Za-z0-9_.-]*|'') die "NAME must be letters, digits, . _ -" ;; esac
  days=30
  san="DNS:$name,DNS:localhost,IP:127.0.0.1"
  owner=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --days) days="$2"; shift 2 ;;
      --san) san="$san,$(printf '%s' "$2" | sed 's/\([^,]*\)/DNS:\1/g')"; shift 2 ;;
      --owner) owner="$2"; shift 2 ;;
      *) die "unknown argument $1" ;;
    esac
  done
  [ -f "$out/ca.key" ] || die "no CA in $out: run '$0 init' first"
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/key"
  openssl req -new -key "$tmp/key" -subj "/CN=$name" -out "$tmp/csr"
  printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=%s\n' "$san" >"$tmp/ext"
  openssl x509 -req -in "$tmp/csr" -CA "$out/ca.crt" -CAkey "$out/ca.key" -CAcreateserial \
    -days "$days" -sha256 -extfile "$tmp/ext" -out "$tmp/crt" 2>/dev/null
  # Key first, then certificate, each by rename: a reader never sees a half-written file,
  # and gov keeps its old pair until both match.
  chmod 600 "$tmp/key"
  chmod 644 "$tmp/crt"
  [ -n "$owner" ] && chown "$owner" "$tmp/key"
  mv "$tmp/key" "$out/$name.key"
  mv "$tmp/crt" "$out/$name.crt"
  echo "make-ca: issued $out/$name.crt ($san, $days days)"
}

compose() {
  map=0
  [ "${1:-}" = "--owner-map" ] && map=1
  [ -f "$out/ca.key" ] || init
  own() { [ "$map" -eq 1 ] && printf -- '--owner %s' "$1"; }
  # shellcheck disable=SC2046
  issue gov --san gov-1,gov-2,gov-3 $(own 999)
  issue postgres $(own 999)
  issue redis $(own 999)
  issue vault $(own 100)
  # The capability-token signing key every replica shares (vault-init stores it in Vault).
  if [ ! -f "$out/token-signing.key" ]; then
    openssl genpkey -algorithm ed25519 -out "$out/token-signing.key"
    echo "make-ca: token signing key written to $out/token-signing.key"
  fi
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
  init) init "$@" ;;
  issue) issue "$@" ;;
  compose) compose "$@" ;;
  *) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
