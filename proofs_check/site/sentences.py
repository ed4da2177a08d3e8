"""One sentence per refuted claim: what the paper says, what holds instead, the decisive number.

LEDGER.md's summary by paper and the site's index state each REFUTED claim with
:func:`proofs_check.report.decisive_sentence`, which takes its sentence from here.  A sentence is
registered for a claim id and the path of the refuted leaf it describes (``""`` for the claim
itself, ``"part"`` or ``"part.sub"`` for a part) and is a function of that leaf (and the whole
record): every number it prints is formatted from the record (evidence, thresholds,
counterexample, reproduction), never copied from a run, so the sentence follows the ledger when a
check's numbers change.

A sentence is used only while its leaf is REFUTED in the record.  When a record has no sentence
(a claim newly refuted, a leaf renamed) or its sentence no longer fits the record (a key the
check stopped writing), ``decisive_sentence`` falls back to the deciding threshold in words, and
tests/proofs_check/site/test_sentences.py fails naming the claim.

Numbers: :func:`g` (3 significant digits, ``1.97×10⁵``), :func:`pct` (percent), :func:`vec`
(a short vector).  Write sentences in plain words and Unicode mathematics (‖w‖, ε, ≤), not code.
"""
from __future__ import annotations

import math
from typing import Callable

Sentence = Callable[[dict, dict], str]

#: (claim id, leaf path relative to the claim) -> sentence(leaf node, record)
SENTENCES: dict[tuple[str, str], Sentence] = {}


def sentence(claim_id: str, *leaves: str):
    """Register the decorated function as the sentence of ``claim_id`` when the leaf at each of
    ``leaves`` (``""``: the claim itself) is the refuted one."""
    def deco(func: Sentence) -> Sentence:
        for leaf in leaves or ("",):
            key = (claim_id, leaf)
            if key in SENTENCES:
                raise KeyError(f"{key} already has a sentence")
            SENTENCES[key] = func
        return func
    return deco


def leaf_key(path: str) -> str:
    """The leaf path of ``report.walk`` (``claim.a.b``) as registered here (``a.b``)."""
    return "" if path == "claim" else path[len("claim."):]


def for_leaf(rec: dict, path: str, node: dict, *, strict: bool = False) -> str | None:
    """The sentence of the refuted leaf ``node`` at ``path`` of ``rec``; None when none is
    registered, or (unless ``strict``) when it does not fit the record (it raised)."""
    func = SENTENCES.get((rec.get("id", ""), leaf_key(path)))
    if func is None:
        return None
    try:
        text = func(node, rec)
    except Exception:  # noqa: BLE001 - a sentence that no longer fits falls back, never crashes
        if strict:
            raise
        return None
    return " ".join(str(text).split()) or None


# --------------------------------------------------------------------------------------------
# formatting numbers from the record

_SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def g(x, sig: int = 3) -> str:
    """``x`` to ``sig`` significant digits, with a true minus sign: whole numbers below 10⁷ in full
    (``1,821``), exact powers of ten from 10³ as ``10⁵``, other large or small numbers as
    ``1.97×10⁵`` / ``1.72×10⁻⁴``."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, str):
        return {"inf": "∞", "-inf": "−∞", "nan": "NaN"}.get(x, x)
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == 0:
        return "0"
    power = math.log10(abs(x))
    if x.is_integer() and abs(x) < 1e7 and not (power >= 3 and power.is_integer()):
        return f"{int(x):,}".replace("-", "−")
    short = f"{x:.{sig}g}"
    if abs(x) >= 1e-3 and "e" not in short:
        return short.replace("-", "−")
    mant, exp = f"{x:.{sig - 1}e}".split("e")
    mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
    head = {"1": "", "-1": "-"}.get(mant, mant + "×")
    return (head + "10" + str(int(exp)).translate(_SUP)).replace("-", "−")


def pct(x, sig: int = 2) -> str:
    """A fraction as a percentage (``0.0703`` -> ``7.0%``)."""
    v = 100 * float(x)
    digits = max(0, sig - 1 - int(math.floor(math.log10(abs(v))))) if v else 0
    return f"{v:.{digits}f}%".replace("-", "−")


def vec(xs, sig: int = 3) -> str:
    """A short vector ``(1, 0)``; a scalar as :func:`g`."""
    if isinstance(xs, (list, tuple)):
        return "(" + ", ".join(vec(x, sig) for x in xs) + ")"
    return g(xs, sig)


def big(x) -> str:
    """A count in millions or billions (``51927552`` -> ``51.9 million``)."""
    x = float(x)
    for unit, name in ((1e9, "billion"), (1e6, "million")):
        if abs(x) >= unit:
            return f"{g(x / unit)} {name}"
    return g(x)


def _th(n: dict, i: int = 0) -> dict:
    return n["thresholds"][i]


def _ce(n: dict) -> dict:
    return n["counterexample"]


def _ev(n: dict) -> dict:
    return n["evidence"]


def _expected(n: dict):
    return n["repro"]["expected"]


def _text_gap(n: dict) -> tuple[list, float]:
    """The printed pairs of a text-against-table record and the largest gap beyond rounding."""
    pairs = _ce(n)["pairs"]
    return pairs, _th(n)["measured"]


# ============================================================================================
# yat: papers 000 (Yat product, later version), 001 (E-product), 002 (Deep Learning 2.0.1)


@sentence("yat.imq_fourier", "removable_at_0")
def _(n, r):
    ce = _ce(n)
    return (f"001 Lemma C.13 says the Fourier transform of the IMQ kernel has a removable value at "
            f"ξ = 0; for d ≥ 2 it has none, the transform diverges as ξ → 0: at d = {g(ce['d'])}, "
            f"ε = {g(ce['eps'])} it is {g(ce['FT'][-1])} at |ξ| = {g(ce['xi'][-1])}.")


@sentence("yat.uat_unbiased")
def _(n, r):
    ce = _ce(n)
    return (f"002 Thm A6 says every continuous f on a compact K is a uniform limit of bias-free sums "
            f"Σ cᵢ Yat(wᵢ, x); every such sum vanishes at x = 0, so on K = {ce['K']} the function "
            f"{ce['f']} stays at sup distance at least {g(ce['lower_bound_sup_error'])} "
            f"(the best fit with {g(len(ce['W']))} atoms misses it by {g(_expected(n))} at 0).")


@sentence("yat.universal_kernel_proof_002", "a_polynomial_universal")
def _(n, r):
    ce = _ce(n)
    return (f"002 App G.6 step (a) says ⟨w,x⟩² is universal (as an instance of (⟨w,x⟩ + c)ᵖ); its "
            f"RKHS is the finite-dimensional space of quadratic forms, so its Gram matrix on "
            f"{g(ce['n'])} distinct points has rank {g(ce['gram_rank'])}, not {g(ce['n'])}, and no "
            f"polynomial kernel of fixed degree is universal.")


@sentence("yat.rkhs_relu_comparison", "cor3")
def _(n, r):
    ce = _ce(n)
    return (f"000 Cor 3 says ‖f‖_Yat ≤ C ‖f‖_ReLU for f in both spaces; no constant C works: "
            f"f = {ce['f']} has ‖f‖_ReLU = {g(ce['||f||_ReLU'])} but ‖f‖_Yat ≥ "
            f"{g(ce['lower_bound_||f||_Yat'])} at x = {vec(ce['x'])}, and the lower bound grows "
            f"without limit as x → 0.")


@sentence("yat.simplex.remarks", "c_orthogonality_equivalence")
def _(n, r):
    ce, ev = _ce(n), _ev(n)
    bad = ev["violations_per_direction"]["information=>euclidean"]
    return (f"The simplex remarks (001 C.16–C.18, 002 A1–A3) call Euclidean (p·q = 0), "
            f"disjoint-support and information (KL(p‖q) = ∞) orthogonality equivalent; KL(p‖q) = ∞ "
            f"implies neither other: p = {vec(ce['p'])}, q = {vec(ce['q'])} has KL(p‖q) = "
            f"{g(ce['KL(p||q)'])} but p·q = {g(ce['p.q'])} ({g(bad)} of {g(ev['pairs_searched'])} "
            f"searched pairs break it).")


@sentence("yat.bound.global_upper", "K<=||w||^4/eps_for_all_x")
def _(n, r):
    ce, ev = _ce(n), _ev(n)
    return (f"000 Prop 11 says K(w,x) ≤ ‖w‖⁴/ε for every x, with the maximum at x = w; K peaks "
            f"beyond the bound, at x = (1 + ε/‖w‖²) w with value ‖w‖⁴/ε + ‖w‖²: w = {vec(ce['w'])}, "
            f"x = {vec(ce['x'])}, ε = {g(ce['eps'])} give K = {g(ce['K(w,x)'])} against the bound "
            f"{g(ce['claimed_bound'])} (the search finds up to "
            f"{g(ev['max_search_ratio_sup/(a^4/eps)'])} times the bound).")


@sentence("yat.bound.global_upper", "maximum_at_x=w")
def _(n, r):
    ce = _ce(n)
    return (f"000 Prop 11 says K(w, ·) is maximised at x = w; at w = {vec(ce['w'])}, "
            f"ε = {g(ce['eps'])} the point x = {vec(ce['x'])} gives K = {g(ce['K(w,x)'])}, above "
            f"K(w,w) = {g(ce['K(w,w)'])}.")


@sentence("yat.grad.outlier_weight_updates", "grad_w_vanishes_for_distant_inputs")
def _(n, r):
    ce = _ce(n)
    return (f"The papers say distant outliers do not significantly influence the weight updates; the "
            f"gradient in w tends to 2(w·u)u, not 0, as x = k u moves away: at ‖x‖ = "
            f"{g(math.hypot(*ce['x']))} (w = {vec(ce['w'])}) ‖∇_w K‖ = {g(ce['||grad_w K||'])}.")


@sentence("yat.grad.formula_w", "a_000_Prop12")
def _(n, r):
    ce = _ce(n)
    return (f"000 Prop 12 prints ∇_w K = (2s/D)(x + s(w − x)/D); the second term has the wrong sign "
            f"(the gradient is (2s/D)(x − s(w − x)/D)): the printed formula is off by a relative "
            f"{g(ce['rel_error'])} at w = {vec(ce['w'])}, x = {vec(ce['x'])}, ε = {g(ce['eps'])}.")


@sentence("yat.optimal_eps")
def _(n, r):
    ce, t = _ce(n), _th(n)
    if "sigma" not in ce:           # refuted by the σ sweep alone
        return "000 Remark 2 says ε* ∝ dσ² maximises the gradient SNR." + _optimal_eps_sweep(_ev(n))
    return (f"000 Remark 2 says ε* ∝ dσ² maximises the gradient SNR; at d = {g(ce['d'])}, "
            f"σ = {g(ce['sigma'])} the SNR keeps rising as ε → ∞, so there is no finite maximiser: "
            f"its limit exceeds its best value on the searched grid (up to ε = "
            f"{g(n['repro']['bindings']['epss'][1])}) by at least {g(t['measured'])} "
            f"(lower end of a 95% interval)." + _optimal_eps_sweep(_ev(n)))


def _optimal_eps_sweep(ev: dict) -> str:
    """yat.optimal_eps: the σ sweep at a fixed (w, x₀), where the maxima are interior."""
    sw, fit = ev.get("sigma_sweep"), ev.get("fit")
    if not sw or not fit:
        return ""
    lo, hi = fit["ci"]
    falls = sw.get("eps_star_decreases_from_sigma")
    where = (f" At a fixed (w, x₀) in d = {g(sw['d'])}, where every maximiser ε* is interior, "
             if sw.get("all_maxima_interior") else f" At a fixed (w, x₀) in d = {g(sw['d'])}, ")
    return (where + f"log ε* grows with log σ² at slope {g(fit['slope'])} (95% interval "
            f"[{g(lo)}, {g(hi)}]), not 1"
            + (f", and ε* falls from σ = {g(falls)} on." if falls is not None else "."))


@sentence("yat.ntk.formula", "formula")
def _(n, r):
    ce = _ce(n)
    return (f"000 Prop 6 gives the infinite-width NTK as E[K K′] + E[∇_w K · ∇_w K′]; with the "
            f"proof's own αᵢ ~ {ce['alpha_law']} the feature term grows like m, so the finite-width "
            f"NTK diverges: at m = {g(ce['m'])} it is {g(ce['ratio'])} times the formula.")


@sentence("yat.ntk.orthogonality")
def _(n, r):
    ce = _ce(n)
    lo, hi = ce["batch_ci95_40k"]
    return (f"000 Thm 17 and Remark 1 say the Yat NTK vanishes as x ⊥ x′; at exact orthogonality it "
            f"does not: K_NTK(x, x⊥) = {g(ce['K_ntk_perp_400k'])} at d = {g(ce['d'])}, "
            f"ε = {g(ce['eps'])} (95% interval [{g(lo)}, {g(hi)}], which excludes 0).")


@sentence("yat.ntk.moment_identity", "orth_vs_aligned_O(1/d^2)")
def _(n, r):
    ev = _ev(n)
    return (f"000 App C.20 says the orthogonal fourth moment is O(1/d²) relative to the aligned "
            f"one; both share the factor 1/(d(d+2)), and their ratio is {ev['ratio_for_every_d']} "
            f"for every d ({g(ev['ratio_exact'])} at d = {g(ev['d'])}).")


@sentence("yat.ntk.class_separation")
def _(n, r):
    ce, t = _ce(n), _th(n)
    return (f"000 Cor 4 says cross-class NTK values are ≪ same-class ones; with weights "
            f"{ce['w_law']} the cross/same ratio is {g(ce['ratio_K(x_i,x_j)/K(x_i,x_k)'])} "
            f"(95% interval from {g(t['measured'])}), above the ReLU NTK's {g(t['value'])} on the "
            f"same inputs, the case Remark 8 says the Yat NTK improves on.")


@sentence("yat.krr_bound")
def _(n, r):
    ce = _ce(n)
    lo, hi = ce["ci95"]
    return (f"000 Thm 16 bounds the KRR error by ‖f*‖²/(λn) + λ‖f*‖² + M²κ/n; with f* = 0, "
            f"n = {g(ce['n'])}, λ = n^(−1/2) the mean error is {g(ce['mean_err'])} (95% interval "
            f"[{g(lo)}, {g(hi)}]), above the bound {g(ce['bound'])}.")


@sentence("yat.decision.quartic_boundary", "smooth")
def _(n, r):
    ce = _ce(n)
    lo, hi = ce["hessian_of_P_eigs"]
    return (f"The papers call the decision boundary between two prototypes smooth; for "
            f"wᵢ = {vec(ce['w_i'])}, wⱼ = {vec(ce['w_j'])} it crosses itself at x = {vec(ce['x'])} "
            f"(two lines x₁ = ±x₂ meet there): the boundary polynomial and its gradient vanish and "
            f"its Hessian has eigenvalues {g(lo)} and {g(hi)}.")


@sentence("yat.decision.localized_regions", "territories")
def _(n, r):
    ce, ev = _ce(n), _ev(n)
    owners = sorted(set(ce["argmax_per_radius"]))
    radii = ", ".join(g(x) for x in ce["radii"])
    who = (f"the same prototype (index {g(owners[0])}) wins" if len(owners) == 1 else
           f"prototypes {', '.join(g(o) for o in owners)} win")
    reach = len(ev["regions_reaching_r=1e6"])
    return (f"The papers describe localized “vortex” territories around the prototypes; far away "
            f"each direction u belongs to the prototype maximising (w·u)², a cone as for a linear "
            f"classifier: along one direction {who} at every radius ({radii}), and only "
            f"{g(reach)} of {g(len(ev['prototypes']))} prototypes own any region at "
            f"r = {g(ce['radii'][-1])}.")


@sentence("yat.superposition")
def _(n, r):
    ce = _ce(n)
    return (f"The papers say the response is the same for x and −x; only the numerator is "
            f"sign-invariant (‖w + x‖² ≠ ‖w − x‖² unless w·x = 0): at w = {vec(ce['w'])}, "
            f"x = {vec(ce['x'])}, ε = {g(ce['eps'])}, K(w, x) = {g(ce['K(w,x)'])} but "
            f"K(w, −x) = {g(ce['K(w,-x)'])}.")


@sentence("yat.grad.no_dead_zone", "(1)_no_vanishing_gradient_at_x=0")
def _(n, r):
    ce, ev = _ce(n), _ev(n)
    largest = max(abs(v) for v in ce["grad_x_and_grad_w"])
    return (f"000 Prop 10 says the gradient at x = 0 is non-degenerate for ε > 0; K vanishes to "
            f"second order there, so both gradients are {g(largest)} at x = 0 (w = {vec(ce['w'])}, "
            f"ε = {g(ce['eps'])}) and the Hessian in x has rank {g(ev['hessian_x_rank_at_x=0'])}.")


@sentence("yat.squash.softermax", "stability_large_inputs")
def _(n, r):
    t, ce = _th(n), _ce(n)
    return (f"The papers say softermax, having no exponentials, is more stable for large inputs; "
            f"xⁿ overflows at max^(1/n), earlier than exp: in {ce['fmt']} with n = {g(ce['n'])} "
            f"softermax overflows at x = {g(t['measured'])}, naive softmax only at {g(t['value'])} "
            f"(and the max-shifted softmax never).")


@sentence("yat.squash.softermax", "output_is_distribution")
def _(n, r):
    ce = _ce(n)
    return (f"The papers say softermax outputs a distribution; its outputs sum to S/(ε + S) < 1 "
            f"(S = Σ xⁿ): {g(ce['sum'])} at x = {vec(ce['x'])}, n = {g(ce['n'])}, "
            f"ε = {g(ce['eps'])}.")


@sentence("yat.squash.soft_sigmoid_tanh", "saturation_faster_in_n_001_002")
def _(n, r):
    ce = _ce(n)
    lo, hi = (ce[k] for k in sorted(k for k in ce if k.startswith("sigma_")))
    x, n1, n2 = g(ce["x"]), g(ce["n1"]), g(ce["n2"])
    return (f"001 and 002 say a higher n makes the soft-sigmoid approach 0 (and the soft-tanh −1) "
            f"faster for large x; both tend to +1, and a higher n moves them further from 0: "
            f"σ with n = {n1} gives {g(lo)} at x = {x}, with n = {n2} it gives {g(hi)}.")


@sentence("yat.cost.backward_formulas", "eqs20_22_complete_gradients")
def _(n, r):
    t = _th(n)
    return (f"001 eqs 20–22 give dL/dX = G_S W; it omits the norm path of eq.17 "
            f"(−2 Σⱼ G_ij S_ij²/D_ij² xᵢ), so it misses the complete gradient by a relative "
            f"{g(t['measured'])} on a random layer.")


@sentence("yat.cost.overhead_ratio", "printed_formula_below_5pct")
def _(n, r):
    ce, t = _ce(n), _th(n)
    return (f"001 Table 3 says the overhead 1 + 1/(2n) + 1/(2B) + 2/d stays below "
            f"{pct(t['value'], 1)} for d, n ≥ {g(ce['n'])}, B ≥ {g(ce['B'])}; at that corner "
            f"(B = {g(ce['B'])}, n = {g(ce['n'])}, d = {g(ce['d'])}) the formula itself gives "
            f"{pct(ce['formula'] - 1)}.")


@sentence("yat.cost.overhead_ratio", "formula_from_table_terms")
def _(n, r):
    ce = _ce(n)
    return (f"The printed overhead formula is not the ratio of the table's own terms: at "
            f"B = {g(ce['B'])}, n = {g(ce['n'])}, d = {g(ce['d'])} the terms give "
            f"{g(ce['table_ratio'], 4)}, the formula {g(ce['printed_formula'], 4)}.")


@sentence("yat.cost.per_neuron", "table_ratios.gelu_1.03")
def _(n, r):
    ce, ev = _ce(n), _ev(n)
    lo, hi = ev["d_interval_where_it_rounds_to_1.03"]
    at = ev["ratio_at_d"]
    return (f"001 Table 4 and 000 Table 6 print ≈{g(ce['printed'])} for Linear+GELU over "
            f"Linear+ReLU, i.e. (2d + 15)/(2d + 1); that rounds to {g(ce['printed'])} only for d in "
            f"[{g(lo, 4)}, {g(hi, 4)}], and is {g(at['768'], 4)} at d = 768 and {g(ce['ratio'], 4)} at "
            f"d = {g(ce['d'])}.")


@sentence("yat.cost.throughput", "ratio_in_0.85_0.92")
def _(n, r):
    ce, ev, t = _ce(n), _ev(n), _th(n)
    return (f"001 App C.5 puts Aether's throughput at 0.85–{g(t['value'])}× the linear model's; "
            f"the paper's own GPT-2 numbers ({g(ce['aether_tok_s'])} vs {g(ce['linear_tok_s'])} "
            f"tokens/s) give {g(ce['ratio'])} (at least {g(ev['ratio_range_from_rounding'][0])} "
            f"under rounding).")


@sentence("yat.cost.throughput", "times_vs_throughput")
def _(n, r):
    ce = _ce(n)
    return (f"001 §3.4's end-to-end time for the linear model, {g(ce['reported_linear_s'], 5)} s, "
            f"is shorter than its own tokens/throughput allow ({g(ce['minimum_linear_s'], 5)} s).")


@sentence("yat.numerics.stability", "fp32_denominator_accuracy")
def _(n, r):
    ce = _ce(n)
    return (f"The papers claim natural numerical stability, bf16/fp32 included, without "
            f"normalisation; the expanded fp32 denominator loses ‖x − w‖² entirely near x = w: at "
            f"d = {g(ce['d'])}, ε = {g(ce['eps'])}, x = w + {g(ce['delta'])} e₁, K comes out "
            f"{g(ce['K_fp32_denominator'] / ce['K_exact_fp64'])} times too large.")


def _disagreeing(pairs) -> list:
    """The printed pairs (a, half a unit, b, half a unit) that no common value reconciles."""
    return [p for p in pairs if abs(p[0] - p[2]) > p[1] + p[3]]


def _pair_text(pairs) -> str:
    return "; ".join(f"{g(a, 4)}% against {g(b, 4)}%" for a, _, b, _ in _disagreeing(pairs))


@sentence("yat.exp.mnist_main", "000_table1_vs_inversion_original")
def _(n, r):
    pairs, gap = _text_gap(n)
    return (f"000 §3.3 prints two accuracies for each of its two MNIST classifiers, in Table 1 and "
            f"as the inversion table's “Original” ({_pair_text(pairs)}): up to {g(gap)} points "
            f"apart beyond rounding.")


@sentence("yat.exp.mnist_inversion", "002_text_vs_table1")
def _(n, r):
    pairs, gap = _text_gap(n)
    return (f"002 §4.2's text says the accuracies went “from 93% to nearly 0%” and “from 92% to "
            f"89%”, but its Table 1, reporting the same runs, prints other values "
            f"({_pair_text(pairs)}): up to {g(gap)} points apart beyond rounding.")


@sentence("yat.exp.mnist_inversion", "001_E8.4_vs_fig8_caption")
def _(n, r):
    pairs, gap = _text_gap(n)
    return (f"001 App E.8.4 and the caption of its Figure 8 print two baselines for the same "
            f"figure ({_pair_text(pairs)}): {g(gap)} points apart beyond rounding.")


@sentence("yat.exp.mnist_analysis", "linear_accuracy_E8.2_E8.6_E8.8")
def _(n, r):
    pairs, gap = _text_gap(n)
    vals = sorted({g(v, 4) for p in _disagreeing(pairs) for v in (p[0], p[2])})
    return (f"001 App E.8 prints the linear model's accuracy in the same comparison as "
            f"{' and '.join(v + '%' for v in vals)}: {g(gap)} points apart beyond rounding.")


@sentence("yat.exp.norm_dynamics", "linear_unbounded")
def _(n, r):
    ev = _ev(n)
    top = r.get("evidence") or {}
    return (f"The papers say linear prototype norms grow without bound under cross-entropy; on data "
            f"no linear classifier separates the loss has a finite minimiser (gradient norm "
            f"{g(ev['grad_norm_at_minimiser'])} there, mean norm {g(ev['minimiser_mean_norm'])}) "
            f"and gradient descent's norm stays at {g(ev['gd_norm_T_overlapping'])} after "
            f"{g(top['steps'])} steps.")


@sentence("yat.exp.gpt2_000", "identical_hyperparameters")
def _(n, r):
    ev = _ev(n)
    return (f"000 Table 3 says GPT-2 and Aether-GPT2 were trained with identical hyperparameters; "
            f"its Table 7 lists learning rates {g(ev['lr_gpt2'])} and {g(ev['lr_aether'])}.")


@sentence("yat.exp.gpt2_002", "multiple_corpora")
def _(n, r):
    ev = _ev(n)
    names = ", ".join(ev["corpora_in_table2"])
    return (f"002 §4.3 compares perplexity “across multiple text corpora”; its Table 2 and every "
            f"version of the paper name {g(ev['distinct_corpora_named'])} corpus ({names}).")


@sentence("yat.exp.unsupported_mentions", "pinn")
def _(n, r):
    ev = _ev(n)
    per = ", ".join(f"{k}: {g(v)}" for k, v in ev["experiments_per_paper"].items())
    return (f"001 §5 says its empirical validation spans “physics-informed neural networks”; the "
            f"{g(ev['papers_searched'])} versions of the paper contain {g(ev['pinn_experiments_total'])} "
            f"PDE or PINN experiments ({per}).")


# ============================================================================================
# itnet: paper 003


@sentence("itnet.op.identity", "b_integral_alone_cannot")
def _(n, r):
    ev = _ev(n)
    return (f"003 says that with W = 0 the integral alone cannot represent u ↦ u; under the discrete "
            f"measure 1/n the paper uses, the position kernel n·1{{x = y}} (a narrow hat) does: at "
            f"n = {g(ev['n'])} it reproduces u to {g(ev['max_abs_residual'])}.")


@sentence("itnet.conv_strictness", "T_in_ITNet_via_eq40")
def _(n, r):
    ev = _ev(n)
    return (f"003 Thm C.1(c) says T(u)(x) = σ(u(x)ᵀu(x₀)) u(x) is an ITNet layer (eq.40); its "
            f"kernel needs a Dirac delta and u(x₀), which no kernel of x, y, u(x), u(y) has, and "
            f"every Def.-1 layer misses T by at least {g(ev['sup_error_lower_bound'])} in sup norm.")


def _special_attention(what: str, where: str):
    def text(n, r):
        ev = _ev(n)
        return (f"003 {where} says {what} is an exact special case of an ITNet layer; its "
                f"normaliser depends on every key, and no Def.-1 layer (one kernel term per key) "
                f"reproduces it: the mixed difference over two keys is |D| = {g(ev['|D|'])}, so "
                f"every such layer errs by at least {g(ev['sup_error_lower_bound'])}.")
    return text


sentence("itnet.special_case.attention", "def8_layer_gives_attention")(
    _special_attention("softmax attention", "Thm 2"))
sentence("itnet.special_case.mha", "def8_layer_gives_mha")(
    _special_attention("multi-head attention", "Thm D.1(b)"))
sentence("itnet.special_case.linear_attention", "def8_layer_gives_eq91")(
    _special_attention("linear attention (eq.91)", "Prop 5"))
sentence("itnet.special_case.causal_attention", "def8_layer_gives_causal_attention")(
    _special_attention("causal (masked) attention", "Prop 6"))


@sentence("itnet.special_case.linear_attention", "bounded_by_||W_V||")
def _(n, r):
    ev = _ev(n)
    return (f"003 Prop 5 says the linear-attention kernel is bounded by ‖W_V‖; its normalised weight "
            f"integrates to 1 but is pointwise up to n, and the kernel exceeds ‖W_V‖ by a factor "
            f"{g(ev['sup_ratio'])}.")


@sentence("itnet.attn_strictness", "b_printed_example")
def _(n, r):
    ce, t = _ce(n), _th(n)
    top = r.get("evidence") or {}
    return (f"003 App D.6 shows that T_pos is not permutation-equivariant with the example "
            f"x = {vec(ce['x'])} and a swap of the two points; in that example both sides agree "
            f"(difference {g(t['measured'])}: the swap is an isometry of the two points), though "
            f"three points do show a violation ({g(top['n3_violation'])}).")


@sentence("itnet.special_case.linear_ode", "b_method2_h0")
def _(n, r):
    ce, t = _ce(n), _th(n)
    return (f"003 Thm E.1(a) handles h₀ ≠ 0 by augmenting the input with u~(0) = h₀; under the "
            f"Lebesgue measure the theorem fixes, one point carries no mass, so the term C e^(AT) h₀ "
            f"is lost: the output at T = {g(ce['T'])} is off by a relative {g(t['measured'])}.")


@sentence("itnet.special_case.nonlinear_ode_alekseev", "printed_formula_exact_affine_in_u")
def _(n, r):
    ce, ev = _ce(n), _ev(n)
    top = r.get("evidence") or {}
    return (f"003 eq.120 is said to be exact when F is affine in u; for {ce['F']} with "
            f"u = {ce['u']} it gives {g(ev['printed_formula'])} where h(T) = {g(ev['h_T'])} "
            f"(error {g(ev['abs_error'])}), while the Alekseev–Gröbner formula reproduces h(T) to "
            f"{g(top['textbook_error'])}.")


@sentence("itnet.special_case.nonlinear_rnn")
def _(n, r):
    ev = r["evidence"]
    errs, scales = ev["rel_err_vs_scale"], ev["scales"]
    return (f"003 App E.4 says the product-of-Jacobians kernel recovers a tanh RNN exactly; it is a "
            f"linearisation and misses the output by a relative {g(errs[-1])} at input scale "
            f"{g(scales[-1])} (still {g(errs[-2])} at {g(scales[-2])}).")


@sentence("itnet.special_case.discretisation", "euler_kernel_vs_printed_recurrence",
          "zoh_kernel_vs_printed_recurrence")
def _(n, r):
    t = _th(n)
    return (f"003 App E.11's kernels C Āᵗ⁻ˢ B̄ have one power of Ā too many for its own sums "
            f"h_t = Σ_(s<t) Ā^(t−1−s) B̄ u_s: the kernel sum misses the recurrence by a relative "
            f"{g(t['measured'])}.")


@sentence("itnet.special_case.mamba", "norm_bound")
def _(n, r):
    t = _th(n)
    return (f"003 Thm 3(d) bounds ‖κ‖ by ‖W_C‖ e^((t−s)Δ_max‖A‖) ‖W_B‖ ‖u‖_∞; the kernel carries "
            f"‖u_t‖ ‖u_s‖ Δ_s, and exceeds the bound by a factor up to {g(t['measured'])}.")


@sentence("itnet.special_case.lstm", "printed_kernel_recovers_output")
def _(n, r):
    t, ev = _th(n), _ev(n)
    return (f"003 Prop 7 says the printed LSTM kernel recovers the LSTM's output; it drops the "
            f"recurrent (h_(t−1)) paths of the gates and candidate and misses the output by a "
            f"relative {g(t['measured'])} at input scale {g(ev['scales'][-1])}.")


@sentence("itnet.special_case.gru", "printed_kernel_recovers_output")
def _(n, r):
    t, ev = _th(n), _ev(n)
    return (f"003 Prop 8 says the printed GRU kernel recovers the GRU; it drops the recurrent "
            f"(h_(t−1)) paths of the gates and candidate and misses the output by a relative "
            f"{g(t['measured'])} at input scale {g(ev['scales'][-1])}.")


@sentence("itnet.rnn_strictness", "b_rank_argument")
def _(n, r):
    ev = _ev(n)
    return (f"003 App E.10 argues that an n-state RNN's outputs lie in the span of n columns, so "
            f"its input–output map has rank at most n; a 1-state causal system (h′ = −h + u) "
            f"already has rank {g(ev['rank_of_1_state_operator'])} on a {g(ev['grid'])}-point grid.")


@sentence("itnet.cor_strict_expressiveness", "Attn_in_single_layer_ITNet")
def _(n, r):
    ev = _ev(n)
    return (f"003 Cor 2.1 says Attn ⊊ ITNet; softmax attention is not a single Def.-1 layer (its "
            f"normaliser depends on all of u): its mixed difference is {g(ev['|D|_attention'])}, "
            f"so every such layer errs by at least {g(ev['sup_error_lower_bound'])}.")


@sentence("itnet.cor_strict_expressiveness", "witness_spatially_varying_filter")
def _(n, r):
    ev = _ev(n)
    return (f"003 Cor F.1 names a spatially varying filter as a translation-equivariant member of "
            f"Conv; it is not translation-equivariant (shift error "
            f"{g(ev['translation_equivariance_error'])}).")


@sentence("itnet.uat")
def _(n, r):
    ce = _ce(n)
    ev = r.get("evidence") or {}
    return (f"003 Thm F.1 says a single ITNet layer approximates every continuous operator to any "
            f"ε > 0; for {ce['target']} every Def.-1 layer errs by at least "
            f"{g(ce['lower_bound'])} (the best layer found by linear programming: "
            f"{g(ev['lp_best_single_layer_error'])}).")


@sentence("itnet.uat_lemmas", "lemma5")
def _(n, r):
    ce, ev = _ce(n), _ev(n)
    return (f"003 Lemma 5 says continuous κ*, W* reach any error ε > 0 by “interpolating” "
            f"Kⱼ(x, ξ), which depends on every sensor value, into κ*(x, y, u(x), u(y)); no such "
            f"layer does better than {g(ev['sup_error_lower_bound'])} on {ce['target']}.")


@sentence("itnet.prop9_rate", "quadrature_term")
def _(n, r):
    ce, t = _ce(n), _th(n)
    return (f"003 Prop 9 bounds the quadrature term by C₂ L_F C_u / M^(1/s) with a constant C₂; "
            f"inside its hypotheses (s = d = {g(ce['s'])}) the smallest admissible C₂ grows like "
            f"√M/8 ({g(ce['C2_needed_sqrt(M)/8'])} at M = {g(ce['M'])}): exponent "
            f"{g(t['measured'])}, where a constant needs at most {g(t['value'])}.")


@sentence("itnet.thm5_kernel_recovery")
def _(n, r):
    t = _th(n)
    return (f"003 Thm 5 says that for translation-invariant data the gradient has no "
            f"non-translation-invariant part at every iterate; at a random non-circulant kernel "
            f"with stationary data that part is {pct(t['measured'])} of the gradient.")


@sentence("itnet.tiling.alg1_correctness")
def _(n, r):
    ce = _ce(n)
    return (f"003 Alg 1's loops (“i = 0 to n − B_q step B_q”) skip the ragged last tiles when the "
            f"tile size does not divide n: at n = {g(ce['n'])}, B_q = {g(ce['bq'])}, "
            f"B_k = {g(ce['bk'])} the output is off by a relative {g(ce['rel_error'])}.")


@sentence("itnet.tiling.io_prop10", "matvec_dominates")
def _(n, r):
    ce = _ce(n)
    return (f"003 App H.8 argues that the mat-vec dominates the per-pair cost; the kernel MLP "
            f"dominates instead: with d_h = {g(ce['d_h'])}, w = {g(ce['w'])} the mat-vec is "
            f"{pct(ce['matvec_share'])} of the multiply-adds per pair.")


@sentence("itnet.tiling.io_prop10", "flops_eq201")
def _(n, r):
    ce = _ce(n)
    (q1, k1), (q2, k2) = ce["tiles"]
    return (f"003 Prop 10 (eq.201) puts the tiled forward pass at Θ(n² w_κ ℓ_κ / S_SRAM) FLOPs; Alg 1 "
            f"evaluates every pair once whatever the tiles: at n = {g(ce['n'])}, d = {g(ce['d'])} it "
            f"takes {g(ce['alg1_macs'][0])} multiply-adds with {g(q1)}×{g(k1)} tiles "
            f"(S = {g(ce['S_words'][0])} words) and {g(ce['alg1_macs'][1])} with {g(q2)}×{g(k2)} "
            f"tiles (S = {g(ce['S_words'][1])}), while the formula falls from "
            f"{g(ce['printed_n2wl_over_S'][0])} to {g(ce['printed_n2wl_over_S'][1])}.")


@sentence("itnet.tiling.memory", "table19_kernel_matrix")
def _(n, r):
    ce, t = _ce(n), _th(n)
    return (f"003 Table 19 says exact mode, measured on an H200 ({g(t['value'] / 1e9)} GB), is "
            f"dominated by the O(n²d²) kernel matrix; even the per-head kernel matrix needs "
            f"{g(ce['bytes'] / 1e9)} GB at n = {g(ce['n'])}, batch {g(ce['B'])} "
            f"({g(ce['bytes'] / t['value'])} times the card), so it cannot have been stored.")


@sentence("itnet.grad.inputs")
def _(n, r):
    t = _th(n)
    ev = r.get("evidence") or {}
    return (f"003 eq.204 leaves out the kernel's dependence on u as a key (eq.224's term (b)); "
            f"for a content-dependent kernel its dL/du is off by a relative {g(t['measured'])} "
            f"(exact only for a content-independent kernel: "
            f"{g(ev['eq204_rel_error_content_independent'])}).")


@sentence("itnet.grad.cost", "stored_vs_recompute_accounting")
def _(n, r):
    ce = _ce(n)
    return (f"003 §3.1 and App H.10 say recomputing the kernel raises the backward FLOPs "
            f"≈{g(ce['printed_increase'])}× (≈3× the forward, “compared to "
            f"{g(ce['printed_stored_over_forward'])}× if the kernel matrix were stored”); with K stored "
            f"eq.205 still needs H.10's MLP backward for every pair, so by H.10's own items the stored "
            f"backward is {g(ce['stored_backward_per_pair_(b)+(c)'])} multiply-adds per pair and head "
            f"({g(ce['stored_over_forward'])}× the forward {g(ce['forward_per_pair'])} at "
            f"d_h = {g(ce['d_h'])}) and recomputation raises it by {g(ce['recompute_over_stored'])}×.")


@sentence("itnet.grad.alg2_tiled_backward")
def _(n, r):
    ce = _ce(n)
    return (f"003 Alg 2 adds no Wᵀg term and line 18 overwrites the key-side gradients of earlier "
            f"tiles: at n = {g(ce['n'])} with {g(ce['bq'])}×{g(ce['bk'])} tiles its dL/dU is off "
            f"by a relative {g(ce['rel_error'])}.")


@sentence("itnet.grad.special_cases")
def _(n, r):
    ce = _ce(n)
    return (f"003 eq.253 differentiates e^(Aτ) as τ e^(Aτ), true only when A commutes with its "
            f"perturbation: for a non-normal A the printed dL/dA is off by a relative "
            f"{g(ce['rel_error'])}.")


@sentence("itnet.mc.proposal_training", "consistent_for_KL")
def _(n, r):
    ce = _ce(n)
    return (f"003 calls eq.14 a consistent estimator of KL(p*‖p_φ); its large-M limit differs from "
            f"the cross-entropy H(p*, q) by an amount that depends on q: {g(ce['limit_minus_H'])} "
            f"at q = {vec(ce['q'])}, {g(ce['limit_minus_H_at_uniform'])} at the uniform q.")


@sentence("itnet.mc.proposal_training", "drives_toward_pstar")
def _(n, r):
    ce = _ce(n)
    return (f"003 says eq.14 drives p_φ toward p*; p* = {vec(ce['p'])} is not a stationary point "
            f"of its expected update (gradient norm {g(ce['gradient_norm'])} there).")


@sentence("itnet.mc.cost_and_eval", "H1_comparable_for_d_le_sqrt_n")
def _(n, r):
    ce = _ce(n)
    return (f"003 App H.1 says that at M = n ITNet-MC costs n²d² against a Transformer's n²d + nd², "
            f"“comparable” for d ≤ √n; the ratio nd/(n + d) grows like √n along d = √n: "
            f"{g(ce['ratio'])} at n = {g(ce['n'])}, d = {g(ce['d'])}, so no fixed factor bounds it.")


@sentence("itnet.init.identity", "initial_output_u_plus_ubar")
def _(n, r):
    ce, t = _ce(n), _th(n)
    return (f"003 App H.3.1 says the initial output is ≈ ū + u(xᵢ); the printed integral drops the "
            f"weights ωⱼ, and the output is uᵢ + ū/n: at ε = {g(ce['eps'])}, n = {g(ce['n'])} it "
            f"misses uᵢ + ū by {g(t['measured'])} of its norm, {g(t['measured'] / t['value'])} "
            f"times the ε term the “≈” allows.")


@sentence("itnet.lowrank.table17", "consistency_exact_throughput_vs_peak")
@sentence("itnet.triton_profile", "consistency_throughput_vs_peak")
def _(n, r):
    ce, t = _ce(n), _th(n)
    return (f"003 Table 17 gives ITNet-B {g(ce['img_per_s'])} img/s in exact mode; with the kernel MLP "
            f"evaluated pair by pair, as Alg 1 prints it, its output layer alone costs "
            f"{g(ce['forward_flops_per_image'])} FLOPs per image (n = {g(ce['n'])}), so that throughput needs "
            f"{g(t['measured'])} TFLOPS, {g(t['measured'] / t['value'])} times the {g(t['value'])} TFLOPS "
            f"peak of Table 12.")


@sentence("itnet.config.param_counts", "S", "B", "L", "PC")
def _(n, r):
    ce = _ce(n)
    return (f"003 Table 10 gives ITNet-{ce['config']} {big(ce['claimed'])} parameters; its kernel "
            f"output layers W2 and 4× FFN alone hold {big(ce['W2_plus_FFN'])} "
            f"({g(ce['layers'])} layers, d = {g(ce['d'])}).")


# ============================================================================================
# particles: paper 004


@sentence("particles.kernel.feature_range", "range_[-1,1]")
def _(n, r):
    ce, t = _ce(n), _th(n)
    return (f"004 eq.2.1 says the feature maps take values in [−{g(t['value'])}, {g(t['value'])}]; "
            f"the paper's own map {ce['map']} reaches {g(ce['phi'])} at x = ω = b = 0.")


@sentence("particles.lemma3_kta_trig_energy.b7")
def _(n, r):
    t = _th(n)
    return (f"004 eq.B.7 says E_N = −(2/n²)‖yᵀC‖² up to a constant independent of (Ω, b); the "
            f"diagonal term Σ cos²(αᵢₖ) depends on (Ω, b), and the difference of the two sides "
            f"changes by {g(t['measured'])} between two configurations.")


@sentence("particles.alg.invariant_law")
def _(n, r):
    ce = _ce(n)
    return (f"004 App E.1 says the iteration samples P ∝ exp(−β_N H_N) at equilibrium; its invariant "
            f"law is exp(−N β_N H_N): for V = a w²/2 with N = {g(ce['N'])}, β_N = {g(ce['beta_N'])} "
            f"the stationary variance is {g(ce['iteration_variance_over_E7_variance'])} times "
            f"E.7's.")


@sentence("particles.alg.reweighting")
def _(n, r):
    ce = _ce(n)
    return (f"004 Alg 2 reweights particles that already follow the invariant law by exp(−βH) once "
            f"more, which squares the density: the reweighted variance is {g(ce['ratio'])} times "
            f"the Gibbs law's, not 1.")


@sentence("particles.alg.stopping_rules", "Alg1_D_rule")
def _(n, r):
    ce, ev = _ce(n), _ev(n)
    return (f"004 Alg 1–2 repeat until D(μᵐ, μᵐ⁻¹) < δ with no step cap; with the one rule 004 prints "
            f"(App F.2: maximum change below δ = {g(ce['delta'])}, η = {g(ce['eta'])}, β = {g(ce['beta'])}, "
            f"d = {g(ce['d'])}) a step that small has probability below "
            f"{g(10 ** ev['log10_P_rule_fires_per_step_bound'])}: the run stops with probability 1, but only after "
            f"an expected wait above {g(10 ** ev['log10_expected_wait_steps_at_least'])} steps, and within any "
            f"horizon below {g(10 ** ev['log10_horizon_flip_steps'])} steps with probability under 5%.")


@sentence("particles.synthetic.fig1", "rbf_tuned_best_and_misspecified_underperform")
def _(n, r):
    ce = _ce(n)
    lo, hi = ce["ci95_points"]
    return (f"004 Fig. 1 says the tuned RBF SVM (γ = 0.5) is best while γ = 0.01 and γ = 100 underperform it "
            f"substantially; at the printed p = {g(ce['p'])}, over 11 noise levels × {g(ce['trials'])} trials, "
            f"{ce['mis_specified'].replace('rbf_svm_g', 'γ = ')} trails it by only {g(ce['acc_gap_points'])} "
            f"accuracy points (95% interval {g(lo)} to {g(hi)}), less than one test point "
            f"({g(ce['one_test_point_points'])} points).")


@sentence("particles.thm2_ldp")
def _(n, r):
    ce = _ce(n)
    return (f"004 Thm 2 states an LDP with rate J_s = E_s + Ent − inf(E_s + Ent) for s > d; then "
            f"every probability measure has infinite s-energy (at s = {g(ce['s'])}, d = {g(ce['d'])} "
            f"already E_s ≥ {g(ce['E_s_lower_bound_for_every_mu'])} from cells of size "
            f"{g(ce['eps'])}, and the bound grows without limit), so J_s is ∞ − ∞.")


@sentence("particles.lemma9_10_regime2", "eps_to_zero_limit")
def _(n, r):
    ce = _ce(n)
    return (f"004's ε ↓ 0 step (“standard monotone truncation arguments”) needs e*_ε ↑ e* < ∞; for "
            f"s > d, e*_ε grows without limit (at least {g(ce['e_star_eps_at_least'])} at "
            f"ε = {g(ce['eps'])}, s = {g(ce['s'])}, d = {g(ce['d'])}), so J_s = H_s − e* is ∞ − ∞.")


@sentence("particles.goodness_and_free_energy", "goodness")
def _(n, r):
    ce = _ce(n)
    return (f"004 needs a good rate function (compact sublevel sets); on the bounded open set of "
            f"Thm 6, here Ω = {ce['Omega']}, the sublevel set {{J ≤ {g(max(ce['J_upper_bound']))}}} "
            f"holds δ_(1/n) for every n, whose mass escapes to the boundary: it is not compact.")


@sentence("particles.attention.linearized", "cost_O(lN+Ndv)")
def _(n, r):
    ce = _ce(n)
    return (f"004 §3 puts linearised attention at O(lN + N d_v) per head; every output φ(qᵢ)ᵀG "
            f"costs N d_v multiply-adds, so the cost is Θ(l N d_v): {g(ce['count_over_lN_plus_Ndv'])} "
            f"times lN + N d_v at l = {g(ce['l'])}, N = {g(ce['N'])}, d_v = {g(ce['dv'])}.")


@sentence("particles.maps.positive_family", "porf_OtO_approx_I")
def _(n, r):
    ce = _ce(n)
    return (f"004 App D says PORF's orthogonal blocks give ΩᵀΩ ≈ I (M = {g(ce['M'])}, "
            f"d_k = {g(ce['d_k'])}); ΩᵀΩ is {g(ce['M'])}×{g(ce['M'])} of rank {g(ce['rank'])}, so "
            f"it cannot be near I: ‖ΩᵀΩ − I‖₂ = {g(ce['norm_OtO_minus_I_2'])}.")


@sentence("particles.scaling_factor_and_repulsion", "distance_scaling")
def _(n, r):
    ce = _ce(n)
    return (f"004 App B says the typical pairwise distance scales like N^(−s/d); pairwise distances "
            f"of N points in a fixed domain stay O(1): from N = {g(ce['n1'])} to {g(ce['n2'])} "
            f"(d = {g(ce['d'])}) the mean pairwise distance changes by a factor "
            f"{g(ce['mean_pairwise_distance_ratio'])}, not {g(ce['claimed_ratio'])}.")


@sentence("particles.nlp.metric_identities", "probability_identities")
def _(n, r):
    ce, ev = _ce(n), _ev(n)
    bad = ev["violations"]["ece_le_sqrt_brier"]
    return (f"004's tables report ECE and Brier score from one set of probabilities, for which "
            f"ECE ≤ √Brier always holds; {g(bad)} of {g(ev['rows'])} rows break it, e.g. "
            f"{ce['row']}: ECE {g(ce['ece'], 4)} against √{g(ce['brier_printed'], 4)}, "
            f"{g(ce['ece_minus_sqrt_brier'])} too high.")


@sentence("particles.nlp.accuracy_granularity")
def _(n, r):
    ce = _ce(n)
    ds, _, acc = ce["row"]
    dev = r["evidence"]["per_dataset"][ds]["dev"]
    sizes = " nor ".join(f"k/{g(m)}" for m in n["repro"]["bindings"]["ns"])
    return (f"004 says every metric is computed on the test split ({g(ce['n_test'])} examples for "
            f"{ds}); {ds}'s accuracies are multiples of 1/{g(ce['dev'])}, the dev size, in "
            f"{g(dev['matches'])} of {g(dev['of'])} rows (by chance: p = "
            f"{g(dev['p_at_least_as_many'])}), and {g(acc)} is within rounding of no {sizes} "
            f"(test size, three seeds).")


@sentence("particles.nlp.text_claims", "consistent_direction_qqp_rt")
def _(n, r):
    ce = _ce(n)
    losses = sum(len(v) for v in ce["negative_gains"].values())
    rt = ce["RT_favor"]
    return (f"004 §5 reports a consistent direction of gains from kernel learning on QQP and Rotten "
            f"Tomatoes; {g(losses)} learned kernels lose accuracy there, the worst RT favor: "
            f"{g(rt['kernel'], 4)} against {g(rt['vanilla'], 4)} without learning.")


@sentence("particles.nlp.significance_and_protocol", "protocol_consistency")
def _(n, r):
    ce = _ce(n)
    return (f"004 §5 says the alignment phase runs for {pct(ce['printed_share'])} of total steps; "
            f"App F.2's phases ({g(ce['epochs_A'])} epochs of alignment, {g(ce['epochs_B'])} of "
            f"training, and an early stop that cannot fire) make it {pct(ce['alignment_share'])}.")
