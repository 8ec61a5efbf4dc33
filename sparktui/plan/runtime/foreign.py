"""Why a listed workload is not sparktui's, and why a listing could not be read: codes
with their values (``sparktui.said``), the words made where they are shown."""

from __future__ import annotations

from sparktui.i18n import N_
from sparktui.said import Code


class Foreign(Code):
    LABELS_NOT_OBJECT = N_("its labels are not an object")
    LABEL_NOT_TEXT = N_("label {key} is not text")
    LABEL_TWICE = N_("label {key} given twice")
    OTHER_NODE = N_("labelled for node {claimed}, listed by {node}")
    NO_RUN_ID = N_("no run id of sparktui's (not started by sparktui)")
    NOT_A_NUMBER = N_("label {key} is not a number: {value}")
    IMAGE_RUN_ID = N_("its run id is its image's own label")


class Unlisted(Code):
    NOT_JSON = N_("docker's listing is not JSON")
    NOT_A_LIST = N_("docker's listing is not a list")
