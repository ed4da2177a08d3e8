"""Figures of papers 000, 001 and 002 that are not reproduced, each with the reason.

Listed by ``yatmath figures --list``.  Three kinds:
* schematics and concept art (no data or mathematics to regenerate);
* language-model curves and calibration, which need GPT-2-scale training on FineWeb: nothing
  synthetic or shipped stands in for them honestly (a loss curve of a different model on
  different data says nothing about these runs).
The MNIST figures are NOT here: they have labelled substitutes (fig_digit_*.py).
"""
from __future__ import annotations

from .registry import register_not_reproduced

_SCHEMATIC = "schematic drawing with no data or mathematics to regenerate"
_LM = ("needs GPT-2-scale language-model training on FineWeb ({tokens}); the toolkit cannot redo "
       "it and no synthetic or shipped data set is an honest stand-in for these curves")

NOT_REPRODUCED = [
    ("arch_transformer_vs_aether", "000 Fig. 4",
     "Standard Transformer block vs Aether block", _SCHEMATIC),
    ("calibration_gpt2_aether", "000 Fig. 8(b)",
     "Reliability diagram, GPT-2 vs Aether-GPT2",
     "needs the trained GPT-2 and Aether-GPT2 models (2.5B FineWeb tokens) to compute their "
     "predicted-probability calibration; a reliability diagram of a small synthetic classifier "
     "would say nothing about language-model calibration"),
    ("lm_loss_000", "000 Fig. 9", "Training and validation loss curves (W&B)",
     _LM.format(tokens="2.5B tokens, BF16")),
    ("lm_loss_001", "001 Fig. 12", "Training and validation loss, GPT-2 vs Aether-GPT2",
     _LM.format(tokens="2.5B tokens, TPU v5-8")),
    ("lm_loss_bf16_001", "001 Fig. 13", "BF16 training and validation loss",
     _LM.format(tokens="BF16 runs")),
    ("vectoverse_concept", "002 Fig. 4", "The Vectoverse (concept illustration)",
     "concept art (weights and inputs drawn as particles); no quantity is plotted"),
    ("lm_loss_002", "002 Fig. 9", "Loss curve over 600M FineWeb tokens",
     _LM.format(tokens="600M tokens, TPU v3")),
    ("arch_sdpa", "002 Fig. A10", "Scaled dot-product attention", _SCHEMATIC),
    ("arch_mha", "002 Fig. A11", "Multi-head attention", _SCHEMATIC),
    ("arch_ffn", "002 Fig. A12", "Position-wise feed-forward network", _SCHEMATIC),
    ("arch_encoder_block", "002 Fig. A13", "Transformer encoder block", _SCHEMATIC),
    ("arch_resnet_block", "002 Fig. A14", "ResNet basic block", _SCHEMATIC),
    ("arch_cnmn_block", "002 Fig. A15", "CNMN residual block (AetherResNet)", _SCHEMATIC),
    ("arch_yatformer_block", "002 Fig. A16", "YatFormer block (AetherGPT)", _SCHEMATIC),
    ("arch_yat_mlp", "002 Fig. A17", "Yat-MLP block", _SCHEMATIC),
    ("arch_yat_attention", "002 Fig. A18", "Yat-attention block", _SCHEMATIC),
]

for _name, _paper, _title, _reason in NOT_REPRODUCED:
    register_not_reproduced(_name, paper=_paper, title=_title, reason=_reason)
