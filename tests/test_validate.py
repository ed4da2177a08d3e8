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


# ------------------------------------------------------------------ a gate CI can trust
#
# Hostile targets, written into tmp_path as a user would write them, run through the command in
# a subprocess (as CI runs it): whatever the target does is a FAIL (exit 1) with a line naming it,
# the table is printed and report.json (strict JSON) written; a target or setting that cannot work
# is refused before any work (exit 2); a missing framework is exit 3.

HOSTILE = '''
import os
import sys
import time

import numpy as np

from yatmath.yat import gram as _gram
from yatmath.yat.attention import attention as _att


def attn_ok(Q, K, V, eps=1.0, mask=None):
    return _att(Q, K, V, eps, mask=mask)


def attn_raises(Q, K, V, eps=1.0, mask=None):
    raise ZeroDivisionError("boom from the target")


def attn_exits(Q, K, V, eps=1.0, mask=None):
    sys.exit(0)


def attn_os_exit(Q, K, V, eps=1.0, mask=None):
    os._exit(0)


def attn_sleeps(Q, K, V, eps=1.0, mask=None):
    time.sleep(600)


def attn_mutates(Q, K, V, eps=1.0, mask=None):
    out = _att(Q, K, V, eps, mask=mask)
    V[0, 0] += 1.0
    return out


def attn_complex(Q, K, V, eps=1.0, mask=None):
    return _att(Q, K, V, eps, mask=mask) + 1e-3j


def attn_nan(Q, K, V, eps=1.0, mask=None):
    out = _att(Q, K, V, eps, mask=mask)
    out[0, 0] = np.nan
    return out


def attn_inf(Q, K, V, eps=1.0, mask=None):
    out = _att(Q, K, V, eps, mask=mask)
    out[-1, -1] = np.inf
    return out


def attn_wrong_shape(Q, K, V, eps=1.0, mask=None):
    return _att(Q, K, V, eps, mask=mask)[:, :2]


def attn_list(Q, K, V, eps=1.0, mask=None):
    return _att(Q, K, V, eps, mask=mask).tolist()


def gram_ok(X, W, eps, bias=None):
    return _gram(X, W, eps, bias, backend="numpy")


def gram_nan(X, W, eps, bias=None):
    K = _gram(X, W, eps, bias, backend="numpy")
    K[0, -1] = np.nan
    return K


def gram_mutates(X, W, eps, bias=None):
    K = _gram(X, W, eps, bias, backend="numpy")
    X *= 1e3
    return K


def gram_raises_late(X, W, eps, bias=None):
    if X.shape[0] == 40:            # the Gram suite's 40 PSD points: accuracy has run by then
        raise MemoryError("out of memory on 40 points")
    return _gram(X, W, eps, bias, backend="numpy")


def gram_two_args(X, W):
    return X @ W.T


def features_here(d, F, *, eps, bias, seed):
    from yatmath.features import yat_features
    return yat_features(d, F, eps=eps, bias=bias, rng=seed, method="series", spherical=True)
'''


def _refuse_constant(name):
    raise ValueError(f"report.json holds the non-JSON constant {name}")


def _strict_json(path):
    """report.json parsed as strict JSON: a bare NaN/Infinity fails the test."""
    return json.loads(path.read_text(), parse_constant=_refuse_constant)


def _targets(tmp_path):
    (tmp_path / "hostile_targets.py").write_text(HOSTILE)
    (tmp_path / "exits_on_import.py").write_text("import sys\nsys.exit(0)\n")
    (tmp_path / "raises_on_import.py").write_text("raise RuntimeError('broken at import')\n")
    (tmp_path / "hangs_on_import.py").write_text("import time\ntime.sleep(600)\n")
    return tmp_path


