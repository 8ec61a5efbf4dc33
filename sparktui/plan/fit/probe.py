"""What the engine asks a node for a fit, and how its answer becomes a ``NodeFit``.

One shell script per node, one round trip: MemTotal, where ``refs/main`` of the model
points, and from that snapshot only ``config.json`` (1 MiB at most), the index's
``total_size`` line, or, without an index, each safetensors file's header (never more
than its first ``8 + header length`` bytes). Every path is quoted once here; section
markers carry a nonce so a file's text cannot fake one.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from sparktui import untrusted_json
from sparktui.config.validation import PLACEHOLDER
from sparktui.i18n import N_
from sparktui.plan import hf
from sparktui.plan.fit.calc import ERROR, UNKNOWN, Layout, NodeFit, node_fit
from sparktui.plan.fit.settings import SettingError, Settings, flag_values, parse_settings
from sparktui.plan.fit.shape import ShapeError, estimated_weight_bytes, parse_shape
from sparktui.plan.fit.weights import MAX_HEADER, WeightsError, headers_total, index_total
from sparktui.plan.model import HfRef, LaunchPlan
from sparktui.said import Code, Text, said

MAX_CONFIG = 1 << 20
_REPO = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")


def model_ref(plan: LaunchPlan) -> HfRef | None:
    """The HF repo the engine serves: the recipe's ``model``, or the mount reference its
    ``{{placeholder}}`` names. None: a local path or anything else that is no repo id."""
    found = PLACEHOLDER.fullmatch(plan.model)
    if found is not None:
        return next((r for r in plan.hf_refs if r.placeholder == found.group(1)), None)
    if _REPO.fullmatch(plan.model) and ".." not in plan.model:
        return HfRef("model", plan.model)
    return None


def layout_of(plan: LaunchPlan) -> Layout:
    """Ranks from the head's launch argv (sparktui wrote the parallel sizes there)."""
    given = flag_values(plan.head.launch)
    tp = given.get("--tensor-parallel-size") or given.get("--tp-size") or "1"
    pp = given.get("--pipeline-parallel-size") or given.get("--pp-size") or "1"
    return Layout(plan.engine, max(1, int(tp)), max(1, int(pp)), len(plan.nodes))


def probe_script(hf_cache_host: str, ref: HfRef, nonce: str) -> str:
    mark = f"@@fit-{nonce}"
    repo = hf.repo_dir(hf_cache_host, ref.repo)
    sub = "/" + ref.subfolder.strip("/") if ref.subfolder else ""
    q = shlex.quote

    def say(section: str) -> str:
        return f"printf '%s\\n' {q(mark + ' ' + section)}"

    headers = (
        'for f in "$d"/*.safetensors; do [ -f "$f" ] || continue; '
        'set -- $(head -c 8 -- "$f" | od -An -v -tu1); '
        f'if [ $# -ne 8 ] || [ "$6$7$8" != 000 ]; then printf \'%s %s\\n\' {q(mark + " bad")}'
        ' "${f##*/}"; continue; fi; '
        'n=$(( $1 + $2*256 + $3*65536 + $4*16777216 + $5*4294967296 )); '
        f'if [ "$n" -gt {MAX_HEADER} ]; then printf \'%s %s\\n\' {q(mark + " bad")} '
        '"${f##*/}"; continue; fi; '
        f'printf \'%s %s\\n\' {q(mark + " header")} "${{f##*/}}"; '
        'head -c $((8 + n)) -- "$f" | tail -c "$n"; echo; done')
    return "; ".join([
        say("meminfo"), "grep -E '^MemTotal:' /proc/meminfo",
        say("ref"), f"ref=$(head -n 1 -- {q(hf.refs_main_path(hf_cache_host, ref.repo))} "
                    "2>/dev/null)", "printf '%s\\n' \"$ref\"",
        "case \"$ref\" in ''|*/*|.*) exit 0 ;; esac",
        f"d={q(repo + '/snapshots/')}\"$ref\"{q(sub) if sub else ''}",
        '[ -d "$d" ] || exit 0', say("snapshot"),
        say("config"), f'head -c {MAX_CONFIG} -- "$d/config.json" 2>/dev/null', "echo",
        say("index"),
        "grep -o -m 1 -E '\"total_size\"[[:space:]]*:[[:space:]]*[0-9]+' -- "
        '"$d/model.safetensors.index.json" 2>/dev/null || { ' + headers + "; }",
    ])


