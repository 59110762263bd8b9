#!/bin/sh
# The `backup` compose service: run scripts/backup.sh once a day at
# GOV_BACKUP_AT (UTC, HH:MM, default 03:17), forever. A failed run is logged
# and retried the next day; the dumps already there are kept.
set -u
at="${GOV_BACKUP_AT:-03:17}"
backup="${GOV_BACKUP_BIN:-/usr/local/bin/gov-backup}"
case "$at" in
  [0-2][0-9]:[0-5][0-9]) ;;
  *) echo "backup: GOV_BACKUP_AT must be HH:MM (UTC), got '$at'" >&2; exit 2 ;;
esac
while :; do
  now=$(date -u +%s)
  next=$(date -u -d "today $at" +%s)
  [ "$next" -le "$now" ] && next=$(date -u -d "tomorrow $at" +%s)
  echo "backup: next run at $(date -u -d "@$next" +%Y-%m-%dT%H:%M:%SZ)"
  sleep $((next - now))
  "$backup" || echo "backup: run failed (exit $?); retrying tomorrow"
done
