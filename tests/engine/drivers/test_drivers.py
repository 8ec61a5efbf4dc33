"""One driver per runtime (sparktui.engine.drivers), and what runs in docker by design
launched by the docker runtime like every other container: pure, no node."""

from __future__ import annotations

from typing import get_args

from sparktui.config.runtime_name import RuntimeName
from sparktui.engine.drivers import DRIVERS, driver_for
from sparktui.engine.drivers.docker import DOCKER
from sparktui.engine.status import Workload
from sparktui.engine.supervise import on_node
from sparktui.plan.runtime import RUNTIMES
from sparktui.plan.runtime.base import READ_LABELS, RUN_LABEL
from sparktui.plan.runtime.docker import LABEL_PREFIX, Docker


def test_every_runtime_has_one_driver_in_the_registrys_order() -> None:
    assert list(DRIVERS) == list(RUNTIMES)
    assert set(get_args(RuntimeName)) == set(RUNTIMES)
    for name, runtime in RUNTIMES.items():
        assert type(driver_for(name).runtime) is runtime and driver_for(name).name == name
    assert driver_for("docker") is DOCKER


def _work(runtime: RuntimeName) -> Workload:
    return Workload("w", "r", "c", "n1", 0, "head", runtime, "running")


def test_a_workload_says_what_its_runtime_can_do() -> None:
    docker, tmux = _work("docker"), _work("tmux")
    assert (docker.can_enter, docker.can_inspect, docker.has_image, docker.can_attach) == (
        True, True, True, False)
    assert (tmux.can_enter, tmux.can_inspect, tmux.has_image, tmux.can_attach) == (
        False, False, False, True)


def _supervisor_argv() -> list[str]:
    return on_node.run_argv(cluster="pair", recipe="glm", home="/home/ops", key="/k",
                            image="sparktui-supervisor:1", interval=None)


def test_the_supervisors_container_is_launched_by_the_docker_runtime() -> None:
    launch = on_node.launch(cluster="pair", recipe="glm", home="/home/ops", key="/k",
                            image="sparktui-supervisor:1", interval=None)
    argv = _supervisor_argv()
    assert argv == Docker().launch(launch)
    # the labels every launch carries: each one discovery reads is set (empty here), so
    # no label baked into the image makes the supervisor a recipe's workload
    labels = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--label"]
    assert [f"{LABEL_PREFIX}{key}=" for key in READ_LABELS] == [
        label for label in labels if label.split("=")[0].removeprefix(LABEL_PREFIX)
        in READ_LABELS]
    assert labels[:2] == ["sparktui.supervisor=pair", "sparktui.supervisor_recipe=glm"]
    # and it is stamped with a run id as every launch is
    stamped = DOCKER.stamp(argv)
    assert stamped[:3] == ["docker", "run", "--label"]
    assert stamped[3].startswith(f"{LABEL_PREFIX}{RUN_LABEL}=") and stamped[4:] == argv[2:]


def test_the_supervisors_removal_finds_it_by_the_labels_its_launch_set() -> None:
    argv = _supervisor_argv()
    command = on_node.remove_command("pair", "glm")
    for label in ("sparktui.supervisor=pair", "sparktui.supervisor_recipe=glm"):
        assert label in argv and f"label={label}" in command
