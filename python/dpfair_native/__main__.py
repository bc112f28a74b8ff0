"""Command line: ``python -m dpfair_native`` runs the main job; ``python -m dpfair_native reproduce ...`` the papers.

Main job: on the bundled Adult data (80/20 split), fit a non-private logistic regression and a DP + fair model,
print accuracy, ROC-AUC, risk difference and the privacy spent, and time the native kernels against NumPy.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def _best_of(fn, repeat: int = 5) -> float:
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main_job(seed=None) -> None:
    """``seed``: None (default) draws the models' noise from OS entropy, as a real release must; an int makes the
    run reproducible and voids the guarantee against anyone who knows it (research runs only). The train/test
    split is always the public, fixed split 0."""
    from . import kernels, metrics
    from .datasets import load_adult, train_test_split
    from .domain import FeatureDomain
    from .models import ConstrainedDPSGDClassifier, DPSGDClassifier, FairFunctionalMechanismLR, LogisticRegression

    ds = load_adult()
    X_train, X_test, y_train, y_test, s_train, s_test = train_test_split(
        ds.X, ds.y, ds.sensitive, test_size=0.2, random_state=0
    )
    print(f"Adult (UCI, CC BY 4.0): {ds.X.shape[0]} rows, {ds.X.shape[1]} features; "
          f"train {X_train.shape[0]}, test {X_test.shape[0]}; sensitive attribute: {ds.sensitive_name}")
    domain = FeatureDomain.from_dataset(ds)

    def report(name, model):
        y_pred = model.predict(X_test)
        score = model.decision_function(X_test)
        eps, delta = model.privacy_spent_
        relation = (model.privacy_spent_.relation or "").replace("_", "-")
        privacy = "non-private" if not np.isfinite(eps) else f"(epsilon={eps:.3g}, delta={delta:.1e}, {relation})"
        rd = metrics.demographic_parity_difference(y_test, y_pred, sensitive_features=s_test)
        print(f"  {name:<44} accuracy {metrics.accuracy(y_test, y_pred):.4f}  "
              f"ROC-AUC {metrics.roc_auc(y_test, score):.4f}  "
              f"risk difference {rd:.4f}  "
              f"privacy {privacy}")

    print("\nModels (test set):")
    report("LogisticRegression (non-private)", LogisticRegression().fit(X_train, y_train))
    for eps in (1.0, 10.0):
        model = FairFunctionalMechanismLR(epsilon=eps, delta=1e-5, domain=domain, random_state=seed,
                                          declared_groups=[0, 1])  # sex: 0 Female, 1 Male (public labels)
        model.fit(X_train, y_train, sensitive_features=s_train)
        report(f"FairFunctionalMechanismLR eps={eps:g}, delta=1e-5", model)
    dpsgd = DPSGDClassifier(target_epsilon=1.0, delta=1e-5, clip_norm=1.0, learning_rate=2.0, random_state=seed)
    report("DPSGDClassifier eps=1, delta=1e-5 (not fair)", dpsgd.fit(X_train, y_train))
    constrained = ConstrainedDPSGDClassifier(target_epsilon=1.0, delta=1e-5, random_state=seed,
                                             declared_groups=[0, 1])  # library defaults
    report("ConstrainedDPSGD (dem. parity) eps=1", constrained.fit(X_train, y_train, sensitive_features=s_train))
    majority = max(np.mean(y_test), 1 - np.mean(y_test))
    print(f"  (a constant 'income <= 50K' model scores accuracy {majority:.4f}, ROC-AUC 0.5, risk difference 0)")
    print("  Each privacy figure covers its own model. The four private models read the same training rows:\n"
          "  publishing all of them spends their composition (by basic composition their epsilons and deltas add up).")

    print(f"\nKernel timings on the training set (best of 5; native build '{kernels.native_isa()}' "
          "vs numpy reference):")
    n, d = X_train.shape
    a = 0.5 - y_train
    rows = np.arange(n)
    w = np.zeros(d)
    cases = {
        f"poly2_coefficients   {n}x{d}": lambda backend: kernels.poly2_coefficients(
            X_train, a, 0.125, groups=s_train, n_groups=2, backend=backend),
        f"minimize_quadratic   d={d}, trim": lambda backend: kernels.minimize_quadratic(
            Q_noisy, b_noisy, backend=backend),
        f"clip_group_gradients {n} rows": lambda backend: kernels.clip_group_gradients(
            X_train, y_train, w, 0.0, rows, s_train, np.array([1.0, 1.0]), backend=backend),
    }
    b, Q, _, _ = kernels.poly2_coefficients(X_train, a, 0.125, backend="numpy")
    rng = np.random.default_rng(0)
    noise = rng.laplace(scale=30.0, size=(d, d))
    Q_noisy = Q + np.triu(noise) + np.triu(noise, 1).T
    b_noisy = b + rng.laplace(scale=30.0, size=d)
    for label, fn in cases.items():
        t_native = _best_of(lambda fn=fn: fn("native"))
        t_numpy = _best_of(lambda fn=fn: fn("numpy"))
        print(f"  {label:<40} native {t_native * 1e3:8.3f} ms   numpy {t_numpy * 1e3:8.3f} ms   "
              f"speed-up {t_numpy / t_native:6.1f}x")


def _count(minimum: int):
    """An argparse type: an int >= minimum (argparse prints the error, no traceback)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value

    return parse


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dpfair_native", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    demo = sub.add_parser("demo", help="the main job (default)")
    demo.add_argument("--seed", type=_count(0), default=None,
                      help="seed the models' noise (research runs only: a known seed voids the privacy guarantee)")
    from .experiments import REGISTRY

    rep = sub.add_parser("reproduce", help="reproduce the papers' tables")
    rep.add_argument("which", choices=sorted(REGISTRY))
    rep.add_argument("--runs", type=_count(1), default=None, help="seeds per cell")
    rep.add_argument("--no-write", action="store_true", help="print only; don't update bench/RESULTS.md")
    rep.add_argument("--plot", metavar="PATH", default=None,
                     help="also draw its accuracy-fairness frontier or metric-vs-epsilon curves to PATH "
                          "(PNG/SVG/PDF; needs matplotlib)")
    args = parser.parse_args(argv)
    if args.command in (None, "demo"):
        main_job(getattr(args, "seed", None))
        return 0
    from . import experiments

    return experiments.run(args.which, runs=args.runs, write=not args.no_write, plot=args.plot)


if __name__ == "__main__":
    sys.exit(main())
