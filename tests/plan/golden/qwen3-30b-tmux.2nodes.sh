#!/bin/sh
# sparktui launch plan: recipe qwen3-30b-tmux on cluster 2nodes
# Generated; each command's argv is quoted for the remote shell, then the local one.
set -eu

# before serve on spark1
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.11 'sudo nvidia-smi -pm 1' </dev/null
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.11 'sudo sysctl -w vm.swappiness=10' </dev/null || printf '%s\n' 'warning: spark1: command sudo sysctl -w vm.swappiness=10 failed, continuing' >&2

# launch on spark1 (rank 0, head)
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.11 'tmux new-session -e SPARKTUI_LABEL_RUN="$(od -An -N8 -tx1 /dev/urandom | tr -d '"'"' \n'"'"')" -d -s sparktui-qwen3-30b-tmux -e SPARKTUI_LABEL_RECIPE=qwen3-30b-tmux -e SPARKTUI_LABEL_CLUSTER=2nodes -e SPARKTUI_LABEL_NODE=spark1 -e SPARKTUI_LABEL_RANK=0 -e SPARKTUI_LABEL_ROLE=head -e SPARKTUI_LABEL_PORT=8000 -e '"'"'SPARKTUI_LABEL_AFTER_STOP=[]'"'"' -e SPARKTUI_LABEL_MEM_SHARE=0.7 -e NCCL_IB_DISABLE=0 -e NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1 -e NCCL_IB_GID_INDEX=3 -e NCCL_SOCKET_IFNAME=enp1s0f1np1 -e GLOO_SOCKET_IFNAME=enp1s0f1np1 -e TP_SOCKET_IFNAME=enp1s0f1np1 -e MN_IF_NAME=enp1s0f1np1 -e UCX_NET_DEVICES=enp1s0f1np1 -e OMPI_MCA_btl_tcp_if_include=enp1s0f1np1 -e OMP_NUM_THREADS=4 -e NCCL_IGNORE_CPU_AFFINITY=1 -e NCCL_DEBUG=WARN -e VLLM_HOST_IP=192.168.100.11 -e VLLM_LOGGING_COLOR=1 -e TERM=xterm-256color -- sh -c '"'"'mkdir -p "$HOME/.cache/sparktui"; exec 4>&1; s=$({ { "$@" 2>&1 3>&- 4>&-; echo $? >&3; } | tee "$HOME/.cache/sparktui/$0.log" >&4; } 3>&1); exit "$s"'"'"' sparktui-qwen3-30b-tmux /opt/vllm/.venv/bin/vllm serve Qwen/Qwen3-30B-A3B-Instruct-2507-FP8 --tensor-parallel-size 1 --pipeline-parallel-size 1 --host 0.0.0.0 --port 8000 --max-model-len 32768 --gpu-memory-utilization 0.7 '"'"';'"'"' set-option -w -t sparktui-qwen3-30b-tmux remain-on-exit on' </dev/null
