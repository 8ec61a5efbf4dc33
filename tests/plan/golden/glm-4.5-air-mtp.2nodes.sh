#!/bin/sh
# sparktui launch plan: recipe glm-4.5-air-mtp on cluster 2nodes
# Generated; each command's argv is quoted for the remote shell, then the local one.
set -eu
# HF references {{mtp_draft}} are resolved per node by `sparktui serve`;
# this script passes them through unresolved.

# before serve on spark1
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.11 'sudo nvidia-smi -pm 1' </dev/null
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.11 'sudo sysctl -w vm.swappiness=10' </dev/null || printf '%s\n' 'warning: spark1: command sudo sysctl -w vm.swappiness=10 failed, continuing' >&2
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.11 'bash -s' <<'SPARKTUI_SCRIPT_EOF' || printf '%s\n' 'warning: spark1: script stop_dgx_services failed, continuing' >&2
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
SPARKTUI_SCRIPT_EOF

# before serve on spark2
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.12 'sudo nvidia-smi -pm 1' </dev/null
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.12 'sudo sysctl -w vm.swappiness=10' </dev/null || printf '%s\n' 'warning: spark2: command sudo sysctl -w vm.swappiness=10 failed, continuing' >&2
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.12 'bash -s' <<'SPARKTUI_SCRIPT_EOF' || printf '%s\n' 'warning: spark2: script stop_dgx_services failed, continuing' >&2
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
SPARKTUI_SCRIPT_EOF

# launch on spark2 (rank 1, worker)
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.12 'docker run --label sparktui.run="$(od -An -N8 -tx1 /dev/urandom | tr -d '"'"' \n'"'"')" -d --name sparktui-glm-4.5-air-mtp --label sparktui.recipe=glm-4.5-air-mtp --label sparktui.cluster=2nodes --label sparktui.node=spark2 --label sparktui.rank=1 --label sparktui.role=worker --label sparktui.port=30000 --label '"'"'sparktui.after_stop=[["script","restore_dgx_services","warn"]]'"'"' --label sparktui.mem_share=0.9 --label sparktui.service= --label sparktui.service_type= --label sparktui.service_index= --label sparktui.start= --label sparktui.critical= --label sparktui.terminal= --label sparktui.pool= --label sparktui.readiness= --label sparktui.metrics= --gpus all --shm-size 64gb --network host --ulimit memlock=-1 --ulimit stack=67108864 --device /dev/infiniband -v /mnt/nas/ai/huggingface:/root/.cache/huggingface -v /home/ops/.cache/vllm:/root/.cache/vllm -v /home/ops/.triton:/root/.triton -v /mnt/nas/ai/jit:/root/.cache/flashinfer -v /opt/sparktui/patches:/patches:ro -e NCCL_IB_DISABLE=0 -e NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1 -e NCCL_IB_GID_INDEX=3 -e NCCL_SOCKET_IFNAME=enp1s0f1np1 -e GLOO_SOCKET_IFNAME=enp1s0f1np1 -e TP_SOCKET_IFNAME=enp1s0f1np1 -e MN_IF_NAME=enp1s0f1np1 -e UCX_NET_DEVICES=enp1s0f1np1 -e OMPI_MCA_btl_tcp_if_include=enp1s0f1np1 -e OMP_NUM_THREADS=4 -e NCCL_IGNORE_CPU_AFFINITY=1 -e NCCL_NET=IB -e NCCL_DEBUG=WARN -e VLLM_HOST_IP=192.168.100.12 -e FLASHINFER_WORKSPACE_BASE=/root/.cache/flashinfer -e VLLM_ATTENTION_BACKEND=FLASHINFER --entrypoint sh nvcr.io/nvidia/vllm:25.10-py3 -c '"'"'echo '"'"'"'"'"'"'"'"'sparktui: mod 1/2: pip install --no-deps /patches/vllm_glm_fixes-0.1-py3-none-any.whl'"'"'"'"'"'"'"'"'
{ pip install --no-deps /patches/vllm_glm_fixes-0.1-py3-none-any.whl
} || { echo '"'"'"'"'"'"'"'"'sparktui: mod 1/2 failed: pip install --no-deps /patches/vllm_glm_fixes-0.1-py3-none-any.whl'"'"'"'"'"'"'"'"' >&2; exit 1; }
echo '"'"'"'"'"'"'"'"'sparktui: mod 2/2: python3 /patches/check_sm121.py'"'"'"'"'"'"'"'"'
{ python3 /patches/check_sm121.py
} || echo '"'"'"'"'"'"'"'"'sparktui: mod 2/2 failed: python3 /patches/check_sm121.py (continuing)'"'"'"'"'"'"'"'"' >&2
exec vllm serve zai-org/GLM-4.5-Air-FP8 --tensor-parallel-size 2 --pipeline-parallel-size 1 --nnodes 2 --node-rank 1 --master-addr 192.168.100.11 --master-port 29501 --headless --served-model-name glm-4.5-air --speculative-config '"'"'"'"'"'"'"'"'{"method": "mtp", "model": "{{mtp_draft}}", "num_speculative_tokens": 1}'"'"'"'"'"'"'"'"' --reasoning-parser glm45 --tool-call-parser glm45 --enable-auto-tool-choice'"'"'' </dev/null

