"""yatmath validate on a real client: nmn's PyTorch YatNMN layer and yat_attention.

nmn's conventions (read from its source, nmn/torch/nmn/yat_nmn.py and attention/): the layer
is y = alpha (x.W + b)^2 / (clamp(||x||^2 + ||W||^2 - 2 x.W, 0) + eps) with alpha a plain
multiplier and the bias inside the square; attention is softmax(K(q, k) / sqrt(d)) V in the
(batch, seq, heads, dim) layout.  What the report finds, asserted here: the layer fails the
bound (the unrepaired expanded form cancels for near-coincident pairs; (x.W)^2 overflows before
the division at large norms), the attention passes its parity bound, and MAY features are
unbiased.
"""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.peer
torch = pytest.importorskip("torch")
pytest.importorskip("nmn")

from yatmath.validate import validate  # noqa: E402


def test_nmn_layer_fails_where_the_expanded_form_cancels():
    rep = validate("nmn.torch.nmn:YatNMN", quick=True)
    assert rep.framework == "torch" and rep.kind == "layer"
    assert not rep.passed
    acc = {r.dtype: {row["cls"]: row for row in r.rows} for r in rep.results
           if r.suite == "accuracy"}
    for dt in ("float32", "float64"):
        assert acc[dt]["perturbed"]["fails"] > 0 or acc[dt]["scaled"]["fails"] > 0
        assert acc[dt]["cross"]["fails"] > 0
    # well-conditioned generic pairs at moderate norms are fine: the failures are the hard inputs
    worst = [r for r in rep.results if r.suite == "accuracy"][0].worst
    assert worst["passed"] is False and "rerun" in worst


def test_nmn_attention_parity():
    rep = validate("nmn.torch.attention:yat_attention", quick=True)
    assert rep.passed, rep.table()
    classes = {row["cls"] for r in rep.results for row in r.rows}
    assert {"near_coincident", "masked", "causal"} <= classes


def test_nmn_maclaurin_features_unbiased():
    rep = validate("nmn.torch.attention:maclaurin_features", dtypes=("float64",), quick=True)
    assert [r for r in rep.results if r.suite == "unbiased"][0].passed
