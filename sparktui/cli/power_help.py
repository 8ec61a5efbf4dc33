"""The Home Assistant table power needs, as ``power --help`` and a power command without
one show it (the parser imports this: no engine here)."""

from __future__ import annotations

from sparktui.i18n import _

HA_EXAMPLE = """\
[home_assistant]
url = "http://homeassistant.local:8123"
token = "<a long-lived access token: your profile > Security>"
shutdown_delay_seconds = 30
"""


def how_to_configure() -> str:
    """What to add to the config, with the example table (its lines indented: ``--help``
    keeps indented lines as they are)."""
    return (_("Add a table like this one, and give each node an `entity` (e.g. "
              "switch.spark1) and each cluster its `extra_entities`:") + "\n"
            + "".join(f"  {line}\n" for line in HA_EXAMPLE.splitlines()))
