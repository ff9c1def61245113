#!/usr/bin/env bash
# `make models`: retrain the embedded English models from ../shared/ud (CPU; hours, see the card).
# Reproduces mteval/resources/models/en_ewt/MODEL_CARD.md step by step, then the NER model.
#   models/train_models.sh [SHARED_DIR] [WORK_DIR]     (defaults: ../shared, build/models)
# Set STAGES="ner" (or "tokenize mwt lemma pos depparse ner") to run only some stages.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(dirname "$HERE")"
SHARED="$(realpath "${1:-$ROOT/../shared}")"
WORK="$(realpath -m "${2:-$ROOT/build/models}")"
OUT="$ROOT/mteval/resources/models/en_ewt"
STAGES="${STAGES:-tokenize mwt lemma pos depparse ner}"
PY="${PYTHON:-python3}"
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 STANZA_RESOURCES_DIR="$WORK/stanza_resources"
UD="$WORK/extern_data/ud2/ud-treebanks-v2.18/UD_English-EWT"
mkdir -p "$UD" "$STANZA_RESOURCES_DIR" "$WORK/extern_data/wordvec"
for s in train dev test; do ln -sf "$SHARED/ud/en_ewt/en_ewt-ud-$s.conllu" "$UD/"; done
cd "$WORK"
has() { [[ " $STAGES " == *" $1 "* ]]; }

if has tokenize || has mwt || has lemma || has pos || has depparse; then
  $PY -m stanza.utils.datasets.prepare_tokenizer_treebank UD_English-EWT
  $PY -m stanza.utils.datasets.prepare_mwt_treebank UD_English-EWT
  $PY -m stanza.utils.datasets.prepare_pos_treebank UD_English-EWT
  $PY -m stanza.utils.datasets.prepare_lemma_treebank UD_English-EWT --gold --no_lemma_classifier
  $PY -m stanza.utils.datasets.prepare_depparse_treebank UD_English-EWT --gold
fi
if has tokenize; then
  $PY -m stanza.utils.training.run_tokenizer UD_English-EWT --no_charlm --save_dir saved_models/tokenize \
      --steps 4000 --eval_steps 500 --report_steps 100
  cp saved_models/tokenize/en_ewt_nocharlm_tokenizer.pt "$OUT/tokenize.pt"
fi
if has mwt; then
  $PY -m stanza.utils.training.run_mwt UD_English-EWT --save_dir saved_models/mwt --num_epoch 10
  cp saved_models/mwt/en_ewt_mwt_expander.pt "$OUT/mwt.pt"
fi
if has lemma; then
  $PY -m stanza.utils.training.run_lemma UD_English-EWT --no_charlm --no_lemma_classifier \
      --save_dir saved_models/lemma --num_epoch 3 --log_step 100
  cp saved_models/lemma/en_ewt_nocharlm_lemmatizer.pt "$OUT/lemma.pt"
fi
POSARGS="--no_charlm --no_pretrain --share_hid --hidden_dim 150 --char_hidden_dim 200 --batch_size 100
  --eval_interval 200 --fix_eval_interval --max_steps_before_stop 1000"
if has pos; then
  # the card's stage 1 was stopped by hand at 600 steps; --max_steps 600 does the same
  $PY -m stanza.utils.training.run_pos UD_English-EWT $POSARGS --save_dir saved_models/pos --max_steps 600 --log_step 10
  POS_INIT=saved_models/pos/en_ewt_nopretrain_tagger.pt $PY "$HERE/pos_continue.py" UD_English-EWT $POSARGS \
      --save_dir saved_models/pos2 --max_steps 2400 --log_step 20
  POS_INIT=saved_models/pos2/en_ewt_nopretrain_tagger.pt $PY "$HERE/pos_continue.py" UD_English-EWT $POSARGS \
      --save_dir saved_models/pos3 --max_steps 400 --log_step 20
  cp saved_models/pos3/en_ewt_nopretrain_tagger.pt "$OUT/pos.pt"
fi
DEPARGS="--no_pretrain --hidden_dim 200 --char_hidden_dim 100 --deep_biaff_hidden_dim 200 --num_layers 2
  --batch_size 2000 --eval_interval 200 --max_steps_before_stop 1000"
if has depparse; then
  $PY -m stanza.utils.training.run_depparse UD_English-EWT --no_charlm $DEPARGS --save_dir saved_models/depparse \
      --max_steps 600 --log_step 10
  mkdir -p data/depparse_pred
  for s in train dev test; do   # retag with the stage-1 tagger, keeping gold heads and relations
    $PY -m stanza.models.tagger --mode predict --lang en --shorthand en_ewt --no_pretrain \
        --wordvec_dir extern_data/wordvec --save_dir saved_models/pos --save_name en_ewt_nopretrain_tagger.pt \
        --eval_file data/depparse/en_ewt.$s.in.conllu --output_file data/depparse_pred/en_ewt.$s.in.conllu
  done
  $PY "$HERE/dep_continue.py" --wordvec_dir extern_data/wordvec \
      --train_file data/depparse_pred/en_ewt.train.in.conllu --eval_file data/depparse_pred/en_ewt.dev.in.conllu \
      --output_file data/depparse_pred/dev_out.conllu --lang en --shorthand en_ewt --mode train $DEPARGS \
      --max_steps 3000 --log_step 20 --save_dir saved_models/depparse_pred \
      --continue_from saved_models/depparse/en_ewt_nopretrain_parser_checkpoint.pt
  cp saved_models/depparse_pred/en_ewt_nopretrain_parser.pt "$OUT/depparse.pt"
fi
if has ner; then
  # Universal NER on EWT dev+test, split by document (models/uner_split.py); no pretrained vectors
  $PY "$HERE/uner_split.py" "$SHARED/ud/uner_en_ewt" data/uner
  $PY -m stanza.models.ner_tagger --mode train --train_file data/uner/train.json --eval_file data/uner/dev.json \
      --shorthand en_uner --no_pretrain --word_emb_dim 100 --hidden_dim 256 --char_hidden_dim 100 --scheme bioes \
      --max_steps "${NER_STEPS:-6000}" --eval_interval 200 --max_steps_no_improve 2000 --batch_size 32 --log_step 50 \
      --save_dir saved_models/ner --save_name en_uner_nopretrain_nertagger.pt --cpu
  cp saved_models/ner/en_uner_nopretrain_nertagger.pt "$OUT/ner.pt"
fi
echo "models written to $OUT; now run: make models-eval (and update MODEL_CARD.md)"
