#!/bin/bash
# sparktui: recipe qwen3-235b-2node's launches on cluster shared, as steps of Slurm job 4242
set -eu

# before serve on spark-a3
srun --jobid=4242 --nodes=1 --ntasks=1 --nodelist=spark-a3 --overlap -- sh -c 'sudo nvidia-smi -lgc 2000' </dev/null
srun --jobid=4242 --nodes=1 --ntasks=1 --nodelist=spark-a3 --overlap -- sh -c 'bash -s' <<'SPARKTUI_SCRIPT_EOF' || printf '%s\n' 'warning: spark-a3: script stop_dgx_services failed, continuing' >&2
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

# before serve on spark-a4
srun --jobid=4242 --nodes=1 --ntasks=1 --nodelist=spark-a4 --overlap -- sh -c 'sudo nvidia-smi -lgc 2000' </dev/null
srun --jobid=4242 --nodes=1 --ntasks=1 --nodelist=spark-a4 --overlap -- sh -c 'bash -s' <<'SPARKTUI_SCRIPT_EOF' || printf '%s\n' 'warning: spark-a4: script stop_dgx_services failed, continuing' >&2
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

# launch on spark-a4 (rank 1, worker)
srun --jobid=4242 --nodes=1 --ntasks=1 --nodelist=spark-a4 --overlap -- sh -c 'docker run --label sparktui.run="$(od -An -N8 -tx1 /dev/urandom | tr -d '"'"' \n'"'"')" -d --name sparktui-qwen3-235b-2node --label sparktui.recipe=qwen3-235b-2node --label sparktui.cluster=shared --label sparktui.node=spark-a4 --label sparktui.rank=1 --label sparktui.role=worker --label sparktui.port=30000 --label '"'"'sparktui.after_stop=[["script","restore_dgx_services","warn"]]'"'"' --label sparktui.mem_share=0.85 --label sparktui.service= --label sparktui.service_type= --label sparktui.service_index= --label sparktui.start= --label sparktui.critical= --label sparktui.terminal= --label sparktui.pool= --label sparktui.readiness= --label sparktui.metrics= --gpus all --shm-size 64gb --network host --ulimit memlock=-1 --ulimit stack=67108864 --device /dev/infiniband -v /home/ops/.cache/huggingface:/root/.cache/huggingface -v /home/ops/.cache/vllm:/root/.cache/vllm -v /home/ops/.triton:/root/.triton -v /home/ops/.cache/flashinfer:/root/.cache/flashinfer -e NCCL_IB_DISABLE=0 -e NCCL_IB_HCA=rocep1s0f1 -e NCCL_SOCKET_IFNAME=enp1s0f1np1 -e GLOO_SOCKET_IFNAME=enp1s0f1np1 -e TP_SOCKET_IFNAME=enp1s0f1np1 -e MN_IF_NAME=enp1s0f1np1 -e UCX_NET_DEVICES=enp1s0f1np1 -e OMPI_MCA_btl_tcp_if_include=enp1s0f1np1 -e OMP_NUM_THREADS=4 -e NCCL_IGNORE_CPU_AFFINITY=1 -e NCCL_NET=IB -e NCCL_DEBUG=WARN -e VLLM_HOST_IP=192.168.200.14 -e VLLM_USE_FLASHINFER_MOE_FP4=1 nvcr.io/nvidia/vllm:25.10-py3 vllm serve nvidia/Qwen3-235B-A22B-FP4 --tensor-parallel-size 2 --pipeline-parallel-size 1 --nnodes 2 --node-rank 1 --master-addr 192.168.200.13 --master-port 29501 --headless --served-model-name qwen3-235b --max-model-len 32768 --gpu-memory-utilization 0.85 --kv-cache-dtype fp8 --enable-auto-tool-choice --tool-call-parser hermes' </dev/null

# launch on spark-a3 (rank 0, head)
srun --jobid=4242 --nodes=1 --ntasks=1 --nodelist=spark-a3 --overlap -- sh -c 'docker run --label sparktui.run="$(od -An -N8 -tx1 /dev/urandom | tr -d '"'"' \n'"'"')" -d --name sparktui-qwen3-235b-2node --label sparktui.recipe=qwen3-235b-2node --label sparktui.cluster=shared --label sparktui.node=spark-a3 --label sparktui.rank=0 --label sparktui.role=head --label sparktui.port=30000 --label '"'"'sparktui.after_stop=[["script","restore_dgx_services","warn"]]'"'"' --label sparktui.mem_share=0.85 --label sparktui.service= --label sparktui.service_type= --label sparktui.service_index= --label sparktui.start= --label sparktui.critical= --label sparktui.terminal= --label sparktui.pool= --label sparktui.readiness= --label sparktui.metrics= --gpus all --shm-size 64gb --network host --ulimit memlock=-1 --ulimit stack=67108864 --device /dev/infiniband -v /home/ops/.cache/huggingface:/root/.cache/huggingface -v /home/ops/.cache/vllm:/root/.cache/vllm -v /home/ops/.triton:/root/.triton -v /home/ops/.cache/flashinfer:/root/.cache/flashinfer -e NCCL_IB_DISABLE=0 -e NCCL_IB_HCA=rocep1s0f1 -e NCCL_SOCKET_IFNAME=enp1s0f1np1 -e GLOO_SOCKET_IFNAME=enp1s0f1np1 -e TP_SOCKET_IFNAME=enp1s0f1np1 -e MN_IF_NAME=enp1s0f1np1 -e UCX_NET_DEVICES=enp1s0f1np1 -e OMPI_MCA_btl_tcp_if_include=enp1s0f1np1 -e OMP_NUM_THREADS=4 -e NCCL_IGNORE_CPU_AFFINITY=1 -e NCCL_NET=IB -e NCCL_DEBUG=WARN -e VLLM_HOST_IP=192.168.200.13 -e VLLM_LOGGING_COLOR=1 -e TERM=xterm-256color -e VLLM_USE_FLASHINFER_MOE_FP4=1 nvcr.io/nvidia/vllm:25.10-py3 vllm serve nvidia/Qwen3-235B-A22B-FP4 --tensor-parallel-size 2 --pipeline-parallel-size 1 --nnodes 2 --node-rank 0 --master-addr 192.168.200.13 --master-port 29501 --host 0.0.0.0 --port 30000 --served-model-name qwen3-235b --max-model-len 32768 --gpu-memory-utilization 0.85 --kv-cache-dtype fp8 --enable-auto-tool-choice --tool-call-parser hermes' </dev/null
