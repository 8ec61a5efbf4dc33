"""The bench's pure parts: aiperf's export read into our result (units read, never
assumed), the run's record with secrets masked, and the text and JSON of a run, the
list and a comparison, byte for byte (golden files in tests/plan/bench_data/).

After an intended change: SPARKTUI_UPDATE_GOLDEN=1 python -m pytest tests/plan/test_bench_report.py
"""

from __future__ import annotations

import base64
import json
import os
from urllib.parse import quote, quote_plus

import pytest
from bench_support import DATA, Target, a_run, export
from plan_support import DUO, make_plan

from sparktui.config.bench_result import BenchRun
from sparktui.engine.bench.store import save
from sparktui.plan.bench.aiperf import BenchSettings, level_result, parse_concurrency, profile_argv
from sparktui.plan.bench.compare import changes, comparison
from sparktui.plan.bench.record import build_run, run_id
from sparktui.plan.bench.render import compare_text, list_text, run_text
from sparktui.scrub import STARS, forms, mask_env_map

UPDATE = os.environ.get("SPARKTUI_UPDATE_GOLDEN") == "1"


def golden(name: str, text: str) -> None:
    path = DATA / name
    if UPDATE:
        path.write_text(text)
    assert text == path.read_text(), f"{name} differs; regenerate: see this module's doc"


def test_the_export_is_read_in_seconds_whatever_its_unit():
    lv = level_result(export(), 2)
    # the export says ms: 204.64 ms p50 is 0.20464 s
    assert lv.ttft.p50 == pytest.approx(0.204641536)
    assert lv.itl.p50 == pytest.approx(0.021700837684)
    assert lv.e2e.p99 == pytest.approx(0.70782336674)
    assert lv.output_tokens_per_second == pytest.approx(62.6947940967)
    assert lv.request_throughput == pytest.approx(3.13473970483)
    assert (lv.requests, lv.errors, lv.partial, lv.concurrency) == (8, 0, False, 2)
    in_seconds = export()
    in_seconds["time_to_first_token"] = {"unit": "sec", "avg": 0.5, "p50": 0.25}
    assert level_result(in_seconds, 1).ttft.p50 == 0.25


def test_a_unit_that_is_not_the_one_its_name_implies_is_refused():
    bad = export()
    bad["time_to_first_token"]["unit"] = "tokens"
    with pytest.raises(ValueError, match="time_to_first_token"):
        level_result(bad, 1)
    bad = export()
    bad["output_token_throughput"]["unit"] = "tokens/sec/user"
    with pytest.raises(ValueError, match="output_token_throughput"):
        level_result(bad, 1)


def test_errors_and_a_cancelled_export():
    lv = level_result(export("aiperf-0.13-export-errors.json"), 2)
    assert (lv.requests, lv.errors) == (6, 2)
    cancelled = export()
    cancelled["was_cancelled"] = True
    assert level_result(cancelled, 1).partial is True


@pytest.mark.parametrize("text", ["", "0", "1,x", "-1", "1,,4", "5000", "1.5", "²", "1,4²"])
def test_bad_concurrency_is_refused(text):
    with pytest.raises(ValueError):
        parse_concurrency(text)


def test_concurrency_and_the_tools_argv():
    assert parse_concurrency("1, 4,16,4") == (1, 4, 16)
    argv = profile_argv("aiperf", BenchSettings(concurrency=(4,)), url="http://h:1",
                        model="org/m", concurrency=4, artifact_dir="/tmp/x")
    assert argv[:2] == ["aiperf", "profile"]
    assert argv[argv.index("--concurrency") + 1] == "4"
    assert argv[argv.index("--request-count") + 1] == "16"  # 4 x concurrency
    assert argv[argv.index("--tokenizer") + 1] == "org/m"


def test_secrets_never_reach_the_record():
    assert mask_env_map({"HF_TOKEN": "x", "API_KEY": "y", "NCCL_DEBUG": "WARN"}) == {
        "HF_TOKEN": "**********", "API_KEY": "**********", "NCCL_DEBUG": "WARN"}
    assert "hf_secret_value" not in json.dumps(a_run().model_dump())


HF = 'hf_Bench"Secret\\é+/=-4711'
API = "k9"  # short: masked by its field (the -e entry, the --api-key argument)
SECRET_RECIPE = f"""\
engine = "vllm"
docker_image = "img:1"
model = "org/model"
required_nodes = 2
tensor_parallel_size = 2
args = ["--api-key", "{API}", "--served-model-name", "m"]

[env]
HF_TOKEN = {json.dumps(HF)}
VLLM_API_KEY = "{API}"
DATABASE_URL = "postgres://u:pw-db-99@db/x"
"""


