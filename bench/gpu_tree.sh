#!/usr/bin/env bash
# Issue 32, for a session lent a GPU: make the working tree fit the device tool (at most 64 MiB of
# tracked and untracked-not-ignored files travel), then put it back. docs/scaling.md, "For a session
# lent a GPU", says why; bench/bench_parse_gpu.sh is what runs there.
#
#   bench/gpu_tree.sh prepare   # wheels in .whl/, WMT21 ru-en in .gpu/, big paths out of the index
#   bench/gpu_tree.sh size      # what would travel, in MiB
#   bench/gpu_tree.sh restore   # the index and .git/info/exclude as they were (run it before any commit)
#
# prepare un-indexes LEAVE_OUT (not needed to parse) with `git rm --cached` and lists them in
# .git/info/exclude between two marker lines: the files stay on disk, git sees them as ignored, the
# device tool does not carry them. Never commit while prepared: the commit would delete them.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
LEAVE_OUT=(mteval/resources/meteor research tests/data)
EXCLUDE=$(git rev-parse --git-path info/exclude)
BEGIN="# gpu_tree.sh: begin"
END="# gpu_tree.sh: end"
WHEELS=(stanza==1.15.0 emoji orjson platformdirs udtools udapi termcolor)
DATA=${DATA:-$ROOT/../shared/data/wmt21-ruen}
LIMIT_MIB=64

size() {  # MiB of what the device tool carries (tracked + untracked not ignored) plus .whl and .gpu
    local bytes
    bytes=$( { git ls-files -z --cached --others --exclude-standard; printf '%s\0' .whl .gpu; } \
        | xargs -0 du -cb --apparent-size 2>/dev/null | tail -1 | cut -f1)
    echo $(( bytes / 1048576 ))
}

prepare() {
    if grep -qxF "$BEGIN" "$EXCLUDE" 2>/dev/null; then
        echo "gpu_tree.sh: already prepared ($(size) MiB); 'restore' puts it back" >&2
        return 0
    fi
    if ! compgen -G ".whl/stanza-*.whl" >/dev/null; then
        python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
            --platform manylinux_2_17_x86_64 -d .whl "${WHEELS[@]}"
    fi
    if [[ ! -d .gpu/wmt21-ruen/sys ]]; then
        [[ -d $DATA ]] || { echo "gpu_tree.sh: no $DATA to copy into .gpu/wmt21-ruen" >&2; exit 2; }
        mkdir -p .gpu/wmt21-ruen && cp -r "$DATA"/refs "$DATA"/sys .gpu/wmt21-ruen/
    fi
    git rm -r --cached -q -- "${LEAVE_OUT[@]}"
    { echo "$BEGIN"; printf '/%s/\n' "${LEAVE_OUT[@]}"; echo "$END"; } >> "$EXCLUDE"
    local mib
    mib=$(size)
    echo "gpu_tree.sh: prepared: ${mib} MiB travel (limit ${LIMIT_MIB}); run with carry [\".whl\", \".gpu\"]:"
    echo "  bench/bench_parse_gpu.sh   (then: bench/gpu_tree.sh restore, before any commit)"
    (( mib < LIMIT_MIB )) || { echo "gpu_tree.sh: still over ${LIMIT_MIB} MiB" >&2; exit 1; }
}

restore() {
    git reset -q -- "${LEAVE_OUT[@]}"
    if [[ -f $EXCLUDE ]]; then
        sed -i "/^$BEGIN\$/,/^$END\$/d" "$EXCLUDE"
    fi
    echo "gpu_tree.sh: restored: $(size) MiB; git status shows no change from this script"
}

case "${1:-}" in
    prepare) prepare ;;
    restore) restore ;;
    size) echo "$(size) MiB" ;;
    *) echo "usage: bench/gpu_tree.sh prepare|size|restore" >&2; exit 2 ;;
esac
