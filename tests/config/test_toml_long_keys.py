"""Dotted keys and table headers are bounded before tomllib parses (toml_source.py).

tomllib's time and memory grow with the square of a dotted key's parts: a 400 KB recipe
of one key ``a.a.a… = 1`` took 12 GB and did not end in 120 s. A key or header of more
than ``MAX_KEY_PARTS`` parts is refused at its file:line by one linear scan; dots inside
strings, multi-line strings and comments are text, not parts.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from plan_support import DUO, VLLM_MIN, config_file, recipe_file

from sparktui.cli import main
from sparktui.config.loader import list_recipes, load_config, load_recipe
from sparktui.config.toml_source import MAX_KEY_PARTS, load_toml
from sparktui.errors import SparkError

ROOT = Path(__file__).resolve().parents[2]
REFUSAL = f"a dotted key or table header has more than {MAX_KEY_PARTS} parts"


def _dotted(parts: int, part: str = "a") -> str:
    return ".".join([part] * parts)


def _refusal(path: Path) -> str:
    with pytest.raises(SparkError) as caught:
        load_toml(path)
    return str(caught.value)


@pytest.mark.parametrize(("text", "line"), [
    (f"x = 1\n[{_dotted(33, 't')}]\nk = 2\n", 2),
    (f"x = 1\n\n[[{_dotted(33, 't')}]]\n", 3),
    (f'# a comment\n{_dotted(33)} = 1\n', 2),
    (f'{_dotted(33, chr(34) + "q" + chr(34))} = 1\n', 1),  # "q"."q"… quoted parts
    (f"{_dotted(33, chr(39) + 'q' + chr(39))} = 1\n", 1),  # 'q'.'q'… literal parts
    ("k = 1\n" + " . ".join(["a"] * 33) + " = 1\n", 2),  # spaces around the dots
    (f'env = {{ ok = 1, {_dotted(40)} = 2 }}\n', 1),  # inside an inline table
    (f's = """\nmulti\nline\n"""\n{_dotted(33)} = 1\n', 5),  # after a multi-line string
])
def test_a_key_or_header_of_too_many_parts_is_refused_at_its_line(tmp_path: Path, text: str,
                                                                  line: int) -> None:
    path = tmp_path / "recipe.toml"
    path.write_text(text)
    assert _refusal(path) == f"{path}:{line}: {REFUSAL}"


def test_the_limit_itself_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "ok.toml"
    path.write_text(f"[{_dotted(MAX_KEY_PARTS, 't')}]\n{_dotted(MAX_KEY_PARTS)} = 1\n")
    data = load_toml(path).data
    for _ in range(MAX_KEY_PARTS):
        data = data["t"]
    assert "a" in data


def test_dots_in_strings_and_comments_are_text(tmp_path: Path) -> None:
    many = _dotted(60, "w")
    path = tmp_path / "ok.toml"
    path.write_text(
        f'a = "{many}"\n'
        f"b = '{many}'\n"
        f'c = "say \\"{many}\\" {many}"\n'
        f'd = """\n{many}\n""{many}"""\n'
        f"e = '''\n{many}\n'''\n"
        f"# {many}\n"
        f'f = ["{many}", 1.5, 2.25] # {many}\n'
        f'"{many}" = 1\n'  # one quoted part holding dots is one part
    )
    data = load_toml(path).data
    assert data["a"] == data["b"] == many
    assert data["d"] == f'{many}\n""{many}'
    assert data[many] == 1


def test_every_shipped_recipe_and_the_example_config_still_load() -> None:
    recipes = list_recipes(ROOT / "recipes")
    assert len(recipes) >= 7
    for path in recipes.values():
        load_recipe(path)
    load_config(ROOT / "examples" / "config.toml")


def test_a_recipe_with_a_long_key_is_a_located_problem_in_the_cli(tmp_path, capsys) -> None:
    text = VLLM_MIN + f"[env]\n{_dotted(33, 'X')} = \"1\"\n"
    path = recipe_file(tmp_path, text)
    code = main(["--lang", "en", "--config", str(config_file(tmp_path, DUO)), "--recipes",
                 str(tmp_path / "recipes"), "plan", "demo", "-f", "sh"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == f"{path}:5: {REFUSAL}\n"


_MEASURE = """\
import json, resource, sys, time
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
from sparktui.config.toml_source import load_toml
from sparktui.errors import SparkError
start = time.process_time()
try:
    load_toml(Path(sys.argv[1]))
    said = "loaded"
except SparkError as exc:
    said = str(exc)
# VmHWM, this process's own peak: ru_maxrss carries the forking pytest worker's across exec
peak_kb = next(int(line.split()[1]) for line in Path("/proc/self/status").read_text()
               .splitlines() if line.startswith("VmHWM:"))
print(json.dumps({"said": said, "cpu_seconds": time.process_time() - start,
                  "peak_mb": peak_kb / 1024}))
"""


def test_a_400_kb_dotted_key_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    """In a child under a 2 GiB address-space limit: tomllib alone ran out of it (12 GB
    wanted); the scan refuses the file at line 1 using a few tens of MB."""
    path = tmp_path / "recipe.toml"
    path.write_text("engine = \"vllm\"\n" + _dotted(200_000) + " = 1\n")
    assert path.stat().st_size > 400_000
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(path)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["said"] == f"{path}:2: {REFUSAL}"
    assert result["peak_mb"] < 200, result