def _forms_of(secret: str) -> set[str]:
    raw = secret.encode()
    return forms(secret) | {
        secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1],
        quote(secret, safe=""), quote_plus(secret), base64.b64encode(raw).decode().rstrip("="),
        base64.urlsafe_b64encode(raw).decode().rstrip("=")}


def test_a_result_file_from_a_real_plan_holds_no_secret_in_any_field(tmp_path):
    plan = make_plan(tmp_path, DUO, SECRET_RECIPE)
    launch = plan.nodes[0].launch
    assert f"HF_TOKEN={HF}" in launch and f"VLLM_API_KEY={API}" in launch  # as serve runs it
    run = build_run(run="r1", when=1764590400.0, target=Target(url="http://u:pw-db-99@h:8000"),
                    plan=plan, tool="aiperf", tool_version="0.13.0",
                    argv=["aiperf", "profile", "--api-key", API], settings={},
                    levels=[level_result(export(), 1)], interrupted=False)
    text = save(tmp_path / "bench", run).read_text()
    for secret in (HF, "pw-db-99"):
        assert [f for f in _forms_of(secret) if f in text] == [], secret
    kept = json.loads(text)
    for member in kept["plan"]:
        assert member["env"]["HF_TOKEN"] == member["env"]["VLLM_API_KEY"] == STARS
        assert f"HF_TOKEN={STARS}" in member["launch"]
        assert f"VLLM_API_KEY={STARS}" in member["launch"]
        assert f"VLLM_API_KEY={API}" not in member["launch"]
        assert member["launch"][member["launch"].index("--api-key") + 1] == STARS
    assert kept["tool"]["argv"][-1] == STARS and kept["url"] == f"http://u:{STARS}@h:8000"


def test_run_ids_sort_by_time_and_never_collide():
    first = run_id("toy", 1764590400.0, set())
    assert first == "20251201-120000-toy"
    assert run_id("toy", 1764590400.0, {first}) == first + "-2"


def test_a_run_survives_its_file():
    run = a_run()
    again = BenchRun.model_validate(json.loads(json.dumps(run.model_dump())))
    assert again == run
    with pytest.raises(ValueError):
        BenchRun.model_validate({**run.model_dump(), "surprise": 1})


def test_run_text_and_json_golden():
    run = a_run()
    golden("run.txt", run_text(run))
    golden("run.json", json.dumps(run.model_dump(), indent=2) + "\n")


def test_a_run_through_the_router_says_so_and_an_older_file_was_the_head():
    run = a_run().model_copy(update={"via": "router", "url": "http://10.0.0.11:4000"})
    assert ("engine vllm 0.33.0 through the router at http://10.0.0.11:4000 (head node1), "
            "model org/toy") in run_text(run)
    older = {k: v for k, v in a_run().model_dump().items() if k != "via"}  # before `via`
    assert BenchRun.model_validate(older).via == "head"
    with pytest.raises(ValueError, match="via"):
        BenchRun.model_validate({**a_run().model_dump(), "via": "elsewhere"})


def test_compare_names_a_digest_change_and_older_runs_have_none():
    digest_a, digest_b = "sha256:" + "a" * 64, "sha256:" + "b" * 64
    a = a_run().model_copy(update={"image_digest": digest_a})
    b = a_run().model_copy(update={"image_digest": digest_b})
    assert [c.as_dict() for c in changes(a, b)] == [
        {"what": "image_digest", "before": digest_a, "after": digest_b}]
    assert changes(a, a) == []
    older = {k: v for k, v in a_run().model_dump().items() if k != "image_digest"}
    assert BenchRun.model_validate(older).image_digest is None
    with pytest.raises(ValueError, match="image_digest"):
        BenchRun.model_validate({**a_run().model_dump(), "image_digest": "sha256:x;rm"})


def test_list_golden():
    golden("list.txt", list_text([a_run(), a_run("128", 1.4, "20261201-130000-toy")]))


def test_compare_shows_the_plan_difference_next_to_the_figures_golden():
    a, b = a_run("64"), a_run("128", 1.4, "20261201-130000-toy")
    found = changes(a, b)
    assert [c.as_dict() for c in found] == [
        {"what": "plan.node1.launch", "before": "64", "after": "128"},
        {"what": "plan.node2.launch", "before": "64", "after": "128"}]
    data = comparison(a, b)
    assert data["levels"][1]["output_tokens_per_second"]["change"] == pytest.approx(0.4)
    golden("compare.txt", compare_text(a, b))
    golden("compare.json", json.dumps(data, indent=2) + "\n")
