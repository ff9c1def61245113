#!/usr/bin/env bash
# Issue 32, for a session lent a GPU: one run (about 9.5 minutes; timeout_s 595) printing profile lines and one table
# (bench/bench_parse_gpu.py says what each row measures; docs/scaling.md has the figures so far).
#
#   bench/bench_parse_gpu.sh            # from the repository root, on the GPU machine
#   DRY_RUN=1 bench/bench_parse_gpu.sh  # print the steps, run nothing (works anywhere)
#
# Knobs: PYTHON (default python3: the device image's, which holds a CUDA torch), DATA (the WMT21
# ru-en folder: ../shared/data/wmt21-ruen, else .gpu/wmt21-ruen, a copy carried with the tree),
# SUBSET (100), SHUFFLED (1000), ANNOTATOR (8000 segments: 16 calls of 500), POOL (12bh,16bh,12b,12:
# the workers' steady rate on 24,000 segments, models loaded; b: Stanza's batch sizes inside a call
# raised, parser_float64.LARGE_BATCHES; h: the tokenizer, MWT and lemmatizer on the CPU,
# parser_float64.CPU_STAGES), WORKERS (12,12bh: the annotator, load included; identical caches?), FIRST
# (2000 segments of the one-process pass), TIMEOUT (420 s; the profile before it: 150 s), OUT (a new
# folder). The worker rows come first: the issue's target is a GPU's rate with
# several processes driving it.
# Stanza and the packages it needs beyond the image's are installed from .whl/ when that folder is
# there (docs/scaling.md, "For a session lent a GPU", says how to prepare it and the data copy).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=${PYTHON:-python3}
DATA=${DATA:-$ROOT/../shared/data/wmt21-ruen}
[[ -d $DATA ]] || DATA=$ROOT/.gpu/wmt21-ruen
OUT=${OUT:-$(mktemp -d)}

run() {  # print a step; run it unless DRY_RUN is set
    echo "+ $*" >&2
    if [[ -z "${DRY_RUN:-}" ]]; then "$@"; fi
}

if [[ ! -d $DATA ]]; then
    echo "skipped: no WMT21 ru-en folder (../shared/data/wmt21-ruen or .gpu/wmt21-ruen)"
    exit 0
fi
if [[ -d $ROOT/.whl ]]; then
    run "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site "$ROOT"/.whl/*.whl
    export PYTHONPATH=/tmp/site:$ROOT
fi
export PYTHONUNBUFFERED=1
# the GPU's kernel time a sentence under torch.profiler, Stanza's batch sizes, larger ones, and with
# the character-level models on the CPU (about 90 s): the bound each puts on any number of workers
run timeout -s INT 150 "$PYTHON" -W ignore "$ROOT/bench/profile_gpu_kernels.py" --data "$DATA" --segments 500 \
    | grep -v "USDT\|STAGE:" || true
run timeout -s INT "${TIMEOUT:-420}" "$PYTHON" -W ignore "$ROOT/bench/bench_parse_gpu.py" --data "$DATA" \
    --subset "${SUBSET:-100}" --shuffled "${SHUFFLED:-1000}" --annotator "${ANNOTATOR:-8000}" \
    --pool "${POOL:-12bh,16bh,12b,12}" --workers "${WORKERS:-12,12bh}" --first "${FIRST:-2000}" --out "$OUT"
echo "outputs in $OUT" >&2
