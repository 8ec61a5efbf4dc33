#!/usr/bin/env bash
# Restart the services that stop-dgx-services.sh stopped on this node, in order.
set -euo pipefail

STATE_DIR="${SPARKTUI_STATE_DIR:-/var/tmp/sparktui}"
STATE_FILE="$STATE_DIR/stopped-services"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo -n"; fi

if [ ! -s "$STATE_FILE" ]; then
  echo "nothing to restore"
  exit 0
fi

failed=0
while IFS= read -r unit; do
  [ -n "$unit" ] || continue
  if $SUDO systemctl start "$unit"; then
    echo "started $unit"
  else
    echo "could not start $unit" >&2
    failed=1
  fi
done < "$STATE_FILE"

if [ "$failed" -eq 0 ]; then rm -f "$STATE_FILE"; fi
exit "$failed"
