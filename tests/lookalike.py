"""Why a test runs a look-alike engine instead of the real vLLM (issue #34).

A real vLLM (the CPU build, a tiny model) serves once per test run
(tests/real_vllm_support.py); the test image's look-alike vLLM and SGLang
(tests/hosts/testimage/sparktest/), the tmux tests' host engine and the hostile and
lying servers stay only where the real engine cannot show a behaviour on this machine.
Every test module that still runs one says which reasons hold, at its top:
``LOOKALIKE = Why.FAULT`` or ``LOOKALIKE = (Why.FAULT, Why.SPEED)``.
tests/test_lookalikes_say_why.py finds those modules and fails on one that does not say.
"""

from __future__ import annotations

from enum import StrEnum


class Why(StrEnum):
    """The reasons, each one line: what the real engine cannot do here."""

    MULTI_NODE = "multi-node"
    """A group over several nodes (tensor/pipeline ranks over NCCL, a Ray cluster, a worker
    that loses its head): one machine, no GPU, no fabric, so the real vLLM serves alone."""

    GPU = "gpu"
    """GPU memory and nvidia-smi figures, the NVIDIA container hook: no GPU on this machine."""

    LONG_LOAD = "long-load"
    """A behaviour that needs a long load or a long life (ready timeouts, a load still
    going when the test looks); the real engine's load cannot be stretched on cue."""

    FAULT = "fault"
    """The engine must misbehave on cue: never answer, hang, die at a given point or after
    ready, ignore SIGTERM, flood its log, fail a share of requests, lie in its answers."""

    FIGURES = "figures"
    """Exact figures set per test (running, waiting, KV use, tokens/s, TTFT, TPOT) that a
    real engine under a real load cannot be made to report."""

    ECHO = "echo"
    """The engine must report back exactly the argv and environment it received, arbitrary
    strings included: the real one refuses them at its argument parser."""

    SPEED = "speed"
    """sparktui's own logic over many engine starts; the real engine's 40-70 s, 1.3 GB
    start per case would make the suite unaffordable on two shared cores."""

    SGLANG = "sglang"
    """SGLang: no CPU build of it serves here (only its argument parser is real)."""

    SERVICES = "services"
    """The services beside an engine (etcd, NATS, Mooncake, Dynamo, the exporters, a
    torchrun job): the test image plays them; no real ones are installed here."""

    HUB = "hub"
    """The Hugging Face Hub misbehaving on cue (tests/hub_standin.py): a gated repository,
    a missing or refused token, sizes that lie. olah, the maintained Hub server that runs
    offline here (tests/hub_support.py), has no accounts and reads every size from git."""

    TESTBED = "testbed"
    """The test checks the test hosts and their look-alikes themselves."""
