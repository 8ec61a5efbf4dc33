"""Tests of the simulated SSH test hosts themselves (tests/hosts)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
import tomllib

import asyncssh
import httpx
import pytest
from hosts import procs
from hosts.sshd import free_port
from lookalike import Why
from polling import eventually, eventually_async
from prometheus_client.parser import text_string_to_metric_families

# A look-alike, not the real vLLM (tests/lookalike.py): these tests check the test hosts and their
# look-alike engine.
LOOKALIKE = Why.TESTBED

IMAGE = "vllm:test"  # runs the command it is given, like NVIDIA's vLLM images


def run_engine(node, name: str = "eng", *env: str, port: int | None = None) -> int:
    port = port or free_port(node.addr)
    args = ["run", "-d", "--name", name, "-p", f"{port}:{port}", "--label", "sparktui.role=head"]
    for e in env:
        args += ["-e", e]
    r = node.run_standin("docker", *args, IMAGE, "vllm", "serve", "Qwen/Qwen3-0.6B",
                         "--served-model-name", "qwen", "--port", str(port))
    assert r.returncode == 0, r.stderr
    return port


def test_each_node_has_its_own_env(test_cluster):
    cluster = test_cluster(n=2)
    addrs = {n.addr for n in cluster.nodes}
    assert len(addrs) == 2 and all(a.startswith("127.") for a in addrs)
    for node in cluster.nodes:
        r = cluster.ssh(node, "echo $SPARKTUI_NODE_NAME $SPARKTUI_NODE_ADDR; command -v docker;"
                              " echo $TMUX_TMPDIR; pwd")
        assert r.returncode == 0, r.stderr
        name_addr, docker, tmux_dir, cwd = r.stdout.split("\n")[:4]
        assert name_addr == f"{node.name} {node.addr}"
        assert docker == str(cluster.bin_dir / "docker")
        assert tmux_dir == str(node.state_dir / "tmux")
        assert cwd == str(node.home)
        # a login shell (no command, like an interactive ssh) still gets the stand-ins
        r = subprocess.run(cluster.ssh_argv(node), input="command -v docker nvidia-smi\n",
                           capture_output=True, text=True, timeout=20)
        assert r.stdout.split() == [str(cluster.bin_dir / p) for p in ("docker", "nvidia-smi")]


async def test_asyncssh_env_and_max_sessions(test_cluster):
    cluster = test_cluster(n=2)
    for node in cluster.nodes:
        async with await cluster.connect(node) as conn:
            r = await conn.run("echo $SPARKTUI_NODE_NAME; nvidia-smi --query-gpu=name "
                               "--format=csv,noheader", check=True)
            assert r.stdout.split("\n")[:2] == [node.name, "NVIDIA GB10"]
    # OpenSSH's default MaxSessions 10 is kept: the 11th concurrent session is refused
    async with await cluster.connect(cluster.nodes[0]) as conn:
        held = [await conn.create_process("sleep 20") for _ in range(10)]
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.create_process("true")
        for p in held:
            p.close()


async def test_docker_run_and_ps_on_the_nodes_own_dockerd(test_cluster):
    cluster = test_cluster(n=2)
    node, other = cluster.nodes
    async with await cluster.connect(node) as conn:

        async def sh(cmd: str):
            return await conn.run(cmd)

        r = await sh("docker run -d --name c1 --label sparktui.cluster=test "
                     "--label=sparktui.role=head -e A=1 --gpus all --ipc=host --ulimit "
                     "memlock=-1 --network host busybox:1 sleep 30")
        assert r.exit_status == 0 and len(r.stdout.strip()) == 64, r.stderr
        r = await sh("docker ps --filter label=sparktui.cluster=test --format '{{json .}}'")
        rows = [json.loads(line) for line in r.stdout.splitlines()]
        assert len(rows) == 1 and rows[0]["Names"] == "c1" and rows[0]["State"] == "running"
        assert sorted(rows[0]["Labels"].split(",")) == ["sparktui.cluster=test",
                                                         "sparktui.role=head"]
        assert rows[0]["Status"].startswith("Up ") and rows[0]["Image"] == "busybox:1"
        r = await sh("docker inspect --format '{{.State.Status}} {{index .Config.Labels "
                     "\"sparktui.role\"}}' c1; docker ps --filter label=nope -q | wc -l")
        assert r.stdout.split() == ["running", "head", "0"]
        # conflicts and missing images fail like docker (exit 125); no pull leaves here
        assert (await sh("docker run -d --name c1 busybox:1 true")).exit_status == 125
        node.remove_image("busybox:1")
        r = await sh("docker run -d --name c2 busybox:1 true")
        assert r.exit_status == 125 and "Unable to find image" in r.stderr
        assert node.recorded_docker()[0][:4] == ["docker", "run", "-d", "--name"]
        # sleep as PID 1 ignores SIGTERM: docker stop waits the grace, then SIGKILL
        r = await sh("docker stop -t 1 c1 && docker ps -a --format '{{.Names}} {{.Status}}' "
                     "&& docker rm c1 && docker ps -aq | wc -l")
        assert r.stdout.split("\n")[0] == "c1"
        assert r.stdout.split("\n")[1].startswith("c1 Exited (137) ")
        assert r.stdout.split("\n")[2:4] == ["c1", "0"]
    # each node has a daemon of its own
    assert cluster.ssh(other, "docker ps -aq").stdout == ""
    assert cluster.ssh(other, "echo $DOCKER_HOST").stdout.strip() == other.daemon.host


def test_bad_docker_flag_rejected_like_docker(test_cluster):
    cluster = test_cluster(n=1)
    r = cluster.ssh(cluster.nodes[0], f"docker run --bogus-flag x {IMAGE}")
    assert r.returncode == 125 and "unknown flag: --bogus-flag" in r.stderr
    assert not cluster.nodes[0].containers()


async def test_logs_follow_ends_with_container(test_cluster):
    cluster = test_cluster(n=1)
    node = cluster.nodes[0]
    run_engine(node, "eng", "STANDIN_LOG_INTERVAL=0.1")
    async with await cluster.connect(node) as conn:
        proc = await conn.create_process("docker logs -f --tail 2 eng")
        # the deadlines bound a hang on a loaded machine; they are no speed goal
        first = await asyncio.wait_for(proc.stdout.readline(), 60)
        assert first.strip()
        await conn.run("docker stop -t 2 eng", check=True)
        result = await asyncio.wait_for(proc.wait(), 60)
        assert result.exit_status == 0
        assert "Shutting down" in result.stdout.splitlines()[-1]
    assert node.containers()["eng"]["State"]["ExitCode"] == 143  # SIGTERM, handled


async def test_a_follower_of_a_quiet_container_ends_with_its_channel(test_cluster):
    """The real docker client follows on after its channel closes (OpenSSH's sshd ignores
    signal requests): sparktui's streams end it through the channel's stdin."""
    from sparktui.engine.remote.transport import ended_with_channel

    cluster = test_cluster(n=1)
    node = cluster.nodes[0]
    run_engine(node, "quiet", "STANDIN_LOG_INTERVAL=3600")
    async with await cluster.connect(node) as conn:
        proc = await conn.create_process(ended_with_channel("exec docker logs -f quiet"))
        await asyncio.wait_for(proc.stdout.readline(), 15)
        assert node.processes("docker logs -f quiet")
        proc.stdin.write_eof()
        proc.close()
        await proc.wait_closed()
        eventually(lambda: not node.processes("docker logs"), 10, "the follower ended")


async def test_engine_through_direct_tcpip(test_cluster):
    cluster = test_cluster(n=2)
    node = cluster.nodes[1]
    port = run_engine(node, "eng", "STANDIN_READY_AFTER=1.0")
    async with await cluster.connect(node) as conn:
        listener = await conn.forward_local_port("127.0.0.1", 0, node.addr, port)
        url = f"http://127.0.0.1:{listener.get_port()}"
        async with httpx.AsyncClient(base_url=url, timeout=5) as http:

            async def models():
                try:
                    return await http.get("/v1/models")
                except httpx.TransportError:
                    return None

            # like vLLM, nothing listens while the model loads
            assert await models() is None

            async def ready():
                r = await models()
                return r if r is not None and r.status_code == 200 else None

            r = await eventually_async(ready, 15, "the engine's /v1/models")
            assert r.json()["data"][0]["id"] == "qwen"
            c = await http.post("/v1/completions", json={"model": "qwen", "prompt": "hi there"})
            assert c.json()["usage"]["completion_tokens"] == 1
            chunks = []
            async with http.stream("POST", "/v1/chat/completions", json={
                    "model": "qwen", "max_tokens": 3, "stream": True,
                    "messages": [{"role": "user", "content": "hi"}]}) as streamed:
                async for line in streamed.aiter_lines():
                    if line.startswith("data: "):
                        chunks.append(line[6:])
            assert chunks[-1] == "[DONE]" and len(chunks) == 4  # one chunk per token
        listener.close()
        # raw direct-tcpip channel as the engine's health checks use it
        reader, writer = await conn.open_connection(node.addr, port)
        writer.write(f"GET /health HTTP/1.1\r\nHost: {node.addr}\r\n\r\n".encode())
        assert (await asyncio.wait_for(reader.readline(), 30)).startswith(b"HTTP/1.1 200")
        writer.close()


def scrape(url: str) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for fam in text_string_to_metric_families(httpx.get(url, timeout=5).text):
        for s in fam.samples:
            key = s.name + ("" if "le" not in s.labels else f"|{s.labels['le']}")
            out.setdefault(key, {})[s.labels.get("finished_reason", "")] = s.value
    return out


def test_metrics_follow_engine_json(test_cluster):
    cluster = test_cluster(n=1)
    node = cluster.nodes[0]
    node.set_engine(running=2, waiting=1, kv=0.42, prompt_tps=1000, gen_tps=50, ttft=0.12,
                    tpot=0.03, rps=4)
    port = run_engine(node, "eng", "STANDIN_READY_AFTER=0")
    url = f"http://{node.addr}:{port}/metrics"
    eventually(lambda: _try_scrape(url), 15, "the engine's /metrics")
    a, t0 = scrape(url), time.monotonic()
    time.sleep(1.0)
    b, t1 = scrape(url), time.monotonic()
    assert b["vllm:num_requests_running"][""] == 2 and b["vllm:num_requests_waiting"][""] == 1
    assert b["vllm:kv_cache_usage_perc"][""] == 0.42
    assert "vllm:gpu_cache_usage_perc" not in b  # gone since vLLM 0.12

    def rate(name: str, label: str = "") -> float:
        return (b[name][label] - a[name][label]) / (t1 - t0)

    assert rate("vllm:prompt_tokens_total") == pytest.approx(1000, rel=0.15)
    assert rate("vllm:generation_tokens_total") == pytest.approx(50, rel=0.15)
    assert rate("vllm:request_success_total", "stop") == pytest.approx(4, rel=0.5)
    for name, value in (("time_to_first_token", 0.12), ("inter_token_latency", 0.03)):
        count = b[f"vllm:{name}_seconds_count"][""]
        assert count > 0
        assert b[f"vllm:{name}_seconds_sum"][""] / count == pytest.approx(value)
    ttft_count = b["vllm:time_to_first_token_seconds_count"][""]
    assert b["vllm:time_to_first_token_seconds_bucket|0.25"][""] == ttft_count
    assert b["vllm:time_to_first_token_seconds_bucket|0.1"][""] == 0


def _try_scrape(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.TransportError:
        return False


def test_the_image_compiles_nothing_at_start(test_cluster):
    # The bytecode in the image is what Python uses: a module compiled again in each new
    # container cost every engine start a third of a second of CPU (tests/hosts/testimage).
    node = test_cluster(n=1).nodes[0]
    r = node.docker("run", "--rm", "--entrypoint", "sh", IMAGE, "-c",
                    "touch /tmp/mark; sleep 1; python3 -c 'import sparktest.engine, "
                    "sparktest.services, sparktest.ray_cli'; "
                    "find / -xdev -name '*.pyc' -newer /tmp/mark")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == []


def test_container_exit_after(test_cluster):
    cluster = test_cluster(n=1)
    node = cluster.nodes[0]
    r = cluster.ssh(node, f"docker run -d --name dies -e STANDIN_EXIT_AFTER=0.3 "
                          f"-e STANDIN_EXIT_CODE=3 {IMAGE} vllm serve m")
    assert r.returncode == 0, r.stderr

    def status():
        out = node.run_standin("docker", "ps", "-a", "--format", "{{.Status}}").stdout
        return out if out.startswith("Exited") else ""

    assert eventually(status, 15, "the container exited").startswith("Exited (3) ")
    r = cluster.ssh(node, "docker inspect --format '{{json .State}}' dies; docker ps -q | wc -l;"
                          " docker logs dies 2>&1 | tail -1")
    state_line, running, last = r.stdout.splitlines()
    state = json.loads(state_line)
    assert state["Status"] == "exited" and state["ExitCode"] == 3 and not state["Running"]
    assert running == "0" and "CUDA out of memory" in last


async def test_hang_and_resume(fresh_cluster):
    cluster = fresh_cluster(n=1)
    node = cluster.nodes[0]
    node.hang()
    with pytest.raises((asyncio.TimeoutError, asyncssh.Error, OSError)):
        await cluster.connect(node, connect_timeout=0.5)
    node.resume()
    async with await cluster.connect(node) as conn:
        assert (await conn.run("echo ok")).stdout == "ok\n"


async def test_kill_start_and_rotate_host_key(fresh_cluster):
    cluster = fresh_cluster(n=2)
    node = cluster.nodes[0]
    old_known_hosts = cluster.known_hosts_lines()
    node.kill()
    with pytest.raises(ConnectionRefusedError):
        await cluster.connect(node)
    r = cluster.ssh(node, "true")
    assert r.returncode == 255 and "Connection refused" in r.stderr
    node.start()
    assert cluster.ssh(node, "echo back").stdout == "back\n"
    node.rotate_host_key()
    assert cluster.known_hosts_lines() != old_known_hosts
    with pytest.raises(asyncssh.HostKeyNotVerifiable):
        await cluster.connect(node, known_hosts=asyncssh.import_known_hosts(
            "\n".join(old_known_hosts)))
    kh = cluster.root / "old_known_hosts"
    kh.write_text("\n".join(old_known_hosts) + "\n")
    argv = cluster.ssh_argv(node, "true")
    argv[argv.index(next(a for a in argv if a.startswith("UserKnownHostsFile=")))] = (
        f"UserKnownHostsFile={kh}")
    r = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    assert r.returncode == 255 and "HOST IDENTIFICATION HAS CHANGED" in r.stderr
    assert cluster.ssh(node, "echo new").stdout == "new\n"  # current keys work


def test_tmux_server_and_pgrep_per_node(fresh_cluster):
    cluster = fresh_cluster(n=2)
    n1, n2 = cluster.nodes
    r = cluster.ssh(n1, "tmux new-session -d -s job 'sleep 60' && tmux has-session -t job "
                        "&& pgrep -af '^[s]leep 60'")
    assert r.returncode == 0 and r.stdout.split()[1:] == ["sleep", "60"], r.stderr
    assert list((n1.state_dir / "tmux").glob("tmux-*/default"))
    # node2 has its own tmux server, and pgrep/pkill there only see node2's processes
    r = cluster.ssh(n2, "tmux has-session -t job; echo $?; pgrep -f '[s]leep 60'; echo $?; "
                        "pkill -f '[s]leep 60'; echo $?")
    assert r.stdout.split() == ["1", "1", "1"]
    assert [cmd for _, cmd in n1.processes("^sleep 60")] == ["sleep 60"]
    cluster.stop()  # kills the tmux server too; nothing of the cluster is left
    assert not procs.pids_with_env("SPARKTUI_NODE_STATE", str(cluster.root))
    assert not cluster.root.exists()


def test_a_log_flood_arrives_whole(test_cluster):
    """Every line of a flood reaches `docker logs -f` over SSH (the speed is measured by
    benchmarks/bench_logs_pane.py, not asserted here)."""
    cluster = test_cluster(n=1)
    node = cluster.nodes[0]
    lines = 50_000
    r = node.run_standin("docker", "run", "-d", "--name", "flood", "-e",
                         f"STANDIN_LOG_FLOOD={lines}", IMAGE, "vllm", "serve", "m")
    assert r.returncode == 0, r.stderr
    argv = cluster.ssh_argv(node, "docker logs -f flood")
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL) as p:
        seen = 0
        for line in p.stdout:
            seen += b"flood line" in line
            if seen >= lines:
                break
        p.kill()
    assert seen == lines


def test_write_config_and_standins(test_cluster, tmp_path):
    cluster = test_cluster(n=2)
    path = cluster.write_config(tmp_path / "config.toml", prefill_known_hosts=True,
                                extra_toml='[ui]\nlanguage = "en"')
    cfg = tomllib.loads(path.read_text())
    assert cfg["ssh_user"] == cluster.user and cfg["ssh_key_path"] == str(cluster.key_path)
    assert cfg["known_hosts_path"] == str(cluster.known_hosts_path)
    (c,) = cfg["clusters"]
    assert c["name"] == "test" and c["master_ib_ip"] == cluster.nodes[0].addr
    assert [(n["name"], n["ssh_port"], n["rank"]) for n in c["nodes"]] == [
        (n.name, n.port, i) for i, n in enumerate(cluster.nodes)]
    assert cfg["nccl"]["test"]["socket_ifname"] == "lo" and cfg["ui"]["language"] == "en"
    assert cluster.known_hosts_path.read_text().splitlines() == cluster.known_hosts_lines()
    node = cluster.nodes[1]
    node.set_gpu(fail=True)
    r = cluster.ssh(node, "nvidia-smi; echo rc=$?; sudo -n docker version --format "
                          "'{{.Server.Version}}'")
    assert "rc=9\n20.10" in r.stdout  # the real daemon: Debian's docker.io
    assert node.recorded_sudo() == [["sudo", "-n", "docker", "version", "--format",
                                     "{{.Server.Version}}"]]


def test_shared_cluster_reset(shared_cluster):
    n1, n2 = shared_cluster.nodes
    n1.run_standin("docker", "run", "-d", "--name", "left", "busybox:1", "sleep", "60")
    n1.set_gpu(fail=True)
    n2.kill()
    shared_cluster.reset()
    assert not n1.containers() and not n1.recorded_docker() and not n1.processes()
    assert "NVIDIA GB10" in shared_cluster.ssh(n1, "nvidia-smi -L").stdout
    assert shared_cluster.ssh(n2, "echo up").stdout == "up\n"
