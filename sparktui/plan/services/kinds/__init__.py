"""The built-in service kinds; importing this package registers them all."""

from sparktui.plan.services.kinds import (  # noqa: F401  (each module registers its kinds)
    dynamo,
    etcd,
    exporters,
    generic,
    mooncake,
    nats,
)
