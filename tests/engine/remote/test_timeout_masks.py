"""A command that times out is named in the error, and that name never holds a secret: the
launch line of a recipe with ``HF_TOKEN`` in its env once printed its first 80
characters raw, token and all, on the real sshd node as on the local one."""

from __future__ import annotations

import asyncio

import pytest
from engine.workloads.test_logs_local import LOCAL_CONFIG

from sparktui.config.loader import load_config
from sparktui.engine.remote.local import LocalTransport
from sparktui.engine.remote.transport import NodeError, Transport, timed_out

SECRET = "hf_QwErTyUiOpAsDfGh"
# the secret sits within the first 80 characters, where the old message cut
COMMAND = f"env HF_TOKEN={SECRET} MY_API_KEY=k3y-v4lue-0123456789 sleep 30"


async def _timed_out(t: Transport) -> NodeError:
    with pytest.raises(NodeError) as caught:
        await t.run(COMMAND, timeout=0.5)  # sleep 30 outlasts it, however slow
    return caught.value


def _assert_masked(error: NodeError, node: str) -> None:
    said = str(error)
    assert error.reason == "timeout" and said.startswith(f"{node}: "), said
    assert "HF_TOKEN=" in said, said  # the command is named
    assert SECRET not in said and SECRET[:8] not in said and "k3y-v4lue" not in said, said


def test_a_local_command_that_times_out_is_named_without_its_secrets(tmp_path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(LOCAL_CONFIG)
    loaded = load_config(config).config
    node = loaded.clusters[0].nodes[0]
    _assert_masked(asyncio.run(_timed_out(LocalTransport(node, loaded))), node.name)


def test_a_command_over_ssh_that_times_out_is_named_without_its_secrets(site) -> None:
    s = site(1)
    node = s.loaded.config.clusters[0].nodes[0]

    async def go() -> NodeError:
        engine = s.engine()
        try:
            return await _timed_out(engine.transport(node))
        finally:
            await engine.close()

    _assert_masked(asyncio.run(go()), node.name)


def test_the_name_is_cut_after_masking_and_made_safe() -> None:
    """Masked first: a value the cut shortens would not be found again by value."""
    long_value = "x" * 70 + "SECRETTAIL"
    said = str(timed_out("n1", 2, f"HF_TOKEN={long_value} \x1b[2Jrun"))
    assert "xxxx" not in said and "SECRETTAIL" not in said and "\x1b" not in said, said
    assert len(said.split(": ", 2)[-1]) <= 80
