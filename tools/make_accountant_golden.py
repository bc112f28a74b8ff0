"""Write tests/data/accountant_golden.json: DP-SGD epsilons from Google dp_accounting (and, optionally, Opacus).

The golden file lets tests/test_accountants.py check dpfair_native.accountants against published libraries on
machines where they are not installed. Nothing here is used by the library itself.

    /work/venv/bin/python tools/make_accountant_golden.py [--opacus-rdp PATH/opacus/accountants/analysis/rdp.py]

dp_accounting: RdpAccountant() (default orders, add/remove-one) composed with
SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(sigma)), steps); get_epsilon(delta).

Opacus (not installed: it needs torch): get it with `pip download --no-deps opacus`, unzip, and pass the path of
opacus/accountants/analysis/rdp.py. That file needs only numpy and scipy; it is executed in its own namespace and
its compute_rdp / get_privacy_spent are called twice: at dp_accounting's default orders and at Opacus's own
RDPAccountant.DEFAULT_ALPHAS. Its fractional-order series keeps the signs of the binomial coefficients and its
conversion omits dp_accounting's KL shortcut, so its values are not expected to equal dp_accounting's.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import math
import os
import sys
import time
import warnings

import numpy as np

SAMPLE_RATES = [0.001, 0.01, 0.1, 1.0]
NOISE_MULTIPLIERS = [0.5, 1.0, 2.0, 5.0]
STEPS = [1, 100, 10000]
DELTAS = [1e-5, 1e-6]
OPACUS_DEFAULT_ALPHAS = [1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64))


def _finite_or_none(values):
    return [float(v) if math.isfinite(v) else None for v in values]


def _load_opacus(path):
    namespace = {"__name__": "opacus_rdp_golden"}
    with open(path) as f:
        code = compile(f.read(), path, "exec")
    exec(code, namespace)
    return namespace


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--opacus-rdp", help="path to opacus/accountants/analysis/rdp.py (optional)")
    parser.add_argument("--opacus-version", default="", help="the Opacus version that file came from")
    parser.add_argument(
        "--out",
        default=os.path.join(os.path.dirname(__file__), "..", "tests", "data", "accountant_golden.json"),
    )
    args = parser.parse_args(argv)


    from absl import logging as absl_logging
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant as rdp_mod

    absl_logging.set_verbosity(absl_logging.ERROR)  # its non-convergence warnings: those orders become inf
    orders = [float(a) for a in rdp_mod.DEFAULT_RDP_ORDERS]
    opacus = _load_opacus(args.opacus_rdp) if args.opacus_rdp else None

    curves, cases = [], []
    for q in SAMPLE_RATES:
        for sigma in NOISE_MULTIPLIERS:
            rdp = rdp_mod._compute_rdp_poisson_subsampled_gaussian(q, sigma, orders)
            curves.append({"sample_rate": q, "noise_multiplier": sigma, "rdp": _finite_or_none(rdp)})
            if opacus is not None:
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    op_rdp_ours = opacus["compute_rdp"](q=q, noise_multiplier=sigma, steps=1, orders=orders)
                    op_rdp_default = opacus["compute_rdp"](
                        q=q, noise_multiplier=sigma, steps=1, orders=OPACUS_DEFAULT_ALPHAS
                    )
                print(f"opacus q={q} sigma={sigma}: {time.perf_counter() - t0:.1f}s", file=sys.stderr)
            for steps in STEPS:
                for delta in DELTAS:
                    acc = rdp_mod.RdpAccountant()
                    acc.compose(
                        dp_event.SelfComposedDpEvent(
                            dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps
                        )
                    )
                    eps, order = acc.get_epsilon_and_optimal_order(delta)
                    case = {
                        "sample_rate": q,
                        "noise_multiplier": sigma,
                        "steps": steps,
                        "delta": delta,
                        "epsilon_dp_accounting": float(eps),
                        "order_dp_accounting": float(order),
                    }
                    if opacus is not None:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            e1, o1 = opacus["get_privacy_spent"](
                                orders=orders, rdp=np.asarray(op_rdp_ours) * steps, delta=delta
                            )
                            e2, o2 = opacus["get_privacy_spent"](
                                orders=OPACUS_DEFAULT_ALPHAS, rdp=np.asarray(op_rdp_default) * steps, delta=delta
                            )
                        case["epsilon_opacus_same_orders"] = float(e1)
                        case["order_opacus_same_orders"] = float(o1)
                        case["epsilon_opacus_default_alphas"] = float(e2)
                        case["order_opacus_default_alphas"] = float(o2)
                    cases.append(case)

    golden = {
        "about": (
            "DP-SGD epsilons (Poisson sampling, add/remove-one) from published accountants, written by "
            "tools/make_accountant_golden.py. rdp values: null means +inf (dp_accounting's fractional series "
            "did not converge; that order is unused)."
        ),
        "dp_accounting_version": importlib.metadata.version("dp-accounting"),
        "opacus_version": args.opacus_version if opacus is not None else None,
        "orders": orders,
        "opacus_default_alphas": OPACUS_DEFAULT_ALPHAS,
        "curves": curves,
        "cases": cases,
    }
    out = os.path.abspath(args.out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(golden, f, indent=1, allow_nan=False)
        f.write("\n")
    print(f"wrote {len(cases)} cases to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
