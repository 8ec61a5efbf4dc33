#!/bin/sh
# sparktui launch plan: recipe gpt-oss-120b-sglang on cluster local
# Generated; each command's argv is quoted for the remote shell, then the local one.
set -eu

# launch on workstation (rank 0, head)
sh -c 'docker run --label sparktui.run="$(od -An -N8 -tx1 /dev/urandom | tr -d '"'"' \n'"'"')" -d --name sparktui-gpt-oss-120b-sglang --label sparktui.recipe=gpt-oss-120b-sglang --label sparktui.cluster=local --label sparktui.node=workstation --label sparktui.rank=0 --label sparktui.role=head --label sparktui.port=30000 --label '"'"'sparktui.after_stop=[]'"'"' --label sparktui.mem_share=0.75 --label sparktui.service= --label sparktui.service_type= --label sparktui.service_index= --label sparktui.start= --label sparktui.critical= --label sparktui.terminal= --label sparktui.pool= --label sparktui.readiness= --label sparktui.metrics= --gpus all --shm-size 16gb -p 30000:30000 -v /home/operator/.cache/huggingface:/root/.cache/huggingface -e OMP_NUM_THREADS=4 -e NCCL_IGNORE_CPU_AFFINITY=1 -e NCCL_DEBUG=WARN -e SGLANG_WORKER_IP=127.0.0.1 -e TERM=xterm-256color lmsysorg/sglang:spark python3 -m sglang.launch_server --model-path openai/gpt-oss-120b --tp-size 1 --host 0.0.0.0 --port 30000 --enable-metrics --served-model-name gpt-oss-120b --mem-fraction-static 0.75 --reasoning-parser gpt-oss --tool-call-parser gpt-oss' </dev/null
