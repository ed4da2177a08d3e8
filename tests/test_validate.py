"""yatmath validate: certifies yatmath's own implementations and catches broken ones.

Broken implementations are written here on purpose (the naive expanded GEMM form without the
cancellation repair, s^2 evaluated before the division in float32, a layer with the bias added
outside the square while it claims inside, a feature map that ignores the bias): each must fail the
check that targets it, so these tests could fail.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from yatmath.features import yat_features
from yatmath.validate import validate
from yatmath.validate.cli import main as cli_main
from yatmath.yat import gram


def _naive_gram(X, W, eps, bias=None):
    """s^2 / (||x||^2 + ||w||^2 - 2 s + eps): no repair, s^2 may overflow."""
    S = X @ W.T
    D = (X * X).sum(1)[:, None] + (W * W).sum(1)[None, :] - 2 * S + eps
    N = S if bias is None else S + bias[None, :]
    return N * N / D


def _wrong_bias_layer(X, W, eps, bias=None):
    """Adds the bias outside the square (K + b) while declared inner."""
    K = gram(X, W, eps, backend="numpy")
    return K if bias is None else K + bias[None, :]


def _biased_features(d, F, *, eps, bias, seed):
    """Ignores the bias: E[phi.phi] = (q.k)^2 / D instead of (q.k + b)^2 / D."""
    return yat_features(d, F, eps=eps, bias=0.0, rng=seed, method="series", spherical=True)


@pytest.mark.parametrize("target,kind", [("yatmath.yat:gram", "gram"),
                                         ("yatmath.yat:product", "product"),
                                         ("yatmath.yat.layer:layer_forward", "layer")])
def test_yatmath_kernels_pass(target, kind):
    rep = validate(target, kind=kind, quick=True)
    assert rep.passed, rep.table()
    acc = [r for r in rep.results if r.suite == "accuracy"]
    assert {r.dtype for r in acc} == {"float32", "float64"}
    # the bound is met with room: float64 entries are within half of it
    assert max(row["worst_ratio"] for r in acc for row in r.rows) <= 1.0


def test_yatmath_attention_and_features_pass():
    for target in ("yatmath.yat.attention:attention",
                   "yatmath.yat.linear_attention:linear_attention",
                   "yatmath.features:yat_features"):
        rep = validate(target, quick=True)
        assert rep.passed, (target, rep.table())


def test_naive_expanded_gram_fails_where_it_cancels():
    rep = validate(_naive_gram, kind="gram", dtypes=("float64",), quick=True)
    acc = rep.results[0]
    assert not rep.passed
    fails = {row["cls"]: row["fails"] for row in acc.rows}
    assert fails["coincident"] > 0 and fails["perturbed"] > 0 and fails["self"] > 0
    assert acc.worst["passed"] is False and len(acc.worst["w"]) >= 1


def test_float32_square_before_division_fails():
    """s * s / D in float32 overflows at |w||x| ~ 1e19 where K is finite."""
    def f(X, W, eps, bias=None):
        X = X.astype(np.float32)
        W = W.astype(np.float32)
        S = X @ W.T
        D = ((X[:, None, :] - W[None, :, :]) ** 2).sum(-1) + np.float32(eps)
        N = S if bias is None else S + bias[None, :]
        return (N * N / D).astype(np.float32)

    rep = validate(f, kind="gram", dtypes=("float32",), quick=True)
    assert not rep.results[0].passed


def test_bias_in_the_wrong_place_fails():
    rep = validate(_wrong_bias_layer, kind="layer", dtypes=("float64",), quick=True,
                   bias="inner", scale=1.0)
    assert not rep.results[0].passed
    ok = validate(_wrong_bias_layer, kind="layer", dtypes=("float64",), quick=True,
                  bias="outer", scale=1.0)
    assert ok.results[0].passed, ok.table()


def test_biased_feature_map_is_caught():
    rep = validate(_biased_features, kind="features", dtypes=("float64",), quick=True)
    unb = [r for r in rep.results if r.suite == "unbiased"][0]
    assert not unb.passed
    assert unb.worst["mean"] < unb.worst["exact"]      # (q.k)^2 < (q.k + 1)^2 where q.k > -1/2


def test_torch_autograd_gradients_checked():
    torch = pytest.importorskip("torch")

    def good(X, W, eps, bias=None):
        S = X @ W.T
        D = ((X[:, None, :] - W[None, :, :]) ** 2).sum(-1) + eps
        N = S if bias is None else S + bias
        return N * (N / D)

    def naive(X, W, eps, bias=None):
        S = X @ W.T
        D = (X * X).sum(1)[:, None] + (W * W).sum(1)[None, :] - 2 * S + eps
        N = S if bias is None else S + bias
        return N * (N / D)

    rep = validate(good, kind="gram", framework="torch", dtypes=("float64",), quick=True)
    grads = [r for r in rep.results if r.suite == "gradients"][0]
    assert grads.passed, rep.table()
    bad = validate(naive, kind="gram", framework="torch", dtypes=("float64",), quick=True)
    assert not [r for r in bad.results if r.suite == "gradients"][0].passed
    assert torch.get_default_dtype() == torch.float32


def test_cli_exit_codes_and_reports(tmp_path, capsys):
    out = tmp_path / "rep"
    assert cli_main(["validate", "yatmath.yat:gram", "--quick", "--dtype", "float32",
                     "--out", str(out)]) == 0
    data = json.loads((out / "report.json").read_text())
    assert data["passed"] is True and data["results"][0]["suite"] == "accuracy"
    assert (out / "report.md").read_text().startswith("# yatmath validate")
    assert (out / "error_vs_condition.png").read_bytes()[:4] == b"\x89PNG"
    assert not list(out.glob(".*.tmp"))
    assert cli_main(["validate", "tests.test_validate:_naive_gram", "--kind", "gram", "--quick",
                     "--dtype", "float64"]) == 1
    assert "FAIL" in capsys.readouterr().out
    assert cli_main(["validate", "no_such_module:f", "--kind", "gram"]) == 2
    with pytest.raises(SystemExit) as exc:
        cli_main(["validate", "yatmath.yat:gram", "--framework", "tensorflow"])
    assert exc.value.code == 2


def test_bad_arguments_name_the_value():
    with pytest.raises(ValueError, match="kind must be one of"):
        validate(_naive_gram, kind="conv")
    with pytest.raises(ValueError, match="framework must be one of"):
        validate(_naive_gram, kind="gram", framework="mxnet")
    with pytest.raises(ValueError, match="dtype must be one of"):
        validate(_naive_gram, kind="gram", dtypes=("float16",))
