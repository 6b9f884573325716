#!/usr/bin/env python3
"""Lengths of the top-level function definitions in the .cpp files under a folder.

Usage: scripts/function-lengths.py DIR [LIMIT] [SHOW]
Prints how many definitions there are, how many are longer than LIMIT lines (default 60, the
project's limit for ui/) and the SHOW longest (default 5). A definition starts at a column-0
line (not a comment, directive, namespace or type) whose signature ends with '{' on that line
or on the indented continuation lines after it (clang-format's layout), and ends at the next
'}' in column 0; its length counts the signature and both braces.
"""
import os
import sys

SKIP = ("namespace", "class ", "struct ", "enum ", "extern", "//", "#", "using ", "template", "}")


def definitions(text):
    lines = text.split("\n")
    found, i = [], 0
    while i < len(lines):
        line = lines[i]
        starts = (line and not line[0].isspace() and not line.startswith(SKIP)
                  and not line.rstrip().endswith(";") and "=" not in line.split("(")[0])
        if starts:
            j = i
            while (j < len(lines) and not lines[j].rstrip().endswith(("{", ";"))
                   and (j == i or lines[j][:1].isspace())):
                j += 1
            if j < len(lines) and lines[j].rstrip().endswith("{") and (j == i or lines[j][:1].isspace()):
                k = j + 1
                while k < len(lines) and not lines[k].startswith("}"):
                    k += 1
                found.append((k - i + 1, line.strip()[:100]))
                i = k + 1
                continue
        i += 1
    return found


def main():
    root = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    show = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    rows = []
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith(".cpp"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    rows += [(n, path, sig) for n, sig in definitions(f.read())]
    rows.sort(reverse=True)
    print(f"{root}: {len(rows)} functions, {sum(1 for r in rows if r[0] > limit)} over {limit} lines")
    for n, path, sig in rows[:show]:
        print(f"{n:5d}  {path}  {sig}")


if __name__ == "__main__":
    main()
