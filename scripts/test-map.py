#!/usr/bin/env python3
"""Prints the map from each source file to the tests that exercise it, as the Markdown table of
tests/README.md: a test exercises a source when it includes the source's header, or when the
test's name is the source's name (tests/model/tst_lr_schedule.cpp <- model/LrSchedule.cpp).
Usage: python3 scripts/test-map.py [--check]  (--check: fail when tests/README.md is stale)."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
folders = ["compute", "model", "app", "ui"]


def snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


sources = sorted(p for f in folders for p in (root / f).rglob("*.cpp"))
tests = sorted((root / "tests").glob("*/tst_*.cpp"))
includes = {t: set(re.findall(r'#include "([^"]+)"', t.read_text(errors="replace"))) for t in tests}
rows = []
for src in sources:
    rel = src.relative_to(root).as_posix()
    header = rel[:-4] + ".h"
    by_name = "tst_" + snake(src.stem) + ".cpp"
    hits = [t for t in tests if header in includes[t] or t.name == by_name]
    if rel.startswith("app/cli/"):  # the CLI tests run nnwb-cli itself
        hits += [t for t in tests if t.name.startswith("tst_cli") or t.name == "tst_onnx_cli.cpp"]
    names = ", ".join(sorted({f"`{t.relative_to(root / 'tests').as_posix()}`" for t in hits}))
    fallback = ("every program of tests/ui/ (they drive the whole window)" if rel.startswith("ui/")
                else "through the code that uses it (see the rows of its callers)")
    rows.append(f"| `{rel}` | {names or fallback} |")
table = "| source | tests |\n|---|---|\n" + "\n".join(rows) + "\n"
if "--check" in sys.argv:
    readme = (root / "tests" / "README.md").read_text()
    if table not in readme:
        sys.exit("tests/README.md: the source map is stale; run python3 scripts/test-map.py")
else:
    sys.stdout.write(table)
