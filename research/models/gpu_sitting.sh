#!/usr/bin/env bash
# One GPU sitting of the long training (issue 15), as run through the workplace's device tool: the tagger
# and the parser train side by side on one GPU from the shipped pos.pt / depparse.pt for DEADLINE seconds,
# then their best models and curves are left in $OUT (the parser's best.pt split into 15 MB parts: what
# comes back from the device is limited to 16 MiB a file). Nothing there survives the call, so a GPU sitting
# is one segment: it ships its best models (research/models/ship_long.py) and the next sitting starts from them.
#
# Needs, carried beside the tree (both ignored by git, see research/models/README.md "A GPU sitting"):
#   .whl/     stanza and what the device's image lacks of its requirements, as wheels
#   .gpu/ud/  en_ewt.{train,dev,test}.conllu.xz: stanza's prepared EWT files (quote-augmented train), as
#             train_long.py prepares them under WORK/data/pos
# Settings (environment): DEADLINE (s, default 450), DEVICE (default cuda), EXTRA (more train_long options),
# WHEELS, UD_XZ (default .gpu/ud), WORK (default: a temporary folder).
set -u
deadline=${DEADLINE:-450}
device=${DEVICE:-cuda}
out=${OUT:?OUT: the folder whose files come back}
. "$(dirname "$0")/gpu_setup.sh"
work=${WORK:-$(mktemp -d)}
common=(--no-prepare --ud "$ud" --device "$device" --log-every 200 ${EXTRA:-})
shipped=mteval/resources/models/en_ewt
timeout -k 60 -s TERM "$deadline" python3 research/models/train_long.py --work "$work/pos" --phases pos "${common[@]}" \
    > "$out/pos.log" 2>&1 &
timeout -k 60 -s TERM "$deadline" python3 research/models/train_long.py --work "$work/dep" --phases retag,depparse \
    --tagger "$shipped/pos.pt" "${common[@]}" > "$out/depparse.log" 2>&1 &
wait
[ -f "$work/pos/pos/best.pt" ] && cp "$work/pos/pos/best.pt" "$out/pos.best.pt"
[ -f "$work/dep/depparse/best.pt" ] && split -b 15M -d "$work/dep/depparse/best.pt" "$out/depparse.best.pt.part"
tar -C "$work" -czf "$out/curves.tgz" $(cd "$work" && ls pos/pos/curve.tsv pos/pos/DONE.json dep/depparse/curve.tsv \
    dep/depparse/DONE.json dep/retag/DONE.json 2>/dev/null)
ls -la "$out"
tail -n 3 "$out/pos.log" "$out/depparse.log"
