#!/bin/sh
# gov database backups: dump the service database and Vault's storage database
# with pg_dump (custom format, compressed), then delete dumps older than the
# retention (30 days by default). Run daily: the compose service `backup`
# (deploy/backup/run-daily.sh) or the systemd timer in deploy/systemd/.
#
#   scripts/backup.sh [--dir DIR] [--keep-days N] [--only NAME]
#
# Targets come from the environment, one per variable, never from arguments
# (URLs carry passwords, and arguments show up in process lists):
#   GOV_BACKUP_DATABASE_URL    the gov service database   -> gov-<UTC time>.dump
#   VAULT_BACKUP_DATABASE_URL  Vault's PostgreSQL storage  -> vault-<UTC time>.dump
#   GOV_BACKUP_DIR             where dumps go (default /backups)
#   GOV_BACKUP_KEEP_DAYS       retention in days (default 30)
# A dump is written as NAME-TIME.dump.partial, checked with pg_restore --list,
# then renamed, so a half-written file never counts as a backup. Old dumps of a
# target are pruned only after that target's dump succeeded, and its newest
# dump is never pruned: when backups start failing, history is kept.
# Exit code: 0 when every configured target was dumped, 1 otherwise, 2 on usage errors.
set -eu

dir="${GOV_BACKUP_DIR:-/backups}"
keep="${GOV_BACKUP_KEEP_DAYS:-30}"
only=""

usage() {
  sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --dir) [ $# -ge 2 ] || usage; dir="$2"; shift 2 ;;
    --keep-days) [ $# -ge 2 ] || usage; keep="$2"; shift 2 ;;
    --only) [ $# -ge 2 ] || usage; only="$2"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "backup: unknown argument $1" >&2; usage ;;
  esac
done

case "$keep" in
  ''|*[!0-9]*) echo "backup: --keep-days must be a whole number of days, got '$keep'" >&2; exit 2 ;;
esac
[ "$keep" -ge 1 ] || { echo "backup: --keep-days must be at least 1" >&2; exit 2; }

mkdir -p "$dir"
umask 077

log() { printf '%s backup: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*"; }

# dump NAME URL: one target; prints the file written.
dump() {
  name="$1"
  url="$2"
  stamp="$(date -u +%Y%m%dT%H%M%SZ)"
  file="$dir/$name-$stamp.dump"
  if ! pg_dump --format=custom --compress=6 --no-owner --no-privileges --file="$file.partial" --dbname="$url" 2>"$file.err"; then
    log "FAIL $name: pg_dump failed: $(head -n 3 "$file.err" | tr '\n' ' ')"
    rm -f "$file.partial" "$file.err"
    return 1
  fi
  rm -f "$file.err"
  if ! pg_restore --list "$file.partial" >/dev/null 2>&1; then
    log "FAIL $name: the dump does not read back (pg_restore --list)"
    rm -f "$file.partial"
    return 1
  fi
  mv "$file.partial" "$file"
  log "ok $name: $file ($(wc -c <"$file" | tr -d ' ') bytes)"
}

# prune NAME: delete NAME-*.dump older than the retention, keeping the newest.
prune() {
  name="$1"
  newest="$(ls -1 "$dir"/"$name"-*.dump 2>/dev/null | sort | tail -n 1)"
  # -mmin: ages in whole minutes, so "30 days" means 30 × 24 h, not find's rounded days.
  find "$dir" -maxdepth 1 -type f -name "$name-*.dump" -mmin +$((keep * 1440)) | while read -r old; do
    [ "$old" = "$newest" ] && continue
    rm -f "$old"
    log "pruned $old (older than $keep days)"
  done
  # Leftovers of an interrupted run are never useful.
  find "$dir" -maxdepth 1 -type f -name "$name-*.dump.partial" -mmin +1440 -exec rm -f {} +
}

status=0
targets=0
for pair in "gov:${GOV_BACKUP_DATABASE_URL:-}" "vault:${VAULT_BACKUP_DATABASE_URL:-}"; do
  name="${pair%%:*}"
  url="${pair#*:}"
  [ -n "$only" ] && [ "$only" != "$name" ] && continue
  [ -n "$url" ] || continue
  targets=$((targets + 1))
  if dump "$name" "$url"; then prune "$name"; else status=1; fi
done

if [ "$targets" -eq 0 ]; then
  echo "backup: nothing to back up: set GOV_BACKUP_DATABASE_URL and/or VAULT_BACKUP_DATABASE_URL" >&2
  exit 2
fi
exit "$status"
