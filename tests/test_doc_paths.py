"""Every test path the docs name exists, and every test they name by ``path::name`` is
defined there: docs/security.md's "Tested by" column, the READMEs and the tests' own
docstrings point at files that move when tests/ is laid out again, and a stale path
there is a guarantee nobody checks any more. Read as text, nothing imported."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# A repo-relative path under tests/ or benchmarks/ (a ``*`` is a glob), optionally with
# ``::name``; or a bare ``::name`` that continues the last path on its line ("`a.py::x`,
# `::y`").
MENTION = re.compile(r"(?<![\w/.])((?:tests|benchmarks)/[\w./*-]+\.(?:py|md|toml|json))"
                     r"(?:::(\w+))?|(?<![\w/:])::(\w+)")


def _texts() -> Iterator[tuple[str, str]]:
    """(name, text) of the docs and of the tests' and benchmarks' sources."""
    docs = [*ROOT.glob("docs/*.md"), ROOT / "README.md", *ROOT.glob("tests/**/README.md"),
            *ROOT.glob("benchmarks/*.md")]
    # Not the test image's own tree, nor this module (whose examples name missing files).
    sources = [path for path in [*ROOT.glob("tests/**/*.py"), *ROOT.glob("benchmarks/*.py")]
               if "testimage" not in path.parts and path != Path(__file__).resolve()]
    for path in sorted(docs) + sorted(sources):
        yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")


def _defines(paths: Iterable[Path], name: str) -> bool:
    pattern = re.compile(rf"^\s*(?:async\s+)?(?:def|class)\s+{name}\b", re.M)
    return any(pattern.search(path.read_text(encoding="utf-8")) for path in paths)


def stale(texts: Iterable[tuple[str, str]], root: Path) -> list[str]:
    """One line per path that matches no file and per ``::name`` its file lacks."""
    out = []
    for where, text in texts:
        for number, line in enumerate(text.splitlines(), 1):
            last: list[Path] = []
            for found in MENTION.finditer(line):
                path, name, more = found.groups()
                if path:
                    last = sorted(root.glob(path))
                    if not last:
                        out.append(f"{where}:{number}: no file {path}")
                        continue
                name = name or more
                if name and last and not _defines(last, name):
                    out.append(f"{where}:{number}: {name} is not in {last[0].relative_to(root)}")
    return out


def test_every_test_path_the_docs_name_exists() -> None:
    found = stale(_texts(), ROOT)
    assert found == [], "\n".join(found)


def test_the_check_finds_a_moved_file_and_a_renamed_test(tmp_path: Path) -> None:
    (tmp_path / "tests" / "engine").mkdir(parents=True)
    (tmp_path / "tests" / "engine" / "test_a.py").write_text("def test_x():\n    pass\n")
    good = "| a guarantee | `tests/engine/test_a.py::test_x`, `::test_x` |"
    assert stale([("doc.md", good)], tmp_path) == []
    moved = "see tests/engine/test_b.py and `tests/engine/test_*.py`"
    assert stale([("doc.md", moved)], tmp_path) == ["doc.md:1: no file tests/engine/test_b.py"]
    renamed = "`tests/engine/test_a.py::test_x`, `::test_y`"
    assert stale([("doc.md", renamed)], tmp_path) == [
        "doc.md:1: test_y is not in tests/engine/test_a.py"]
