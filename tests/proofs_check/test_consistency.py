"""Self-consistency of the whole ledger (claims.md, "How a verdict is decided").

For every registered claim, at level quick with seed 0:
- the record follows the rules (``Evidence.problems`` is empty): the verdict follows from the
  parts, AMBIGUOUS only between readings that cite passages, every REFUTED part has a
  counterexample and a reproduction, every CONFIRMED part states its scope;
- every reproduction (of the claim and of each part and reading) runs through the public API with
  the counterexample's own values and gives the number the check recorded;
- every threshold comes from the paper, a statistical level or the precision of the arithmetic;
- the check lives in the module its id leads to, and no check module imports another.
"""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from tests.checkrun import run_quick
from proofs_check import registry
from proofs_check import verdicts as V
from proofs_check.report import walk as _walk
from proofs_check.repro import run_repro

# runs every registered check at level quick, and every reproduction: about a minute on 2 cores
pytestmark = pytest.mark.slow

registry.load_all()
IDS = list(registry.REGISTRY)


@pytest.mark.parametrize("cid", IDS)
def test_record_follows_the_rules(cid):
    ev = run_quick(cid)
    assert ev.problems() == []
    d = ev.to_dict()
    for path, node in _walk(d):
        for t in node.get("thresholds") or []:
            assert t["kind"] in registry.THRESHOLD_KINDS, (path, t)
            assert t["source"].strip(), (path, t)
        if node["verdict"] == V.REFUTED and not node.get("parts"):
            assert node["repro"] and node["counterexample"], path


@pytest.mark.parametrize("cid", IDS)
def test_every_repro_runs_and_reproduces_its_number(cid):
    d = run_quick(cid).to_dict()
    found = 0
    for path, node in _walk(d):
        rep = node.get("repro")
        if not rep:
            continue
        found += 1
        value, ok = run_repro(rep)
        assert ok, f"{cid} {path}: {rep['expr']} gave {value!r}, recorded {rep['expected']!r}"
    if d["verdict"] == V.REFUTED:
        assert found >= 1


@pytest.mark.parametrize("cid", IDS)
def test_check_lives_where_its_id_leads(cid):
    assert registry.REGISTRY[cid].func.__module__ in registry.module_for(cid)


def test_no_check_module_imports_another():
    root = Path(inspect.getsourcefile(registry)).parent / "checks"
    offenders = []
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                if node.level:  # relative import inside the checks package
                    names.append(mod or ".")
                elif mod.startswith("proofs_check.checks"):
                    names.append(mod)
            elif isinstance(node, ast.Import):
                names += [a.name for a in node.names if a.name.startswith("proofs_check.checks")]
            if names:
                offenders.append(f"{path.relative_to(root)}: {names}")
    assert offenders == []
