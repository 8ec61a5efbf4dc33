#!/bin/sh
# sparktui launch plan: recipe gpt-oss-120b-sglang on cluster 2nodes
# Generated; each command's argv is quoted for the remote shell, then the local one.
set -eu

# before serve on spark1
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.11 'sudo nvidia-smi -pm 1' </dev/null
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.11 'sudo sysctl -w vm.swappiness=10' </dev/null || printf '%s\n' 'warning: spark1: command sudo sysctl -w vm.swappiness=10 failed, continuing' >&2

# launch on spark1 (rank 0, head)
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.11 'docker run -d --name sparktui-gpt-oss-120b-sglang --label sparktui.recipe=gpt-oss-120b-sglang --label sparktui.cluster=2nodes --label sparktui.node=spark1 --label sparktui.rank=0 --label sparktui.role=head --label sparktui.port=30000 --label '"'"'sparktui.after_stop=[]'"'"' --label sparktui.mem_share=0.75 --gpus all --shm-size 16gb -p 30000:30000 -v /mnt/nas/ai/huggingface:/root/.cache/huggingface -e NCCL_IB_DISABLE=0 -e NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1 -e NCCL_IB_GID_INDEX=3 -e NCCL_SOCKET_IFNAME=enp1s0f1np1 -e GLOO_SOCKET_IFNAME=enp1s0f1np1 -e TP_SOCKET_IFNAME=enp1s0f1np1 -e MN_IF_NAME=enp1s0f1np1 -e UCX_NET_DEVICES=enp1s0f1np1 -e OMPI_MCA_btl_tcp_if_include=enp1s0f1np1 -e OMP_NUM_THREADS=4 -e NCCL_IGNORE_CPU_AFFINITY=1 -e NCCL_DEBUG=WARN -e SGLANG_WORKER_IP=192.168.100.11 -e TERM=xterm-256color lmsysorg/sglang:spark python3 -m sglang.launch_server --model-path openai/gpt-oss-120b --tp-size 1 --host 0.0.0.0 --port 30000 --enable-metrics --served-model-name gpt-oss-120b --mem-fraction-static 0.75 --reasoning-parser gpt-oss --tool-call-parser gpt-oss' </dev/null