# launch on spark1 (rank 0, head)
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.11 'docker run --label sparktui.run="$(od -An -N8 -tx1 /dev/urandom | tr -d '"'"' \n'"'"')" -d --name sparktui-glm-4.5-air-mtp --label sparktui.recipe=glm-4.5-air-mtp --label sparktui.cluster=2nodes --label sparktui.node=spark1 --label sparktui.rank=0 --label sparktui.role=head --label sparktui.port=30000 --label '"'"'sparktui.after_stop=[["script","restore_dgx_services","warn"]]'"'"' --label sparktui.mem_share=0.9 --label sparktui.service= --label sparktui.service_type= --label sparktui.service_index= --label sparktui.start= --label sparktui.critical= --label sparktui.terminal= --label sparktui.pool= --label sparktui.readiness= --label sparktui.metrics= --gpus all --shm-size 64gb --network host --ulimit memlock=-1 --ulimit stack=67108864 --device /dev/infiniband -v /mnt/nas/ai/huggingface:/root/.cache/huggingface -v /home/ops/.cache/vllm:/root/.cache/vllm -v /home/ops/.triton:/root/.triton -v /mnt/nas/ai/jit:/root/.cache/flashinfer -v /opt/sparktui/patches:/patches:ro -e NCCL_IB_DISABLE=0 -e NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1 -e NCCL_IB_GID_INDEX=3 -e NCCL_SOCKET_IFNAME=enp1s0f1np1 -e GLOO_SOCKET_IFNAME=enp1s0f1np1 -e TP_SOCKET_IFNAME=enp1s0f1np1 -e MN_IF_NAME=enp1s0f1np1 -e UCX_NET_DEVICES=enp1s0f1np1 -e OMPI_MCA_btl_tcp_if_include=enp1s0f1np1 -e OMP_NUM_THREADS=4 -e NCCL_IGNORE_CPU_AFFINITY=1 -e NCCL_NET=IB -e NCCL_DEBUG=WARN -e VLLM_HOST_IP=192.168.100.11 -e VLLM_LOGGING_COLOR=1 -e TERM=xterm-256color -e FLASHINFER_WORKSPACE_BASE=/root/.cache/flashinfer -e VLLM_ATTENTION_BACKEND=FLASHINFER --entrypoint sh nvcr.io/nvidia/vllm:25.10-py3 -c '"'"'echo '"'"'"'"'"'"'"'"'sparktui: mod 1/2: pip install --no-deps /patches/vllm_glm_fixes-0.1-py3-none-any.whl'"'"'"'"'"'"'"'"'
{ pip install --no-deps /patches/vllm_glm_fixes-0.1-py3-none-any.whl
} || { echo '"'"'"'"'"'"'"'"'sparktui: mod 1/2 failed: pip install --no-deps /patches/vllm_glm_fixes-0.1-py3-none-any.whl'"'"'"'"'"'"'"'"' >&2; exit 1; }
echo '"'"'"'"'"'"'"'"'sparktui: mod 2/2: python3 /patches/check_sm121.py'"'"'"'"'"'"'"'"'
{ python3 /patches/check_sm121.py
} || echo '"'"'"'"'"'"'"'"'sparktui: mod 2/2 failed: python3 /patches/check_sm121.py (continuing)'"'"'"'"'"'"'"'"' >&2
exec vllm serve zai-org/GLM-4.5-Air-FP8 --tensor-parallel-size 2 --pipeline-parallel-size 1 --nnodes 2 --node-rank 0 --master-addr 192.168.100.11 --master-port 29501 --host 0.0.0.0 --port 30000 --served-model-name glm-4.5-air --speculative-config '"'"'"'"'"'"'"'"'{"method": "mtp", "model": "{{mtp_draft}}", "num_speculative_tokens": 1}'"'"'"'"'"'"'"'"' --reasoning-parser glm45 --tool-call-parser glm45 --enable-auto-tool-choice'"'"'' </dev/null
