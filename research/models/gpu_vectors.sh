#!/usr/bin/env bash
# The word-vector experiment of issue 15 on one GPU (the workplace's device tool): two taggers train side by
# side for DEADLINE seconds, both from the shipped pos.pt with the same data, seed and schedule:
#   control: the shipped tagger as it is (what a further sitting alone buys);
#   vectors: the shipped tagger widened to read word vectors trained here (research/models/word_vectors.py).
# Their best models, learning curves and logs are left in $OUT (files come back at most 16 MiB each).
#
# Needs, carried beside the tree (ignored by git): .whl/ and .gpu/ud/ as for research/models/gpu_sitting.sh, and
# .gpu/wv/{pretrain.pt,pos_wv.pt} (research/models/word_vectors.py vectors --out .gpu/wv, then widen --out
# .gpu/wv/pos_wv.pt --pretrain .gpu/wv/pretrain.pt).
# Settings (environment): DEADLINE (s, default 450), DEVICE (default cuda), WV (default .gpu/wv), EXTRA,
# WHEELS, UD_XZ, WORK (as research/models/gpu_sitting.sh).
set -u
deadline=${DEADLINE:-450}
device=${DEVICE:-cuda}
out=${OUT:?OUT: the folder whose files come back}
wv=${WV:-.gpu/wv}
. "$(dirname "$0")/gpu_setup.sh"
work=${WORK:-$(mktemp -d)}
# the widened tagger counts its steps from the shipped tagger's (PROVENANCE.json), as the control does
base=$(python3 -c 'import sys; sys.path.insert(0, "research/models"); import train_long as t; print(t.base_steps("pos", t.SHIPPED / "pos.pt"))')
common=(--phases pos --no-prepare --ud "$ud" --device "$device" --log-every 200 ${EXTRA:-})
timeout -k 60 -s TERM "$deadline" python3 research/models/train_long.py --work "$work/control" "${common[@]}" \
    > "$out/control.log" 2>&1 &
timeout -k 60 -s TERM "$deadline" python3 research/models/train_long.py --work "$work/vectors" "${common[@]}" \
    --pos-init "$wv/pos_wv.pt" --base-steps "$base" --pos-pretrain "$wv/pretrain.pt" > "$out/vectors.log" 2>&1 &
wait
for run in control vectors; do
    [ -f "$work/$run/pos/best.pt" ] && cp "$work/$run/pos/best.pt" "$out/$run.best.pt"
done
tar -C "$work" -czf "$out/curves.tgz" $(cd "$work" && ls {control,vectors}/pos/{curve.tsv,DONE.json} 2>/dev/null)
ls -la "$out"
tail -n 3 "$out/control.log" "$out/vectors.log"
