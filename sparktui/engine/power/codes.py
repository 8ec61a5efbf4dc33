"""What power says, as codes: the engine reports them, the front-ends give them words.

The words are the msgids they always were (``N_``), so every translation stays; a
progress row or an outcome carries the code and its values (``sparktui.said``)."""

from __future__ import annotations

from sparktui.i18n import N_
from sparktui.said import Code


class PowerSaid(Code):
    HA_AT = N_("Home Assistant at {url}")
    NO_ENTITIES = N_("no entities to switch")
    NOT_ATTEMPTED = N_("not attempted: {reason}")
    DELAY = N_("{seconds} s before cutting power")
    KEPT_ON = N_("kept on: {reason}")
    NOT_DOWN = N_("did not go down: {nodes}")
    STILL_UP = N_("still answering SSH: {nodes}")
    LOCAL_NEVER_OFF = N_("this machine (a local node) is never powered off by sparktui")
    ALREADY_DOWN = N_("no SSH answer: already down?")
    UNTIL_DOWN = N_("until it stops answering SSH ({seconds:g} s)")
    STILL_ANSWERS = N_("still answers SSH after {seconds:g} s")
    STOPPED_ANSWERING = N_("stopped answering SSH after {seconds:.1f} s")
    SENT_DROPPED = N_("sent; the connection dropped ({reason})")
    SENT = N_("sent")
    OFF_FAILED = N_("power-off command failed (exit {code}): {why}")
    ENTITY_ON = N_("{entity} is on")
    ENTITY_OFF = N_("{entity} is off")
    THIS_MACHINE = N_("this machine")
    ANSWERS = N_("answers SSH")
    ENTITY_NOT_ON = N_("its entity did not turn on")
    NO_ENTITY = N_("no entity to power it on")
    UNTIL_UP = N_("until it answers SSH ({seconds:g} s)")
    NO_ANSWER_AFTER = N_("no SSH answer after {seconds:g} s")
    ANSWERS_AFTER = N_("answers SSH after {seconds:.1f} s")


class HomeAssistantSaid(Code):
    NOT_AN_ENTITY = N_("'{entity}' is not an entity id (domain.name)")
    BAD_URL = N_("Home Assistant url {url} is not valid: {why}")
    NO_ANSWER_WITHIN = N_("Home Assistant unreachable at {url}: no answer within {seconds:g} s")
    UNREACHABLE = N_("Home Assistant unreachable at {url}: {why}")
    BAD_TOKEN_VALUE = N_("the Home Assistant token is not a valid HTTP header value "
                         "(printable ASCII, no spaces)")
    TOKEN_REFUSED = N_("Home Assistant refused the token")
    UNKNOWN_ENTITY = N_("unknown entity {entity}")
    ANSWERED = N_("Home Assistant answered {status} to {request}")
    NOT_JSON = N_("Home Assistant sent a non-JSON answer to {path}")
    NO_STATE = N_("no state in Home Assistant's answer for {entity}")
    STILL_READS = N_("{entity} still reads '{state}' {seconds:g} s after {action}")
