#!/usr/bin/env bash
# `make models`: retrain the embedded English models from ../shared/ud (CPU; hours, see TRAINING_LOG.md).
# Reproduces research/models/TRAINING_LOG.md step by step, then the NER model.
#   research/models/train_models.sh [SHARED_DIR] [WORK_DIR]     (defaults: ../shared, build/models)
# Environment:
#   STAGES="ner"   run only some stages (default "tokenize mwt lemma pos depparse ner"); each stage first
#                  removes its own saved_models/ folders in WORK_DIR, as stanza would otherwise skip the
#                  training (model exists) or resume from a stale parser checkpoint.
#   MODELS_OUT=DIR where the finished .pt files are copied (default: the package folder
#                  mteval/resources/models/en_ewt, i.e. the shipped models are replaced).
#   QUICK=1        smoke test: every step/epoch count cut to a few batches (tokenizer 100+50 steps, mwt and
#                  lemma 1 epoch with lemma on 5% of train, tagger 20+20+20 steps, parser 20+20 steps, dev
#                  evaluation every 10 steps); all stages but ner take about 16-18 min on 1 thread. The
#                  models are useless, so QUICK=1 requires MODELS_OUT; use a separate WORK_DIR too.
#   DRY_RUN=1      print the commands (after `+ `) instead of running them; nothing is written.
#                  QUICK does not change the ner stage (research/models/train_ner.py, about 4 CPU minutes).
#   PYTHON         the interpreter (default python3).
# Without QUICK the commands are the log's, in the log's order (check: DRY_RUN=1), except that the runs
# the log stopped by hand get --max_steps at the step where they were stopped: tagger stage 1 600 (log
# 2000), tagger stage 3 400 (log 600), parser stage 1 600 (log 3000), parser stage 2 2400 (log 3000:
# --continue_from restarts stanza's step counter at 0, and the log's run was stopped after 2400 more
# steps; the shipped depparse.pt records global_step 2400), and the tokenizer's stage 2 15000 (issue 15: its
# run said --steps 20000 and was stopped after the evaluation at step 15000; the best was step 10500).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(dirname "$(dirname "$HERE")")"
SHARED="$(realpath "${1:-$ROOT/../shared}")"
WORK="$(realpath -m "${2:-$ROOT/build/models}")"
OUT="$(realpath -m "${MODELS_OUT:-$ROOT/mteval/resources/models/en_ewt}")"
STAGES="${STAGES:-tokenize mwt lemma pos depparse ner}"
PY="${PYTHON:-python3}"
QUICK="${QUICK:-0}"
DRY_RUN="${DRY_RUN:-0}"
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 STANZA_RESOURCES_DIR="$WORK/stanza_resources"
UD="$WORK/extern_data/ud2/ud-treebanks-v2.18/UD_English-EWT"

# run CMD...: run a command, or with DRY_RUN=1 only print it
run() {
  if [[ "$DRY_RUN" == 1 ]]; then
    echo "+ $*"
  else
    "$@"
  fi
}
has() { [[ " $STAGES " == *" $1 "* ]]; }
if [[ "$QUICK" == 1 && -z "${MODELS_OUT:-}" && "$DRY_RUN" != 1 ]]; then
  echo "QUICK=1 trains useless models: set MODELS_OUT (refusing to overwrite $OUT)" >&2
  exit 2
fi
T0=$SECONDS
TSTAGE=$SECONDS
stage_done() {
  echo "=== stage $1 done in $((SECONDS - TSTAGE)) s (total $((SECONDS - T0)) s)"
  TSTAGE=$SECONDS
}

# step counts: the log's, or a few batches each with QUICK=1
if [[ "$QUICK" == 1 ]]; then
  TOK_STEPS=100 TOK_EVAL=50 TOK_REPORT=10 TOK2_STEPS=50 TOK2_EVAL=25
  MWT_EPOCHS=1
  LEMMA_EPOCHS=1 LEMMA_EXTRA=(--sample_train 0.05)
  POS_EVAL=10 POS1_STEPS=20 POS2_STEPS=20 POS3_STEPS=20
  DEP_EVAL=10 DEP1_STEPS=20 DEP2_STEPS=20
