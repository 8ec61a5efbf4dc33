"""doctor's hints fit the error they follow (#29 item 10): a missing nvidia-smi is not
"check the driver with nvidia-smi", and a local node, which uses no SSH, has no ssh line."""

from __future__ import annotations

from sparktui.config.models import Node
from sparktui.engine.doctor import FAIL, PASS, evaluate

REMOTE = Node(name="spark1", ssh_ip="10.0.0.1", rank=0)
LOCAL = Node(name="vm", ssh_ip="127.0.0.1", rank=0, local=True)


def _checks(node: Node, gpu: str) -> dict[str, object]:
    out = f"@@docker\n28.2.2\n@@gpu\n{gpu}\n@@clock\n100.0\n"
    return {c.name: c for c in evaluate(node, out, 100.0, 100.026, "", "/hf")}


def test_a_missing_nvidia_smi_is_told_to_install_the_driver_not_to_run_it() -> None:
    gpu = _checks(REMOTE, "bash: line 1: nvidia-smi: command not found")["gpu"]
    assert gpu.status == FAIL
    assert "check the driver with nvidia-smi" not in str(gpu.hint)
    assert "not on" in str(gpu.hint) and "install" in str(gpu.hint), gpu.hint


def test_a_failing_nvidia_smi_is_told_to_check_the_driver() -> None:
    gpu = _checks(REMOTE, "NVIDIA-SMI has failed because it couldn't communicate with the "
                  "NVIDIA driver.")["gpu"]
    assert gpu.status == FAIL and "nvidia-smi" in str(gpu.hint) and "reboot" in str(gpu.hint)


def test_the_gpu_runtime_check_reads_what_the_probe_said() -> None:
    def runtime(said: str):
        out = f"@@docker\n28.2.2\n@@gpu\nNVIDIA GB10\n@@gpus\n{said}\n@@clock\n100.0\n"
        return {c.name: c for c in evaluate(REMOTE, out, 100.0, 100.0, "", "/hf")
                }.get("gpu runtime")

    assert runtime("sparktui-gpus-ok").status == PASS
    assert runtime("docker: Error response from daemon: failed to create task: exec: "
                   '"true": executable file not found in $PATH').status == PASS  # no true
    no_hook = runtime('docker: Error response from daemon: could not select device driver ""'
                      " with capabilities: [[gpu]].")
    assert no_hook.status == FAIL and "nvidia-container-toolkit" in str(no_hook.hint)
    assert no_hook.detail.startswith("could not select device driver")
    driver = runtime("docker: Error response from daemon: ... nvidia-container-cli: "
                     "initialization error: nvml error: driver not loaded")
    assert driver.status == FAIL and "nvidia-smi" in str(driver.hint)
    assert runtime("sparktui-no-image") is None  # no image on the node to try it with


def test_a_local_node_has_no_ssh_check() -> None:
    checks = _checks(LOCAL, "NVIDIA GB10, 128 GiB")
    assert "ssh" not in checks
    local = checks["local"]
    assert local.status == PASS and "SSH" in str(local.detail), local
    assert "ssh" in _checks(REMOTE, "NVIDIA GB10, 128 GiB")


def test_doctor_fails_a_node_whose_docker_cannot_give_gpus_as_serve_does(fresh_site,
                                                                         capsys):
    """The GPU seen by nvidia-smi is not enough: serve's ``--gpus all`` needs the NVIDIA
    hook in the node's dockerd, which doctor now asks as serve's preflight does (#29
    item 7: doctor and preflight say the same)."""
    import json

    from sparktui.cli import main

    s = fresh_site(2)
    s.hosts.node("node2").without_gpu_runtime()
    assert main(s.cli("doctor", "--json", "--image", "vllm:test")) == 1
    by = {(c["node"], c["name"]): c for c in json.loads(capsys.readouterr().out)}
    assert by[("node1", "gpu runtime")]["status"] == PASS
    runtime = by[("node2", "gpu runtime")]
    assert runtime["status"] == FAIL and "could not select device driver" in runtime["detail"]
    assert runtime["hint"]["code"] == "doctor_said.install_toolkit", runtime
    assert "nvidia-container-toolkit" in runtime["hint"]["params"]["command"], runtime
    assert by[("node2", "gpu")]["status"] == PASS  # nvidia-smi itself answers
    for node in ("node1", "node2"):  # the probes left nothing behind
        assert s.hosts.ssh(node, "docker ps -aq").stdout.split() == []
    s.hosts.node("node1").remove_image("vllm:test")
    assert main(s.cli("doctor", "--json", "--image", "vllm:test")) == 1
    by = {(c["node"], c["name"]): c for c in json.loads(capsys.readouterr().out)}
    assert ("node1", "gpu runtime") not in by  # no image there to try it with
    assert by[("*", "image vllm:test")]["status"] == FAIL
