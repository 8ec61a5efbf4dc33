"""What Slurm says of its jobs, read as untrusted text. Pure: strings in, values out.

``squeue`` lines are asked in a fixed format whose fields are separated by a character
no field of ours holds (``SEP``), the job's name last (another operator's job may be
named anything: it is split off whole, cut, and shown only through the terminal filter).
A node list comes compressed (``spark[1-3,7]``) and is expanded here within bounds,
never by a shell. A line that does not read is skipped, and what Slurm could not be
asked is an error of the caller's, never "no job".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sparktui.config.rules import NAME

SEP = "\x1f"
"""The unit separator between ``squeue``'s fields: no job id, state, reason, time, user
or node name holds it."""
FIELDS = ("%i", "%T", "%r", "%L", "%u", "%N", "%l", "%M", "%j")
FORMAT = SEP.join(FIELDS)
MAX_NODES = 4096
"""Names a node list may expand to: more than any site's Sparks."""
NAME_SHOWN = 120
JOB_ID = re.compile(r"[0-9]{1,12}(?:_[0-9]{1,12})?", re.ASCII)
STATE = re.compile(r"[A-Z_]{1,32}", re.ASCII)
_RANGE = re.compile(r"([0-9]{1,9})(?:-([0-9]{1,9}))?", re.ASCII)

PENDING, RUNNING, CONFIGURING = "PENDING", "RUNNING", "CONFIGURING"
ACTIVE = frozenset({PENDING, CONFIGURING, RUNNING})
"""States of a job that has not ended (CONFIGURING: allocated, its nodes booting)."""


@dataclass(frozen=True)
class Job:
    """One job as ``squeue`` shows it."""

    id: str
    state: str
    reason: str = ""
    time_left: str = ""
    user: str = ""
    nodes: tuple[str, ...] = field(default_factory=tuple)
    name: str = ""
    limit: str = ""
    """Its time limit (``%l``), and the time it has run (``%M``), as Slurm writes them."""
    used: str = ""

    @property
    def pending(self) -> bool:
        return self.state == PENDING

    @property
    def running(self) -> bool:
        return self.state == RUNNING

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "state": self.state, "reason": self.reason,
                "time_left": self.time_left, "time_limit": self.limit, "time_used": self.used,
                "user": self.user, "nodes": list(self.nodes), "name": self.name}


def ended(job: Job | None) -> bool:
    """A cancelled job whose shell has exited: its cleanup ran (``COMPLETING``: Slurm
    still winds it up), or Slurm lists it no more."""
    return job is None or job.state not in ACTIVE


def output_file(recipe: str, job_id: str) -> str:
    """Where a serve's job writes (``--output``, relative to where ``sbatch`` ran)."""
    return f"{job_name(recipe)}-{job_id}.out"


def job_name(recipe: str) -> str:
    """The name a serve's job has (the recipe is of ``NAME``'s grammar)."""
    return f"sparktui-{recipe}"


def parse_jobs(text: str) -> list[Job]:
    """``squeue --noheader --format=FORMAT``'s lines; what does not read is left out."""
    jobs = []
    for line in text.splitlines()[:10_000]:
        parts = line.split(SEP, len(FIELDS) - 1)
        if len(parts) != len(FIELDS):
            continue
        job_id, state, reason, left, user, nodes, limit, used = (p.strip() for p in parts[:8])
        name = parts[8]
        if not JOB_ID.fullmatch(job_id) or not STATE.fullmatch(state):
            continue
        expanded = expand_nodes(nodes) if nodes not in ("", "(null)") else []
        jobs.append(Job(job_id, state, _word(reason), _word(left), _word(user),
                        tuple(expanded or ()), name[:NAME_SHOWN], _word(limit), _word(used)))
    return jobs


def _word(text: str, limit: int = 64) -> str:
    """A short field (a reason, a time, a user): printable ASCII only, cut."""
    return "".join(c for c in text if " " <= c <= "~")[:limit]


def parse_job_id(answer: str) -> str | None:
    """``sbatch --parsable``'s answer: the job id (``;cluster`` after it on a federation)."""
    first = answer.strip().split(";", 1)[0]
    return first if JOB_ID.fullmatch(first) else None


NODE_STATE = re.compile(r"[a-z_]{1,32}[*~#!%$@^-]?", re.ASCII)
"""``sinfo``'s ``%T``: a state word, then a flag (``*`` not responding, ``~`` powered
off, ...)."""


def parse_sinfo(text: str) -> dict[str, str]:
    """``sinfo --noheader --Node --format=%N %T``'s lines: each node's state word, for a
    node name of the config's grammar."""
    out = {}
    for line in text.splitlines()[:10_000]:
        words = line.split()
        if len(words) == 2 and NODE_STATE.fullmatch(words[1]) and NAME.fullmatch(words[0]):
            out[words[0]] = words[1]
    return out


