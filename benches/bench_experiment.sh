# Sourced by the benches: a minimal experiment directory whose only binary is /bin/true, so
# a run measures the harness, not a program.
make_experiment() { # DIR
    mkdir -p "$1/bin"
    cp /bin/true "$1/bin/true"
    cat >"$1/manifest.json" <<JSON
{"schema":1,"tool_version":"bench","toolchain":{},"build_command":[],"build_dir":"$1",
 "mode":"relink","granularity":"link","linker":"bfd","mechanism":"bench",
 "recorded_build_seconds":0,"relink_seconds":0,
 "baseline":{"seed":null,"status":"ok","binaries":[{"name":"true","path":"bin/true",
   "sha256":"$(sha256sum "$1/bin/true" | cut -d" " -f1)","fingerprint":"","functions":0,"link_seconds":0}]},"seeds":[]}
JSON
}

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
