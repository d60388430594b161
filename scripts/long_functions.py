#!/usr/bin/env python3
"""Lists the Rust functions longer than N lines (default 80), longest first.

Usage: scripts/long_functions.py [N] [DIR or FILE...]   (defaults: 80 and src)
Exits 1 when it lists any (CI's check), else 0.

Good enough for this codebase, not a parser: a `fn` item starts at a line whose code begins
with `fn` (after `pub`, `pub(crate)`, `const`, `async`, `unsafe`), and ends where the braces
opened from its first `{` close again. Strings, chars and comments are skipped while counting
braces, so a `"{"` in a format string does not throw the count off. Functions nested in
functions are listed too (their lines also count for the outer one).
"""
import os
import re
import sys

FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)")


def code_only(text):
    """`text` with comments, string and char literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = '"' + hashes
            j = text.find(end, i + 2 + len(hashes))
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            # A char literal ('x', '\n', '\u{..}'), else a lifetime: leave lifetimes alone.
            m = re.match(r"'(?:\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:i + 12])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(name, first line, line count) of every `fn` item with a body in `path`."""
    with open(path, encoding="utf-8") as f:
        lines = code_only(f.read()).split("\n")
    found = []
    for start, line in enumerate(lines):
        m = FN.match(line)
        if not m:
            continue
        depth, opened = 0, False
        for end in range(start, len(lines)):
            for ch in lines[end]:
                if ch == "{":
                    depth, opened = depth + 1, True
                elif ch == "}":
                    depth -= 1
                elif ch == ";" and not opened and depth == 0:
                    break  # a declaration without a body (trait method)
            else:
                if opened and depth == 0:
                    found.append((m.group(1), start + 1, end - start + 1))
                    break
                continue
            break
    return found


def main():
    args = sys.argv[1:]
    limit = int(args.pop(0)) if args and args[0].isdigit() else 80
    roots = args or ["src"]
    rows = []
    paths = [r for r in roots if os.path.isfile(r)]
    for root in roots:
        for dirpath, _, files in os.walk(root):
            paths += [os.path.join(dirpath, f) for f in files if f.endswith(".rs")]
    for path in paths:
        rows += [(n, path, s, c) for (n, s, c) in functions(path) if c > limit]
    for name, path, start, count in sorted(rows, key=lambda r: (-r[3], r[1], r[2])):
        print(f"{count:5}  {path}:{start}  {name}")
    # CI runs this as a check: a function over the limit fails it (split it by idea).
    return 1 if rows else 0


if __name__ == "__main__":
    sys.exit(main())
