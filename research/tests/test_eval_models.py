"""research/models/eval_models.py: the two texts the shipped parser is scored on (raw paragraphs, and one gold
sentence per segment as mteval parses)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from conftest import ROOT

CONLLU = """# newdoc id = d1
# newpar
# sent_id = 1
# text = Hello there.
1\tHello\thello\tINTJ\tUH\t_\t0\troot\t_\t_
2\tthere\tthere\tADV\tRB\t_\t1\tadvmod\t_\t_
3\t.\t.\tPUNCT\t.\t_\t1\tpunct\t_\t_

# sent_id = 2
# text = Bye.
1\tBye\tbye\tINTJ\tUH\t_\t0\troot\t_\t_
2\t.\t.\tPUNCT\t.\t_\t1\tpunct\t_\t_

# newpar
# sent_id = 3
# text = New paragraph.
1\tNew\tnew\tADJ\tJJ\t_\t2\tamod\t_\t_
2\tparagraph\tparagraph\tNOUN\tNN\t_\t0\troot\t_\t_
3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_

"""


def _module():
    spec = importlib.util.spec_from_file_location("eval_models", ROOT / "research" / "models" / "eval_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_raw_text_keeps_paragraphs_and_sentence_text_one_sentence_each(tmp_path: Path) -> None:
    path = tmp_path / "gold.conllu"
    path.write_text(CONLLU, encoding="utf-8")
    module = _module()
    assert module.raw_text(path) == "Hello there. Bye.\n\nNew paragraph.\n"
    assert module.sentence_text(path) == "Hello there.\n\nBye.\n\nNew paragraph.\n"