def sections(output: str, nonce: str) -> dict[str, str]:
    mark = f"@@fit-{nonce} "
    found: dict[str, list[str]] = {}
    current = None
    for line in output.splitlines():
        if line.startswith(mark):
            current = line[len(mark):]
            found.setdefault(current, [])
        elif current is not None:
            found[current].append(line)
    return {k: "\n".join(v).strip() for k, v in found.items()}


class ProbeSaid(Code):
    """Why a node's fit is unknown, or an error (the node is the fit's own)."""

    NO_MEMTOTAL = N_("no MemTotal in /proc/meminfo")
    NO_ANSWER = N_("no answer after {seconds:g} s")
    NO_REPO = N_("{model} is no Hugging Face repo id: the fit cannot be computed from files")
    NOT_CACHED = N_("{repo} is not in the HF cache on {node} (the engine will download it): "
                    "the fit cannot be computed from files")
    NO_CONFIG = N_("{repo} on {node}: config.json is missing or not JSON")
    CONFIG_LACKS = N_("{repo} on {node}: config.json has no {key}")
    BAD_SETTING = N_("recipe {recipe}: {flag} {value} is not a valid value")


@dataclass(frozen=True)
class Question:
    """What is asked of every node: the model, how the plan spreads it, its settings."""

    recipe: str
    cluster: str
    ref: HfRef | None
    model: str
    layout: Layout
    settings: Settings | None
    settings_error: Text = ""
    revision: str | None = None  # the recipe's ``--revision`` of its own model (the Hub's)


def _mem_total(text: str) -> int | None:
    parts = text.split()
    if len(parts) >= 2 and parts[0] == "MemTotal:" and parts[1].isdecimal():
        return int(parts[1]) * 1024  # kB in /proc/meminfo are KiB
    return None


def assess(node: str, output: str, nonce: str, question: Question) -> NodeFit:
    found = sections(output, nonce)
    mem_total = _mem_total(found.get("meminfo", ""))
    if mem_total is None:
        return NodeFit(node, ERROR, said(ProbeSaid.NO_MEMTOTAL))
    if question.settings is None:
        return NodeFit(node, ERROR, question.settings_error, mem_total=mem_total)
    ref = question.ref
    if ref is None:
        return NodeFit(node, UNKNOWN, said(ProbeSaid.NO_REPO, model=question.model),
                       mem_total=mem_total)
    if "snapshot" not in found:
        return NodeFit(node, UNKNOWN, said(ProbeSaid.NOT_CACHED, repo=ref.repo, node=node),
                       mem_total=mem_total)
    try:
        config = untrusted_json.loads(found.get("config") or "null")
        if not isinstance(config, dict):
            raise ValueError
    except ValueError:
        return NodeFit(node, UNKNOWN, said(ProbeSaid.NO_CONFIG, repo=ref.repo, node=node),
                       mem_total=mem_total)
    try:
        shape = parse_shape(config)
        if question.settings.max_model_len is None and not shape.max_position:
            raise ShapeError("max_position_embeddings")
        weights, source = _weights(found, config)
    except ShapeError as exc:
        return NodeFit(node, UNKNOWN, said(ProbeSaid.CONFIG_LACKS, repo=ref.repo, node=node,
                                           key=str(exc)), mem_total=mem_total)
    return node_fit(node, mem_total, weights, source, shape, question.settings,
                    question.layout)


def _weights(found: dict[str, str], config: dict) -> tuple[int, str]:
    total = index_total(found.get("index", ""))
    if total is not None:
        return total, "index"
    headers = {k.split(" ", 1)[1]: v for k, v in found.items() if k.startswith("header ")}
    bad = any(k.startswith("bad ") for k in found)
    if headers and not bad:
        try:
            return headers_total(headers), "headers"
        except WeightsError:
            pass  # a header that does not parse: the config's count instead
    return estimated_weight_bytes(config), "config"


def question_for(plan: LaunchPlan) -> Question:
    """What every node is asked about ``plan``; a recipe flag that is no number is
    the question's error (every node reports it)."""
    layout = layout_of(plan)
    try:
        settings: Settings | None = parse_settings(plan.engine, plan.head.launch,
                                                   layout.tensor_parallel)
        error: Text = ""
    except SettingError as exc:
        settings = None
        error = said(ProbeSaid.BAD_SETTING, recipe=plan.recipe, flag=exc.flag, value=exc.value)
    ref = model_ref(plan)
    own = ref is not None and PLACEHOLDER.fullmatch(plan.model) is None
    revision = flag_values(plan.head.launch).get("--revision") if own else None
    return Question(plan.recipe, plan.cluster, ref, plan.model, layout, settings, error,
                    revision or None)
