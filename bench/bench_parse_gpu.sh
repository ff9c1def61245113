#!/usr/bin/env bash
# Issue 32, for a session lent a GPU: one run (under 10 minutes) printing one table.
#
#   bench/bench_parse_gpu.sh            # from the repository root, on the GPU machine
#   DRY_RUN=1 bench/bench_parse_gpu.sh  # print the steps, run nothing (works anywhere)
#   SEGMENTS=1000 BLOCK=256 TIMEOUT=270 PYTHON=.venv/bin/python bench/bench_parse_gpu.sh
#
# Rows (embedded English models, the distinct cleaned segments of ../shared/data/wmt21-ruen
# references and systems; the script stops with a note when that folder is absent):
#   cpu  - per-segment vs batched tagging (bench/bench_parse_batch.py --device cpu)
#   cuda - the same on GPU 0 (--device cuda): model load time, sentences/s, identity batch vs alone
#   cpu-vs-cuda - segments whose CoNLL-U is identical on both devices, and whose arc scores are
#          (expected: trees equal, arc scores off in the last bits, which is why a GPU run's
#          identity names its device class: docs/annotation.md)
# Needs a CUDA build of torch in $PYTHON's environment (torch.version.cuda set).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
SEGMENTS=${SEGMENTS:-1000}
BLOCK=${BLOCK:-256}
TIMEOUT=${TIMEOUT:-270}  # per device: both together stay under 10 minutes
DATA=$ROOT/../shared/data/wmt21-ruen
OUT=${OUT:-$(mktemp -d)}

run() {  # print a step; run it unless DRY_RUN is set
    echo "+ $*" >&2
    if [[ -z "${DRY_RUN:-}" ]]; then "$@"; fi
}

if [[ ! -d $DATA ]]; then
    echo "skipped: $DATA is absent (the WMT21 ru-en data of the shared folder)"
    exit 0
fi
run "$PYTHON" -c 'import torch, sys; print("torch", torch.__version__, "CUDA", torch.version.cuda,
      "GPU", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None); sys.exit(not torch.cuda.is_available())'
for device in cpu cuda; do
    run timeout "$TIMEOUT" "$PYTHON" "$ROOT/bench/bench_parse_batch.py" --segments "$SEGMENTS" --block "$BLOCK" \
        --device "$device" --shared-only --dump "$OUT/$device.pkl" | tee "$OUT/$device.txt" || true
done
run "$PYTHON" - "$OUT/cpu.pkl" "$OUT/cuda.pkl" <<'EOF'
import pickle, sys
import numpy as np
cpu, gpu = (pickle.load(open(p, "rb")) for p in sys.argv[1:3])
trees = sum(a[0] == b[0] for a, b in zip(cpu, gpu))
arcs = sum(a[1:] == b[1:] for a, b in zip(cpu, gpu))
diff = max((float(np.nanmax(np.abs(np.where(np.isfinite(x := np.frombuffer(a[1], np.float32)),
                                             x - np.frombuffer(b[1], np.float32), 0))))
            for a, b in zip(cpu, gpu) if a[0] == b[0] and a[1]), default=0.0)
print(f"cpu-vs-cuda  segments {len(cpu)}  identical CoNLL-U {trees}/{len(cpu)}  identical arc scores "
      f"{arcs}/{len(cpu)}  max |arc score difference| (same trees) {diff:.2e}")
EOF
echo "outputs in $OUT" >&2
