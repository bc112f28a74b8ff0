"""Estimators (scikit-learn API): ``fit(X, y, *, sensitive_features) -> self``; every one reports ``privacy_spent_``.

Functional mechanism (replace-one neighbours): LogisticRegression and FairLogisticRegression (non-private
baselines), FunctionalMechanismLR (PrivLR; Laplace or relaxed Gaussian), FairFunctionalMechanismLR (the library's
DP + fair default), PFLR, PFLRStar, PDFC, ADFC.
DP-SGD (add/remove neighbours, Poisson sampling): DPSGDClassifier, DPSGDFClassifier, NaiveReweightedDPSGDClassifier,
FairDPClassifier, ConstrainedDPSGDClassifier (their default budget: ε = 1). Exponential mechanism:
ExponentialMechanismFairLearner.
"""

from ._base import DPClassifierBase, NotFittedError, TrainingDivergedError
from .ding import ADFC, PDFC
from .dpsgd import DPSGDClassifier, DPSGDFClassifier, NaiveReweightedDPSGDClassifier
from .exponential import ExponentialMechanismFairLearner
from .fairdp import FairDPCertificate, FairDPClassifier, fairdp_certificate_bound
from .functional import PFLR, FairFunctionalMechanismLR, FunctionalMechanismLR, PFLRStar
from .logistic import FairLogisticRegression, LogisticRegression

__all__ = [
    "ADFC",
    "DPClassifierBase",
    "DPSGDClassifier",
    "DPSGDFClassifier",
    "ExponentialMechanismFairLearner",
    "FairDPCertificate",
    "FairDPClassifier",
    "FairFunctionalMechanismLR",
    "FairLogisticRegression",
    "FunctionalMechanismLR",
    "LogisticRegression",
    "NaiveReweightedDPSGDClassifier",
    "NotFittedError",
    "PDFC",
    "PFLR",
    "PFLRStar",
    "TrainingDivergedError",
    "fairdp_certificate_bound",
]
from .constrained import ConstrainedDPSGDClassifier  # noqa: E402  (fairness-constrained DP-SGD, issue 12)

__all__ += ["ConstrainedDPSGDClassifier"]
