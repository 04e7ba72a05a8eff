"""The README's quick-start commands, and CI running the README's test command."""

import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
CI_RUN = ROOT / ".ci" / "run"

EXAMPLE_CMD = "python -m pip install -e . && flexmbd example slider-crank-sda"
TEST_CMD = 'python -m pip install -e ".[test]" && python -m pytest -q'

FENCE_RE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def fenced_blocks(text: str):
    """Return ``(language, body, heading)`` for each fenced block in ``text``,
    where heading is the nearest Markdown heading above the block."""
    blocks = []
    for m in FENCE_RE.finditer(text):
        headings = re.findall(r"^#+ .*$", text[: m.start()], re.MULTILINE)
        blocks.append((m.group(1).strip(), m.group(2), headings[-1] if headings else None))
    return blocks


def test_readme_has_exactly_the_two_quick_start_commands():
    blocks = fenced_blocks(README.read_text(encoding="utf-8"))
    assert [(lang, heading) for lang, _, heading in blocks] == [
        ("sh", "### Run the main example"),
        ("sh", "### Run the tests"),
    ]
    bodies = [body for _, body, _ in blocks]
    assert bodies == [EXAMPLE_CMD + "\n", TEST_CMD + "\n"]


def test_quick_start_headings_are_under_quick_start_section():
    text = README.read_text(encoding="utf-8")
    headings = re.findall(r"^#+ .*$", text, re.MULTILINE)
    i = headings.index("## Quick start")
    assert headings[i + 1 : i + 3] == ["### Run the main example", "### Run the tests"]


def test_readme_mentions_docs_and_verify():
    text = README.read_text(encoding="utf-8")
    assert re.search(r"^## Documentation$", text, re.MULTILINE)
    assert "docs/" in text
    assert "flexmbd verify" in text


def test_ci_script_does_not_hardcode_the_test_command():
    script = CI_RUN.read_text(encoding="utf-8")
    assert script.startswith("#!/usr/bin/env bash")
    assert "set -euo pipefail" in script
    assert "README.md" in script and "### Run the tests" in script
    assert "pytest" not in script
    assert CI_RUN.stat().st_mode & 0o111, ".ci/run must be executable"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_ci_script_extracts_the_readme_test_command():
    out = subprocess.run(
        ["bash", str(CI_RUN), "--print"], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == f"+ {TEST_CMD}"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_ci_script_runs_what_the_readme_says(tmp_path):
    """Run .ci/run on a copy whose README test command is a harmless echo."""
    (tmp_path / ".ci").mkdir()
    shutil.copy(CI_RUN, tmp_path / ".ci" / "run")
    (tmp_path / "README.md").write_text(
        "# x\n\n### Run the tests\n\n```sh\necho from-readme && echo second\n```\n", encoding="utf-8"
    )
    out = subprocess.run(
        ["bash", str(tmp_path / ".ci" / "run")], capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["+ echo from-readme && echo second", "from-readme", "second"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_ci_script_fails_without_a_test_command(tmp_path):
    (tmp_path / ".ci").mkdir()
    shutil.copy(CI_RUN, tmp_path / ".ci" / "run")
    (tmp_path / "README.md").write_text("# x\n\nno commands\n", encoding="utf-8")
    out = subprocess.run(["bash", str(tmp_path / ".ci" / "run")], capture_output=True, text=True)
    assert out.returncode != 0
    assert "Run the tests" in out.stderr