def expand_nodes(text: str) -> list[str] | None:
    """A Slurm host list (``a[1-3,5],b07``) as names, each of ``NAME``'s grammar; None
    when it does not read or would expand past ``MAX_NODES``."""
    names: list[str] = []
    for item in _items(text):
        if item is None:
            return None
        prefix, ranges, suffix = item
        if ranges is None:
            names.append(prefix)
        else:
            for part in ranges.split(","):
                found = _RANGE.fullmatch(part)
                if not found:
                    return None
                low, high = found.group(1), found.group(2) or found.group(1)
                if int(high) < int(low) or len(names) + int(high) - int(low) >= MAX_NODES:
                    return None
                names += [f"{prefix}{str(n).zfill(len(low))}{suffix}"
                          for n in range(int(low), int(high) + 1)]
        if len(names) > MAX_NODES:
            return None
    return names if all(NAME.fullmatch(n) for n in names) else None


def _items(text: str):
    """The comma-separated items of a host list (commas inside brackets kept), each as
    (prefix, ranges or None, suffix); None for one that does not read."""
    depth, start = 0, 0
    for i, c in enumerate(text + ","):
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        elif c == "," and depth == 0:
            item, start = text[start:i], i + 1
            if "[" not in item:
                yield (item, None, "") if item else None
                continue
            found = re.fullmatch(r"([^\[\]]*)\[([^\[\]]+)\]([^\[\]]*)", item)
            yield (found.group(1), found.group(2), found.group(3)) if found else None
        if depth not in (0, 1):
            yield None
            return
    if depth:
        yield None


@dataclass(frozen=True)
class SlurmStatus:
    """A Slurm cluster's jobs as its health shows them: every job on the partition that
    holds one of the cluster's nodes, and every serve job pending there, whoever
    submitted it (``user``: the submit host's, whose jobs are the operator's own);
    ``error``: Slurm could not be asked (its jobs unknown, never "none")."""

    partition: str
    user: str = ""
    jobs: list[Job] = field(default_factory=list)
    error: str | None = None

    def own_serves(self, recipe: str | None = None) -> list[Job]:
        """The operator's serve jobs (of ``recipe``; of any recipe without one) that have
        not ended: a serve no container may show yet (pending: no node; running: its
        steps still starting)."""
        return [j for j in self.jobs if j.user == self.user and not ended(j)
                and (j.name == job_name(recipe) if recipe else j.name.startswith(
                    job_name("")))]

    def holds(self, recipe: str | None) -> bool:
        """Whether the operator may have a serve here that no container shows yet: one of
        their serve jobs (of ``recipe``) not ended, or a Slurm that could not say."""
        return self.error is not None or bool(self.own_serves(recipe))

    def as_dict(self) -> dict[str, object]:
        return {"partition": self.partition, "user": self.user,
                "jobs": [dict(j.as_dict(), ours=j.user == self.user) for j in self.jobs],
                "error": self.error}


def on_cluster(jobs: list[Job], nodes: list[str]) -> list[Job]:
    """The jobs a cluster of ``nodes`` shows: those holding one of them, and the serve
    jobs still pending (they hold no node yet)."""
    names = set(nodes)
    return [j for j in jobs if names & set(j.nodes)
            or (j.pending and j.name.startswith(job_name("")))]


TIMEOUT = "TIMEOUT"
_LEFT = re.compile(r"(?:([0-9]{1,4})-)?(?:([0-9]{1,2}):)?([0-9]{1,2}):([0-9]{1,2})", re.ASCII)


def seconds_left(text: str) -> int | None:
    """A time as ``squeue`` writes it (``%L``, ``%l``, ``%M``: ``MM:SS``, ``HH:MM:SS``,
    ``D-HH:MM:SS``) in seconds; None for ``UNLIMITED``, ``INVALID`` or what does not read."""
    found = _LEFT.fullmatch(text.strip())
    if not found:
        return None
    days, hours, minutes, seconds = (int(g) if g else 0 for g in found.groups())
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds


def at_time_limit(jobs: list[Job], user: str, recipe: str, window: int) -> Job | None:
    """The recipe's newest job of ``user`` when its time limit ended it (``TIMEOUT``),
    is within ``window`` seconds of it, or it ended within ``window`` of it (its shell was
    sent TERM ahead of the limit, its cleanup removed the containers and the script
    ended); None otherwise."""
    mine = [j for j in jobs if j.user == user and j.name == job_name(recipe)]
    if not mine:
        return None
    newest = max(mine, key=lambda j: [int(p) for p in j.id.split("_")])
    left = seconds_left(newest.time_left)
    if newest.state == TIMEOUT or (newest.running and left is not None and left <= window):
        return newest
    limit, used = seconds_left(newest.limit), seconds_left(newest.used)
    if newest.state not in ACTIVE and limit is not None and used is not None \
            and limit - used <= window:
        return newest
    return None
