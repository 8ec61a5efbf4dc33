"""Errors are data: a code, where it happened, and the values to show.

They are rendered to text (in the active language) only at the edge, by the
CLI or the TUI, so the same error reads right in every language and in JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sparktui.exitcodes import ExitCode
from sparktui.i18n import N_, _, ngettext
from sparktui.visible import shorten, visible

# Exit codes shared by every command: sparktui.exitcodes.ExitCode, and what each command
# means by them.
EXIT_OK = ExitCode.OK
EXIT_FAILED = ExitCode.FAILED
EXIT_BAD_INPUT = ExitCode.BAD_INPUT
EXIT_REFUSED = ExitCode.REFUSED
EXIT_DOES_NOT_FIT = ExitCode.DOES_NOT_FIT
EXIT_FIT_UNKNOWN = ExitCode.FIT_UNKNOWN

MESSAGES: dict[str, str] = {
    "toml_syntax": N_("broken TOML: {detail}"),
    "file_missing": N_("file not found"),
    "file_unreadable": N_("cannot read file: {detail}"),
    "file_is_folder": N_("is a folder, not a file"),
    "file_not_regular": N_("is not a regular file (a FIFO, a device or a socket)"),
    "file_too_large": N_("is larger than {limit}; a config or recipe is a page of settings"),
    "file_not_utf8": N_("is not UTF-8 text"),
    "toml_too_deep": N_("broken TOML: arrays or tables nested too deeply"),
    "toml_key_too_long": N_("a dotted key or table header has more than {limit} parts"),
    "key_control": N_("a key holds the control character {char}"),
    "value_control": N_("holds {char} (a control character or line break), which is not allowed here"),
    "missing": N_("required field is missing"),
    "extra_forbidden": N_("unknown key"),
    "wrong_type": N_("expected {expected}, got {got}"),
    "literal_error": N_("must be one of: {expected}"),
    "too_small": N_("must be at least {limit}"),
    "not_above": N_("must be greater than {limit}"),
    "not_finite": N_("must be a finite number (not inf or nan)"),
    "empty": N_("must not be empty"),
    "too_large": N_("must be at most {limit}"),
    "invalid_value": N_("invalid value: {detail}"),
    "hook_shape": N_("a hook is a string, {{command = ...}} or {{script = ...}}, not both"),
    "unknown_script": N_("unknown built-in script '{alias}'; known: {known}"),
    "mods_need_entrypoint": N_("[mods] needs 'entrypoint': the process to exec after the mods"),
    "mods_script": N_("mods run inside the container: use a command, not a host script"),
    "recipe_name_key": N_("'name' comes from the recipe's folder and cannot be set here"),
    "mount_alias_and_repo": N_("a mount takes either alias/host or repo, not both"),
    "mount_host_relative": N_("mount host path '{host}' must be absolute or start with ~/"),
    "mount_no_source": N_("a mount needs 'alias', 'host' or 'repo'"),
    "mount_repo_fields": N_("'{field}' does not apply to an HF repo reference (repo/subfolder/container)"),
    "mount_unknown_alias": N_("mount alias '{alias}' is not in [mount_aliases] and the mount has no 'host'"),
    "mount_placeholder_name": N_("an HF reference's 'container' is a placeholder name (letters, digits, _), got '{name}'"),
    "launcher_flag": N_("'{flag}' is set by sparktui from the cluster and recipe; remove it from args"),
    "pp_vllm_only": N_("pipeline_parallel_size is vLLM only"),
    "ray_vllm_only": N_("distributed_backend = \"ray\" is vLLM only"),
    "duplicate_name": N_("'{name}' is defined twice"),
    "duplicate_rank": N_("rank {rank} is used by '{first}' and '{second}'"),
    "ranks_not_contiguous": N_("ranks must be 0..{last} without gaps, got {ranks}"),
    "unknown_cluster_ref": N_("no cluster named '{name}' in [[clusters]]"),
    "no_clusters": N_("the config defines no clusters"),
    "cluster_unknown": N_("no cluster matches '{name}'; clusters: {known}"),
    "cluster_required": N_("several clusters are configured; choose one with --cluster: {known}"),
    "container_ambiguous": N_("several recipes run on {node}: {known}; name one"),
    "node_unknown": N_("cluster '{cluster}' has no node '{node}'; nodes: {known}"),
    "exec_nothing": N_("exec needs an [exec_aliases] name or -- COMMAND; aliases: {known}"),
    "exec_no_aliases": N_("exec needs -- COMMAND (the config has no [exec_aliases] to name)"),
    "exec_alias_unknown": N_("'{alias}' is not in [exec_aliases] ({known}); run a command with: exec -- COMMAND"),
    "no_home_assistant": N_("power needs a [home_assistant] section (url, token) in the config"),
    "cluster_ambiguous": N_("'{name}' matches several clusters: {candidates}"),
    "cluster_too_small": N_("cluster '{cluster}' has {have_nodes}, recipe needs {need}"),
    "cluster_auto_none": N_("no cluster with an [nccl] entry has the {need} nodes the recipe needs"),
    "recipe_unknown": N_("no recipe named '{name}' in {directory}; recipes: {known}"),
    "recipe_dir_missing": N_("recipes folder not found"),
    "tp_not_divisible": N_("tensor x pipeline parallel = {world} GPUs does not fit {nodes} nodes x {gpus} GPUs"),
    "unknown_placeholder": N_("'{{{{{name}}}}}' is not defined by any [[extra_mounts]] repo reference"),
    "config_env_missing": N_("$SPARKTUI_CONFIG points to a file that does not exist"),
    "env_line": N_("expected KEY=VALUE, got '{line}'"),
    "recipe_name_invalid": N_("'{name}' is not a recipe name: letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64"),
    "recipe_exists": N_("a recipe named '{name}' already exists"),
    # the grammar of names, hosts, images, sizes and paths (sparktui/config/rules.py)
    "name_invalid": N_("'{name}' is not a valid name: letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64"),
    "ssh_user_invalid": N_("'{value}' is not a user name: letters, digits, '.', '_' and '-', not starting with '-' or '.', at most 32"),
    "host_invalid": N_("'{value}' is not a host name or IP address"),
    "plan_no_slurm": N_("cluster {cluster} has no [clusters.slurm]: a job script needs its partition"),
    "plan_sbatch_docker": N_("{recipe} runs on the {runtime} runtime: a Slurm job starts docker containers only"),
    "slurm_name_invalid": N_("'{value}' is not a Slurm name: letters, digits, '_', '.' and '-', not starting with '.' or '-', at most 64"),
    "slurm_time_invalid": N_("'{value}' is not a Slurm time limit (MINUTES, HH:MM:SS, D-HH:MM:SS or UNLIMITED)"),
    "entity_invalid": N_("'{value}' is not a Home Assistant entity id (domain.name: lowercase letters, digits and '_')"),
    "nccl_value_invalid": N_("'{value}' is not a device list (letters, digits and . _ : , = ^ -)"),
    "ha_url_invalid": N_("'{value}' is not an http:// or https:// URL without spaces"),
    "token_invalid": N_("the token must be printable ASCII without spaces: it is sent in an HTTP header"),
    "token_short": N_("the token is shorter than {limit} characters: a Home Assistant long-lived access token is far longer (your HA profile > Security)"),
    "key_short": N_("the key is shorter than {limit} characters (make one with `openssl rand -hex 32`)"),
    "image_invalid": N_("'{value}' is not a docker image reference ([registry/]name[:tag][@digest], the name in lowercase)"),
    "model_invalid": N_("'{value}' cannot start with '-': it would be read as an option"),
    "size_invalid": N_("'{value}' is not a size such as 16g, 64gb or 1024m"),
    "env_key_invalid": N_("'{value}' is not an environment variable name (letters, digits and '_', not starting with a digit)"),
    "hf_repo_invalid": N_("'{value}' is not a Hugging Face repo id (owner/name)"),
    "subfolder_invalid": N_("'{value}' must be a relative path inside the repo, without '..'"),
    "url_path_invalid": N_("'{value}' is not a URL path (it starts with '/' and has no spaces)"),
    "path_control": N_("'{path}' holds a control character or a line break"),
    "path_separator": N_("'{path}' holds ':', which docker reads as the separator of -v host:container:options"),
    "path_not_absolute": N_("'{path}' must be an absolute path"),
    # plan -o FILE, the dashboard without a terminal
    "output_is_folder": N_("is a folder; name a file to write the plan to"),
    "output_no_folder": N_("folder {folder} does not exist (sparktui does not create it)"),
    "output_unwritable": N_("cannot write: {detail}"),
    "no_terminal": N_("the dashboard needs a terminal: standard input and output are not a TTY; the headless commands are listed by sparktui --help"),
    # services and pools (sparktui/config/service_checks.py, sparktui/plan/services/)
    "services_only_field": N_("configures the engine, and this recipe has no 'engine' (services only)"),
    "frontend_none_with_engine": N_("frontend type \"none\" is for services-only recipes; with an engine use \"engine\" or \"dynamo\""),
    "frontend_needs_engine": N_("frontend type \"{type}\" needs an 'engine'; a services-only recipe uses \"none\""),
    "frontend_dynamo_only": N_("[frontend] '{key}' applies to type = \"dynamo\" only"),
    "frontend_port_clash": N_("the Dynamo frontend's port {port} is the engine's port; choose another [frontend] port"),
    "service_env_clash": N_("'{name}' and '{other}' both give SPARKTUI_SERVICE_{key}_*; rename one"),
    "service_pool_and_node": N_("a service takes placement.node or placement.pool, not both"),
    "service_owner_rides": N_("a service that owns nodes (nodes = N) cannot also ride on a pool"),
    "service_owner_placement": N_("a service that owns nodes runs on its own pool; placement.node '{node}' does not apply"),
    "service_pool_unknown": N_("no enabled service owns a pool named '{pool}'; pool owners: {owners}"),
    "readiness_field": N_("'{key}' does not apply to a {kind} readiness probe"),
    "readiness_needs": N_("a {kind} readiness probe needs '{key}'"),
    "readiness_bad_regex": N_("not a valid regular expression: {detail}"),
    "metrics_name_required": N_("with several metrics endpoints each needs a 'name'"),
    "service_type_unknown": N_("unknown service type '{type}'; known: {known}"),
    "service_option_unknown": N_("unknown option '{option}' for a {type} service; known: {known}"),
    "service_option_invalid": N_("option '{option}' must be {expected}"),
    "service_no_image": N_("service '{name}' needs an 'image' (its type has no default and the recipe no docker_image)"),
    "service_no_command": N_("service '{name}' needs a 'command' to run in tmux"),
    "service_no_nodes": N_("placement '{node}' matches no node: this recipe runs no engine"),
    "cluster_too_small_services": N_("cluster '{cluster}' has {have_nodes}, recipe needs {need} ({breakdown})"),
    "cluster_auto_none_services": N_("no cluster has the {need} nodes the recipe needs ({breakdown}) and, for an engine on several nodes, an [nccl] entry"),
    # bench (sparktui/cli/bench_cmd.py, sparktui/engine/bench/)
    "bench_concurrency_invalid": N_("'{value}' is not a list of concurrency levels such as 1,4,16 (whole numbers from 1 to 4096)"),
    "bench_nothing_serving": N_("nothing serves on cluster '{cluster}' (no head answers /v1/models): serve a recipe first"),
    "bench_unknown": N_("what serves on cluster '{cluster}' is unknown: {why}; nothing was run"),
    "bench_not_serving": N_("recipe '{recipe}' does not serve on cluster '{cluster}'; serving: {known}"),
    "bench_no_router": N_("cluster '{cluster}' has no router ([clusters.router]): benchmark the head, without --via router"),
    "bench_router_lacks": N_("the router of cluster '{cluster}' at {address} does not hold {model} ({detail}): benchmark the head with --via head, or wait for the router"),
    "bench_several_serving": N_("several recipes serve on cluster '{cluster}'; name one: {known}"),
    "bench_tool_missing": N_("the benchmark tool '{tool}' is not installed: install NVIDIA's aiperf apart from sparktui (it needs another Textual), e.g. pipx install aiperf==0.13.0, or set $SPARKTUI_AIPERF to its program"),
    "bench_run_unknown": N_("no benchmark run '{name}' in {directory}; runs: {known}"),
    "bench_run_invalid": N_("is not a sparktui benchmark run: {detail}"),
    "known_hosts_foreign": N_("'{path}' is not a known_hosts file (its line {bad_line} is no host key entry): sparktui appends host keys to it; name a known_hosts file, or leave known_hosts_path out for sparktui's own"),
    "known_hosts_too_large": N_("is larger than {limit}: not a known_hosts file sparktui would add to"),
    "bench_run_too_large": N_("is larger than {limit}: not a sparktui benchmark run (one is a few kilobytes)"),
    "bench_run_too_deep": N_("nests {depth} levels deep (at most {limit}): not a sparktui benchmark run"),
    "bench_run_number": N_("holds the number {number}: at most {limit} characters and finite, not NaN or Infinity"),
}

NODE_COUNTS = ("have",)
"""Params that count nodes, also given to the templates as ``{have_nodes}`` ("1 node")."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, located as precisely as we can."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)
    file: Path | None = None
    line: int | None = None
    field: str | None = None

    def message(self) -> str:
        template = MESSAGES.get(self.code)
        if template is None:
            return visible(str(self.params.get("detail", self.code)))
        values = {k: _show(v) for k, v in self.params.items()}
        for key in NODE_COUNTS:  # "1 node", "2 nodes": the language's plural forms
            if isinstance(count := self.params.get(key), int):
                values[f"{key}_nodes"] = ngettext("{n} node", "{n} nodes", count).format(n=count)
        return _(template).format(**values)

    def render(self) -> str:
        """One line: untrusted parts (paths, fields, values) have their controls escaped."""
        where = ""
        if self.file is not None:
            where = str(self.file) + (f":{self.line}" if self.line else "")
        parts = [p for p in (where, self.field and shorten(self.field, 200)) if p]
        prefix = visible(": ".join(parts))
        return f"{prefix}: {self.message()}" if prefix else self.message()

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "file": str(self.file) if self.file else None,
            "line": self.line,
            "field": self.field,
            "message": self.message(),
        }


def _show(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return shorten(visible(", ".join(str(v) for v in value)), 400)
    return shorten(visible(str(value)))


class SparkError(Exception):
    """Bad input: one or more problems; the CLI exits 2 and runs nothing."""

    exit_code = EXIT_BAD_INPUT

    def __init__(self, problems: list[Problem] | Problem):
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        super().__init__(self.render())

    def render(self) -> str:
        return "\n".join(p.render() for p in self.problems)


class CheckUnknown(SparkError):
    """A check that could not be made (a node, its docker or a head did not answer): what
    is there is unknown, never read as "nothing there"; the CLI exits 1, not 2 (the input
    was fine)."""

    exit_code = EXIT_FAILED


def unknown(code: str, **params: Any) -> CheckUnknown:
    return CheckUnknown(Problem(code, params))


def fail(code: str, *, file: Path | None = None, line: int | None = None,
         field: str | None = None, **params: Any) -> SparkError:
    return SparkError(Problem(code, params, file, line, field))
