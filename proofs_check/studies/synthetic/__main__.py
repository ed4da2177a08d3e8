"""``python -m proofs_check.studies.synthetic [--full] [--out FILE]``: the 004 App F.1 synthetic
study (small sizes by default; ``--full`` runs the paper's sizes) written to a JSON file."""
from __future__ import annotations

from .study import run_study


def _main(argv=None):
    import argparse
    import json

    ap = argparse.ArgumentParser(description="004 App F.1 synthetic study")
    ap.add_argument("--full", action="store_true",
                    help="the paper's sizes (long: hours on 2 cores)")
    ap.add_argument("--out", default="synthetic_study.json")
    a = ap.parse_args(argv)
    if a.full:
        res = run_study(("logistic", "rbf_svm", "rbf_svm_g0.01", "rbf_svm_g100", "rff", "mkl",
                         "sinha_duchi", "langevin", "langevin_robust"), n_trials=10,
                        progress=lambda si, t: print(f"sigma {si} trial {t}", flush=True))
    else:
        res = run_study(n_sigmas=5, n_trials=2, options={"T_max": 100, "N_w": 2000})
    out = {"sigmas": res.sigmas.tolist(), "bayes": res.bayes.tolist(),
           "acc": {k: v.tolist() for k, v in res.acc.items()},
           "f1": {k: v.tolist() for k, v in res.f1.items()}, "params": res.params}
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1, default=str)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    _main()
