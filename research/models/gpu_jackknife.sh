#!/usr/bin/env bash
# A GPU sitting for jackknifed parser training (issue 15; research/models/jackknife.py): K taggers, each trained from
# scratch (the shipped pos.pt's configuration, a vocabulary of its own) on all of EWT train but one fold,
# side by side for TAGGER_SECONDS; each fold tagged by the tagger that did not see it; then the shipped
# parser trained on those train tags (dev/test tagged by the shipped tagger, as at run time) until DEADLINE
# seconds after the start. $OUT gets the parser's best.pt in 15 MB parts, the jackknifed train file (xz),
# train.jk.json (the folds' scores), logs.tgz and curves.tgz
# (7 files: what comes back from the device is limited to 8).
#
# Each step is skipped when its result exists under WORK (default build/jackknife, ignored by git and kept
# on a warm device machine between calls): a second call with the same WORK resumes the parser.
# Needs the carried .whl/ and .gpu/ud/ of research/models/gpu_sitting.sh. Settings (environment): DEADLINE (s, default
# 520), TAGGER_SECONDS (default 250), K (default 4), JK_TRAIN (a jackknifed train file made before, .conllu.xz
# with its .json beside it, e.g. research/models/data/en_ewt.train.jackknifed.conllu.xz: no taggers, the parser only), DEVICE (default cuda), EXTRA (more train_long options for
# both trainings), TAGGER_EXTRA (for the taggers only), WHEELS, UD_XZ, WORK.
set -u
start=$(date +%s)
deadline=${DEADLINE:-520}
device=${DEVICE:-cuda}
k=${K:-4}
out=${OUT:?OUT: the folder whose files come back}
. "$(dirname "$0")/gpu_setup.sh"
work=${WORK:-build/jackknife}
logs=$work/logs
mkdir -p "$work" "$logs"
common=(--no-prepare --device "$device" --log-every 200 ${EXTRA:-})
shipped=mteval/resources/models/en_ewt
jk=$work/folds/train.jk.conllu
if [ -n "${JK_TRAIN:-}" ] && [ ! -f "$jk" ]; then   # jackknifed train tags made before: the parser only
    mkdir -p "$work/folds" && xz -dc "$JK_TRAIN" > "$jk" || exit 1
    [ ! -f "${JK_TRAIN%.conllu.xz}.json" ] || cp "${JK_TRAIN%.conllu.xz}.json" "$work/folds/jackknife.json"
fi
if [ ! -f "$jk" ]; then
    [ -f "$work/folds/fold0/heldout.conllu" ] || python3 research/models/jackknife.py split --ud "$ud" --k "$k" --out "$work/folds" || exit 1
    for ((i = 0; i < k; i++)); do
        fold=$work/folds/fold$i
        ( [ -f "$fold/init.pt" ] || python3 research/models/jackknife.py init --fold "$fold" --seed $((1234 + i)) ) &&
        timeout -k 60 -s TERM "${TAGGER_SECONDS:-250}" python3 research/models/train_long.py --work "$fold/run" --phases pos \
            --pos-init "$fold/init.pt" --base-steps 0 --ud "$fold/ud" "${common[@]}" ${TAGGER_EXTRA:-} \
            > "$logs/pos.fold$i.log" 2>&1 &
    done
    wait
    python3 research/models/jackknife.py merge --folds "$work/folds" --k "$k" --out "$jk" --device "$device" > "$logs/merge.log" 2>&1 \
        || { tail -n 5 "$logs/merge.log"; exit 1; }
fi
left=$((deadline - ($(date +%s) - start)))
timeout -k 60 -s TERM "$left" python3 research/models/train_long.py --work "$work/dep" --phases retag,depparse \
    --tagger "$shipped/pos.pt" --train-tags "$jk" --ud "$ud" "${common[@]}" >> "$logs/depparse.log" 2>&1
[ -f "$work/dep/depparse/best.pt" ] && split -b 15M -d "$work/dep/depparse/best.pt" "$out/depparse.best.pt.part"
xz -T0 -c "$jk" > "$out/train.jk.conllu.xz"
[ ! -f "$work/folds/jackknife.json" ] || cp "$work/folds/jackknife.json" "$out/train.jk.json"
tar -C "$work" -czf "$out/curves.tgz" $(cd "$work" && ls folds/fold*/run/pos/curve.tsv dep/depparse/curve.tsv \
    dep/depparse/DONE.json dep/retag/DONE.json 2>/dev/null)
tar -C "$logs" -czf "$out/logs.tgz" .
ls -la "$out"
tail -n 2 "$logs"/*.log
[ ! -f "$out/train.jk.json" ] || cat "$out/train.jk.json"
