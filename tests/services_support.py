"""Services and pools fixtures that tests/config and tests/plan share."""

from __future__ import annotations

SERVICES_ONLY = 'docker_image = "img:1"\n'

# Four single-GPU nodes, no [nccl]: pools need no fabric settings.
QUAD = """\
ssh_user = "ops"

[[clusters]]
name = "quad"
nodes = [
  { name = "n0", ssh_ip = "10.9.1.10", rank = 0 },
  { name = "n1", ssh_ip = "10.9.1.11", rank = 1 },
  { name = "n2", ssh_ip = "10.9.1.12", rank = 2 },
  { name = "n3", ssh_ip = "10.9.1.13", rank = 3 },
]
"""


def svc(body: str, name: str = "a") -> str:
    return f'\n[[services]]\nname = "{name}"\n{body}'
