#!/usr/bin/env bash
# Stop non-essential services on a DGX Spark node to free unified memory for a model.
# What was stopped is written to a state file so restore-dgx-services.sh puts back
# exactly that, and nothing the operator had stopped on purpose.
set -euo pipefail

STATE_DIR="${SPARKTUI_STATE_DIR:-/var/tmp/sparktui}"
STATE_FILE="$STATE_DIR/stopped-services"
SERVICES=(
  gdm.service
  cups.service
  cups-browsed.service
  snapd.service
  packagekit.service
  fwupd.service
  ModemManager.service
  bluetooth.service
  avahi-daemon.service
  unattended-upgrades.service
  docker-nvidia-ai-workbench.service
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo -n"; fi

mkdir -p "$STATE_DIR"
: > "$STATE_FILE.tmp"
for unit in "${SERVICES[@]}"; do
  if systemctl is-active --quiet "$unit" 2>/dev/null; then
    if $SUDO systemctl stop "$unit"; then
      echo "$unit" >> "$STATE_FILE.tmp"
      echo "stopped $unit"
    else
      echo "could not stop $unit" >&2
    fi
  fi
done
mv "$STATE_FILE.tmp" "$STATE_FILE"

# Give the freed page cache back to the GPU's unified memory pool.
sync
if $SUDO sh -c 'echo 3 > /proc/sys/vm/drop_caches' 2>/dev/null; then
  echo "dropped page cache"
fi
echo "free memory now: $(awk '/MemAvailable/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
