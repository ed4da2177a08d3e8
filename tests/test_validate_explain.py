"""``yatmath validate`` explains itself (issue 25, item 5; issue 27).

Each case a user met, run as the user runs it: the command in a subprocess, on a small target
module this test writes into tmp_path and puts on PYTHONPATH.

* a typo in the target is said as a typo (a missing attribute, an unknown module), not as a
  missing --kind; a signature that does not fit the kind (``f(w, x, eps)`` given a bias) is one
  line naming the fix ``--bias none``, exit 2, before any work -- also where the signature
  cannot tell (a decorator's ``*args`` wrapper), found by one probing call;
* a target that cannot be differentiated gets the gradient suite "not applicable" with the
  reason (table and report.json), not a crash nor a failure;
* the table's columns are defined under it, and the relative error stays meaningful where the
  exact value is subnormal: a correctly rounded implementation scores <= 1 everywhere, and a
  row fails exactly when its worst err / bound exceeds 1;
* the properties of ``yatmath.testing.properties`` run as a suite: a broken implementation
  fails it, naming the property.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

HAS_TORCH = importlib.util.find_spec("torch") is not None

USER = '''
import functools

import numpy as np

from yatmath.yat import gram as _gram
from yatmath.yat.attention import attention as _att


def gram(X, W, eps, bias=None):
    return _gram(X, W, eps, bias, backend="numpy")


def yat3(w, x, eps):
    """A correct Yat Gram matrix that takes no bias argument."""
    return _gram(w, x, eps, backend="numpy")


def _passes_args_on(fn):
    def wrapper(*args, **kwargs):          # no functools.wraps: the signature says nothing
        return fn(*args, **kwargs)
    return wrapper


@_passes_args_on
def wrapped3(w, x, eps):
    return _gram(w, x, eps, backend="numpy")


def _three(X, W, eps):
    return _gram(X, W, eps, backend="numpy")


def late_bias_refusal(X, W, eps, *rest):
    """Takes the bias on small inputs (the signature probe's), refuses it further in."""
    if X.shape[0] > 2:
        return _three(X, W, eps, *rest)
    return _gram(X, W, eps, *rest, backend="numpy")


def gram_asymmetric(X, W, eps, bias=None):
    """K_ij scaled by 1.001 above the diagonal: not symmetric."""
    K = _gram(X, W, eps, bias, backend="numpy")
    B, n = K.shape
    return K * (1 + 1e-3 * (np.arange(n)[None, :] > np.arange(B)[:, None]))


def gram_negative_zero(X, W, eps, bias=None):
    """The exact K minus the smallest subnormal: -1.4e-45 for an orthogonal pair (K = 0), inside
    the bound but below 0, which a kernel value must not be."""
    K = _gram(X, W, eps, bias, backend="numpy")
    return K - np.asarray(np.finfo(K.dtype).smallest_subnormal, K.dtype)


def attention_rows_off(Q, K, V, eps=1.0, mask=None):
    """Attention whose weights sum to 1.01."""
    return 1.01 * _att(Q, K, V, eps, mask=mask)
'''

EXACT = '''
import mpmath as mp
import numpy as np


def _nearest(v, dt):
    """The float of dtype dt nearest to the mpf v (correct rounding)."""
    f = dt.type(float(v))
    if not np.isfinite(f):
        return f
    cands = [f, np.nextafter(f, dt.type(np.inf)), np.nextafter(f, dt.type(-np.inf))]
    return min(cands, key=lambda c: abs(mp.mpf(float(c)) - v))


def gram_correctly_rounded(X, W, eps, bias=None):
    """K(X_i, W_j) computed at 50 digits and rounded once to the input dtype."""
    dt = X.dtype
    out = np.empty((X.shape[0], W.shape[0]), dt)
    with mp.workdps(50):
        Xm = [[mp.mpf(float(a)) for a in r] for r in X]
        Wm = [[mp.mpf(float(a)) for a in r] for r in W]
        e = mp.mpf(float(eps))
        for j, w in enumerate(Wm):
            b = mp.mpf(0) if bias is None else mp.mpf(float(bias[j]))
            for i, x in enumerate(Xm):
                N = mp.fdot(x, w) + b
                D = mp.fsum((p - q) ** 2 for p, q in zip(x, w)) + e
                out[i, j] = _nearest(N * N / D, dt)
    return out
'''

TORCH_TARGETS = '''
import numpy as np
import torch


def _form(X, W, eps, bias):
    S = X @ W.T
    D = ((X[:, None, :] - W[None, :, :]) ** 2).sum(-1) + eps
    N = S if bias is None else S + bias
    return N * (N / D)


def tracks(X, W, eps, bias=None):
    return _form(X, W, eps, bias)


def under_no_grad(X, W, eps, bias=None):
    with torch.no_grad():
        return _form(X, W, eps, bias)


def returns_numpy(X, W, eps, bias=None):
    b = None if bias is None else bias.detach().numpy()
    return _form(X.detach().numpy(), W.detach().numpy(), eps, b)


def calls_numpy(X, W, eps, bias=None):
    b = None if bias is None else torch.from_numpy(bias.numpy())
    return _form(torch.from_numpy(X.numpy()), torch.from_numpy(W.numpy()), eps, b)
'''


def _write(tmp_path):
    (tmp_path / "usermod.py").write_text(USER)
    (tmp_path / "exactmod.py").write_text(EXACT)
    (tmp_path / "torchmod.py").write_text(TORCH_TARGETS)
    return tmp_path


def _cli(tmp_path, *args, limit=300):
    """``yatmath validate ARGS`` in a subprocess run in tmp_path, the target modules importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path)] + [p for p in
                                          env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return subprocess.run([sys.executable, "-m", "yatmath.cli", "validate", *map(str, args)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=limit)


def _refuse_constant(name):
    raise ValueError(f"report.json holds the non-JSON constant {name}")


def _report(tmp_path, folder="rep"):
    return json.loads((tmp_path / folder / "report.json").read_text(),
                      parse_constant=_refuse_constant)


def _usage_error(res, tmp_path):
    """Exit 2 before any work: one line on stderr, no progress, no table, no report."""
    assert res.returncode == 2, res.stdout + res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("yatmath validate: error: "), res.stderr
    assert res.stdout == "" and not (tmp_path / "rep").exists()
    return lines[0].removeprefix("yatmath validate: error: ")


# ------------------------------------------------------------------ the target, before any work

@pytest.mark.parametrize("target,extra,says", [
    ("yatmath.yat:gramm", [],
     "target 'yatmath.yat:gramm': module 'yatmath.yat' has no attribute 'gramm' "
     "(did you mean 'gram'?)"),
    ("usermod:gramm", ["--kind", "gram"],
     "target 'usermod:gramm': module 'usermod' has no attribute 'gramm' (did you mean 'gram'?)"),
    ("usermod:nothing_like_it", [],
     "target 'usermod:nothing_like_it': module 'usermod' has no attribute 'nothing_like_it'"),
    ("usermodd:gram", [],
     "target 'usermodd:gram': cannot import module 'usermodd': no module named 'usermodd'"),
    ("yatmath.yatt:gram", [],
     "cannot import module 'yatmath.yatt': no module named 'yatmath.yatt' (did you mean "
     "'yatmath.yat'?)"),
    ("usermod:gram", [],
     "target 'usermod:gram' is found, but its kind is not known (it is none of yatmath's or "
     "nmn's presets): pass --kind, one of product, gram, layer"),
])
def test_cli_target_typo_is_said_as_such(tmp_path, target, extra, says):
    res = _cli(_write(tmp_path), target, *extra, "--quick", "--dtype", "float32", "--out", "rep")
    line = _usage_error(res, tmp_path)
    assert says in line, line
    assert "kind must be one of" not in line and "got None" not in line


@pytest.mark.parametrize("target,kind,says", [
    ("usermod:yat3", "gram",
     "target 'usermod:yat3' cannot be called as a gram target f(X, W, eps, bias) (it takes "
     "(w, x, eps)); the blocks with a bias pass it as a fourth argument: pass --bias none if "
     "the target has no bias"),
    ("usermod:yat3", "layer", "pass --bias none if the target has no bias"),
    # the wrapper's signature is (*args, **kwargs): one probing call finds what it takes
    ("usermod:wrapped3", "gram",
     "target 'usermod:wrapped3' cannot be called as a gram target f(X, W, eps, bias) (it takes "
     "no fourth argument: f(X, W, eps, bias) raised TypeError: wrapped3() takes 3 positional "
     "arguments but 4 were given); the blocks with a bias pass it as a fourth argument: pass "
     "--bias none if the target has no bias"),
])
def test_cli_signature_without_bias_names_the_fix_before_any_work(tmp_path, target, kind, says):
    res = _cli(_write(tmp_path), target, "--kind", kind, "--quick", "--dtype", "float32",
               "--out", "rep")
    line = _usage_error(res, tmp_path)
    assert says in line, line


def test_cli_bias_none_runs_the_three_argument_target(tmp_path):
    """The fix the message names works: the same target validates (and passes) with it."""
    res = _cli(_write(tmp_path), "usermod:wrapped3", "--kind", "gram", "--bias", "none",
               "--quick", "--dtype", "float64", "--out", "rep")
    assert res.returncode == 0, res.stdout + res.stderr
    data = _report(tmp_path)
    assert data["passed"] is True and data["settings"]["bias"] == "none"
    assert [r["suite"] for r in data["results"]] == ["accuracy", "gram", "gradients",
                                                     "properties"]


def test_cli_arity_error_after_work_began_is_a_fail_with_the_hint(tmp_path):
    """Once the suites run, a refused call is the target's FAIL (exit 1, not the usage status
    2), and the line still names the fix."""
    res = _cli(_write(tmp_path), "usermod:late_bias_refusal", "--kind", "gram", "--quick",
               "--dtype", "float64", "--out", "rep")
    assert res.returncode == 1, res.stdout + res.stderr
    (line,) = [ln for ln in res.stdout.splitlines() if ln.startswith("FAIL accuracy float64: ")]
    assert "the target raised TypeError: _three() takes 3 positional arguments but 4 were given" \
        in line
    assert line.endswith("(the blocks with a bias call f(X, W, eps, bias): --bias none if the "
                         "target has no bias)"), line
    assert _report(tmp_path)["results"][0]["verdict"] == "FAIL"


def test_api_typo_and_unknown_kind_are_said_before_any_work():
    from yatmath.validate import validate

    with pytest.raises(ValueError, match=r"module 'yatmath.yat' has no attribute 'gramm' "
                                         r"\(did you mean 'gram'\?\)"):
        validate("yatmath.yat:gramm")
    with pytest.raises(ValueError, match=r"target 'yatmath.yat.kernel:gram' is found, but its "
                                         r"kind is not known .*: pass kind=\.\.\., one of "):
        validate("yatmath.yat.kernel:gram")


def test_api_signature_message_names_the_python_spelling():
    from yatmath.validate import validate

    def yat3(w, x, eps):
        return w @ x.T

    with pytest.raises(TypeError, match=r"pass bias='none' if the target has no bias"):
        validate(yat3, kind="gram")


# ------------------------------------------------------------------ not differentiable

def test_cli_numpy_target_gradients_not_applicable(tmp_path):
    """NumPy has no autodiff: the gradient suite says so, as neither a PASS nor a FAIL, and a
    target that passes everything else exits 0."""
    res = _cli(_write(tmp_path), "usermod:gram", "--kind", "gram", "--quick", "--dtype",
               "float64", "--out", "rep")
    assert res.returncode == 0, res.stdout + res.stderr
    reason = ("framework numpy has no automatic differentiation (--framework torch or jax "
              "checks the gradients of a target written for them)")
    assert f"| gradients | float64 | not applicable: {reason} |" in res.stdout
    assert "Traceback" not in res.stderr
    grads = [r for r in _report(tmp_path)["results"] if r["suite"] == "gradients"]
    assert len(grads) == 1
    assert grads[0]["verdict"] == "not applicable" and grads[0]["passed"] is None
    assert grads[0]["reason"] == reason and grads[0]["problems"] == []
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| gradients | float64 | not applicable |" in md


@pytest.mark.skipif(not HAS_TORCH, reason="needs PyTorch (torch is not installed)")
@pytest.mark.parametrize("target,status,reason", [
    ("under_no_grad", 0, "the target's output does not track gradients (requires_grad is False "
                         "for inputs that require them: computed under torch.no_grad(), "
                         "detached, or through NumPy), so autograd cannot differentiate it"),
    ("returns_numpy", 0, "the target returned a numpy ndarray, not a torch.Tensor, for inputs "
                         "that require gradients: autograd cannot follow it"),
    ("calls_numpy", 0, "the target cannot run on tensors that require gradients (Can't call "
                       "numpy() on Tensor that requires grad"),
])
def test_cli_torch_target_without_gradients_is_not_applicable(tmp_path, target, status, reason):
    res = _cli(_write(tmp_path), f"torchmod:{target}", "--kind", "gram", "--framework", "torch",
               "--quick", "--dtype", "float64", "--out", "rep")
    assert "Traceback" not in res.stderr, res.stderr
    assert res.returncode == status, res.stdout + res.stderr
    assert "| gradients | float64 | not applicable: " + reason in res.stdout
    assert not [ln for ln in res.stdout.splitlines() if ln.startswith("FAIL gradients")]
    (grads,) = [r for r in _report(tmp_path)["results"] if r["suite"] == "gradients"]
    assert grads["verdict"] == "not applicable" and reason in grads["reason"]


@pytest.mark.skipif(not HAS_TORCH, reason="needs PyTorch (torch is not installed)")
def test_cli_torch_target_that_tracks_gradients_is_judged(tmp_path):
    res = _cli(_write(tmp_path), "torchmod:tracks", "--kind", "gram", "--framework", "torch",
               "--quick", "--dtype", "float64", "--out", "rep")
    (grads,) = [r for r in _report(tmp_path)["results"] if r["suite"] == "gradients"]
    assert grads["verdict"] == "PASS", res.stdout + res.stderr
    assert grads["rows"] and grads["reason"] == ""


# ------------------------------------------------------------------ the columns

def test_cli_table_has_a_legend_and_json_the_definitions(tmp_path):
    res = _cli(_write(tmp_path), "usermod:gram", "--kind", "gram", "--quick", "--dtype",
               "float32", "--out", "rep")
    assert res.returncode == 0, res.stdout + res.stderr
    out = res.stdout
    table_end = out.index("| properties | float32 | yat.lipschitz_unit_ball |")
    legend = out[table_end:].split("\n\n", 1)[1]
    assert legend.startswith("Columns:\n- checked: ")
    assert ("- worst rel. err [u]: max |got - exact| / (u * max(|exact|, floor)), in units of "
            "the dtype's unit roundoff u (float32 2^-24 = 6.0e-8); floor = the dtype's smallest "
            "normal number for accuracy") in legend
    assert "- worst err / bound: the largest error divided by what the suite allows" in legend
    assert "A row passes exactly when it is <= 1 (fails = 0)" in legend
    columns = _report(tmp_path)["columns"]
    assert set(columns) == {"checked", "fails", "worst rel. err [u]", "worst err / bound"}
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "- worst rel. err [u]: max |got - exact|" in md


def test_cli_correctly_rounded_target_scores_at_most_one_u_subnormals_included(tmp_path):
    """A target that rounds the exact K once to float32 is off by at most u |K| (normal K) or
    half the subnormal spacing (subnormal K): the floored relative error is <= 1 on every row,
    where |got - K| / (u |K|) of the same results exceeds 1 for subnormal K."""
    from yatmath.testing.oracle import TINY, UNIT_ROUNDOFF, exact

    res = _cli(_write(tmp_path), "exactmod:gram_correctly_rounded", "--kind", "gram",
               "--quick", "--dtype", "float32", "--out", "rep")
    data = _report(tmp_path)
    (acc,) = [r for r in data["results"] if r["suite"] == "accuracy"]
    assert acc["verdict"] == "PASS", res.stdout + res.stderr
    rels = [row["worst_rel_u"] for row in acc["rows"]]
    assert all(isinstance(r, float) and r <= 1 + 1e-9 for r in rels), acc["rows"]
    # the floor matters: the blocks hold subnormal exact values, and there the plain relative
    # error of the correctly rounded float32 is far above 1
    u, tiny = UNIT_ROUNDOFF["float32"], TINY["float32"]
    K = np.concatenate([ex.K_hi.ravel() for ex in exact("float32", modes=("inner",),
                                                        quick=True)])
    sub = K[(K > 0) & (K < tiny)]
    assert sub.size > 0
    rounded = sub.astype(np.float32).astype(np.float64)
    assert (np.abs(rounded - sub) / (u * sub)).max() > 1e3
    assert (np.abs(rounded - sub) / np.maximum(sub, tiny) / u).max() <= 1 + 1e-9


def test_cli_a_row_fails_exactly_when_its_worst_err_over_bound_exceeds_one(tmp_path):
    """-1.4e-45 for an exact 0 is inside the bound but negative: the row fails, and its
    worst err / bound says so (inf) instead of a number <= 1."""
    res = _cli(_write(tmp_path), "usermod:gram_negative_zero", "--kind", "gram", "--quick",
               "--dtype", "float32", "--out", "rep")
    assert res.returncode == 1, res.stdout + res.stderr
    (acc,) = [r for r in _report(tmp_path)["results"] if r["suite"] == "accuracy"]
    rows = {row["cls"]: row for row in acc["rows"]}
    assert rows["orthogonal"]["fails"] > 0 and rows["orthogonal"]["worst_ratio"] == "inf"
    for row in acc["rows"]:
        ratio = float(row["worst_ratio"])
        assert (row["fails"] == 0) == (ratio <= 1), row


# ------------------------------------------------------------------ properties (issue 27)

def test_cli_broken_implementation_fails_the_properties_suite(tmp_path):
    res = _cli(_write(tmp_path), "usermod:gram_asymmetric", "--kind", "gram", "--quick",
               "--dtype", "float64", "--out", "rep")
    assert res.returncode == 1, res.stdout + res.stderr
    fails = [ln for ln in res.stdout.splitlines() if ln.startswith("FAIL properties float64: ")]
    assert fails and all(ln.startswith("FAIL properties float64: [yat.symmetric] |G[")
                         for ln in fails), res.stdout
    assert "| properties | float64 | yat.symmetric | 2 | 2 |" in res.stdout
    (props,) = [r for r in _report(tmp_path)["results"] if r["suite"] == "properties"]
    assert props["verdict"] == "FAIL"
    rows = {row["cls"]: row["fails"] for row in props["rows"]}
    assert rows == {"yat.symmetric": 2, "yat.gram_psd": 0, "yat.self_regulation": 0,
                    "yat.lipschitz_unit_ball": 0}
    assert "source:" in props["worst"]["failed"][0]["message"]


def test_cli_attention_rows_property(tmp_path):
    res = _cli(_write(tmp_path), "usermod:attention_rows_off", "--kind", "attention", "--quick",
               "--dtype", "float64", "--out", "rep")
    assert res.returncode == 1, res.stdout + res.stderr
    assert any(ln.startswith("FAIL properties float64: [yat.attention_rows_sum_to_one] row ")
               for ln in res.stdout.splitlines()), res.stdout


def test_api_properties_pass_on_yatmath_and_softermax_with_delta_is_not_applicable():
    from yatmath.validate import validate

    rep = validate("yatmath.yat:product", dtypes=("float32",), quick=True)
    (props,) = [r for r in rep.results if r.suite == "properties"]
    assert props.passed, props.problems
    assert {row["cls"] for row in props.rows} == {"yat.symmetric", "yat.gram_psd",
                                                  "yat.self_regulation",
                                                  "yat.lipschitz_unit_ball"}
    rep = validate("yatmath.yat.attention:attention", dtypes=("float64",), quick=True,
                   normalize="softermax", normalize_arg="normalize", delta=0.5)
    (props,) = [r for r in rep.results if r.suite == "properties"]
    assert props.verdict == "not applicable"
    assert props.reason.startswith("rows sum to 1 only for softmax or softermax with delta = 0")
