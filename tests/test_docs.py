"""Every ```python block of the user guide runs as written."""
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = ["user-guide.md"]


def blocks(page):
    text = (DOCS / page).read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


@pytest.mark.parametrize("page,index,code", [(p, i, c) for p in PAGES for i, c in enumerate(blocks(p))])
def test_snippet_runs(page, index, code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{page}[{index}]", "exec"), {})
