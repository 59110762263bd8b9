#!/bin/sh
# The `backup` compose service: run scripts/backup.sh once a day at
# GOV_BACKUP_AT (UTC, HH:MM, default 03:17), forever. A failed run is logged
# and retried the next day; the dumps already there are kept.
set -u
at="${GOV_BACKUP_AT:-03:17}"
while :; do
  now=$(date -u +%s)
  next=$(date -u -d "today $at" +%s)
  [ "$next" -le "$now" ] && next=$(date -u -d "tomorrow $at" +%s)
  echo "backup: next run at $(date -u -d "@$next" +%Y-%m-%dT%H:%M:%SZ)"
  sleep $((next - now))
  /usr/local/bin/gov-backup || echo "backup: run failed (exit $?); retrying tomorrow"
done
