#!/usr/bin/env python3
"""Writes the stores benches/store_memory.sh reads (issue 34, attack 11): an experiment
directory (manifest of one program, `true`, whose every binary is the same copy) and a
`results.jsonl` of one of these kinds:

  valid BINARIES EXECUTIONS ITERATIONS   a finished run's store, as the runner writes it
                                         (metric wall: one measurement per iteration)
  long-line MIB                          a header, then one line of MIB MiB
  nested DEPTH                           a header, then one line of DEPTH '[' brackets
                                         inside an object (where a tagged record buffers)
  tiny COUNT                             a header, then COUNT execution records (no
                                         measurements), each of its own binary name

Usage: store_memory.py DIR KIND ARGS...   (DIR is created; nothing is written outside it)
"""

import hashlib
import json
import os
import shutil
import sys


def manifest(out, binaries):
    """A manifest whose baseline and seeds 1..binaries-1 all name the one copy of `true`."""
    os.makedirs(os.path.join(out, "bin"), exist_ok=True)
    exe = os.path.join(out, "bin", "true")
    shutil.copy(shutil.which("true"), exe)
    sha = hashlib.sha256(open(exe, "rb").read()).hexdigest()

    def entry(seed):
        return {
            "seed": seed,
            "status": "ok",
            "binaries": [
                {"name": "true", "path": "bin/true", "sha256": sha, "fingerprint": "",
                 "functions": 0, "link_seconds": 0}
            ],
        }

    m = {
        "schema": 1, "tool_version": "bench", "toolchain": {}, "build_command": [],
        "build_dir": out, "mode": "relink", "granularity": "link", "linker": "bfd",
        "mechanism": "bench", "recorded_build_seconds": 0, "relink_seconds": 0,
        "baseline": entry(None), "seeds": [entry(s) for s in range(1, binaries)],
    }
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(m, f)


def header(binaries, executions, iterations):
    labels = ["baseline"] + [f"seed-{s}" for s in range(1, binaries)]
    return {
        "record": "header", "schema": 2, "tool_version": "0.1.0", "command": ["{bin}"],
        "programs": ["true"], "binaries": labels, "metric": "wall",
        "executions": executions, "iterations": iterations, "warmup": 0, "env_pad_max": 0,
        "schedule_seed": 1, "schedule_design": "rounds", "timeout_seconds": None,
        "aslr_disabled": True,
        "host": {"cpu_model": "bench", "kernel": "bench", "cores": 2, "governor": None,
                 "hostname": "bench"},
        "started_unix": 0.0, "toolchain": {}, "cwd": "/", "environment": ["LANG=C", "LC_ALL=C"],
        "pad_variable": "LAYOUTRAND_PAD",
    }


def write_valid(f, binaries, executions, iterations):
    index = 0
    for e in range(executions):
        for b in range(binaries):
            label, seed = ("baseline", "null") if b == 0 else (f"seed-{b}", str(b))
            key = f'"program":"true","binary":"{label}","seed":{seed},"execution":{e}'
            lines = [
                f'{{"record":"measurement",{key},"iteration":{i},"warmup":false,'
                f'"metric":"wall","value":{1000000 + (i * 7919 + b * 104729 + e) % 50000}.0,'
                f'"unit":"ns"}}\n'
                for i in range(iterations)
            ]
            lines.append(
                f'{{"record":"execution",{key},"schedule_index":{index},"env_pad":0,'
                f'"start_unix":1.0,"wall_ns":1000000,"status":"ok","exit_code":0,"signal":null}}\n'
            )
            f.write("".join(lines))
            index += 1


def main():
    out, kind, args = sys.argv[1], sys.argv[2], [int(a) for a in sys.argv[3:]]
    os.makedirs(out, exist_ok=True)
    binaries = args[0] if kind == "valid" else 1
    manifest(out, binaries)
    executions, iterations = (args[1], args[2]) if kind == "valid" else (1, 1)
    with open(os.path.join(out, "results.jsonl"), "w") as f:
        f.write(json.dumps(header(binaries, executions, iterations), separators=(",", ":")) + "\n")
        if kind == "valid":
            write_valid(f, binaries, executions, iterations)
        elif kind == "long-line":
            prefix = '{"record":"finish","note":"'
            f.write(prefix)
            chunk = "a" * (1 << 20)
            for _ in range(args[0]):
                f.write(chunk)
            f.write('"}\n')
        elif kind == "nested":
            f.write('{"x":' + "[" * args[0] + "\n")
        elif kind == "tiny":
            for e in range(args[0]):
                f.write(
                    f'{{"record":"execution","program":"true","binary":"b{e}","seed":1,'
                    f'"execution":0,"schedule_index":{e},"env_pad":0,"start_unix":1.0,'
                    f'"wall_ns":1,"status":"ok","exit_code":0,"signal":null}}\n'
                )
        else:
            sys.exit(f"unknown kind {kind}")


if __name__ == "__main__":
    main()
