"""dpfair_native: classifiers that are differentially private and fair at once, with a C++ core.

Modules: ``models`` (estimators), ``kernels`` (native kernels with NumPy twins), ``domain`` (declared feature
domains and sensitivities), ``mechanisms`` (noise), ``accountants`` (privacy accounting), ``metrics`` (performance
and fairness, fairlearn-compatible), ``datasets`` (bundled Adult, synthetic data).
"""

__version__ = "0.1.0"

from . import accountants, datasets, domain, kernels, mechanisms, metrics, models  # noqa: E402

__all__ = ["accountants", "datasets", "domain", "kernels", "mechanisms", "metrics", "models", "__version__"]