else
  TOK_STEPS=4000 TOK_EVAL=500 TOK_REPORT=100 TOK2_STEPS=15000 TOK2_EVAL=500
  MWT_EPOCHS=10
  LEMMA_EPOCHS=3 LEMMA_EXTRA=()
  POS_EVAL=200 POS1_STEPS=600 POS2_STEPS=2400 POS3_STEPS=400
  DEP_EVAL=200 DEP1_STEPS=600 DEP2_STEPS=2400
fi

run mkdir -p "$UD" "$STANZA_RESOURCES_DIR" "$WORK/extern_data/wordvec" "$OUT"
for s in train dev test; do run ln -sf "$SHARED/ud/en_ewt/en_ewt-ud-$s.conllu" "$UD/"; done
run cd "$WORK"

if has tokenize || has mwt || has lemma || has pos || has depparse; then
  run "$PY" -m stanza.utils.datasets.prepare_tokenizer_treebank UD_English-EWT
  run "$PY" -m stanza.utils.datasets.prepare_mwt_treebank UD_English-EWT
  run "$PY" -m stanza.utils.datasets.prepare_pos_treebank UD_English-EWT
  run "$PY" -m stanza.utils.datasets.prepare_lemma_treebank UD_English-EWT --gold --no_lemma_classifier
  run "$PY" -m stanza.utils.datasets.prepare_depparse_treebank UD_English-EWT --gold
  stage_done prepare
fi
if has tokenize; then
  run rm -rf saved_models/tokenize saved_models/tokenize2
  run "$PY" -m stanza.utils.training.run_tokenizer UD_English-EWT --no_charlm --save_dir saved_models/tokenize \
      --steps "$TOK_STEPS" --eval_steps "$TOK_EVAL" --report_steps "$TOK_REPORT"
  # stage 2 (issue 15): continued from stage 1's model (fresh Adam), the best of TOK2_STEPS more by dev score
  run env TOK_INIT=saved_models/tokenize/en_ewt_nocharlm_tokenizer.pt "$PY" "$HERE/tok_continue.py" UD_English-EWT \
      --no_charlm --save_dir saved_models/tokenize2 --steps "$TOK2_STEPS" --eval_steps "$TOK2_EVAL" \
      --report_steps "$TOK2_EVAL" --max_steps_before_stop 5000
  run cp saved_models/tokenize2/en_ewt_nocharlm_tokenizer.pt "$OUT/tokenize.pt"
  stage_done tokenize
fi
if has mwt; then
  run rm -rf saved_models/mwt
  run "$PY" -m stanza.utils.training.run_mwt UD_English-EWT --save_dir saved_models/mwt --num_epoch "$MWT_EPOCHS"
  run cp saved_models/mwt/en_ewt_mwt_expander.pt "$OUT/mwt.pt"
  stage_done mwt
fi
if has lemma; then
  run rm -rf saved_models/lemma
  run "$PY" -m stanza.utils.training.run_lemma UD_English-EWT --no_charlm --no_lemma_classifier \
      --save_dir saved_models/lemma --num_epoch "$LEMMA_EPOCHS" --log_step 100 ${LEMMA_EXTRA[@]+"${LEMMA_EXTRA[@]}"}
  run cp saved_models/lemma/en_ewt_nocharlm_lemmatizer.pt "$OUT/lemma.pt"
  stage_done lemma
