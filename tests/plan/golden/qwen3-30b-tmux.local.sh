#!/bin/sh
# sparktui launch plan: recipe qwen3-30b-tmux on cluster local
# Generated; each command's argv is quoted for the remote shell, then the local one.
set -eu

# launch on workstation (rank 0, head)
sh -c 'tmux new-session -e SPARKTUI_LABEL_RUN="$(od -An -N8 -tx1 /dev/urandom | tr -d '"'"' \n'"'"')" -d -s sparktui-qwen3-30b-tmux -e SPARKTUI_LABEL_RECIPE=qwen3-30b-tmux -e SPARKTUI_LABEL_CLUSTER=local -e SPARKTUI_LABEL_NODE=workstation -e SPARKTUI_LABEL_RANK=0 -e SPARKTUI_LABEL_ROLE=head -e SPARKTUI_LABEL_PORT=8000 -e '"'"'SPARKTUI_LABEL_AFTER_STOP=[]'"'"' -e SPARKTUI_LABEL_MEM_SHARE=0.7 -e OMP_NUM_THREADS=4 -e NCCL_IGNORE_CPU_AFFINITY=1 -e NCCL_DEBUG=WARN -e VLLM_HOST_IP=127.0.0.1 -e VLLM_LOGGING_COLOR=1 -e TERM=xterm-256color -- sh -c '"'"'mkdir -p "$HOME/.cache/sparktui"; exec 4>&1; s=$({ { "$@" 2>&1 3>&- 4>&-; echo $? >&3; } | tee "$HOME/.cache/sparktui/$0.log" >&4; } 3>&1); tmux set-option -p -t "$TMUX_PANE" @sparktui_exit "$s" 2>/dev/null; exit "$s"'"'"' sparktui-qwen3-30b-tmux /opt/vllm/.venv/bin/vllm serve Qwen/Qwen3-30B-A3B-Instruct-2507-FP8 --tensor-parallel-size 1 --pipeline-parallel-size 1 --host 0.0.0.0 --port 8000 --max-model-len 32768 --gpu-memory-utilization 0.7 '"'"';'"'"' set-option -w -t sparktui-qwen3-30b-tmux remain-on-exit on' </dev/null
