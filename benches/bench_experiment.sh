# Sourced by the benches: a minimal experiment directory whose only binary is a copy of a
# system program (/bin/true unless named), so a run measures the harness, not a program.
make_experiment() { # DIR [PROGRAM]
    local program=${2:-/bin/true}
    local name
    name=$(basename "$program")
    mkdir -p "$1/bin"
    cp "$program" "$1/bin/$name"
    cat >"$1/manifest.json" <<JSON
{"schema":1,"tool_version":"bench","toolchain":{},"build_command":[],"build_dir":"$1",
 "mode":"relink","granularity":"link","linker":"bfd","mechanism":"bench",
 "recorded_build_seconds":0,"relink_seconds":0,
 "baseline":{"seed":null,"status":"ok","binaries":[{"name":"$name","path":"bin/$name",
   "sha256":"$(sha256sum "$1/bin/$name" | cut -d" " -f1)","fingerprint":"","functions":0,"link_seconds":0}]},"seeds":[]}
JSON
}

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