fi
# the tagger's and parser's options, split where the log puts --save_dir and --max_steps (same order as the log)
POS_A=(--no_charlm --no_pretrain)
POS_B=(--share_hid --hidden_dim 150 --char_hidden_dim 200 --batch_size 100)
POS_C=(--eval_interval "$POS_EVAL" --fix_eval_interval --max_steps_before_stop 1000)
if has pos; then
  run rm -rf saved_models/pos saved_models/pos2 saved_models/pos3
  # the log's stage 1 was stopped by hand at 600 steps; --max_steps 600 does the same (stage 3: at 400)
  run "$PY" -m stanza.utils.training.run_pos UD_English-EWT "${POS_A[@]}" --save_dir saved_models/pos \
      "${POS_B[@]}" --max_steps "$POS1_STEPS" "${POS_C[@]}" --log_step 10
  run env POS_INIT=saved_models/pos/en_ewt_nopretrain_tagger.pt "$PY" "$HERE/pos_continue.py" UD_English-EWT \
      "${POS_A[@]}" --save_dir saved_models/pos2 "${POS_B[@]}" --max_steps "$POS2_STEPS" "${POS_C[@]}" --log_step 20
  run env POS_INIT=saved_models/pos2/en_ewt_nopretrain_tagger.pt "$PY" "$HERE/pos_continue.py" UD_English-EWT \
      "${POS_A[@]}" --save_dir saved_models/pos3 "${POS_B[@]}" --max_steps "$POS3_STEPS" "${POS_C[@]}" --log_step 20
  run cp saved_models/pos3/en_ewt_nopretrain_tagger.pt "$OUT/pos.pt"
  stage_done pos
fi
DEP_A=(--hidden_dim 200 --char_hidden_dim 100 --deep_biaff_hidden_dim 200 --num_layers 2 --batch_size 2000)
DEP_B=(--eval_interval "$DEP_EVAL" --max_steps_before_stop 1000)
if has depparse; then
  run rm -rf saved_models/depparse saved_models/depparse_pred
  # the log's stage 1 was stopped by hand at 600 steps; --max_steps 600 does the same
  run "$PY" -m stanza.utils.training.run_depparse UD_English-EWT --no_charlm --no_pretrain \
      --save_dir saved_models/depparse "${DEP_A[@]}" --max_steps "$DEP1_STEPS" "${DEP_B[@]}" --log_step 10
  run mkdir -p data/depparse_pred
  for s in train dev test; do   # retag with the stage-1 tagger, keeping gold heads and relations
    run "$PY" -m stanza.models.tagger --mode predict --lang en --shorthand en_ewt --no_pretrain \
        --wordvec_dir extern_data/wordvec --save_dir saved_models/pos --save_name en_ewt_nopretrain_tagger.pt \
        --eval_file "data/depparse/en_ewt.$s.in.conllu" --output_file "data/depparse_pred/en_ewt.$s.in.conllu"
  done
  # --continue_from restarts stanza's step counter at 0: 2400 more steps, as the log's run (stopped by hand)
  run "$PY" "$HERE/dep_continue.py" --wordvec_dir extern_data/wordvec \
      --train_file data/depparse_pred/en_ewt.train.in.conllu --eval_file data/depparse_pred/en_ewt.dev.in.conllu \
      --output_file data/depparse_pred/dev_out.conllu --lang en --shorthand en_ewt --mode train --no_pretrain \
      "${DEP_A[@]}" --max_steps "$DEP2_STEPS" "${DEP_B[@]}" --log_step 20 \
      --save_dir saved_models/depparse_pred --continue_from saved_models/depparse/en_ewt_nopretrain_parser_checkpoint.pt
  run cp saved_models/depparse_pred/en_ewt_nopretrain_parser.pt "$OUT/depparse.pt"
  stage_done depparse
fi
if has ner; then
  # mteval's own NER tagger (research/models/train_ner.py): Universal NER EWT annotated by the pipeline in
  # $OUT, EWT-train lexicon, Census/GeoNames gazetteer (downloaded from PyPI once); ~4 CPU minutes
  run "$PY" "$HERE/train_ner.py" "$SHARED" "$WORK/ner" "$OUT/ner.npz"
  stage_done ner
fi
if [[ "$DRY_RUN" == 1 ]]; then
  echo "DRY_RUN: nothing was run"
else
  echo "models written to $OUT; now run: make models-eval (and update TRAINING_LOG.md and the model card)"
fi