def _cli(tmp_path, *args, limit=180):
    """``yatmath validate ARGS`` in a subprocess run in tmp_path, the targets importable."""
    import os
    import subprocess
    import sys

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path)] + [p for p in
                                          env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return subprocess.run([sys.executable, "-m", "yatmath.cli", "validate", *map(str, args)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=limit)


def _fail_lines(out, suite_dtype):
    return [line for line in out.splitlines() if line.startswith(f"FAIL {suite_dtype}: ")]


@pytest.mark.parametrize("name,says", [
    ("attn_raises", "the target raised ZeroDivisionError: boom from the target (in its call on "
                    "Q of shape (8, 16)"),
    ("attn_exits", "the target called sys.exit(0) (in its call on Q of shape (8, 16)"),
    ("attn_os_exit", "the process running the target ended without a verdict (exit status 0) "
                     "during the target's call on Q of shape (8, 16)"),
    ("attn_mutates", "the target modified its input V in place"),
    ("attn_complex", "the target returned complex output (dtype complex128)"),
    ("attn_nan", "the target returned NaN in 27 of 864 result entries"),
    ("attn_inf", "the target returned inf in 27 of 864 result entries"),
    ("attn_wrong_shape", "the target returned shape (8, 2), expected (8, 4)"),
    ("attn_list", "the target returned list, not an array"),
])
def test_cli_misbehaving_target_fails_naming_what_it_did(tmp_path, name, says):
    res = _cli(_targets(tmp_path), f"hostile_targets:{name}", "--kind", "attention", "--quick",
               "--dtype", "float64", "--out", "rep")
    assert res.returncode == 1, res.stdout + res.stderr
    assert "Traceback" not in res.stderr
    lines = _fail_lines(res.stdout, "attention float64")
    assert len(lines) == 1 and says in lines[0], res.stdout
    assert "## hostile_targets:" + name + " (attention, numpy): FAIL" in res.stdout
    data = _strict_json(tmp_path / "rep" / "report.json")
    assert data["passed"] is False
    result, props = data["results"]            # the attention suite, then the properties suite
    assert result["verdict"] == "FAIL" and says in result["problems"][0]
    assert props["suite"] == "properties" and props["verdict"] in ("FAIL", "not run")
    assert says in (tmp_path / "rep" / "report.md").read_text()


def test_cli_hanging_target_is_stopped_at_the_timeout(tmp_path):
    import time

    t0 = time.monotonic()
    res = _cli(_targets(tmp_path), "hostile_targets:attn_sleeps", "--kind", "attention", "--quick",
               "--dtype", "float32", "--dtype", "float64", "--timeout", "1", "--out", "rep")
    assert time.monotonic() - t0 < 60           # the target sleeps 600 s
    assert res.returncode == 1, res.stdout + res.stderr
    (line,) = _fail_lines(res.stdout, "attention float32")
    assert "the target's call on Q of shape (8, 16)" in line
    assert "did not finish within the per-call time limit of 1 s (--timeout)" in line
    data = _strict_json(tmp_path / "rep" / "report.json")
    assert [r["verdict"] for r in data["results"]] == ["FAIL", "not run", "not run", "not run"]
    assert data["settings"]["timeout"] == 1.0


@pytest.mark.parametrize("module,says", [
    ("exits_on_import", "FAIL: module 'exits_on_import' called sys.exit(0) while being imported"),
    ("hangs_on_import", "FAIL: importing module 'hangs_on_import' did not finish within the "
                        "per-call time limit of 1 s (--timeout)"),
])
def test_cli_target_module_exiting_or_hanging_at_import_fails(tmp_path, module, says):
    res = _cli(_targets(tmp_path), f"{module}:f", "--kind", "gram", "--quick", "--dtype",
               "float32", "--timeout", "1", "--out", "rep")
    assert res.returncode == 1, res.stdout + res.stderr
    assert any(line.startswith(says) for line in res.stdout.splitlines()), res.stdout
    data = _strict_json(tmp_path / "rep" / "report.json")
    assert data["passed"] is False and data["problem"].startswith(says.removeprefix("FAIL: "))


def test_cli_nan_output_keeps_its_fail_and_the_gram_suite_judges_it(tmp_path):
    """Before: the accuracy FAIL was lost when the Gram suite's eigenvalue solver hit the NaN
    (exit 2, no table).  Now both suites fail, each saying why, and the table is printed."""
    res = _cli(_targets(tmp_path), "hostile_targets:gram_nan", "--kind", "gram", "--bias", "none",
               "--quick", "--dtype", "float32", "--out", "rep")
    assert res.returncode == 1, res.stdout + res.stderr
    assert "| accuracy | float32 | cross |" in res.stdout
    (acc,) = _fail_lines(res.stdout, "accuracy float32")
    assert acc.startswith("FAIL accuracy float32: the target returned NaN in 28 of 4032")
    gram_lines = _fail_lines(res.stdout, "gram float32")
    assert any("NaN or inf in 1 of 1600 entries of the 40-point Gram matrix" in g
               for g in gram_lines)
    data = _strict_json(tmp_path / "rep" / "report.json")
    assert [r["verdict"] for r in data["results"]] == ["FAIL", "FAIL", "not applicable", "FAIL"]
    psd = data["results"][1]["rows"][1]
    assert psd["cls"] == "PSD (40 points)" and psd["worst_ratio"] == "inf"
    assert data["results"][1]["rows"][0]["worst_rel_u"] is None     # NaN written as null


def test_cli_target_writing_into_its_inputs_fails(tmp_path):
    """Before: X *= 1e3 inside the target went unnoticed and loosened the PSD tolerance from
    -7.3e-13 to -2.9e6.  Inputs are now fresh copies, compared after each call."""
    res = _cli(_targets(tmp_path), "hostile_targets:gram_mutates", "--kind", "gram", "--bias",
               "none", "--quick", "--dtype", "float32", "--out", "rep")
    assert res.returncode == 1, res.stdout + res.stderr
    for suite in ("accuracy float32", "gram float32"):
        (line,) = _fail_lines(res.stdout, suite)
        assert "the target modified its input X in place" in line
    assert [r["verdict"] for r in _strict_json(tmp_path / "rep" / "report.json")["results"]] \
        == ["FAIL", "FAIL", "not applicable", "FAIL"]


def test_cli_suites_already_run_keep_their_verdicts(tmp_path):
    res = _cli(_targets(tmp_path), "hostile_targets:gram_raises_late", "--kind", "gram",
               "--bias", "none", "--quick", "--dtype", "float32", "--out", "rep")
    assert res.returncode == 1, res.stdout + res.stderr
    (line,) = _fail_lines(res.stdout, "gram float32")
    assert "the target raised MemoryError: out of memory on 40 points" in line
    assert not _fail_lines(res.stdout, "accuracy float32")
    data = _strict_json(tmp_path / "rep" / "report.json")
    assert [r["verdict"] for r in data["results"]] == ["PASS", "FAIL", "not applicable", "PASS"]
    assert data["results"][0]["rows"][0]["entries"] > 0


@pytest.mark.parametrize("argv,says", [
    (["hostile_targets:nope", "--kind", "gram"],
     "target 'hostile_targets:nope': module 'hostile_targets' has no attribute 'nope'"),
    (["no_such_module_here:f", "--kind", "gram"],
     "cannot import module 'no_such_module_here': no module named 'no_such_module_here'"),
    (["raises_on_import:f", "--kind", "gram"],
     "importing module 'raises_on_import' raised RuntimeError: broken at import"),
    (["hostile_targets:gram_two_args", "--kind", "gram"],
     "target 'hostile_targets:gram_two_args' cannot be called as a gram target "
     "f(X, W, eps[, bias]): too many positional arguments"),
    (["hostile_targets:attn_ok", "--kind", "attention", "--set", "eps_arg=epsilon"],
     "cannot be called as an attention target f(Q, K, V, epsilon=..., mask=...)"),
    (["hostile_targets:attn_ok", "--kind", "attention", "--set", "colour=red"],
     "--set colour is not a setting of an attention target; its settings are: layout,"),
    (["hostile_targets:attn_ok", "--kind", "attention", "--set", "colour=red", "--set",
      "flavour=1"], "--set colour, --set flavour are not settings of an attention target"),
    (["hostile_targets:attn_ok", "--kind", "attention", "--set", "quick=true"],
     "--set quick is not an adapter setting: 'quick' is the command option --quick"),
    (["hostile_targets:attn_ok", "--kind", "attention", "--set", "kind=gram"],
     "--set kind is not an adapter setting: 'kind' is the command option --kind"),
    (["hostile_targets:gram_ok", "--kind", "gram", "--set", "scale=2"],
     "--set scale does not apply to a gram target (it is read for layer targets)"),
    (["hostile_targets:attn_ok", "--kind", "attention", "--bias", "inner"],
     "--bias does not apply to an attention target"),
    (["hostile_targets:attn_ok", "--kind", "attention", "--set", "score_scale=-1"],
     "--set score_scale must be > 0.0, got -1"),
    (["hostile_targets:attn_ok", "--kind", "attention", "--set", "layout=bhqd"],
     "--set layout must be one of ('ld', 'bqhd'), got 'bhqd'"),
    (["hostile_targets:attn_ok", "--kind", "attention", "--set", "call=os:system"],
     "--set call must be an object of keyword arguments"),
    (["hostile_targets:features_here", "--kind", "features", "--set", "num_features=2.5"],
     "--set num_features must be an integer, got 2.5"),
    (["hostile_targets:features_here", "--kind", "features", "--set", "eps=NaN"],
     "--set eps must be a finite real number, got nan"),
    (["hostile_targets:features_here", "--kind", "features", "--set", "factory=os:system"],
     "--set factory='os:system': a factory must come from the target's module "
     "'hostile_targets' or a module named with --allow"),
    (["yatmath", "--set", "colour=1"], "--set colour is not a setting of"),
    (["yatmath", "--kind", "gram"], "--kind does not apply to the group 'yatmath'"),
    (["hostile_targets:attn_ok", "--kind", "attention", "--set", "layout=ld", "--set",
      "layout=bqhd"], "--set layout is given twice"),
])
def test_cli_bad_target_or_setting_is_refused_before_any_work(tmp_path, monkeypatch, capsys,
                                                             argv, says):
    monkeypatch.syspath_prepend(str(_targets(tmp_path)))
    out = tmp_path / "rep"
    assert cli_main(["validate", *argv, "--quick", "--dtype", "float32", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "yatmath validate: error: " in err and says in err, err
    assert "[1/" not in err and not out.exists()        # no suite ran, no report written


def test_cli_factory_from_another_module_needs_allow(tmp_path, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(_targets(tmp_path)))
    (tmp_path / "other_features.py").write_text(
        "def factory(d, F, *, eps, bias, seed):\n"
        "    from yatmath.features import yat_features\n"
        "    return yat_features(d, F, eps=eps, bias=bias, rng=seed, method='series',\n"
        "                        spherical=True)\n")
    argv = ["validate", "hostile_targets:features_here", "--kind", "features", "--quick",
            "--dtype", "float64", "--set", "factory=other_features:factory",
            "--set", "replicates=2", "--set", "budget_features=8"]
    assert cli_main(argv) == 2
    assert "a factory must come from the target's module" in capsys.readouterr().err
    assert cli_main(argv + ["--allow", "other_features"]) in (0, 1)
    captured = capsys.readouterr()
    assert "## hostile_targets:features_here (features, numpy)" in captured.out
    assert "unbiased float64" in captured.err


@pytest.mark.parametrize("framework", ["jax", "torch"])
def test_cli_missing_framework_exits_3(tmp_path, framework):
    import importlib.util

    if importlib.util.find_spec(framework) is not None:
        pytest.skip(f"{framework} is installed here")
    res = _cli(_targets(tmp_path), "hostile_targets:gram_ok", "--kind", "gram", "--framework",
               framework, "--quick")
    assert res.returncode == 3, res.stderr
    assert f"yatmath validate: error: framework '{framework}' needs" in res.stderr
    assert "not installed" in res.stderr and "Traceback" not in res.stderr


def test_cli_timeout_must_be_positive(capsys):
    with pytest.raises(SystemExit) as exc:
        cli_main(["validate", "yatmath.yat:gram", "--timeout", "0"])
    assert exc.value.code == 2
    assert "--timeout must be a number of seconds > 0" in capsys.readouterr().err


def test_api_target_failures_are_verdicts_not_exceptions():
    import sys

    def raises(Q, K, V, eps=1.0, mask=None):
        raise RuntimeError("nope")

    def exits(Q, K, V, eps=1.0, mask=None):
        sys.exit(0)

    for fn, says in ((raises, "the target raised RuntimeError: nope"),
                     (exits, "the target called sys.exit(0)")):
        rep = validate(fn, kind="attention", dtypes="float64", quick=True)
        assert not rep.passed
        line, props = rep.failures()
        assert line.startswith("FAIL attention float64: " + says)
        assert props.startswith("FAIL properties float64: [yat.attention_rows_sum_to_one] "
                                + says)
        json.loads(rep.to_json(), parse_constant=_refuse_constant)


def test_api_timeout_stops_a_hanging_target_object():
    import time

    def sleeps(Q, K, V, eps=1.0, mask=None):
        time.sleep(600)

    t0 = time.monotonic()
    rep = validate(sleeps, kind="attention", dtypes="float64", quick=True, timeout=0.5)
    assert time.monotonic() - t0 < 60
    (line,) = rep.failures()
    assert "did not finish within the per-call time limit of 0.5 s (timeout)" in line


def test_api_refuses_settings_it_would_ignore():
    with pytest.raises(ValueError, match="option colour is not a setting of a gram target"):
        validate(_naive_gram, kind="gram", colour=1)
    with pytest.raises(ValueError, match="option scale does not apply to a gram target"):
        validate(_naive_gram, kind="gram", scale=2.0)
    with pytest.raises(TypeError, match="cannot be called as a gram target"):
        validate(lambda X, W: X @ W.T, kind="gram")
    with pytest.raises(ValueError, match="a factory must come from the target's module "
                                         "'yatmath.features'"):
        validate("yatmath.features:yat_features", factory="os:system")
    with pytest.raises(ValueError, match="timeout must be > 0"):
        validate(_naive_gram, kind="gram", timeout=0)
