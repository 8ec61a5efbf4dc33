#!/bin/sh
# sparktui launch plan: recipe llama-3.3-70b-ray on cluster 2nodes
# Generated; each command's argv is quoted for the remote shell, then the local one.
set -eu

# before serve on spark1
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.11 'sudo nvidia-smi -pm 1' </dev/null
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.11 'sudo sysctl -w vm.swappiness=10' </dev/null || printf '%s\n' 'warning: spark1: command sudo sysctl -w vm.swappiness=10 failed, continuing' >&2

# before serve on spark2
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.12 'sudo nvidia-smi -pm 1' </dev/null
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.12 'sudo sysctl -w vm.swappiness=10' </dev/null || printf '%s\n' 'warning: spark2: command sudo sysctl -w vm.swappiness=10 failed, continuing' >&2

# launch on spark1 (rank 0, head)
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.11 'docker run -d --name sparktui-llama-3.3-70b-ray --label sparktui.recipe=llama-3.3-70b-ray --label sparktui.cluster=2nodes --label sparktui.node=spark1 --label sparktui.rank=0 --label sparktui.role=head --label sparktui.port=8000 --label '"'"'sparktui.after_stop=[]'"'"' --label sparktui.mem_share=0.8 --gpus all --shm-size 32gb --network host --ulimit memlock=-1 --ulimit stack=67108864 --device /dev/infiniband -v /mnt/nas/ai/huggingface:/root/.cache/huggingface -e NCCL_IB_DISABLE=0 -e NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1 -e NCCL_IB_GID_INDEX=3 -e NCCL_SOCKET_IFNAME=enp1s0f1np1 -e GLOO_SOCKET_IFNAME=enp1s0f1np1 -e TP_SOCKET_IFNAME=enp1s0f1np1 -e MN_IF_NAME=enp1s0f1np1 -e UCX_NET_DEVICES=enp1s0f1np1 -e OMPI_MCA_btl_tcp_if_include=enp1s0f1np1 -e OMP_NUM_THREADS=4 -e NCCL_IGNORE_CPU_AFFINITY=1 -e NCCL_NET=IB -e NCCL_DEBUG=WARN -e VLLM_HOST_IP=192.168.100.11 -e VLLM_LOGGING_COLOR=1 -e TERM=xterm-256color -e RAY_ADDRESS=192.168.100.11:6379 -e RAY_PORT=6379 -e RAY_NODE_IP_ADDRESS=192.168.100.11 -e RAY_OVERRIDE_NODE_IP_ADDRESS=192.168.100.11 -e RAY_memory_monitor_refresh_ms=0 --entrypoint sh nvcr.io/nvidia/vllm:25.10-py3 -c '"'"'ray start --head --port=6379 --node-ip-address=192.168.100.11
python3 -c '"'"'"'"'"'"'"'"'import ray, sys, time
ray.init(address="auto", logging_level="ERROR")
while sum(n["Alive"] for n in ray.nodes()) < int(sys.argv[1]):
    time.sleep(2)
'"'"'"'"'"'"'"'"' 2
exec vllm serve nvidia/Llama-3.3-70B-Instruct-FP8 --tensor-parallel-size 2 --pipeline-parallel-size 1 --distributed-executor-backend ray --host 0.0.0.0 --port 8000 --served-model-name llama-3.3-70b --max-model-len 65536 --gpu-memory-utilization 0.8'"'"'' </dev/null

# launch on spark2 (rank 1, worker)
ssh -p 22 -i "$HOME"/.ssh/id_ed25519 -o UserKnownHostsFile="$HOME"/.config/sparktui/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.0.0.12 'docker run -d --name sparktui-llama-3.3-70b-ray --label sparktui.recipe=llama-3.3-70b-ray --label sparktui.cluster=2nodes --label sparktui.node=spark2 --label sparktui.rank=1 --label sparktui.role=worker --label sparktui.port=8000 --label '"'"'sparktui.after_stop=[]'"'"' --label sparktui.mem_share=0.8 --gpus all --shm-size 32gb --network host --ulimit memlock=-1 --ulimit stack=67108864 --device /dev/infiniband -v /mnt/nas/ai/huggingface:/root/.cache/huggingface -e NCCL_IB_DISABLE=0 -e NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1 -e NCCL_IB_GID_INDEX=3 -e NCCL_SOCKET_IFNAME=enp1s0f1np1 -e GLOO_SOCKET_IFNAME=enp1s0f1np1 -e TP_SOCKET_IFNAME=enp1s0f1np1 -e MN_IF_NAME=enp1s0f1np1 -e UCX_NET_DEVICES=enp1s0f1np1 -e OMPI_MCA_btl_tcp_if_include=enp1s0f1np1 -e OMP_NUM_THREADS=4 -e NCCL_IGNORE_CPU_AFFINITY=1 -e NCCL_NET=IB -e NCCL_DEBUG=WARN -e VLLM_HOST_IP=192.168.100.12 -e RAY_ADDRESS=192.168.100.11:6379 -e RAY_PORT=6379 -e RAY_NODE_IP_ADDRESS=192.168.100.12 -e RAY_OVERRIDE_NODE_IP_ADDRESS=192.168.100.12 -e RAY_memory_monitor_refresh_ms=0 --entrypoint ray nvcr.io/nvidia/vllm:25.10-py3 start --block --address=192.168.100.11:6379 --node-ip-address=192.168.100.12' </dev/null
