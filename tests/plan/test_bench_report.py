"""The bench's pure parts: aiperf's export read into our result (units read, never
assumed), the run's record with secrets masked, and the text and JSON of a run, the
list and a comparison, byte for byte (golden files in tests/plan/bench_data/).

After an intended change: SPARKTUI_UPDATE_GOLDEN=1 python -m pytest tests/plan/test_bench_report.py
"""

from __future__ import annotations

import json
import os

import pytest
from bench_support import DATA, a_run, export

from sparktui.config.bench_result import BenchRun
from sparktui.plan.bench.aiperf import BenchSettings, level_result, parse_concurrency, profile_argv
from sparktui.plan.bench.compare import changes, comparison
from sparktui.plan.bench.record import mask_env, run_id
from sparktui.plan.bench.render import compare_text, list_text, run_text

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
    assert mask_env({"HF_TOKEN": "x", "API_KEY": "y", "NCCL_DEBUG": "WARN"}) == {
        "HF_TOKEN": "**********", "API_KEY": "**********", "NCCL_DEBUG": "WARN"}
    assert "hf_secret_value" not in json.dumps(a_run().model_dump())


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
