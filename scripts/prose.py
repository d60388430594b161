"""Counts the prose assertions of the tests: lines of test code (tests/, and src/ and stats/
after a `#[cfg(test)]`) that check a text by a fragment, `contains("…")`. Whole messages are
pinned by snapshots instead, so that a rewording is accepted in one place.

    python3 scripts/prose.py [--max N] [TOP]

prints the count and the TOP files with most; with --max, exits 1 above N."""
import os
import re
import sys


def count():
    per = {}
    for root in ['tests', 'src', 'stats']:
        for folder, _, files in os.walk(root):
            for name in files:
                if not name.endswith('.rs'):
                    continue
                path = os.path.join(folder, name)
                in_test = root == 'tests'
                for line in open(path, encoding='utf-8').read().split('\n'):
                    if '#[cfg(test)]' in line:
                        in_test = True
                    if in_test and re.search(r'contains\("', line):
                        per[path] = per.get(path, 0) + 1
    return per


def main(args):
    most = None
    if args[:1] == ['--max']:
        most, args = int(args[1]), args[2:]
    top = int(args[0]) if args else 0
    per = count()
    total = sum(per.values())
    print(f'prose assertions: {total}')
    for path, n in sorted(per.items(), key=lambda x: -x[1])[:top]:
        print(n, path)
    if most is not None and total > most:
        print(f'more than {most}: pin whole messages with snapshots instead', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
